/*-------------------------------------------------------------------------
 *
 * msg_join_group.h
 *	  JoinGroup (API key 11), versions 0-9, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_join_group.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_JOIN_GROUP_H
#define TOPIC_WIRE_MSG_JOIN_GROUP_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaJoinGroupRequestProtocol
{
	KafkaBytes	name;
	KafkaBytes	metadata;
} KafkaJoinGroupRequestProtocol;

typedef struct KafkaJoinGroupRequest
{
	KafkaBytes	group_id;
	int32		session_timeout_ms;
	int32		rebalance_timeout_ms;	/* v1+, default -1 */
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v5+, null */
	KafkaBytes	protocol_type;
	int32		nprotocols;
	KafkaJoinGroupRequestProtocol *protocols;
	KafkaBytes	reason;			/* v8+, null */
} KafkaJoinGroupRequest;

typedef struct KafkaJoinGroupResponseMember
{
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v5+, null */
	KafkaBytes	metadata;
} KafkaJoinGroupResponseMember;

typedef struct KafkaJoinGroupResponse
{
	int32		throttle_time_ms;	/* v2+ */
	int16		error_code;
	int32		generation_id;	/* default -1 */
	KafkaBytes	protocol_type;	/* v7+, null */
	KafkaBytes	protocol_name;	/* null allowed v7+ */
	KafkaBytes	leader;
	bool		skip_assignment;	/* v9+ */
	KafkaBytes	member_id;
	int32		nmembers;
	KafkaJoinGroupResponseMember *members;
} KafkaJoinGroupResponse;

extern const KafkaMessage kafka_join_group_request;
extern const KafkaMessage kafka_join_group_response;

#endif							/* TOPIC_WIRE_MSG_JOIN_GROUP_H */
