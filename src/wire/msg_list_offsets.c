/*-------------------------------------------------------------------------
 *
 * msg_list_offsets.c
 *	  ListOffsets' request and response (Kafka 3.9: versions 0-9, flexible
 *	  from 6), for the schema codec (schema.h).
 *
 * v0 asks for up to max_num_offsets offsets and gets them as a list
 * (old_style_offsets); v1 asks for one and gets it with its timestamp; v2
 * adds isolation_level and throttle_time_ms, v4 the leader epochs; v7, v8
 * and v9 only allow new special timestamps (msg_list_offsets.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_list_offsets.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsPartition, partition_index)},
	{"CurrentLeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaListOffsetsPartition, current_leader_epoch), .def = -1},
	{"Timestamp", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsPartition, timestamp)},
	{"MaxNumOffsets", KAFKA_TYPE_INT32, KAFKA_V(0, 0),
	KAFKA_AT(KafkaListOffsetsPartition, max_num_offsets), .def = 1},
};

static const KafkaSchema request_partition_schema =
KAFKA_SCHEMA("ListOffsetsPartition", KafkaListOffsetsPartition,
			 request_partition_fields);

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListOffsetsTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_partition_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("ListOffsetsTopic", KafkaListOffsetsTopic, request_topic_fields);

static const KafkaField request_fields[] = {
	{"ReplicaId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsRequest, replica_id)},
	{"IsolationLevel", KAFKA_TYPE_INT8, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaListOffsetsRequest, isolation_level)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListOffsetsRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("ListOffsetsRequest", KafkaListOffsetsRequest, request_fields);

static const KafkaField partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsPartitionResponse, partition_index)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsPartitionResponse, error_code)},
	{"OldStyleOffsets", KAFKA_TYPE_INT64, KAFKA_V(0, 0),
		KAFKA_ARRAY_AT(KafkaListOffsetsPartitionResponse, old_style_offsets,
				   nold_style_offsets)},
	{"Timestamp", KAFKA_TYPE_INT64, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaListOffsetsPartitionResponse, timestamp), .def = -1},
	{"Offset", KAFKA_TYPE_INT64, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaListOffsetsPartitionResponse, offset), .def = -1},
	{"LeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaListOffsetsPartitionResponse, leader_epoch), .def = -1},
};

static const KafkaSchema partition_schema =
KAFKA_SCHEMA("ListOffsetsPartitionResponse", KafkaListOffsetsPartitionResponse,
			 partition_fields);

static const KafkaField topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListOffsetsTopicResponse, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListOffsetsTopicResponse, partitions, npartitions),
	.schema = &partition_schema},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("ListOffsetsTopicResponse", KafkaListOffsetsTopicResponse,
			 topic_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaListOffsetsResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListOffsetsResponse, topics, ntopics),
	.schema = &topic_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("ListOffsetsResponse", KafkaListOffsetsResponse, response_fields);

const KafkaMessage kafka_list_offsets_request = {
	"ListOffsetsRequest", KAFKA_API_LIST_OFFSETS, 0, 9, 6, &request_schema
};

const KafkaMessage kafka_list_offsets_response = {
	"ListOffsetsResponse", KAFKA_API_LIST_OFFSETS, 0, 9, 6, &response_schema
};
