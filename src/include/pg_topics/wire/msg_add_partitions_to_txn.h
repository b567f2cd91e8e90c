/*-------------------------------------------------------------------------
 *
 * msg_add_partitions_to_txn.h
 *	  AddPartitionsToTxn (API key 24), versions 0-5, as structs for the
 *	  schema codec (schema.h; the field tables are in
 *	  wire/msg_add_partitions_to_txn.c).
 *
 * Versions 0-3 are a client's: one transaction, its fields named
 * V3AndBelow* by Kafka.  Versions 4 and 5 are the batched form brokers
 * send one another (Transactions, each with VerifyOnly); the response
 * answers per transaction there, per topic before.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_ADD_PARTITIONS_TO_TXN_H
#define TOPIC_WIRE_MSG_ADD_PARTITIONS_TO_TXN_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaAddPartitionsToTxnTopic
{
	KafkaBytes	name;
	int32		npartitions;
	int32	   *partitions;
} KafkaAddPartitionsToTxnTopic;

typedef struct KafkaAddPartitionsToTxnTransaction
{
	KafkaBytes	transactional_id;
	int64		producer_id;
	int16		producer_epoch;
	bool		verify_only;
	int32		ntopics;
	KafkaAddPartitionsToTxnTopic *topics;
} KafkaAddPartitionsToTxnTransaction;

typedef struct KafkaAddPartitionsToTxnRequest
{
	int32		ntransactions;	/* v4+ */
	KafkaAddPartitionsToTxnTransaction *transactions;
	KafkaBytes	v3_and_below_transactional_id;	/* v0-3 */
	int64		v3_and_below_producer_id;	/* v0-3 */
	int16		v3_and_below_producer_epoch;	/* v0-3 */
	int32		nv3_and_below_topics;	/* v0-3 */
	KafkaAddPartitionsToTxnTopic *v3_and_below_topics;
} KafkaAddPartitionsToTxnRequest;

typedef struct KafkaAddPartitionsToTxnPartitionResult
{
	int32		partition_index;
	int16		partition_error_code;
} KafkaAddPartitionsToTxnPartitionResult;

typedef struct KafkaAddPartitionsToTxnTopicResult
{
	KafkaBytes	name;
	int32		nresults_by_partition;
	KafkaAddPartitionsToTxnPartitionResult *results_by_partition;
} KafkaAddPartitionsToTxnTopicResult;

typedef struct KafkaAddPartitionsToTxnResult
{
	KafkaBytes	transactional_id;
	int32		ntopic_results;
	KafkaAddPartitionsToTxnTopicResult *topic_results;
} KafkaAddPartitionsToTxnResult;

typedef struct KafkaAddPartitionsToTxnResponse
{
	int32		throttle_time_ms;
	int16		error_code;		/* v4+ */
	int32		nresults_by_transaction;	/* v4+ */
	KafkaAddPartitionsToTxnResult *results_by_transaction;
	int32		nresults_by_topic_v3_and_below; /* v0-3 */
	KafkaAddPartitionsToTxnTopicResult *results_by_topic_v3_and_below;
} KafkaAddPartitionsToTxnResponse;

extern const KafkaMessage kafka_add_partitions_to_txn_request;
extern const KafkaMessage kafka_add_partitions_to_txn_response;

#endif							/* TOPIC_WIRE_MSG_ADD_PARTITIONS_TO_TXN_H */
