/*-------------------------------------------------------------------------
 *
 * msg_describe_transactions.h
 *	  DescribeTransactions (API key 65), version 0 (flexible), as structs
 *	  for the schema codec (schema.h; the field tables are in
 *	  wire/msg_describe_transactions.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DESCRIBE_TRANSACTIONS_H
#define TOPIC_WIRE_MSG_DESCRIBE_TRANSACTIONS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaDescribeTransactionsRequest
{
	int32		ntransactional_ids;
	KafkaBytes *transactional_ids;
} KafkaDescribeTransactionsRequest;

/* a topic's partitions in a transaction */
typedef struct KafkaDescribedTransactionTopic
{
	KafkaBytes	topic;
	int32		npartitions;
	int32	   *partitions;
} KafkaDescribedTransactionTopic;

typedef struct KafkaDescribedTransaction
{
	int16		error_code;
	KafkaBytes	transactional_id;
	KafkaBytes	transaction_state;
	int32		transaction_timeout_ms;
	int64		transaction_start_time_ms;	/* -1: none running */
	int64		producer_id;
	int16		producer_epoch;
	int32		ntopics;
	KafkaDescribedTransactionTopic *topics;
} KafkaDescribedTransaction;

typedef struct KafkaDescribeTransactionsResponse
{
	int32		throttle_time_ms;
	int32		ntransaction_states;
	KafkaDescribedTransaction *transaction_states;
} KafkaDescribeTransactionsResponse;

extern const KafkaMessage kafka_describe_transactions_request;
extern const KafkaMessage kafka_describe_transactions_response;

#endif							/* TOPIC_WIRE_MSG_DESCRIBE_TRANSACTIONS_H */
