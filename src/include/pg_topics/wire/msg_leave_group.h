/*-------------------------------------------------------------------------
 *
 * msg_leave_group.h
 *	  LeaveGroup (API key 13), versions 0-5, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_leave_group.c).
 *
 * v0-2 name one member; v3+ a batch of members, each by member id or
 * group instance id (KIP-345), answered one by one.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_LEAVE_GROUP_H
#define TOPIC_WIRE_MSG_LEAVE_GROUP_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaLeaveGroupMemberIdentity
{
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* null */
	KafkaBytes	reason;			/* v5+, null */
} KafkaLeaveGroupMemberIdentity;

typedef struct KafkaLeaveGroupRequest
{
	KafkaBytes	group_id;
	KafkaBytes	member_id;		/* v0-2 */
	int32		nmembers;		/* v3+ */
	KafkaLeaveGroupMemberIdentity *members;
} KafkaLeaveGroupRequest;

typedef struct KafkaLeaveGroupMemberResponse
{
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* null */
	int16		error_code;
} KafkaLeaveGroupMemberResponse;

typedef struct KafkaLeaveGroupResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int16		error_code;
	int32		nmembers;		/* v3+ */
	KafkaLeaveGroupMemberResponse *members;
} KafkaLeaveGroupResponse;

extern const KafkaMessage kafka_leave_group_request;
extern const KafkaMessage kafka_leave_group_response;

#endif							/* TOPIC_WIRE_MSG_LEAVE_GROUP_H */
