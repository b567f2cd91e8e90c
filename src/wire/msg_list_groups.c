/*-------------------------------------------------------------------------
 *
 * msg_list_groups.c
 *	  ListGroups' request and response (Kafka 3.9: versions 0-5, flexible
 *	  from 3), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v4 a filter of states and each group's state
 * (KIP-518), v5 a filter of types and each group's type (KIP-848:
 * "classic" or "consumer").
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_list_groups.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"StatesFilter", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaListGroupsRequest, states_filter, nstates_filter),
	.flags = KAFKA_FIELD_COUNTED},
	{"TypesFilter", KAFKA_TYPE_STRING, KAFKA_V_FROM(5),
		KAFKA_ARRAY_AT(KafkaListGroupsRequest, types_filter, ntypes_filter),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("ListGroupsRequest", KafkaListGroupsRequest, request_fields);

static const KafkaField group_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListedGroup, group_id)},
	{"ProtocolType", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListedGroup, protocol_type)},
	{"GroupState", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaListedGroup, group_state)},
	{"GroupType", KAFKA_TYPE_STRING, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaListedGroup, group_type)},
};

static const KafkaSchema group_schema =
KAFKA_SCHEMA("ListedGroup", KafkaListedGroup, group_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaListGroupsResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListGroupsResponse, error_code)},
	{"Groups", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListGroupsResponse, groups, ngroups),
	.schema = &group_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("ListGroupsResponse", KafkaListGroupsResponse, response_fields);

const KafkaMessage kafka_list_groups_request = {
	"ListGroupsRequest", KAFKA_API_LIST_GROUPS, 0, 5, 3, &request_schema
};

const KafkaMessage kafka_list_groups_response = {
	"ListGroupsResponse", KAFKA_API_LIST_GROUPS, 0, 5, 3, &response_schema
};
