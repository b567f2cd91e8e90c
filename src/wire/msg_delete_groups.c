/*-------------------------------------------------------------------------
 *
 * msg_delete_groups.c
 *	  DeleteGroups' request and response (Kafka 3.9: versions 0-2, flexible
 *	  from 2), for the schema codec (schema.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_delete_groups.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"GroupsNames", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteGroupsRequest, groups_names, ngroups_names),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DeleteGroupsRequest", KafkaDeleteGroupsRequest, request_fields);

static const KafkaField result_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeletableGroupResult, group_id)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeletableGroupResult, error_code)},
};

static const KafkaSchema result_schema =
KAFKA_SCHEMA("DeletableGroupResult", KafkaDeletableGroupResult, result_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteGroupsResponse, throttle_time_ms)},
	{"Results", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteGroupsResponse, results, nresults),
	.schema = &result_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DeleteGroupsResponse", KafkaDeleteGroupsResponse,
			 response_fields);

const KafkaMessage kafka_delete_groups_request = {
	"DeleteGroupsRequest", KAFKA_API_DELETE_GROUPS, 0, 2, 2, &request_schema
};

const KafkaMessage kafka_delete_groups_response = {
	"DeleteGroupsResponse", KAFKA_API_DELETE_GROUPS, 0, 2, 2, &response_schema
};
