/*-------------------------------------------------------------------------
 *
 * msg_describe_groups.h
 *	  DescribeGroups (API key 15), versions 0-5, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_describe_groups.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DESCRIBE_GROUPS_H
#define TOPIC_WIRE_MSG_DESCRIBE_GROUPS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaDescribeGroupsRequest
{
	int32		ngroups;
	KafkaBytes *groups;
	bool		include_authorized_operations;	/* v3+ */
} KafkaDescribeGroupsRequest;

typedef struct KafkaDescribedGroupMember
{
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v4+, null */
	KafkaBytes	client_id;
	KafkaBytes	client_host;
	KafkaBytes	member_metadata;
	KafkaBytes	member_assignment;
} KafkaDescribedGroupMember;

typedef struct KafkaDescribedGroup
{
	int16		error_code;
	KafkaBytes	group_id;
	KafkaBytes	group_state;
	KafkaBytes	protocol_type;
	KafkaBytes	protocol_data;
	int32		nmembers;
	KafkaDescribedGroupMember *members;
	int32		authorized_operations;	/* v3+, default INT32_MIN */
} KafkaDescribedGroup;

typedef struct KafkaDescribeGroupsResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int32		ngroups;
	KafkaDescribedGroup *groups;
} KafkaDescribeGroupsResponse;

extern const KafkaMessage kafka_describe_groups_request;
extern const KafkaMessage kafka_describe_groups_response;

#endif							/* TOPIC_WIRE_MSG_DESCRIBE_GROUPS_H */
