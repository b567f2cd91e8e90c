/*-------------------------------------------------------------------------
 *
 * msg_metadata.c
 *	  Metadata's request and response (Kafka 3.9: versions 0-12, flexible
 *	  from 9), for the schema codec (schema.h).
 *
 * v1 makes a null topic list mean every topic (v0: an empty one), v4 adds
 * allow_auto_topic_creation, v8 the authorized operations, v10 topic ids,
 * v11 drops the cluster's authorized operations (DescribeCluster has
 * them), v12 lets a topic be asked for by id alone (its name null).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_metadata.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_topic_fields[] = {
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaMetadataRequestTopic, topic_id)},
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(10),
	KAFKA_AT(KafkaMetadataRequestTopic, name)},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("MetadataRequestTopic", KafkaMetadataRequestTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(1),
		KAFKA_ARRAY_AT(KafkaMetadataRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
	{"AllowAutoTopicCreation", KAFKA_TYPE_BOOL, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaMetadataRequest, allow_auto_topic_creation), .def = 1},
	{"IncludeClusterAuthorizedOperations", KAFKA_TYPE_BOOL, KAFKA_V(8, 10),
	KAFKA_AT(KafkaMetadataRequest, include_cluster_authorized_operations)},
	{"IncludeTopicAuthorizedOperations", KAFKA_TYPE_BOOL, KAFKA_V_FROM(8),
	KAFKA_AT(KafkaMetadataRequest, include_topic_authorized_operations)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("MetadataRequest", KafkaMetadataRequest, request_fields);

static const KafkaField broker_fields[] = {
	{"NodeId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponseBroker, node_id)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponseBroker, host)},
	{"Port", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponseBroker, port)},
	{"Rack", KAFKA_TYPE_STRING, KAFKA_V_FROM(1), KAFKA_NULLABLE_FROM(1),
	KAFKA_AT(KafkaMetadataResponseBroker, rack), .def_null = true},
};

static const KafkaSchema broker_schema =
KAFKA_SCHEMA("MetadataResponseBroker", KafkaMetadataResponseBroker,
			 broker_fields);

static const KafkaField partition_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponsePartition, error_code)},
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponsePartition, partition_index)},
	{"LeaderId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponsePartition, leader_id)},
	{"LeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaMetadataResponsePartition, leader_epoch), .def = -1},
	{"ReplicaNodes", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(KafkaMetadataResponsePartition, replica_nodes, nreplica_nodes)},
	{"IsrNodes", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(KafkaMetadataResponsePartition, isr_nodes, nisr_nodes)},
	{"OfflineReplicas", KAFKA_TYPE_INT32, KAFKA_V_FROM(5),
		KAFKA_ARRAY_AT(KafkaMetadataResponsePartition, offline_replicas,
				   noffline_replicas)},
};

static const KafkaSchema partition_schema =
KAFKA_SCHEMA("MetadataResponsePartition", KafkaMetadataResponsePartition,
			 partition_fields);

static const KafkaField topic_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaMetadataResponseTopic, error_code)},
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(12),
	KAFKA_AT(KafkaMetadataResponseTopic, name)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaMetadataResponseTopic, topic_id)},
	{"IsInternal", KAFKA_TYPE_BOOL, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaMetadataResponseTopic, is_internal)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaMetadataResponseTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &partition_schema},
	{"TopicAuthorizedOperations", KAFKA_TYPE_INT32, KAFKA_V_FROM(8),
		KAFKA_AT(KafkaMetadataResponseTopic, topic_authorized_operations),
	.def = KAFKA_AUTHORIZED_OPERATIONS_OMITTED},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("MetadataResponseTopic", KafkaMetadataResponseTopic,
			 topic_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaMetadataResponse, throttle_time_ms)},
	{"Brokers", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaMetadataResponse, brokers, nbrokers),
	.schema = &broker_schema},
	{"ClusterId", KAFKA_TYPE_STRING, KAFKA_V_FROM(2), KAFKA_NULLABLE_FROM(2),
	KAFKA_AT(KafkaMetadataResponse, cluster_id), .def_null = true},
	{"ControllerId", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaMetadataResponse, controller_id), .def = -1},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaMetadataResponse, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_schema},
	{"ClusterAuthorizedOperations", KAFKA_TYPE_INT32, KAFKA_V(8, 10),
		KAFKA_AT(KafkaMetadataResponse, cluster_authorized_operations),
	.def = KAFKA_AUTHORIZED_OPERATIONS_OMITTED},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("MetadataResponse", KafkaMetadataResponse, response_fields);

const KafkaMessage kafka_metadata_request = {
	"MetadataRequest", KAFKA_API_METADATA, 0, 12, 9, &request_schema
};

const KafkaMessage kafka_metadata_response = {
	"MetadataResponse", KAFKA_API_METADATA, 0, 12, 9, &response_schema
};
