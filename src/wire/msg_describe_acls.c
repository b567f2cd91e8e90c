/*-------------------------------------------------------------------------
 *
 * msg_describe_acls.c
 *	  DescribeAcls' request and response (Kafka 3.9: versions 0-3,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * v1 adds pattern types, v2 is flexible, v3 allows the user resource type.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_describe_acls.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"ResourceTypeFilter", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsRequest, resource_type_filter)},
	{"ResourceNameFilter", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeAclsRequest, resource_name_filter)},
	{"PatternTypeFilter", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeAclsRequest, pattern_type_filter), .def = 3},
	{"PrincipalFilter", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeAclsRequest, principal_filter)},
	{"HostFilter", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeAclsRequest, host_filter)},
	{"Operation", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsRequest, operation)},
	{"PermissionType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsRequest, permission_type)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DescribeAclsRequest", KafkaDescribeAclsRequest, request_fields);

static const KafkaField acl_fields[] = {
	{"Principal", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAclDescription, principal)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAclDescription, host)},
	{"Operation", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAclDescription, operation)},
	{"PermissionType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAclDescription, permission_type)},
};

static const KafkaSchema acl_schema =
KAFKA_SCHEMA("AclDescription", KafkaAclDescription, acl_fields);

static const KafkaField resource_fields[] = {
	{"ResourceType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsResource, resource_type)},
	{"ResourceName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsResource, resource_name)},
	{"PatternType", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeAclsResource, pattern_type), .def = 3},
	{"Acls", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeAclsResource, acls, nacls),
	.schema = &acl_schema},
};

static const KafkaSchema resource_schema =
KAFKA_SCHEMA("DescribeAclsResource", KafkaDescribeAclsResource,
			 resource_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeAclsResponse, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeAclsResponse, error_message), .def_null = true},
	{"Resources", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeAclsResponse, resources, nresources),
	.schema = &resource_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DescribeAclsResponse", KafkaDescribeAclsResponse,
			 response_fields);

const KafkaMessage kafka_describe_acls_request = {
	"DescribeAclsRequest", KAFKA_API_DESCRIBE_ACLS, 0, 3, 2, &request_schema
};

const KafkaMessage kafka_describe_acls_response = {
	"DescribeAclsResponse", KAFKA_API_DESCRIBE_ACLS, 0, 3, 2, &response_schema
};
