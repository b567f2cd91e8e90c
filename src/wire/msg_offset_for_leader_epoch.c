/*-------------------------------------------------------------------------
 *
 * msg_offset_for_leader_epoch.c
 *	  OffsetForLeaderEpoch's request and response (Kafka 3.9: versions 0-4,
 *	  flexible from 4), for the schema codec (schema.h).
 *
 * v1 answers the leader epoch with the end offset, v2 adds the current
 * leader epoch (fencing) and throttle_time_ms, v3 the replica id (-2 by
 * default: a debugging consumer).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_offset_for_leader_epoch.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_partition_fields[] = {
	{"Partition", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetForLeaderPartition, partition)},
	{"CurrentLeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaOffsetForLeaderPartition, current_leader_epoch), .def = -1},
	{"LeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetForLeaderPartition, leader_epoch)},
};

static const KafkaSchema request_partition_schema =
KAFKA_SCHEMA("OffsetForLeaderPartition", KafkaOffsetForLeaderPartition,
			 request_partition_fields);

static const KafkaField request_topic_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetForLeaderTopic, topic)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetForLeaderTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_partition_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("OffsetForLeaderTopic", KafkaOffsetForLeaderTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"ReplicaId", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaOffsetForLeaderEpochRequest, replica_id), .def = -2},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetForLeaderEpochRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("OffsetForLeaderEpochRequest", KafkaOffsetForLeaderEpochRequest,
			 request_fields);

static const KafkaField partition_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEpochEndOffset, error_code)},
	{"Partition", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEpochEndOffset, partition)},
	{"LeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaEpochEndOffset, leader_epoch), .def = -1},
	{"EndOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEpochEndOffset, end_offset)},
};

static const KafkaSchema partition_schema =
KAFKA_SCHEMA("EpochEndOffset", KafkaEpochEndOffset, partition_fields);

static const KafkaField topic_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetForLeaderTopicResult, topic)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetForLeaderTopicResult, partitions, npartitions),
	.schema = &partition_schema},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("OffsetForLeaderTopicResult", KafkaOffsetForLeaderTopicResult,
			 topic_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaOffsetForLeaderEpochResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetForLeaderEpochResponse, topics, ntopics),
	.schema = &topic_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("OffsetForLeaderEpochResponse", KafkaOffsetForLeaderEpochResponse,
			 response_fields);

const KafkaMessage kafka_offset_for_leader_epoch_request = {
	"OffsetForLeaderEpochRequest", KAFKA_API_OFFSET_FOR_LEADER_EPOCH, 0, 4, 4,
	&request_schema
};

const KafkaMessage kafka_offset_for_leader_epoch_response = {
	"OffsetForLeaderEpochResponse", KAFKA_API_OFFSET_FOR_LEADER_EPOCH, 0, 4, 4,
	&response_schema
};
