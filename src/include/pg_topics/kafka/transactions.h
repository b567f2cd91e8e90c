/*-------------------------------------------------------------------------
 *
 * transactions.h
 *	  Kafka transactions: the transactional ids' rows, handing requests to
 *	  a transaction's worker, and what the worker runs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_TRANSACTIONS_H
#define TOPIC_KAFKA_TRANSACTIONS_H

#include "access/xlogdefs.h"
#include "nodes/pg_list.h"
#include "utils/relcache.h"

#include "pg_topics/kafka/request.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/wire/msg_offset_commit.h"

/* A transactional id's row of topics.kafka_transactional_ids */
/*
 * The groups one Kafka transaction may add (AddOffsetsToTxn): a
 * consume-transform-produce loop adds its consumer's one; beyond this the
 * request is refused INVALID_REQUEST, so that a client cannot grow the
 * transaction's row (and each later request's work on it) without bound
 */
#define KAFKA_TXN_MAX_GROUPS	64

typedef struct KafkaTxnRow
{
	bool		found;
	bool		locked;			/* not read: another transaction holds it */
	Oid			role;
	int64		producer_id;
	int16		producer_epoch;
	int64		last_producer_id;	/* the producer id and epoch a KIP-360 */
	int16		last_producer_epoch;	/* InitProducerId moved on from, or -1 */
	int32		timeout_ms;
	char		state[16];		/* Kafka's name of the state */
	TimestampTz started_at;		/* 0: none */
} KafkaTxnRow;

/*
 * A request handed to a transaction's worker, in a DSM segment: the
 * request's body, then room for the answer's
 */
typedef struct KafkaTxnItem
{
	int16		api_key;
	int16		api_version;
	bool		flexible;
	int32		body_len;
	int32		answer_cap;
	int32		answer_len;
	int			outcome;		/* KafkaOutcome */
	bool		failed;			/* it failed, and the transaction with it */
	bool		too_large;		/* its answer did not fit */
	bool		answered;		/* set last, after a write barrier: the
								 * fields above are the worker's answer */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} KafkaTxnItem;

/* transactions.c: the listener's side */
extern bool kafka_txn_read_row(KafkaBytes transactional_id, bool for_update,
							   KafkaTxnRow *row);
extern int16 kafka_txn_fenced_error(int16 api_key, int16 api_version);
extern KafkaOutcome kafka_init_transactional_producer(KafkaRequest *req,
													  KafkaBytes transactional_id,
													  int32 timeout_ms,
													  int64 producer_id,
													  int16 producer_epoch,
													  int64 *out_producer_id,
													  int16 *out_epoch,
													  int16 *error);
extern int16 kafka_txn_check(KafkaRequest *req, KafkaBytes transactional_id,
							 int64 producer_id, int16 producer_epoch,
							 bool lock, KafkaTxnRow *row, int *slot);
extern int16 kafka_txn_begin(KafkaBytes transactional_id, KafkaTxnRow *row,
							 int *slot);
extern void kafka_txn_add_partitions(KafkaBytes transactional_id,
									 List *names);
extern List *kafka_txn_added_partitions(int64 producer_id);
extern bool kafka_txn_add_group(KafkaBytes transactional_id, const char *group);
extern int16 kafka_txn_group_error(const char *group);
extern bool kafka_txn_forwarded(KafkaRequest *req);
extern KafkaOutcome kafka_txn_forward(KafkaRequest *req, int slot,
									  const KafkaTxnRow *row,
									  int64 answer_room,
									  TimestampTz *deadline);
extern void kafka_txn_conn_closed(KafkaConn *conn);
extern void kafka_txn_sweep_starting(void);

/* txn_requests.c: what the worker runs of the transaction APIs */
extern KafkaOutcome kafka_txn_offset_commit_run(KafkaRequest *req,
												const KafkaTxnInfo *txn,
												int16 all_error);
extern bool kafka_end_txn_decode(KafkaRequest *req, bool *commit,
								 int64 *producer_id, int16 *producer_epoch);
extern void kafka_end_txn_answer(KafkaRequest *req, int16 error);

/* produce.c: a transactional Produce, in the transaction's worker */
extern void kafka_txn_produce_begin(void);
extern KafkaOutcome kafka_txn_produce(KafkaRequest *req,
									  const KafkaTxnInfo *txn,
									  int16 all_error);

/*
 * offsets.c: OffsetCommit's checks of the group and its commit of the
 * positions, which a transaction's TxnOffsetCommit shares (its positions
 * committed in the transaction's worker)
 */

/*
 * How the commit reads a request, an OffsetCommit's or a
 * TxnOffsetCommit's: its t-th topic's name and number of partitions, and
 * the p-th partition's index, offset and metadata
 */
typedef struct KafkaCommitReader
{
	void		(*topic) (const void *request, int32 t, KafkaBytes *name,
						  int32 *npartitions);
	void		(*position) (const void *request, int32 t, int32 p,
							 int32 *partition, int64 *offset,
							 KafkaBytes *metadata);
} KafkaCommitReader;

extern int16 kafka_commit_group_error(const char *group, KafkaBytes member_id,
									  KafkaBytes group_instance_id,
									  int32 generation);
extern KafkaOffsetCommitResponseTopic *kafka_commit_positions(const char *group,
															  int16 error,
															  const void *request,
															  int32 ntopics,
															  const KafkaCommitReader *reader,
															  bool wait);
extern char *kafka_offsets_group_name(KafkaBytes id);

#endif							/* TOPIC_KAFKA_TRANSACTIONS_H */
