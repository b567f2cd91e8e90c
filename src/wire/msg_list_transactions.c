/*-------------------------------------------------------------------------
 *
 * msg_list_transactions.c
 *	  ListTransactions' request and response (Kafka 3.9: versions 0-1,
 *	  flexible from 0), for the schema codec (schema.h).
 *
 * KIP-664's tooling: the transactional ids a coordinator knows, filtered
 * by state and producer id; v1 (KIP-994) adds a filter of transactions
 * running longer than a duration.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_list_transactions.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"StateFilters", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListTransactionsRequest, state_filters,
					   nstate_filters),
	.flags = KAFKA_FIELD_COUNTED},
	{"ProducerIdFilters", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListTransactionsRequest, producer_id_filters,
					   nproducer_id_filters),
	.flags = KAFKA_FIELD_COUNTED},
	{"DurationFilter", KAFKA_TYPE_INT64, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaListTransactionsRequest, duration_filter), .def = -1},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("ListTransactionsRequest", KafkaListTransactionsRequest,
			 request_fields);

static const KafkaField state_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListedTransaction, transactional_id)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListedTransaction, producer_id)},
	{"TransactionState", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListedTransaction, transaction_state)},
};

static const KafkaSchema state_schema =
KAFKA_SCHEMA("TransactionState", KafkaListedTransaction, state_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListTransactionsResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaListTransactionsResponse, error_code)},
	{"UnknownStateFilters", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListTransactionsResponse, unknown_state_filters,
					   nunknown_state_filters)},
	{"TransactionStates", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaListTransactionsResponse, transaction_states,
					   ntransaction_states),
	.schema = &state_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("ListTransactionsResponse", KafkaListTransactionsResponse,
			 response_fields);

const KafkaMessage kafka_list_transactions_request = {
	"ListTransactionsRequest", KAFKA_API_LIST_TRANSACTIONS, 0, 1, 0,
	&request_schema
};

const KafkaMessage kafka_list_transactions_response = {
	"ListTransactionsResponse", KAFKA_API_LIST_TRANSACTIONS, 0, 1, 0,
	&response_schema
};
