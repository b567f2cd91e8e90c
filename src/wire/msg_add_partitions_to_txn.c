/*-------------------------------------------------------------------------
 *
 * msg_add_partitions_to_txn.c
 *	  AddPartitionsToTxn's request and response (Kafka 3.9: versions 0-5,
 *	  flexible from 3), for the schema codec (schema.h).
 *
 * v1 only changed how quotas throttle, v2 allows PRODUCER_FENCED, v3 is
 * flexible.  v4 (KIP-890) is another message in the same key: a batch of
 * transactions, each with VerifyOnly, that one broker sends the
 * transaction coordinator to learn whether a partition is in a
 * transaction before it appends; the fields of v0-3 are Kafka's
 * V3AndBelow*, and the response gains a top-level error code and results
 * per transaction.  v5 allows TRANSACTION_ABORTABLE.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_add_partitions_to_txn.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAddPartitionsToTxnTopic, name)},
	{"Partitions", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("AddPartitionsToTxnTopic", KafkaAddPartitionsToTxnTopic,
			 topic_fields);

static const KafkaField transaction_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAddPartitionsToTxnTransaction, transactional_id)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAddPartitionsToTxnTransaction, producer_id)},
	{"ProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAddPartitionsToTxnTransaction, producer_epoch)},
	{"VerifyOnly", KAFKA_TYPE_BOOL, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAddPartitionsToTxnTransaction, verify_only)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnTransaction, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_schema},
};

static const KafkaSchema transaction_schema =
KAFKA_SCHEMA("AddPartitionsToTxnTransaction", KafkaAddPartitionsToTxnTransaction,
			 transaction_fields);

static const KafkaField request_fields[] = {
	{"Transactions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnRequest, transactions, ntransactions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &transaction_schema},
	{"V3AndBelowTransactionalId", KAFKA_TYPE_STRING, KAFKA_V(0, 3),
	KAFKA_AT(KafkaAddPartitionsToTxnRequest, v3_and_below_transactional_id)},
	{"V3AndBelowProducerId", KAFKA_TYPE_INT64, KAFKA_V(0, 3),
	KAFKA_AT(KafkaAddPartitionsToTxnRequest, v3_and_below_producer_id)},
	{"V3AndBelowProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V(0, 3),
	KAFKA_AT(KafkaAddPartitionsToTxnRequest, v3_and_below_producer_epoch)},
	{"V3AndBelowTopics", KAFKA_TYPE_STRUCT, KAFKA_V(0, 3),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnRequest, v3_and_below_topics,
					   nv3_and_below_topics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("AddPartitionsToTxnRequest", KafkaAddPartitionsToTxnRequest,
			 request_fields);

static const KafkaField partition_result_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAddPartitionsToTxnPartitionResult, partition_index)},
	{"PartitionErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAddPartitionsToTxnPartitionResult, partition_error_code)},
};

static const KafkaSchema partition_result_schema =
KAFKA_SCHEMA("AddPartitionsToTxnPartitionResult",
			 KafkaAddPartitionsToTxnPartitionResult, partition_result_fields);

static const KafkaField topic_result_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAddPartitionsToTxnTopicResult, name)},
	{"ResultsByPartition", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnTopicResult, results_by_partition,
					   nresults_by_partition),
	.schema = &partition_result_schema},
};

static const KafkaSchema topic_result_schema =
KAFKA_SCHEMA("AddPartitionsToTxnTopicResult", KafkaAddPartitionsToTxnTopicResult,
			 topic_result_fields);

static const KafkaField result_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAddPartitionsToTxnResult, transactional_id)},
	{"TopicResults", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnResult, topic_results,
					   ntopic_results),
	.schema = &topic_result_schema},
};

static const KafkaSchema result_schema =
KAFKA_SCHEMA("AddPartitionsToTxnResult", KafkaAddPartitionsToTxnResult,
			 result_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaAddPartitionsToTxnResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaAddPartitionsToTxnResponse, error_code)},
	{"ResultsByTransaction", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnResponse, results_by_transaction,
					   nresults_by_transaction),
	.schema = &result_schema},
	{"ResultsByTopicV3AndBelow", KAFKA_TYPE_STRUCT, KAFKA_V(0, 3),
		KAFKA_ARRAY_AT(KafkaAddPartitionsToTxnResponse,
					   results_by_topic_v3_and_below,
					   nresults_by_topic_v3_and_below),
	.schema = &topic_result_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("AddPartitionsToTxnResponse", KafkaAddPartitionsToTxnResponse,
			 response_fields);

const KafkaMessage kafka_add_partitions_to_txn_request = {
	"AddPartitionsToTxnRequest", KAFKA_API_ADD_PARTITIONS_TO_TXN, 0, 5, 3,
	&request_schema
};

const KafkaMessage kafka_add_partitions_to_txn_response = {
	"AddPartitionsToTxnResponse", KAFKA_API_ADD_PARTITIONS_TO_TXN, 0, 5, 3,
	&response_schema
};
