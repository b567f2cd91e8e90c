/*-------------------------------------------------------------------------
 *
 * msg_txn_offset_commit.c
 *	  TxnOffsetCommit's request and response (Kafka 3.9: versions 0-4,
 *	  flexible from 3), for the schema codec (schema.h).
 *
 * v1 changed how quotas throttle, v2 adds the leader epoch per partition,
 * v3 is flexible and adds the consumer's generation, member id and group
 * instance id (KIP-447: the group coordinator fences a zombie member's
 * commits as it fences OffsetCommit's), v4 allows TRANSACTION_ABORTABLE.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_txn_offset_commit.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequestPartition, partition_index)},
	{"CommittedOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequestPartition, committed_offset)},
	{"CommittedLeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaTxnOffsetCommitRequestPartition, committed_leader_epoch), .def = -1},
	{"CommittedMetadata", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequestPartition, committed_metadata)},
};

static const KafkaSchema request_partition_schema =
KAFKA_SCHEMA("TxnOffsetCommitRequestPartition",
			 KafkaTxnOffsetCommitRequestPartition, request_partition_fields);

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequestTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaTxnOffsetCommitRequestTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_partition_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("TxnOffsetCommitRequestTopic", KafkaTxnOffsetCommitRequestTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, transactional_id)},
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, group_id)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, producer_id)},
	{"ProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, producer_epoch)},
	{"GenerationId", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, generation_id), .def = -1},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaTxnOffsetCommitRequest, group_instance_id), .def_null = true},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaTxnOffsetCommitRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("TxnOffsetCommitRequest", KafkaTxnOffsetCommitRequest,
			 request_fields);

static const KafkaField response_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitResponsePartition, partition_index)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitResponsePartition, error_code)},
};

static const KafkaSchema response_partition_schema =
KAFKA_SCHEMA("TxnOffsetCommitResponsePartition",
			 KafkaTxnOffsetCommitResponsePartition, response_partition_fields);

static const KafkaField response_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitResponseTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaTxnOffsetCommitResponseTopic, partitions, npartitions),
	.schema = &response_partition_schema},
};

static const KafkaSchema response_topic_schema =
KAFKA_SCHEMA("TxnOffsetCommitResponseTopic", KafkaTxnOffsetCommitResponseTopic,
			 response_topic_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTxnOffsetCommitResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaTxnOffsetCommitResponse, topics, ntopics),
	.schema = &response_topic_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("TxnOffsetCommitResponse", KafkaTxnOffsetCommitResponse,
			 response_fields);

const KafkaMessage kafka_txn_offset_commit_request = {
	"TxnOffsetCommitRequest", KAFKA_API_TXN_OFFSET_COMMIT, 0, 4, 3,
	&request_schema
};

const KafkaMessage kafka_txn_offset_commit_response = {
	"TxnOffsetCommitResponse", KAFKA_API_TXN_OFFSET_COMMIT, 0, 4, 3,
	&response_schema
};
