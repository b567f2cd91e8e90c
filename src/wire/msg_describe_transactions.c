/*-------------------------------------------------------------------------
 *
 * msg_describe_transactions.c
 *	  DescribeTransactions' request and response (Kafka 3.9: version 0,
 *	  flexible), for the schema codec (schema.h).
 *
 * KIP-664's tooling: the state of each transactional id asked for, with
 * the partitions its running transaction has added.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_describe_transactions.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"TransactionalIds", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeTransactionsRequest, transactional_ids,
					   ntransactional_ids),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DescribeTransactionsRequest", KafkaDescribeTransactionsRequest,
			 request_fields);

static const KafkaField topic_fields[] = {
	{"Topic", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransactionTopic, topic)},
	{"Partitions", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(KafkaDescribedTransactionTopic, partitions, npartitions)},
};

static const KafkaSchema topic_schema =
KAFKA_SCHEMA("TopicData", KafkaDescribedTransactionTopic, topic_fields);

static const KafkaField state_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, error_code)},
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, transactional_id)},
	{"TransactionState", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, transaction_state)},
	{"TransactionTimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, transaction_timeout_ms)},
	{"TransactionStartTimeMs", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, transaction_start_time_ms)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, producer_id)},
	{"ProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribedTransaction, producer_epoch)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribedTransaction, topics, ntopics),
	.schema = &topic_schema},
};

static const KafkaSchema state_schema =
KAFKA_SCHEMA("TransactionState", KafkaDescribedTransaction, state_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDescribeTransactionsResponse, throttle_time_ms)},
	{"TransactionStates", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDescribeTransactionsResponse, transaction_states,
					   ntransaction_states),
	.schema = &state_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DescribeTransactionsResponse", KafkaDescribeTransactionsResponse,
			 response_fields);

const KafkaMessage kafka_describe_transactions_request = {
	"DescribeTransactionsRequest", KAFKA_API_DESCRIBE_TRANSACTIONS, 0, 0, 0,
	&request_schema
};

const KafkaMessage kafka_describe_transactions_response = {
	"DescribeTransactionsResponse", KAFKA_API_DESCRIBE_TRANSACTIONS, 0, 0, 0,
	&response_schema
};
