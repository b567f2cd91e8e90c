/*-------------------------------------------------------------------------
 *
 * transactions.c
 *	  Kafka transactions, the listener's side: transactional ids and their
 *	  producers, beginning a transaction, and handing its requests to the
 *	  transaction's worker.
 *
 * A Kafka transaction is a PostgreSQL transaction (docs/architecture.md):
 * a transaction worker (txn_worker.c) holds it open from the first
 * AddPartitionsToTxn or AddOffsetsToTxn until EndTxn, and runs in it the
 * producer's transactional Produce and TxnOffsetCommit requests and the
 * EndTxn.  The listener never waits for it: the request goes to the
 * worker in a DSM segment through the transaction's slot in shared memory
 * (shared/kafka_txns.c), and is parked until the worker sets the
 * listener's latch with the answer.
 *
 * Each transactional id has a row in topics.kafka_transactional_ids: the
 * role that first used it (no other role may), its producer id and epoch,
 * and its transaction's state by Kafka's names.  InitProducerId bumps the
 * epoch, which fences the older producer: a request of an older epoch is
 * answered PRODUCER_FENCED (INVALID_PRODUCER_EPOCH in the versions before
 * that code, as Kafka maps it).  A row Ongoing whose transaction has no
 * worker (the server restarted, the worker was terminated) is never
 * continued: a later AddPartitionsToTxn would begin a new transaction
 * whose commit would succeed with only the later part, so its producer is
 * fenced too, and InitProducerId or the background worker's round ends it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/transactions.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/shared/kafka_producers.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/wire/protocol.h"

/*
 * The epoch after which a producer gets a new id, as Kafka: an epoch is
 * never Short.MaxValue, kept for "no epoch" by some clients' fencing
 */
#define KAFKA_MAX_PRODUCER_EPOCH	(PG_INT16_MAX - 1)

/*
 * The epoch a producer at KAFKA_MAX_PRODUCER_EPOCH is fenced to (an
 * aborted, timed-out or lost transaction's row always moves to the next
 * epoch, else its producer would go on at the same one): no producer has
 * it, and every request naming it is fenced
 */
#define KAFKA_FENCED_EPOCH			PG_INT16_MAX

/* how long a request handed to a worker parks before it looks again (ms) */
#define TXN_PARK_MS					1000

/*
 * The longest transactional id, in bytes: an id is its row's primary key,
 * and a btree entry of a few kilobytes fails (Kafka sets no limit; clients'
 * ids are names of an application's instances)
 */
#define KAFKA_TXN_ID_MAX_BYTES		1024

/* A transactional id as text, or NULL if it cannot be one */
static text *
txn_id_text(KafkaBytes id)
{
	if (id.len <= 0 || id.len > KAFKA_TXN_ID_MAX_BYTES ||
		memchr(id.data, '\0', id.len) != NULL ||
		!pg_verifymbstr(id.data, id.len, true))
		return NULL;
	return cstring_to_text_with_len(id.data, id.len);
}

/*
 * Read transactional_id's row (locked against other changes when
 * for_update); false if it has none or the id cannot be one, or (with
 * row->locked) if for_update and another transaction holds the row: a
 * transaction's worker committing may hold it while it waits for the
 * synchronous standbys, as long as they are away, and the listener never
 * waits for that (the client is answered CONCURRENT_TRANSACTIONS and
 * retries)
 */
