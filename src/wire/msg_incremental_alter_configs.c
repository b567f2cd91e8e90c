/*-------------------------------------------------------------------------
 *
 * msg_incremental_alter_configs.c
 *	  IncrementalAlterConfigs' request and response (Kafka 3.9: versions
 *	  0-1, flexible from 1), for the schema codec (schema.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_incremental_alter_configs.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField config_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaIncrementalAlterableConfig, name)},
	{"ConfigOperation", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaIncrementalAlterableConfig, config_operation)},
	{"Value", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaIncrementalAlterableConfig, value)},
};

static const KafkaSchema config_schema =
KAFKA_SCHEMA("AlterableConfig", KafkaIncrementalAlterableConfig,
			 config_fields);

static const KafkaField resource_fields[] = {
	{"ResourceType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaIncrementalAlterConfigsResource, resource_type)},
	{"ResourceName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaIncrementalAlterConfigsResource, resource_name)},
	{"Configs", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaIncrementalAlterConfigsResource, configs, nconfigs),
	.schema = &config_schema},
};

static const KafkaSchema resource_schema =
KAFKA_SCHEMA("AlterConfigsResource", KafkaIncrementalAlterConfigsResource,
			 resource_fields);

static const KafkaField request_fields[] = {
	{"Resources", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaIncrementalAlterConfigsRequest, resources, nresources),
	.flags = KAFKA_FIELD_COUNTED, .schema = &resource_schema},
	{"ValidateOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaIncrementalAlterConfigsRequest, validate_only)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("IncrementalAlterConfigsRequest",
			 KafkaIncrementalAlterConfigsRequest, request_fields);

static const KafkaField response_resource_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResourceResponse, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResourceResponse, error_message)},
	{"ResourceType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResourceResponse, resource_type)},
	{"ResourceName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResourceResponse, resource_name)},
};

static const KafkaSchema response_resource_schema =
KAFKA_SCHEMA("AlterConfigsResourceResponse", KafkaAlterConfigsResourceResponse,
			 response_resource_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResponse, throttle_time_ms)},
	{"Responses", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaAlterConfigsResponse, responses, nresponses),
	.schema = &response_resource_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("IncrementalAlterConfigsResponse", KafkaAlterConfigsResponse,
			 response_fields);

const KafkaMessage kafka_incremental_alter_configs_request = {
	"IncrementalAlterConfigsRequest", KAFKA_API_INCREMENTAL_ALTER_CONFIGS,
	0, 1, 1, &request_schema
};

const KafkaMessage kafka_incremental_alter_configs_response = {
	"IncrementalAlterConfigsResponse", KAFKA_API_INCREMENTAL_ALTER_CONFIGS,
	0, 1, 1, &response_schema
};
