/*-------------------------------------------------------------------------
 *
 * msg_fetch.c
 *	  Fetch's request and response (Kafka 3.9: versions 0-17, flexible
 *	  from 12), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v3 max_bytes, v4 the isolation level and the
 * last stable offset with aborted transactions (and RecordBatch v2: v0-3
 * answer MessageSets), v5 log start offsets, v7 fetch sessions and
 * forgotten topics, v9 the current leader epoch, v11 the rack and the
 * preferred read replica, v12 flexible versions with the last fetched
 * epoch and tagged diverging epoch, current leader and snapshot id, v13
 * topic ids instead of names, v15 the replica state (tagged) instead of
 * the replica id, v16 node endpoints (tagged), v17 the replica directory
 * id (tagged).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_fetch.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField replica_state_fields[] = {
	{"ReplicaId", KAFKA_TYPE_INT32, KAFKA_V_FROM(15),
	KAFKA_AT(KafkaFetchReplicaState, replica_id), .def = -1},
	{"ReplicaEpoch", KAFKA_TYPE_INT64, KAFKA_V_FROM(15),
	KAFKA_AT(KafkaFetchReplicaState, replica_epoch), .def = -1},
};

static const KafkaSchema replica_state_schema =
KAFKA_SCHEMA("ReplicaState", KafkaFetchReplicaState, replica_state_fields);

static const KafkaField fetch_partition_fields[] = {
	{"Partition", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchPartition, partition)},
	{"CurrentLeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(9),
	KAFKA_AT(KafkaFetchPartition, current_leader_epoch), .def = -1},
	{"FetchOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchPartition, fetch_offset)},
	{"LastFetchedEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(12),
	KAFKA_AT(KafkaFetchPartition, last_fetched_epoch), .def = -1},
	{"LogStartOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaFetchPartition, log_start_offset), .def = -1},
	{"PartitionMaxBytes", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchPartition, partition_max_bytes)},
	{"ReplicaDirectoryId", KAFKA_TYPE_UUID, KAFKA_V_FROM(17), KAFKA_TAGGED(0, 17),
	KAFKA_AT(KafkaFetchPartition, replica_directory_id)},
};

static const KafkaSchema fetch_partition_schema =
KAFKA_SCHEMA("FetchPartition", KafkaFetchPartition, fetch_partition_fields);

static const KafkaField fetch_topic_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V(0, 12),
	KAFKA_AT(KafkaFetchTopic, topic)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(13),
	KAFKA_AT(KafkaFetchTopic, topic_id)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaFetchTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &fetch_partition_schema},
};

static const KafkaSchema fetch_topic_schema =
KAFKA_SCHEMA("FetchTopic", KafkaFetchTopic, fetch_topic_fields);

static const KafkaField forgotten_topic_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V(7, 12),
	KAFKA_AT(KafkaForgottenTopic, topic)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(13),
	KAFKA_AT(KafkaForgottenTopic, topic_id)},
	{"Partitions", KAFKA_TYPE_INT32, KAFKA_V_FROM(7),
		KAFKA_ARRAY_AT(KafkaForgottenTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema forgotten_topic_schema =
KAFKA_SCHEMA("ForgottenTopic", KafkaForgottenTopic, forgotten_topic_fields);

static const KafkaField request_fields[] = {
	{"ReplicaId", KAFKA_TYPE_INT32, KAFKA_V(0, 14),
	KAFKA_AT(KafkaFetchRequest, replica_id), .def = -1},
	{"MaxWaitMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchRequest, max_wait_ms)},
	{"MinBytes", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchRequest, min_bytes)},
	{"MaxBytes", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaFetchRequest, max_bytes), .def = PG_INT32_MAX},
	{"IsolationLevel", KAFKA_TYPE_INT8, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaFetchRequest, isolation_level)},
	{"SessionId", KAFKA_TYPE_INT32, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaFetchRequest, session_id)},
	{"SessionEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaFetchRequest, session_epoch), .def = -1},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaFetchRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &fetch_topic_schema},
	{"ForgottenTopicsData", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(7),
		KAFKA_ARRAY_AT(KafkaFetchRequest, forgotten_topics_data,
					   nforgotten_topics_data),
	.flags = KAFKA_FIELD_COUNTED, .schema = &forgotten_topic_schema},
	{"RackId", KAFKA_TYPE_STRING, KAFKA_V_FROM(11),
	KAFKA_AT(KafkaFetchRequest, rack_id)},
	{"ClusterId", KAFKA_TYPE_STRING, KAFKA_V_FROM(12), KAFKA_NULLABLE_FROM(12),
		KAFKA_TAGGED(0, 12),
	KAFKA_AT(KafkaFetchRequest, cluster_id), .def_null = true},
	{"ReplicaState", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(15), KAFKA_TAGGED(1, 15),
		KAFKA_AT(KafkaFetchRequest, replica_state),
	.schema = &replica_state_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("FetchRequest", KafkaFetchRequest, request_fields);

static const KafkaField epoch_end_offset_fields[] = {
	{"Epoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(12),
	KAFKA_AT(KafkaFetchEpochEndOffset, epoch), .def = -1},
	{"EndOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(12),
	KAFKA_AT(KafkaFetchEpochEndOffset, end_offset), .def = -1},
};

static const KafkaSchema epoch_end_offset_schema =
KAFKA_SCHEMA("EpochEndOffset", KafkaFetchEpochEndOffset, epoch_end_offset_fields);

static const KafkaField leader_fields[] = {
	{"LeaderId", KAFKA_TYPE_INT32, KAFKA_V_FROM(12),
	KAFKA_AT(KafkaFetchLeaderIdAndEpoch, leader_id), .def = -1},
	{"LeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(12),
	KAFKA_AT(KafkaFetchLeaderIdAndEpoch, leader_epoch), .def = -1},
};

static const KafkaSchema leader_schema =
KAFKA_SCHEMA("LeaderIdAndEpoch", KafkaFetchLeaderIdAndEpoch, leader_fields);

static const KafkaField snapshot_id_fields[] = {
	{"EndOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSnapshotId, end_offset), .def = -1},
	{"Epoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSnapshotId, epoch), .def = -1},
};

static const KafkaSchema snapshot_id_schema =
KAFKA_SCHEMA("SnapshotId", KafkaSnapshotId, snapshot_id_fields);

static const KafkaField aborted_fields[] = {
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAbortedTransaction, producer_id)},
	{"FirstOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAbortedTransaction, first_offset)},
};

static const KafkaSchema aborted_schema =
KAFKA_SCHEMA("AbortedTransaction", KafkaAbortedTransaction, aborted_fields);

static const KafkaField partition_data_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchPartitionData, partition_index)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchPartitionData, error_code)},
	{"HighWatermark", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaFetchPartitionData, high_watermark)},
	{"LastStableOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaFetchPartitionData, last_stable_offset), .def = -1},
	{"LogStartOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaFetchPartitionData, log_start_offset), .def = -1},
	{"AbortedTransactions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(4),
		KAFKA_NULLABLE_FROM(4),
		KAFKA_ARRAY_AT(KafkaFetchPartitionData, aborted_transactions,
					   naborted_transactions),
	.schema = &aborted_schema},
	{"PreferredReadReplica", KAFKA_TYPE_INT32, KAFKA_V_FROM(11),
	KAFKA_AT(KafkaFetchPartitionData, preferred_read_replica), .def = -1},
	{"Records", KAFKA_TYPE_RECORDS, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaFetchPartitionData, records)},
	{"DivergingEpoch", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(12), KAFKA_TAGGED(0, 12),
		KAFKA_AT(KafkaFetchPartitionData, diverging_epoch),
	.schema = &epoch_end_offset_schema},
	{"CurrentLeader", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(12), KAFKA_TAGGED(1, 12),
		KAFKA_AT(KafkaFetchPartitionData, current_leader),
	.schema = &leader_schema},
	{"SnapshotId", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(12), KAFKA_TAGGED(2, 12),
		KAFKA_AT(KafkaFetchPartitionData, snapshot_id),
	.schema = &snapshot_id_schema},
};

static const KafkaSchema partition_data_schema =
KAFKA_SCHEMA("PartitionData", KafkaFetchPartitionData, partition_data_fields);

static const KafkaField topic_response_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V(0, 12),
	KAFKA_AT(KafkaFetchableTopicResponse, topic)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(13),
	KAFKA_AT(KafkaFetchableTopicResponse, topic_id)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaFetchableTopicResponse, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &partition_data_schema},
};

static const KafkaSchema topic_response_schema =
KAFKA_SCHEMA("FetchableTopicResponse", KafkaFetchableTopicResponse,
			 topic_response_fields);

static const KafkaField node_endpoint_fields[] = {
	{"NodeId", KAFKA_TYPE_INT32, KAFKA_V_FROM(16),
	KAFKA_AT(KafkaFetchNodeEndpoint, node_id)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V_FROM(16),
	KAFKA_AT(KafkaFetchNodeEndpoint, host)},
	{"Port", KAFKA_TYPE_INT32, KAFKA_V_FROM(16),
	KAFKA_AT(KafkaFetchNodeEndpoint, port)},
	{"Rack", KAFKA_TYPE_STRING, KAFKA_V_FROM(16), KAFKA_NULLABLE_FROM(16),
	KAFKA_AT(KafkaFetchNodeEndpoint, rack), .def_null = true},
};

static const KafkaSchema node_endpoint_schema =
KAFKA_SCHEMA("NodeEndpoint", KafkaFetchNodeEndpoint, node_endpoint_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaFetchResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaFetchResponse, error_code)},
	{"SessionId", KAFKA_TYPE_INT32, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaFetchResponse, session_id)},
	{"Responses", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaFetchResponse, responses, nresponses),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_response_schema},
	{"NodeEndpoints", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(16), KAFKA_TAGGED(0, 16),
		KAFKA_ARRAY_AT(KafkaFetchResponse, node_endpoints, nnode_endpoints),
	.schema = &node_endpoint_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("FetchResponse", KafkaFetchResponse, response_fields);

const KafkaMessage kafka_fetch_request = {
	"FetchRequest", KAFKA_API_FETCH, KAFKA_FETCH_MIN_VERSION,
	KAFKA_FETCH_MAX_VERSION, KAFKA_FETCH_FIRST_FLEXIBLE, &request_schema
};

const KafkaMessage kafka_fetch_response = {
	"FetchResponse", KAFKA_API_FETCH, KAFKA_FETCH_MIN_VERSION,
	KAFKA_FETCH_MAX_VERSION, KAFKA_FETCH_FIRST_FLEXIBLE, &response_schema
};