bool
kafka_txn_read_row(KafkaBytes transactional_id, bool for_update,
				   KafkaTxnRow *row)
{
	text	   *id = txn_id_text(transactional_id);
	TopicInternalSql state;
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];

	memset(row, 0, sizeof(*row));
	if (id == NULL)
		return false;
	values[0] = PointerGetDatum(id);
	topic_internal_sql_begin(&state);
	if (SPI_execute_with_args(for_update ?
							  "SELECT role, producer_id, producer_epoch, timeout_ms, state, started_at, "
							  "last_producer_epoch, last_producer_id "
							  "FROM topics.kafka_transactional_ids WHERE transactional_id = $1 "
							  "FOR UPDATE SKIP LOCKED" :
							  "SELECT role, producer_id, producer_epoch, timeout_ms, state, started_at, "
							  "last_producer_epoch, last_producer_id "
							  "FROM topics.kafka_transactional_ids WHERE transactional_id = $1",
							  1, argtypes, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.kafka_transactional_ids");
	if (SPI_processed == 1)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		d;

		row->found = true;
		row->role = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		row->producer_id = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
		row->producer_epoch = DatumGetInt16(SPI_getbinval(tup, desc, 3, &isnull));
		row->timeout_ms = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));
		d = SPI_getbinval(tup, desc, 5, &isnull);
		text_to_cstring_buffer(DatumGetTextPP(d), row->state, sizeof(row->state));
		d = SPI_getbinval(tup, desc, 6, &isnull);
		row->started_at = isnull ? 0 : DatumGetTimestampTz(d);
		row->last_producer_epoch = DatumGetInt16(SPI_getbinval(tup, desc, 7, &isnull));
		row->last_producer_id = DatumGetInt64(SPI_getbinval(tup, desc, 8, &isnull));
	}
	else if (for_update)
	{
		/* skipped, or absent? */
		if (SPI_execute_with_args("SELECT FROM topics.kafka_transactional_ids "
								  "WHERE transactional_id = $1",
								  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not read topics.kafka_transactional_ids");
		row->locked = SPI_processed == 1;
	}
	topic_internal_sql_end(&state);
	return row->found;
}

/*
 * Run sql (parameters: the transactional id, then args) on the id's row;
 * the rows it changed
 */
static uint64
update_row(KafkaBytes transactional_id, const char *sql, int nargs,
		   Oid *argtypes, Datum *args)
{
	Oid			types[8];
	Datum		values[8];
	text	   *id = txn_id_text(transactional_id);
	TopicInternalSql state;
	uint64		n;

	Assert(nargs < 8);

	/*
	 * every caller checked the id first (its row was read, or
	 * InitProducerId refused it): a NULL here would reach SPI as a datum
	 */
	if (id == NULL)
		elog(ERROR, "invalid Kafka transactional id reached an update of its row");
	types[0] = TEXTOID;
	values[0] = PointerGetDatum(id);
	for (int i = 0; i < nargs; i++)
	{
		types[i + 1] = argtypes[i];
		values[i + 1] = args[i];
	}
	topic_internal_sql_begin(&state);
	if (SPI_execute_with_args(sql, nargs + 1, types, values, NULL, false, 0) < 0)
		elog(ERROR, "could not change topics.kafka_transactional_ids");
	n = SPI_processed;
	topic_internal_sql_end(&state);
	return n;
}

/*
 * The error of a fenced producer for api_key at api_version: Kafka's
 * PRODUCER_FENCED, or INVALID_PRODUCER_EPOCH in the versions before it
 * was introduced (KIP-588), as Kafka 3.9 answers them
 */
int16
kafka_txn_fenced_error(int16 api_key, int16 api_version)
{
	switch (api_key)
	{
		case KAFKA_API_INIT_PRODUCER_ID:
			return api_version < 4 ? KAFKA_INVALID_PRODUCER_EPOCH :
				KAFKA_PRODUCER_FENCED;
		case KAFKA_API_ADD_PARTITIONS_TO_TXN:
		case KAFKA_API_ADD_OFFSETS_TO_TXN:
		case KAFKA_API_END_TXN:
			return api_version < 2 ? KAFKA_INVALID_PRODUCER_EPOCH :
				KAFKA_PRODUCER_FENCED;
		default:
			/* Produce and TxnOffsetCommit: the epoch is the batch's */
			return KAFKA_INVALID_PRODUCER_EPOCH;
	}
}

/* Is the row's transaction open, with a worker behind it?  Its slot */
static int
open_slot(const KafkaTxnRow *row)
{
	if (strcmp(row->state, "Ongoing") != 0)
		return -1;
	return kafka_txn_find(row->producer_id, row->producer_epoch);
}

/*
 * InitProducerId with a transactional id (v0-5), in the request's
 * transaction: *error, and the producer's id and epoch.  Kafka 3.9's
 * rules (its TransactionCoordinator.handleInitProducerId):
 * - the first use of an id makes a producer id, epoch 0; so does the use
 *   of an id whose role was dropped, by another role, which takes it;
 * - a later one bumps the epoch (past KAFKA_MAX_PRODUCER_EPOCH, a new
 *   producer id and epoch 0), fencing the older producer;
 * - an open transaction of the id is aborted first: its epoch is bumped
 *   at once (its producer is fenced), its worker rolls back, and the
 *   request is answered CONCURRENT_TRANSACTIONS, which clients retry (so
 *   is a slot of the id's producer that its row does not know of);
 * - v3+ may name the producer id and epoch the client had (KIP-360): they
 *   must be the id's current ones (the epoch is bumped, or a new producer
 *   id given once the epochs ran out, and the producer named is kept), or
 *   the ones that a request naming them moved on from (a retry: answered
 *   the current producer, also after that request fenced the client's own
 *   open transaction or gave a new producer id), else the client is
 *   fenced; while a transaction is being ended, CONCURRENT_TRANSACTIONS
 *   comes first, whichever epoch is named.
 */
KafkaOutcome
kafka_init_transactional_producer(KafkaRequest *req,
								  KafkaBytes transactional_id,
								  int32 timeout_ms, int64 producer_id,
								  int16 producer_epoch,
								  int64 *out_producer_id, int16 *out_epoch,
								  int16 *error)
{
	KafkaTxnRow row;
	int64		new_id;
	int16		new_epoch;
	int			slot;
	int16		slot_epoch;
	bool		named;
	int64		last_id = -1;
	int16		last_epoch = -1;
	Oid			types[4] = {INT8OID, INT2OID, INT4OID, OIDOID};
	Oid			fence_types[3] = {INT2OID, INT8OID, INT2OID};
	Oid			bump_types[5] = {INT8OID, INT2OID, INT4OID, INT8OID, INT2OID};
	Datum		args[5];

	*out_producer_id = -1;
	*out_epoch = -1;
	if (txn_id_text(transactional_id) == NULL)
	{
		*error = KAFKA_INVALID_REQUEST;
		return KAFKA_ANSWER;
	}
	if (kafka_writes_refused())
	{
		*error = KAFKA_NOT_COORDINATOR;
		return KAFKA_ANSWER;
	}
	if (timeout_ms <= 0 || timeout_ms > pg_topics_kafka_transaction_max_timeout)
	{
		*error = KAFKA_INVALID_TRANSACTION_TIMEOUT;
		return KAFKA_ANSWER;
	}
	if (!kafka_txn_read_row(transactional_id, true, &row))
	{
		if (row.locked)
		{
			*error = KAFKA_CONCURRENT_TRANSACTIONS;
			return KAFKA_ANSWER;
		}
		/* the first use: the id is the role's from now on */
		*error = kafka_producer_new_id(GetUserId(), &new_id);
		if (*error != KAFKA_NONE)
			return KAFKA_ANSWER;
		args[0] = Int64GetDatum(new_id);
		args[1] = Int16GetDatum(0);
		args[2] = Int32GetDatum(timeout_ms);
		args[3] = ObjectIdGetDatum(GetUserId());
		/* another request may have made it meanwhile: the client retries */
		if (update_row(transactional_id,
					   "INSERT INTO topics.kafka_transactional_ids "
					   "(transactional_id, role, producer_id, producer_epoch, timeout_ms, state, updated_at) "
					   "VALUES ($1, $5, $2, $3, $4, 'Empty', pg_catalog.now()) "
					   "ON CONFLICT (transactional_id) DO NOTHING",
					   4, types, args) != 1)
		{
			*error = KAFKA_CONCURRENT_TRANSACTIONS;
			return KAFKA_ANSWER;
		}
		*out_producer_id = new_id;
		*out_epoch = 0;
		*error = KAFKA_NONE;
		return KAFKA_ANSWER;
	}
	if (row.role != GetUserId() &&
		SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(row.role)))
	{
		*error = KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
		return KAFKA_ANSWER;
	}
	/*
	 * An idle worker of the id's producer waits for a transaction of the
	 * epoch this request moves on from, or of a producer id it replaces:
	 * it is let go now (kafka_txn_claim would give it up at the next
	 * transaction; this frees its process at once).  Not by another
	 * role's request, refused above.
	 */
	(void) kafka_txn_release_idle(row.producer_id);
	if (row.role != GetUserId())
	{
		/*
		 * The id's role was dropped: the id is free, and this role takes it
		 * as at its first use (a new producer id), once a transaction its
		 * last producer may have left open is aborted
		 */
		slot = kafka_txn_find_producer(row.producer_id, &slot_epoch);
		if (slot >= 0)
		{
			kafka_txn_request_abort(slot);
			*error = KAFKA_CONCURRENT_TRANSACTIONS;
			return KAFKA_ANSWER;
		}
		*error = kafka_producer_new_id(GetUserId(), &new_id);
		if (*error != KAFKA_NONE)
			return KAFKA_ANSWER;
		args[0] = Int64GetDatum(new_id);
		args[1] = Int16GetDatum(0);
		args[2] = Int32GetDatum(timeout_ms);
		args[3] = ObjectIdGetDatum(GetUserId());
		(void) update_row(transactional_id,
						  "UPDATE topics.kafka_transactional_ids "
						  "SET role = $5, producer_id = $2, producer_epoch = $3, timeout_ms = $4, "
						  "last_producer_id = -1, last_producer_epoch = -1, state = 'Empty', "
						  "partitions = '{}', groups = '{}', "
						  "started_at = NULL, updated_at = pg_catalog.now() "
						  "WHERE transactional_id = $1",
						  4, types, args);
		ereport(LOG,
				(errmsg("Kafka transactional id \"%.*s\" of a dropped role taken by role \"%s\"",
						transactional_id.len, transactional_id.data,
						GetUserNameFromId(GetUserId(), false))));
		*out_producer_id = new_id;
		*out_epoch = 0;
		*error = KAFKA_NONE;
		return KAFKA_ANSWER;
	}
	/*
	 * KIP-360: the client says which producer it was: the id's current
	 * one, or the one its last InitProducerId moved on from (a retry of
	 * it, which may name a producer id the epochs ran out of)
	 */
	named = producer_id >= 0 || producer_epoch >= 0;
	if (named && producer_id != row.producer_id &&
		!(row.last_producer_id >= 0 && producer_id == row.last_producer_id))
	{
		*error = kafka_txn_fenced_error(req->api_key, req->api_version);
		return KAFKA_ANSWER;
	}
	if (strcmp(row.state, "PrepareCommit") == 0 ||
		strcmp(row.state, "PrepareAbort") == 0)
	{
		/*
		 * its worker is still ending the transaction: the retry of the
		 * request that began ending it is answered this way too, before
		 * its epoch is looked at, as Kafka's coordinator answers it
		 */
		if (kafka_txn_find(row.producer_id, row.producer_epoch - 1) >= 0 ||
			kafka_txn_find(row.producer_id, row.producer_epoch) >= 0)
		{
			*error = KAFKA_CONCURRENT_TRANSACTIONS;
			return KAFKA_ANSWER;
		}
		/* its worker is gone: nothing of it was committed */
	}
	if (named)
	{
		if (producer_id == row.producer_id &&
			producer_epoch == row.producer_epoch)
		{
			last_id = producer_id;
			last_epoch = producer_epoch;
		}
		else if (producer_id == row.last_producer_id &&
				 producer_epoch == row.last_producer_epoch &&
				 strcmp(row.state, "Ongoing") != 0)
		{
			/*
			 * A retry of the request that named the producer's previous
			 * id and epoch: it gave the current ones (a new producer id
			 * if the epochs had run out), or fenced the producer's own
			 * open transaction for it (then the current epoch is the
			 * fence's, which no one else was given).  Answered the
			 * current ones, as Kafka answers a retry (its lastProducerId
			 * and lastProducerEpoch); but a fence that took the last
			 * epoch, KAFKA_FENCED_EPOCH, is never handed out: the retry
			 * gets a new producer id, and its own retries that one.
			 */
			if (row.producer_epoch >= KAFKA_FENCED_EPOCH)
			{
				last_id = producer_id;
				last_epoch = producer_epoch;
			}
			else
			{
				args[0] = Int32GetDatum(timeout_ms);
				(void) update_row(transactional_id,
								  "UPDATE topics.kafka_transactional_ids "
								  "SET timeout_ms = $2, state = 'Empty', partitions = '{}', groups = '{}', "
								  "started_at = NULL, updated_at = pg_catalog.now() "
								  "WHERE transactional_id = $1",
								  1, &types[2], args);
				*out_producer_id = row.producer_id;
				*out_epoch = row.producer_epoch;
				*error = KAFKA_NONE;
				return KAFKA_ANSWER;
			}
		}
		else
		{
			*error = kafka_txn_fenced_error(req->api_key, req->api_version);
			return KAFKA_ANSWER;
		}
	}
	slot = kafka_txn_find_producer(row.producer_id, &slot_epoch);
	if (slot >= 0)
	{
		/*
		 * Abort the open transaction: its epoch moves on at once, so that
		 * its producer is fenced from now on, and its worker rolls back.
		 * At the last epoch too: KAFKA_FENCED_EPOCH is never handed out,
		 * and the retry of this request gives a new producer id.  A slot
		 * of the producer whose transaction the row never said Ongoing
		 * (the request that began it failed after claiming the slot) is
		 * aborted too: it would refuse the new epoch's transaction until
		 * its timeout.
		 */
		if (strcmp(row.state, "Ongoing") == 0 &&
			slot_epoch == row.producer_epoch)
		{
			args[0] = Int16GetDatum(row.producer_epoch + 1);
			args[1] = Int64GetDatum(last_id);
			args[2] = Int16GetDatum(last_epoch);
			(void) update_row(transactional_id,
							  "UPDATE topics.kafka_transactional_ids "
							  "SET producer_epoch = $2, last_producer_id = $3, last_producer_epoch = $4, "
							  "state = 'PrepareAbort', updated_at = pg_catalog.now() "
							  "WHERE transactional_id = $1",
							  3, fence_types, args);
		}
		kafka_txn_request_abort(slot);
		*error = KAFKA_CONCURRENT_TRANSACTIONS;
		return KAFKA_ANSWER;
	}
	if (strcmp(row.state, "Ongoing") == 0)
		ereport(LOG,
				(errmsg("aborting Kafka transaction of transactional id \"%.*s\" that has no transaction behind it",
						transactional_id.len, transactional_id.data),
				 errdetail("Its PostgreSQL transaction ended without a commit: the server restarted or its worker was terminated.")));

	/*
	 * The next epoch, or a new producer id once the epochs run out; the
	 * producer named (KIP-360) is kept, so that a retry naming it again
	 * gets the same answer, also after a new producer id (Kafka's
	 * lastProducerId)
	 */
	new_id = row.producer_id;
	new_epoch = row.producer_epoch + 1;
	if (row.producer_epoch >= KAFKA_MAX_PRODUCER_EPOCH)
	{
		*error = kafka_producer_new_id(GetUserId(), &new_id);
		if (*error != KAFKA_NONE)
			return KAFKA_ANSWER;
		new_epoch = 0;
	}
	args[0] = Int64GetDatum(new_id);
	args[1] = Int16GetDatum(new_epoch);
	args[2] = Int32GetDatum(timeout_ms);
	args[3] = Int64GetDatum(last_id);
	args[4] = Int16GetDatum(last_epoch);
	(void) update_row(transactional_id,
					  "UPDATE topics.kafka_transactional_ids "
					  "SET producer_id = $2, producer_epoch = $3, timeout_ms = $4, "
					  "last_producer_id = $5, last_producer_epoch = $6, "
					  "state = 'Empty', partitions = '{}', groups = '{}', started_at = NULL, "
					  "updated_at = pg_catalog.now() "
					  "WHERE transactional_id = $1",
					  5, bump_types, args);
	*out_producer_id = new_id;
	*out_epoch = new_epoch;
	*error = KAFKA_NONE;
	return KAFKA_ANSWER;
}

