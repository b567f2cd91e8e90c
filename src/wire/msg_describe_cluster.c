/*-------------------------------------------------------------------------
 *
 * msg_describe_cluster.c
 *	  DescribeCluster's request and response (Kafka 3.9: versions 0-1,
 *	  flexible from 0) and DescribeLogDirs' (versions 0-4, flexible from
 *	  2), for the schema codec (schema.h).
 *
 * DescribeCluster v1 adds the endpoint type (brokers or controllers).
 * DescribeLogDirs v1 changed how quotas throttle, v2 is flexible, v3 adds
 * a top-level error code, v4 each log directory's total and usable bytes.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_describe_cluster.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField cluster_request_fields[] = {
	{"IncludeClusterAuthorizedOperations", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterRequest, include_cluster_authorized_operations)},
	{"EndpointType", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeClusterRequest, endpoint_type), .def = 1},
};

static const KafkaSchema cluster_request_schema =
KAFKA_SCHEMA("DescribeClusterRequest", KafkaDescribeClusterRequest,
			 cluster_request_fields);

static const KafkaField broker_fields[] = {
	{"BrokerId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterBroker, broker_id)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterBroker, host)},
	{"Port", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterBroker, port)},
	{"Rack", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeClusterBroker, rack), .def_null = true},
};

static const KafkaSchema broker_schema =
KAFKA_SCHEMA("DescribeClusterBroker", KafkaDescribeClusterBroker,
			 broker_fields);

static const KafkaField cluster_response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterResponse, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaDescribeClusterResponse, error_message), .def_null = true},
	{"EndpointType", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDescribeClusterResponse, endpoint_type), .def = 1},
	{"ClusterId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterResponse, cluster_id)},
	{"ControllerId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeClusterResponse, controller_id), .def = -1},
	{"Brokers", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeClusterResponse, brokers, nbrokers),
	.schema = &broker_schema},
	{"ClusterAuthorizedOperations", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
		KAFKA_AT(KafkaDescribeClusterResponse, cluster_authorized_operations),
	.def = PG_INT32_MIN},
};

static const KafkaSchema cluster_response_schema =
KAFKA_SCHEMA("DescribeClusterResponse", KafkaDescribeClusterResponse,
			 cluster_response_fields);

const KafkaMessage kafka_describe_cluster_request = {
	"DescribeClusterRequest", KAFKA_API_DESCRIBE_CLUSTER, 0, 1, 0,
	&cluster_request_schema
};

const KafkaMessage kafka_describe_cluster_response = {
	"DescribeClusterResponse", KAFKA_API_DESCRIBE_CLUSTER, 0, 1, 0,
	&cluster_response_schema
};

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
