/*-------------------------------------------------------------------------
 *
 * msg_api_versions.c
 *	  ApiVersions' request and response (Kafka 3.9: versions 0-4, flexible
 *	  from 3), for the schema codec (schema.h).
 *
 * Version 4 differs from 3 only in what a broker may list among its
 * supported features (KAFKA-17011).  The response's header stays v0 in
 * every version, so that a client that does not yet know the versions
 * can read it (kafka/request.c).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_api_versions.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"ClientSoftwareName", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaApiVersionsRequest, client_software_name)},
	{"ClientSoftwareVersion", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaApiVersionsRequest, client_software_version)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("ApiVersionsRequest", KafkaApiVersionsRequest, request_fields);

static const KafkaField api_version_fields[] = {
	{"ApiKey", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaApiVersion, api_key)},
	{"MinVersion", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaApiVersion, min_version)},
	{"MaxVersion", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaApiVersion, max_version)},
};

static const KafkaSchema api_version_schema =
KAFKA_SCHEMA("ApiVersion", KafkaApiVersion, api_version_fields);

static const KafkaField supported_feature_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaSupportedFeature, name)},
	{"MinVersion", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaSupportedFeature, min_version)},
	{"MaxVersion", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaSupportedFeature, max_version)},
};

static const KafkaSchema supported_feature_schema =
KAFKA_SCHEMA("SupportedFeatureKey", KafkaSupportedFeature,
			 supported_feature_fields);

static const KafkaField finalized_feature_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaFinalizedFeature, name)},
	{"MaxVersionLevel", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaFinalizedFeature, max_version_level)},
	{"MinVersionLevel", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaFinalizedFeature, min_version_level)},
};

static const KafkaSchema finalized_feature_schema =
KAFKA_SCHEMA("FinalizedFeatureKey", KafkaFinalizedFeature,
			 finalized_feature_fields);

static const KafkaField response_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaApiVersionsResponse, error_code)},
	{"ApiKeys", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaApiVersionsResponse, api_keys, napi_keys),
	.schema = &api_version_schema},
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaApiVersionsResponse, throttle_time_ms)},
	{"SupportedFeatures", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(3), KAFKA_TAGGED(0, 3),
		KAFKA_ARRAY_AT(KafkaApiVersionsResponse, supported_features,
					   nsupported_features),
	.schema = &supported_feature_schema},
	{"FinalizedFeaturesEpoch", KAFKA_TYPE_INT64, KAFKA_V_FROM(3),
		KAFKA_TAGGED(1, 3),
	KAFKA_AT(KafkaApiVersionsResponse, finalized_features_epoch), .def = -1},
	{"FinalizedFeatures", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(3), KAFKA_TAGGED(2, 3),
		KAFKA_ARRAY_AT(KafkaApiVersionsResponse, finalized_features,
					   nfinalized_features),
	.schema = &finalized_feature_schema},
	{"ZkMigrationReady", KAFKA_TYPE_BOOL, KAFKA_V_FROM(3), KAFKA_TAGGED(3, 3),
	KAFKA_AT(KafkaApiVersionsResponse, zk_migration_ready)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("ApiVersionsResponse", KafkaApiVersionsResponse, response_fields);

const KafkaMessage kafka_api_versions_request = {
	"ApiVersionsRequest", KAFKA_API_API_VERSIONS, 0, 4, 3, &request_schema
};

const KafkaMessage kafka_api_versions_response = {
	"ApiVersionsResponse", KAFKA_API_API_VERSIONS, 0, 4, 3, &response_schema
};