/*
 * The checks every request of a transactional producer passes, in the
 * request's transaction: the id's row, its role, its producer id and
 * epoch, and a transaction that is open without a worker behind it
 * (fenced).  KAFKA_NONE and *slot, the open transaction's slot or -1.
 *
 * The row is locked when lock says so: by the requests that change it
 * (AddPartitionsToTxn, AddOffsetsToTxn), whose transaction writes it
 * anyway.  The requests that are handed to the worker (TxnOffsetCommit,
 * EndTxn) read it without a lock, so that the listener's transaction
 * takes no xid and commits without a WAL flush: the worker checks the
 * producer again under the row's lock (its commit's UPDATE names the
 * producer id, epoch and state Ongoing), and the slot takes a request
 * only for the producer and epoch it holds (kafka_txn_post).  An unlocked
 * read may be older than the slot's end: a worker that commits makes its
 * commit visible before it frees its slot, so a row read Ongoing whose
 * slot is gone is read once more, with a new snapshot (the listener's
 * transactions are read committed), before it is taken for a transaction
 * lost with its worker.
 */
int16
kafka_txn_check(KafkaRequest *req, KafkaBytes transactional_id,
				int64 producer_id, int16 producer_epoch, bool lock,
				KafkaTxnRow *row, int *slot)
{
	*slot = -1;
	if (kafka_writes_refused())
		return KAFKA_NOT_COORDINATOR;
	for (int look = 0;; look++)
	{
		if (!kafka_txn_read_row(transactional_id, lock, row))
			return row->locked ? KAFKA_CONCURRENT_TRANSACTIONS :
				KAFKA_INVALID_PRODUCER_ID_MAPPING;
		if (row->role != GetUserId())
			return KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
		if (producer_id != row->producer_id)
			return KAFKA_INVALID_PRODUCER_ID_MAPPING;
		if (producer_epoch != row->producer_epoch ||
			row->producer_epoch >= KAFKA_FENCED_EPOCH)
			return kafka_txn_fenced_error(req->api_key, req->api_version);
		if (strcmp(row->state, "PrepareCommit") == 0 ||
			strcmp(row->state, "PrepareAbort") == 0)
			return KAFKA_CONCURRENT_TRANSACTIONS;
		if (strcmp(row->state, "Ongoing") != 0)
			return KAFKA_NONE;
		*slot = open_slot(row);
		if (*slot >= 0)
			return KAFKA_NONE;
		/* lost with its worker: never continued */
		if (lock || look > 0)
			return kafka_txn_fenced_error(req->api_key, req->api_version);
	}
}

