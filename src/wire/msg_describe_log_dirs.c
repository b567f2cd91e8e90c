/*-------------------------------------------------------------------------
 *
 * msg_describe_log_dirs.c
 *	  DescribeLogDirs' request and response (Kafka 3.9: versions 0-4,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * v1 changed how quotas throttle, v2 is flexible, v3 adds a top-level
 * error code, v4 each log directory's total and usable bytes.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_describe_log_dirs.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField dirs_request_topic_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribableLogDirTopic, topic)},
	{"Partitions", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribableLogDirTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema dirs_request_topic_schema =
KAFKA_SCHEMA("DescribableLogDirTopic", KafkaDescribableLogDirTopic,
			 dirs_request_topic_fields);

static const KafkaField dirs_request_fields[] = {
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeLogDirsRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &dirs_request_topic_schema},
};

static const KafkaSchema dirs_request_schema =
KAFKA_SCHEMA("DescribeLogDirsRequest", KafkaDescribeLogDirsRequest,
			 dirs_request_fields);

static const KafkaField dirs_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsPartition, partition_index)},
	{"PartitionSize", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsPartition, partition_size)},
	{"OffsetLag", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsPartition, offset_lag)},
	{"IsFutureKey", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsPartition, is_future_key)},
};

static const KafkaSchema dirs_partition_schema =
KAFKA_SCHEMA("DescribeLogDirsPartition", KafkaDescribeLogDirsPartition,
			 dirs_partition_fields);

static const KafkaField dirs_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeLogDirsTopic, partitions, npartitions),
	.schema = &dirs_partition_schema},
};

static const KafkaSchema dirs_topic_schema =
KAFKA_SCHEMA("DescribeLogDirsTopic", KafkaDescribeLogDirsTopic,
			 dirs_topic_fields);

static const KafkaField dirs_result_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsResult, error_code)},
	{"LogDir", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsResult, log_dir)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeLogDirsResult, topics, ntopics),
	.schema = &dirs_topic_schema},
	{"TotalBytes", KAFKA_TYPE_INT64, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaDescribeLogDirsResult, total_bytes), .def = -1},
	{"UsableBytes", KAFKA_TYPE_INT64, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaDescribeLogDirsResult, usable_bytes), .def = -1},
};

static const KafkaSchema dirs_result_schema =
KAFKA_SCHEMA("DescribeLogDirsResult", KafkaDescribeLogDirsResult,
			 dirs_result_fields);

static const KafkaField dirs_response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeLogDirsResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaDescribeLogDirsResponse, error_code)},
	{"Results", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeLogDirsResponse, results, nresults),
	.schema = &dirs_result_schema},
};

static const KafkaSchema dirs_response_schema =
KAFKA_SCHEMA("DescribeLogDirsResponse", KafkaDescribeLogDirsResponse,
			 dirs_response_fields);

const KafkaMessage kafka_describe_log_dirs_request = {
	"DescribeLogDirsRequest", KAFKA_API_DESCRIBE_LOG_DIRS, 0, 4, 2,
	&dirs_request_schema
};

const KafkaMessage kafka_describe_log_dirs_response = {
	"DescribeLogDirsResponse", KAFKA_API_DESCRIBE_LOG_DIRS, 0, 4, 2,
	&dirs_response_schema
};
