/*-------------------------------------------------------------------------
 *
 * msg_alter_configs.c
 *	  AlterConfigs' request and response (Kafka 3.9: versions 0-2,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * v1 changes only throttling, v2 is flexible.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_alter_configs.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField config_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterableConfig, name)},
	{"Value", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaAlterableConfig, value)},
};

static const KafkaSchema config_schema =
KAFKA_SCHEMA("AlterableConfig", KafkaAlterableConfig, config_fields);

static const KafkaField resource_fields[] = {
	{"ResourceType", KAFKA_TYPE_INT8, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResource, resource_type)},
	{"ResourceName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsResource, resource_name)},
	{"Configs", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaAlterConfigsResource, configs, nconfigs),
	.schema = &config_schema},
};

static const KafkaSchema resource_schema =
KAFKA_SCHEMA("AlterConfigsResource", KafkaAlterConfigsResource,
			 resource_fields);

static const KafkaField request_fields[] = {
	{"Resources", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaAlterConfigsRequest, resources, nresources),
	.flags = KAFKA_FIELD_COUNTED, .schema = &resource_schema},
	{"ValidateOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAlterConfigsRequest, validate_only)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("AlterConfigsRequest", KafkaAlterConfigsRequest, request_fields);

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
KAFKA_SCHEMA("AlterConfigsResponse", KafkaAlterConfigsResponse,
			 response_fields);

const KafkaMessage kafka_alter_configs_request = {
	"AlterConfigsRequest", KAFKA_API_ALTER_CONFIGS, 0, 2, 2,
	&request_schema
};

const KafkaMessage kafka_alter_configs_response = {
	"AlterConfigsResponse", KAFKA_API_ALTER_CONFIGS, 0, 2, 2,
	&response_schema
};