/*
 * A worker this listener registered that has not attached to its slot
 * yet: the postmaster tells (bgw_notify_pid) when it starts or stops, and
 * kafka_txn_sweep_starting frees the slot if it stopped first
 */
typedef struct StartingWorker
{
	int			slot;
	uint64		claim;
	BackgroundWorkerHandle *handle;
} StartingWorker;

static List *starting = NIL;

/*
 * Free the slots of the workers this listener registered that are gone
 * without attaching (the postmaster could not fork one, or it was
 * terminated before it attached), and forget those that attached: at each
 * turn of the listener's loop (nothing to do almost always)
 */
void
kafka_txn_sweep_starting(void)
{
	ListCell   *lc;

	foreach(lc, starting)
	{
		StartingWorker *w = lfirst(lc);
		pid_t		pid;
		bool		forget = false;

		if (!kafka_txn_unattached(w->slot, w->claim))
			forget = true;
		else if (GetBackgroundWorkerPid(w->handle, &pid) == BGWH_STOPPED)
		{
			kafka_txn_release_unstarted(w->slot, w->claim);
			ereport(LOG,
					(errmsg("Kafka transaction worker of slot %d exited before it started its transaction",
							w->slot)));
			forget = true;
		}
		if (forget)
		{
			pfree(w->handle);
			pfree(w);
			starting = foreach_delete_current(starting, lc);
		}
	}
}

