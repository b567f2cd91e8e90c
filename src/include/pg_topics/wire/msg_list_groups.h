/*-------------------------------------------------------------------------
 *
 * msg_list_groups.h
 *	  ListGroups (API key 16), versions 0-5, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_list_groups.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_LIST_GROUPS_H
#define TOPIC_WIRE_MSG_LIST_GROUPS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaListGroupsRequest
{
	int32		nstates_filter; /* v4+ */
	KafkaBytes *states_filter;
	int32		ntypes_filter;	/* v5+ */
	KafkaBytes *types_filter;
} KafkaListGroupsRequest;

typedef struct KafkaListedGroup
{
	KafkaBytes	group_id;
	KafkaBytes	protocol_type;
	KafkaBytes	group_state;	/* v4+ */
	KafkaBytes	group_type;		/* v5+ */
} KafkaListedGroup;

typedef struct KafkaListGroupsResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int16		error_code;
	int32		ngroups;
	KafkaListedGroup *groups;
} KafkaListGroupsResponse;

extern const KafkaMessage kafka_list_groups_request;
extern const KafkaMessage kafka_list_groups_response;

#endif							/* TOPIC_WIRE_MSG_LIST_GROUPS_H */
