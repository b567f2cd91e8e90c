/*-------------------------------------------------------------------------
 *
 * msg_create_partitions.c
 *	  CreatePartitions' request and response (Kafka 3.9: versions 0-3,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * The versions differ only in encoding: v1 changed how quotas throttle,
 * v2 is flexible, v3 is v2 (KIP-599's throttling).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_create_partitions.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField assignment_fields[] = {
	{"BrokerIds", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(KafkaCreatePartitionsAssignment, broker_ids, nbroker_ids)},
};

static const KafkaSchema assignment_schema =
KAFKA_SCHEMA("CreatePartitionsAssignment", KafkaCreatePartitionsAssignment,
			 assignment_fields);

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsTopic, name)},
	{"Count", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsTopic, count)},
	{"Assignments", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreatePartitionsTopic, assignments, nassignments),
	.schema = &assignment_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("CreatePartitionsTopic", KafkaCreatePartitionsTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreatePartitionsRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
	{"TimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsRequest, timeout_ms)},
	{"ValidateOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsRequest, validate_only)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("CreatePartitionsRequest", KafkaCreatePartitionsRequest,
			 request_fields);

static const KafkaField result_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsTopicResult, name)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsTopicResult, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsTopicResult, error_message), .def_null = true},
};

static const KafkaSchema result_schema =
KAFKA_SCHEMA("CreatePartitionsTopicResult", KafkaCreatePartitionsTopicResult,
			 result_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaCreatePartitionsResponse, throttle_time_ms)},
	{"Results", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaCreatePartitionsResponse, results, nresults),
	.schema = &result_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("CreatePartitionsResponse", KafkaCreatePartitionsResponse,
			 response_fields);

const KafkaMessage kafka_create_partitions_request = {
	"CreatePartitionsRequest", KAFKA_API_CREATE_PARTITIONS, 0, 3, 2,
	&request_schema
};

const KafkaMessage kafka_create_partitions_response = {
	"CreatePartitionsResponse", KAFKA_API_CREATE_PARTITIONS, 0, 3, 2,
	&response_schema
};