/*
 * Start the worker of claim of slot's transaction (txn_worker.c), without
 * waiting for it: *started says whether it could be registered
 */
static void
start_worker(int slot, uint64 claim, const KafkaTxnInfo *info, bool *started)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	MemoryContext old;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_topics");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "topic_kafka_txn_main");
	snprintf(worker.bgw_name, BGW_MAXLEN,
			 "pg_topics kafka transaction of producer %lld",
			 (long long) info->producer_id);
	snprintf(worker.bgw_type, BGW_MAXLEN, "pg_topics kafka transaction");
	worker.bgw_main_arg = Int32GetDatum(slot);
	worker.bgw_notify_pid = MyProcPid;
	old = MemoryContextSwitchTo(TopMemoryContext);
	*started = RegisterDynamicBackgroundWorker(&worker, &handle);
	if (*started)
	{
		StartingWorker *w = palloc(sizeof(StartingWorker));

		w->slot = slot;
		w->claim = claim;
		w->handle = handle;
		starting = lappend(starting, w);
	}
	MemoryContextSwitchTo(old);
}

/*
 * Begin the transaction of row (checked by kafka_txn_check) unless it is
 * open: a slot within the limits, a worker for it, the row Ongoing.
 * CONCURRENT_TRANSACTIONS when a limit is reached or no worker can be
 * started (retriable: clients try again after their backoff).
 */
