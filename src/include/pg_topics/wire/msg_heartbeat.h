/*-------------------------------------------------------------------------
 *
 * msg_heartbeat.h
 *	  Heartbeat (API key 12), versions 0-4, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_heartbeat.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_HEARTBEAT_H
#define TOPIC_WIRE_MSG_HEARTBEAT_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaHeartbeatRequest
{
	KafkaBytes	group_id;
	int32		generation_id;
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v3+, null */
} KafkaHeartbeatRequest;

typedef struct KafkaHeartbeatResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int16		error_code;
} KafkaHeartbeatResponse;

extern const KafkaMessage kafka_heartbeat_request;
extern const KafkaMessage kafka_heartbeat_response;

#endif							/* TOPIC_WIRE_MSG_HEARTBEAT_H */
