/*-------------------------------------------------------------------------
 *
 * msg_sync_group.h
 *	  SyncGroup (API key 14), versions 0-5, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_sync_group.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_SYNC_GROUP_H
#define TOPIC_WIRE_MSG_SYNC_GROUP_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaSyncGroupRequestAssignment
{
	KafkaBytes	member_id;
	KafkaBytes	assignment;
} KafkaSyncGroupRequestAssignment;

typedef struct KafkaSyncGroupRequest
{
	KafkaBytes	group_id;
	int32		generation_id;
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v3+, null */
	KafkaBytes	protocol_type;	/* v5+, null */
	KafkaBytes	protocol_name;	/* v5+, null */
	int32		nassignments;
	KafkaSyncGroupRequestAssignment *assignments;
} KafkaSyncGroupRequest;

typedef struct KafkaSyncGroupResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int16		error_code;
	KafkaBytes	protocol_type;	/* v5+, null */
	KafkaBytes	protocol_name;	/* v5+, null */
	KafkaBytes	assignment;
} KafkaSyncGroupResponse;

extern const KafkaMessage kafka_sync_group_request;
extern const KafkaMessage kafka_sync_group_response;

#endif							/* TOPIC_WIRE_MSG_SYNC_GROUP_H */