int16
kafka_txn_begin(KafkaBytes transactional_id, KafkaTxnRow *row, int *slot)
{
	KafkaTxnInfo info;
	bool		fresh;
	uint64		claim;
	int16		error;

	if (*slot >= 0)
		return KAFKA_NONE;
	memset(&info, 0, sizeof(info));
	info.database = MyDatabaseId;
	info.role = row->role;
	info.producer_id = row->producer_id;
	info.producer_epoch = row->producer_epoch;
	info.timeout_ms = row->timeout_ms;
	info.started_at = GetCurrentTimestamp();
	error = kafka_txn_claim(&info, pg_topics_kafka_max_transactions_per_role,
							slot, &fresh, &claim);
	if (error != KAFKA_NONE)
		return error;
	if (fresh)
	{
		bool		started;

		start_worker(*slot, claim, &info, &started);
		if (!started)
		{
			/*
			 * No worker process is free: an idle worker, if there is one,
			 * is let go, so that the client's retry finds its process
			 */
			kafka_txn_release(*slot);
			(void) kafka_txn_release_idle(-1);
			*slot = -1;
			return KAFKA_CONCURRENT_TRANSACTIONS;
		}
	}
	(void) update_row(transactional_id,
					  "UPDATE topics.kafka_transactional_ids "
					  "SET state = 'Ongoing', partitions = '{}', groups = '{}', "
					  "started_at = pg_catalog.now(), updated_at = pg_catalog.now() "
					  "WHERE transactional_id = $1",
					  0, NULL, NULL);
	strlcpy(row->state, "Ongoing", sizeof(row->state));
	return KAFKA_NONE;
}

