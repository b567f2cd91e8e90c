/*-------------------------------------------------------------------------
 *
 * msg_list_transactions.h
 *	  ListTransactions (API key 66), versions 0-1 (flexible), as structs for
 *	  the schema codec (schema.h; the field tables are in
 *	  wire/msg_list_transactions.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_LIST_TRANSACTIONS_H
#define TOPIC_WIRE_MSG_LIST_TRANSACTIONS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaListTransactionsRequest
{
	int32		nstate_filters;
	KafkaBytes *state_filters;
	int32		nproducer_id_filters;
	int64	   *producer_id_filters;
	int64		duration_filter;	/* v1+, default -1: any */
} KafkaListTransactionsRequest;

typedef struct KafkaListedTransaction
{
	KafkaBytes	transactional_id;
	int64		producer_id;
	KafkaBytes	transaction_state;
} KafkaListedTransaction;

typedef struct KafkaListTransactionsResponse
{
	int32		throttle_time_ms;
	int16		error_code;
	int32		nunknown_state_filters;
	KafkaBytes *unknown_state_filters;
	int32		ntransaction_states;
	KafkaListedTransaction *transaction_states;
} KafkaListTransactionsResponse;

extern const KafkaMessage kafka_list_transactions_request;
extern const KafkaMessage kafka_list_transactions_response;

#endif							/* TOPIC_WIRE_MSG_LIST_TRANSACTIONS_H */
