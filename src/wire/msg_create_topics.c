/*-------------------------------------------------------------------------
 *
 * msg_create_topics.c
 *	  CreateTopics' request and response (Kafka 3.9: versions 0-7, flexible
 *	  from 5), for the schema codec (schema.h).
 *
 * v1 adds ValidateOnly and each topic's error message, v2 the throttle
 * time, v3 and v4 change only throttling and defaults, v5 is flexible and
 * answers each topic's partitions, replication factor and configs (and a
 * tagged TopicConfigErrorCode), v6 changes only quotas (KIP-599), v7 adds
 * the topic id.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_create_topics.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField assignment_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableReplicaAssignment, partition_index)},
	{"BrokerIds", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(KafkaCreatableReplicaAssignment, broker_ids, nbroker_ids)},
};

static const KafkaSchema assignment_schema =
KAFKA_SCHEMA("CreatableReplicaAssignment", KafkaCreatableReplicaAssignment,
			 assignment_fields);

static const KafkaField config_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableTopicConfig, name)},
	{"Value", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaCreatableTopicConfig, value)},
};

static const KafkaSchema config_schema =
KAFKA_SCHEMA("CreatableTopicConfig", KafkaCreatableTopicConfig, config_fields);

static const KafkaField topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableTopic, name)},
	{"NumPartitions", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableTopic, num_partitions)},
	{"ReplicationFactor", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableTopic, replication_factor)},
	{"Assignments", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreatableTopic, assignments, nassignments),
	.schema = &assignment_schema},
	{"Configs", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreatableTopic, configs, nconfigs),
	.schema = &config_schema},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("CreatableTopic", KafkaCreatableTopic, topic_fields);

static const KafkaField request_fields[] = {
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreateTopicsRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_schema},
	{"TimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreateTopicsRequest, timeout_ms), .def = 60000},
	{"ValidateOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaCreateTopicsRequest, validate_only)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("CreateTopicsRequest", KafkaCreateTopicsRequest, request_fields);

static const KafkaField result_config_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaCreatableTopicConfigs, name)},
	{"Value", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaCreatableTopicConfigs, value)},
	{"ReadOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaCreatableTopicConfigs, read_only)},
	{"ConfigSource", KAFKA_TYPE_INT8, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaCreatableTopicConfigs, config_source), .def = -1},
	{"IsSensitive", KAFKA_TYPE_BOOL, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaCreatableTopicConfigs, is_sensitive)},
};

static const KafkaSchema result_config_schema =
KAFKA_SCHEMA("CreatableTopicConfigs", KafkaCreatableTopicConfigs,
			 result_config_fields);

static const KafkaField result_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableTopicResult, name)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaCreatableTopicResult, topic_id)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatableTopicResult, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(1), KAFKA_NULLABLE_FROM(1),
	KAFKA_AT(KafkaCreatableTopicResult, error_message)},
	{"NumPartitions", KAFKA_TYPE_INT32, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaCreatableTopicResult, num_partitions), .def = -1},
	{"ReplicationFactor", KAFKA_TYPE_INT16, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaCreatableTopicResult, replication_factor), .def = -1},
	{"Configs", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
		KAFKA_ARRAY_AT(KafkaCreatableTopicResult, configs, nconfigs),
	.def_null = true, .schema = &result_config_schema},
	{"TopicConfigErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(5), KAFKA_TAGGED(0, 5),
	KAFKA_AT(KafkaCreatableTopicResult, topic_config_error_code)},
};

static const KafkaSchema result_schema =
KAFKA_SCHEMA("CreatableTopicResult", KafkaCreatableTopicResult, result_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaCreateTopicsResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreateTopicsResponse, topics, ntopics),
	.schema = &result_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("CreateTopicsResponse", KafkaCreateTopicsResponse,
			 response_fields);

const KafkaMessage kafka_create_topics_request = {
	"CreateTopicsRequest", KAFKA_API_CREATE_TOPICS, 0, 7, 5,
	&request_schema
};

const KafkaMessage kafka_create_topics_response = {
	"CreateTopicsResponse", KAFKA_API_CREATE_TOPICS, 0, 7, 5,
	&response_schema
};