/* Add partitions ("topic/partition") to the open transaction */
void
kafka_txn_add_partitions(KafkaBytes transactional_id, List *names)
{
	Datum	   *elems;
	int			n = list_length(names);
	int			i = 0;
	ListCell   *lc;
	Oid			type = TEXTARRAYOID;
	Datum		arg;

	if (n == 0)
		return;
	elems = palloc(sizeof(Datum) * n);
	foreach(lc, names)
		elems[i++] = CStringGetTextDatum((char *) lfirst(lc));
	arg = PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
										  TYPALIGN_INT));
	(void) update_row(transactional_id,
					  "UPDATE topics.kafka_transactional_ids "
					  "SET partitions = ARRAY(SELECT DISTINCT p FROM pg_catalog.unnest(partitions || $2) p ORDER BY p), "
					  "updated_at = pg_catalog.now() WHERE transactional_id = $1",
					  1, &type, &arg);
}

/*
 * Add group to the open transaction, if it is not in it yet: false if the
 * transaction has KAFKA_TXN_MAX_GROUPS others already.  One name looked
 * for and appended, not the whole array sorted again at each request.
 */
bool
kafka_txn_add_group(KafkaBytes transactional_id, const char *group)
{
	Oid			types[2] = {TEXTOID, INT4OID};
	Datum		args[2];

	args[0] = CStringGetTextDatum(group);
	args[1] = Int32GetDatum(KAFKA_TXN_MAX_GROUPS);
	return update_row(transactional_id,
					  "UPDATE topics.kafka_transactional_ids "
					  "SET groups = CASE WHEN $2 = ANY (groups) THEN groups "
					  "ELSE pg_catalog.array_append(groups, $2) END, "
					  "updated_at = pg_catalog.now() "
					  "WHERE transactional_id = $1 "
					  "AND ($2 = ANY (groups) OR pg_catalog.cardinality(groups) < $3)",
					  2, types, args) == 1;
}

/*
 * May the request's role commit group's positions in a transaction, as far
 * as the group's coordinator knows it?  A Kafka group of that name that is
 * live belongs to its first member's role: another role, not a member of
 * it itself, is refused GROUP_AUTHORIZATION_FAILED, as Kafka refuses
 * AddOffsetsToTxn without the group's READ.  The positions' own checks
 * (each topic's group, its owner) are TxnOffsetCommit's, as OffsetCommit's.
 */
int16
kafka_txn_group_error(const char *group)
{
	KafkaGroupRights *rights = palloc(sizeof(KafkaGroupRights));
	Oid			role = GetUserId();
	int16		error = KAFKA_GROUP_AUTHORIZATION_FAILED;

	if (!kafka_group_rights(group, rights) ||
		has_privs_of_role(role, rights->owner))
		error = KAFKA_NONE;
	for (int i = 0; i < rights->nmembers && error != KAFKA_NONE; i++)
		if (rights->members[i].role == role)
			error = KAFKA_NONE;
	pfree(rights);
	return error;
}

/*
 * The partitions added to producer_id's open transaction, as
 * "topic/partition" strings (in the transaction's worker: what the
 * listener's AddPartitionsToTxn committed)
 */
List *
kafka_txn_added_partitions(int64 producer_id)
{
	TopicInternalSql state;
	Oid			argtypes[1] = {INT8OID};
	Datum		values[1];
	List	   *result = NIL;
	MemoryContext caller = CurrentMemoryContext;

	values[0] = Int64GetDatum(producer_id);
	topic_internal_sql_begin(&state);
	if (SPI_execute_with_args("SELECT pg_catalog.unnest(partitions) FROM topics.kafka_transactional_ids "
							  "WHERE producer_id = $1",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.kafka_transactional_ids");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *p = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		MemoryContext old = MemoryContextSwitchTo(caller);

		result = lappend(result, pstrdup(p));
		MemoryContextSwitchTo(old);
	}
	topic_internal_sql_end(&state);
	return result;
}

/* Is req's request with a transaction's worker already? */
bool
kafka_txn_forwarded(KafkaRequest *req)
{
	return req->conn != NULL && req->conn->txn_seg != NULL;
}

/* Let go of conn's segment */
static void
forget_forwarded(KafkaConn *conn)
{
	if (conn->txn_seg != NULL)
		dsm_detach((dsm_segment *) conn->txn_seg);
	conn->txn_seg = NULL;
	conn->txn_ticket = 0;
}

/* conn closes: a request it handed to a worker is answered to nobody */
void
kafka_txn_conn_closed(KafkaConn *conn)
{
	forget_forwarded(conn);
}

/*
 * Park req until slot moves on from version seen, or for TXN_PARK_MS.
 * seen is read before what was looked at (the post, the result): a
 * worker that answers in between moves the slot past it, and the request
 * wakes at once; read after, it would match, and the request would sleep
 * its whole park though its latch was set (a worker that serves one
 * producer's transactions one after the other answers that fast).
 */
static KafkaOutcome
park_on_slot(KafkaRequest *req, int slot, uint64 seen, TimestampTz *deadline)
{
	req->watch->txn_slot = slot;
	req->watch->txn_seen = seen;
	*deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), TXN_PARK_MS);
	return KAFKA_PARK;
}

