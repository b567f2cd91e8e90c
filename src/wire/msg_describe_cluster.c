/*-------------------------------------------------------------------------
 *
 * msg_describe_cluster.c
 *	  DescribeCluster's request and response (Kafka 3.9: versions 0-1,
 *	  flexible from 0), for the schema codec (schema.h).
 *
 * v1 adds the endpoint type (brokers or controllers).
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
