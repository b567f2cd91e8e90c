/*-------------------------------------------------------------------------
 *
 * msg_offset_commit.c
 *	  OffsetCommit's request and response (Kafka 3.9: versions 0-9,
 *	  flexible from 8), for the schema codec (schema.h).
 *
 * v0 has neither generation nor member (old Kafka kept such commits in
 * ZooKeeper; 3.9 stores them as any other), v1 adds them and a commit
 * timestamp per partition, v2-4 a retention time instead, v6 the leader
 * epoch, v7 the group instance id (static membership).  v9 is v8 for
 * KIP-848's consumer groups (the member epoch in the generation's place).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_offset_commit.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitRequestPartition, partition_index)},
	{"CommittedOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitRequestPartition, committed_offset)},
	{"CommittedLeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(6),
	KAFKA_AT(KafkaOffsetCommitRequestPartition, committed_leader_epoch), .def = -1},
	{"CommitTimestamp", KAFKA_TYPE_INT64, KAFKA_V(1, 1),
	KAFKA_AT(KafkaOffsetCommitRequestPartition, commit_timestamp), .def = -1},
	{"CommittedMetadata", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaOffsetCommitRequestPartition, committed_metadata)},
};

static const KafkaSchema request_partition_schema =
KAFKA_SCHEMA("OffsetCommitRequestPartition", KafkaOffsetCommitRequestPartition,
			 request_partition_fields);

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitRequestTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetCommitRequestTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_partition_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("OffsetCommitRequestTopic", KafkaOffsetCommitRequestTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitRequest, group_id)},
	{"GenerationIdOrMemberEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaOffsetCommitRequest, generation_id_or_member_epoch), .def = -1},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaOffsetCommitRequest, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(7), KAFKA_NULLABLE_FROM(7),
	KAFKA_AT(KafkaOffsetCommitRequest, group_instance_id), .def_null = true},
	{"RetentionTimeMs", KAFKA_TYPE_INT64, KAFKA_V(2, 4),
	KAFKA_AT(KafkaOffsetCommitRequest, retention_time_ms), .def = -1},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetCommitRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("OffsetCommitRequest", KafkaOffsetCommitRequest, request_fields);

static const KafkaField response_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitResponsePartition, partition_index)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitResponsePartition, error_code)},
};

static const KafkaSchema response_partition_schema =
KAFKA_SCHEMA("OffsetCommitResponsePartition", KafkaOffsetCommitResponsePartition,
			 response_partition_fields);

static const KafkaField response_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetCommitResponseTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetCommitResponseTopic, partitions, npartitions),
	.schema = &response_partition_schema},
};

static const KafkaSchema response_topic_schema =
KAFKA_SCHEMA("OffsetCommitResponseTopic", KafkaOffsetCommitResponseTopic,
			 response_topic_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaOffsetCommitResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetCommitResponse, topics, ntopics),
	.schema = &response_topic_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("OffsetCommitResponse", KafkaOffsetCommitResponse, response_fields);

const KafkaMessage kafka_offset_commit_request = {
	"OffsetCommitRequest", KAFKA_API_OFFSET_COMMIT, 0, 9, 8, &request_schema
};

const KafkaMessage kafka_offset_commit_response = {
	"OffsetCommitResponse", KAFKA_API_OFFSET_COMMIT, 0, 9, 8, &response_schema
};