/*
 * Hand req to the worker of slot's transaction, row's (checked by
 * kafka_txn_check or Produce), and park it; once parked (row NULL), the
 * answer the worker wrote, when it has.  A worker gone without answering
 * closes the connection: the client connects again and retries, and its
 * retry finds its producer fenced.
 */
KafkaOutcome
kafka_txn_forward(KafkaRequest *req, int slot, const KafkaTxnRow *row,
				  int64 answer_room, TimestampTz *deadline)
{
	KafkaConn  *conn = req->conn;
	dsm_segment *seg;
	KafkaTxnItem *item;
	int32		body_len;
	int32		answer_cap;
	uint64		ticket;
	uint64		seen;

	if (conn->txn_seg != NULL)
	{
		KafkaOutcome outcome;

		/*
		 * The segment first: the worker marks it answered before it tells
		 * the slot, and the slot may since have been freed and taken by
		 * another transaction, which says nothing of this ticket
		 */
		item = dsm_segment_address((dsm_segment *) conn->txn_seg);
		if (!item->answered)
		{
			KafkaTxnResult result;

			seen = kafka_txn_version(conn->txn_slot);
			result = kafka_txn_result(conn->txn_slot, conn->txn_ticket);

			if (result == KAFKA_TXN_PENDING)
				return park_on_slot(req, conn->txn_slot, seen, deadline);
			/* answered between the two looks? */
			if (result == KAFKA_TXN_LOST && !item->answered)
			{
				forget_forwarded(conn);
				ereport(ERROR,
						(errcode(ERRCODE_TRANSACTION_ROLLBACK),
						 errmsg("the Kafka transaction's worker ended without answering")));
			}
		}
		pg_read_barrier();
		outcome = (KafkaOutcome) item->outcome;
		if (item->failed || item->too_large)
		{
			bool		failed = item->failed;

			forget_forwarded(conn);
			/* the worker logged why */
			if (failed)
				ereport(ERROR,
						(errcode(ERRCODE_TRANSACTION_ROLLBACK),
						 errmsg("the Kafka transaction was aborted: its request failed in the transaction's worker")));
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("the answer of a Kafka transaction's request is larger than its room")));
		}
		if (outcome == KAFKA_ANSWER)
			appendBinaryStringInfo(req->response,
								   item->data + item->body_len,
								   item->answer_len);
		forget_forwarded(conn);
		return outcome;
	}

	/*
	 * The request's body, and room for its answer: twice the body's size,
	 * what the caller counted for its elements (answer_room: a Produce
	 * partition of null records has an answer six times its size) and a
	 * little holds any answer of the requests handed over (a record
	 * refused takes at most six bytes of the answer for its seven or
	 * more), and the worker closes the connection on an answer that would
	 * not fit rather than write past it
	 */
	body_len = req->body.len - req->body.pos;
	if (2 * (int64) body_len + answer_room + 4096 > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the answer of a Kafka transaction's request would be larger than its room")));
	answer_cap = 2 * body_len + answer_room + 4096;
	seg = dsm_create(offsetof(KafkaTxnItem, data) + (Size) body_len + answer_cap, 0);
	dsm_pin_mapping(seg);
	item = dsm_segment_address(seg);
	item->api_key = req->api_key;
	item->api_version = req->api_version;
	item->flexible = req->flexible;
	item->body_len = body_len;
	item->answer_cap = answer_cap;
	item->answer_len = 0;
	item->outcome = KAFKA_CLOSE;
	item->failed = false;
	item->too_large = false;
	item->answered = false;
	memcpy(item->data, req->body.data + req->body.pos, body_len);
	Assert(row != NULL);
	seen = kafka_txn_version(slot);
	if (!kafka_txn_post(slot, row->producer_id, row->producer_epoch,
						dsm_segment_handle(seg), MyLatch, &ticket))
	{
		/*
		 * The worker is busy with another request: try again after it.  Or
		 * the slot holds another producer's transaction now: the request
		 * is checked again from the start when it wakes.
		 */
		dsm_detach(seg);
		return park_on_slot(req, slot, seen, deadline);
	}
	conn->txn_seg = seg;
	conn->txn_slot = slot;
	conn->txn_ticket = ticket;
	return park_on_slot(req, slot, seen, deadline);
}
