/*-------------------------------------------------------------------------
 *
 * msg_find_coordinator.h
 *	  FindCoordinator (API key 10), versions 0-5, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_find_coordinator.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_FIND_COORDINATOR_H
#define TOPIC_WIRE_MSG_FIND_COORDINATOR_H

#include "pg_topics/wire/schema.h"

/* v0-3 ask for one key, v4+ for several (coordinator_keys) */
typedef struct KafkaFindCoordinatorRequest
{
	KafkaBytes	key;			/* v0-3: the group or transactional id */
	int8		key_type;		/* v1+: KAFKA_COORDINATOR_* */
	int32		ncoordinator_keys;	/* v4+ */
	KafkaBytes *coordinator_keys;
} KafkaFindCoordinatorRequest;

/* One key's coordinator (v4+) */
typedef struct KafkaCoordinator
{
	KafkaBytes	key;
	int32		node_id;
	KafkaBytes	host;
	int32		port;
	int16		error_code;
	KafkaBytes	error_message;	/* null */
} KafkaCoordinator;

typedef struct KafkaFindCoordinatorResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int16		error_code;		/* v0-3 */
	KafkaBytes	error_message;	/* v1-3, null */
	int32		node_id;		/* v0-3 */
	KafkaBytes	host;			/* v0-3 */
	int32		port;			/* v0-3 */
	int32		ncoordinators;	/* v4+ */
	KafkaCoordinator *coordinators;
} KafkaFindCoordinatorResponse;

extern const KafkaMessage kafka_find_coordinator_request;
extern const KafkaMessage kafka_find_coordinator_response;

#endif							/* TOPIC_WIRE_MSG_FIND_COORDINATOR_H */
