/*-------------------------------------------------------------------------
 *
 * msg_delete_records.c
 *	  DeleteRecords' request and response (Kafka 3.9: versions 0-2,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * The versions differ only in encoding: v1 changed how quotas throttle,
 * v2 is flexible.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_delete_records.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsPartition, partition_index)},
	{"Offset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsPartition, offset)},
};

static const KafkaSchema request_partition_schema =
KAFKA_SCHEMA("DeleteRecordsPartition", KafkaDeleteRecordsPartition,
			 request_partition_fields);

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteRecordsTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_partition_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("DeleteRecordsTopic", KafkaDeleteRecordsTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteRecordsRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
	{"TimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsRequest, timeout_ms)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DeleteRecordsRequest", KafkaDeleteRecordsRequest,
			 request_fields);

static const KafkaField partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsPartitionResult, partition_index)},
	{"LowWatermark", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsPartitionResult, low_watermark)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsPartitionResult, error_code)},
};

static const KafkaSchema partition_schema =
KAFKA_SCHEMA("DeleteRecordsPartitionResult", KafkaDeleteRecordsPartitionResult,
			 partition_fields);

static const KafkaField topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsTopicResult, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteRecordsTopicResult, partitions, npartitions),
	.schema = &partition_schema},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("DeleteRecordsTopicResult", KafkaDeleteRecordsTopicResult,
			 topic_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteRecordsResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteRecordsResponse, topics, ntopics),
	.schema = &topic_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DeleteRecordsResponse", KafkaDeleteRecordsResponse,
			 response_fields);

const KafkaMessage kafka_delete_records_request = {
	"DeleteRecordsRequest", KAFKA_API_DELETE_RECORDS, 0, 2, 2, &request_schema
};

const KafkaMessage kafka_delete_records_response = {
	"DeleteRecordsResponse", KAFKA_API_DELETE_RECORDS, 0, 2, 2, &response_schema
};
