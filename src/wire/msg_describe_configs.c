/*-------------------------------------------------------------------------
 *
 * msg_describe_configs.c
 *	  DescribeConfigs' request and response (Kafka 3.9: versions 0-4,
 *	  flexible from 4), for the schema codec (schema.h).
 *
 * v1 adds IncludeSynonyms, each config's source and its synonyms (and
 * drops IsDefault, which the source says), v2 changes only throttling, v3
 * adds IncludeDocumentation and each config's type and documentation, v4
 * is flexible.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_describe_configs.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField resource_fields[] = {
	{"ResourceType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResource, resource_type)},
	{"ResourceName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResource, resource_name)},
	{"ConfigurationKeys", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_ARRAY_AT(KafkaDescribeConfigsResource, configuration_keys, nconfiguration_keys)},
};

static const KafkaSchema resource_schema =
KAFKA_SCHEMA("DescribeConfigsResource", KafkaDescribeConfigsResource,
			 resource_fields);

static const KafkaField request_fields[] = {
	{"Resources", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeConfigsRequest, resources, nresources),
	.flags = KAFKA_FIELD_COUNTED, .schema = &resource_schema},
	{"IncludeSynonyms", KAFKA_TYPE_BOOL, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeConfigsRequest, include_synonyms)},
	{"IncludeDocumentation", KAFKA_TYPE_BOOL, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaDescribeConfigsRequest, include_documentation)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DescribeConfigsRequest", KafkaDescribeConfigsRequest,
			 request_fields);

static const KafkaField synonym_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeConfigsSynonym, name)},
	{"Value", KAFKA_TYPE_STRING, KAFKA_V_FROM(1), KAFKA_NULLABLE_FROM(1),
	KAFKA_AT(KafkaDescribeConfigsSynonym, value)},
	{"Source", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeConfigsSynonym, source)},
};

static const KafkaSchema synonym_schema =
KAFKA_SCHEMA("DescribeConfigsSynonym", KafkaDescribeConfigsSynonym,
			 synonym_fields);

static const KafkaField config_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, name)},
	{"Value", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, value)},
	{"ReadOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, read_only)},
	{"IsDefault", KAFKA_TYPE_BOOL, KAFKA_V(0, 0),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, is_default)},
	{"ConfigSource", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, config_source), .def = -1},
	{"IsSensitive", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, is_sensitive)},
	{"Synonyms", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(1),
		KAFKA_ARRAY_AT(KafkaDescribeConfigsResourceResult, synonyms, nsynonyms),
	.schema = &synonym_schema},
	{"ConfigType", KAFKA_TYPE_INT8, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, config_type)},
	{"Documentation", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaDescribeConfigsResourceResult, documentation)},
};

static const KafkaSchema config_schema =
KAFKA_SCHEMA("DescribeConfigsResourceResult", KafkaDescribeConfigsResourceResult,
			 config_fields);

static const KafkaField result_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResult, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResult, error_message)},
	{"ResourceType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResult, resource_type)},
	{"ResourceName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResult, resource_name)},
	{"Configs", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeConfigsResult, configs, nconfigs),
	.schema = &config_schema},
};

static const KafkaSchema result_schema =
KAFKA_SCHEMA("DescribeConfigsResult", KafkaDescribeConfigsResult,
			 result_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeConfigsResponse, throttle_time_ms)},
	{"Results", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeConfigsResponse, results, nresults),
	.schema = &result_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DescribeConfigsResponse", KafkaDescribeConfigsResponse,
			 response_fields);

const KafkaMessage kafka_describe_configs_request = {
	"DescribeConfigsRequest", KAFKA_API_DESCRIBE_CONFIGS, 0, 4, 4,
	&request_schema
};

const KafkaMessage kafka_describe_configs_response = {
	"DescribeConfigsResponse", KAFKA_API_DESCRIBE_CONFIGS, 0, 4, 4,
	&response_schema
};
