/*-------------------------------------------------------------------------
 *
 * msg_describe_groups.c
 *	  DescribeGroups' request and response (Kafka 3.9: versions 0-5,
 *	  flexible from 5), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v3 the authorized operations, v4 members'
 * group instance ids.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_describe_groups.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"Groups", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeGroupsRequest, groups, ngroups),
	.flags = KAFKA_FIELD_COUNTED},
	{"IncludeAuthorizedOperations", KAFKA_TYPE_BOOL, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaDescribeGroupsRequest, include_authorized_operations)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DescribeGroupsRequest", KafkaDescribeGroupsRequest,
			 request_fields);

static const KafkaField member_fields[] = {
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroupMember, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(4), KAFKA_NULLABLE_FROM(4),
	KAFKA_AT(KafkaDescribedGroupMember, group_instance_id), .def_null = true},
	{"ClientId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroupMember, client_id)},
	{"ClientHost", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroupMember, client_host)},
	{"MemberMetadata", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroupMember, member_metadata)},
	{"MemberAssignment", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroupMember, member_assignment)},
};

static const KafkaSchema member_schema =
KAFKA_SCHEMA("DescribedGroupMember", KafkaDescribedGroupMember, member_fields);

static const KafkaField group_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroup, error_code)},
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroup, group_id)},
	{"GroupState", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroup, group_state)},
	{"ProtocolType", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroup, protocol_type)},
	{"ProtocolData", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedGroup, protocol_data)},
	{"Members", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribedGroup, members, nmembers),
	.schema = &member_schema},
	{"AuthorizedOperations", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaDescribedGroup, authorized_operations), .def = PG_INT32_MIN},
};

static const KafkaSchema group_schema =
KAFKA_SCHEMA("DescribedGroup", KafkaDescribedGroup, group_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeGroupsResponse, throttle_time_ms)},
	{"Groups", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeGroupsResponse, groups, ngroups),
	.schema = &group_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DescribeGroupsResponse", KafkaDescribeGroupsResponse,
			 response_fields);

const KafkaMessage kafka_describe_groups_request = {
	"DescribeGroupsRequest", KAFKA_API_DESCRIBE_GROUPS, 0, 5, 5, &request_schema
};

const KafkaMessage kafka_describe_groups_response = {
	"DescribeGroupsResponse", KAFKA_API_DESCRIBE_GROUPS, 0, 5, 5, &response_schema
};
