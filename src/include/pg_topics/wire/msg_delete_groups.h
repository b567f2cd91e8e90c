/*-------------------------------------------------------------------------
 *
 * msg_delete_groups.h
 *	  DeleteGroups (API key 42), versions 0-2, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_delete_groups.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DELETE_GROUPS_H
#define TOPIC_WIRE_MSG_DELETE_GROUPS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaDeleteGroupsRequest
{
	int32		ngroups_names;
	KafkaBytes *groups_names;
} KafkaDeleteGroupsRequest;

typedef struct KafkaDeletableGroupResult
{
	KafkaBytes	group_id;
	int16		error_code;
} KafkaDeletableGroupResult;

typedef struct KafkaDeleteGroupsResponse
{
	int32		throttle_time_ms;
	int32		nresults;
	KafkaDeletableGroupResult *results;
} KafkaDeleteGroupsResponse;

extern const KafkaMessage kafka_delete_groups_request;
extern const KafkaMessage kafka_delete_groups_response;

#endif							/* TOPIC_WIRE_MSG_DELETE_GROUPS_H */
