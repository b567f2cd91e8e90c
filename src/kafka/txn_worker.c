/*-------------------------------------------------------------------------
 *
 * txn_worker.c
 *	  The transaction worker: a background worker that holds one open
 *	  Kafka transaction's PostgreSQL transaction.
 *
 * A Kafka transaction spans requests, and connections: it cannot be a
 * listener request's transaction, and the listener, an event loop, may
 * not hold one open for a producer either.  So each open Kafka
 * transaction gets a process of its own, started when it begins
 * (transactions.c): it connects to the Kafka database, begins a
 * transaction acting as the transactional id's role, and runs what the
 * listener hands it through the transaction's slot (shared/kafka_txns.c):
 * the producer's transactional Produce requests (produce.c, each
 * partition written in the transaction itself, with the idempotent
 * producers' sequence checks), its TxnOffsetCommit requests (the same
 * commit of a position as OffsetCommit's) and its EndTxn.  Commit marks the id's row
 * CompleteCommit in the same transaction as the records and positions, so
 * that all of it becomes visible at once, and waits for the synchronous
 * standbys as the server's synchronous_commit says (what acks=all waits
 * for): the worker is the only one waiting.  Abort rolls back and then
 * marks the row CompleteAbort: nothing of the transaction is ever seen.
 *
 * The transaction is aborted, and the producer fenced (its epoch
 * bumped), when transaction.timeout.ms passes after it began without an
 * EndTxn, as Kafka aborts an abandoned transaction; and when its EndTxn
 * fails.  A Produce or TxnOffsetCommit that fails (an ERROR: a Produce
 * partition has no subtransaction of its own, which a transaction of
 * many requests could not afford; a TxnOffsetCommit partition's commit
 * still has one, its errors its own) rolls the transaction
 * back, and the worker, its slot kept and its producer not fenced,
 * answers what follows an error until the producer aborts: a Kafka
 * producer whose transactional Produce failed must abort anyway.
 * Its memory is its own, freed after each request (not the listener's
 * budget).  A newer producer of the id (InitProducerId) aborts it too.  A worker
 * that is terminated, or a server that crashes, leaves the row Ongoing
 * with nothing behind it: transactions.c fences its producer, and
 * InitProducerId or the background worker's round ends it.
 *
 * A transaction ended by its producer's EndTxn (commit, or abort) does
 * not end the worker: it commits, its PostgreSQL transaction is over, and
 * it waits, idle, for pg_topics.kafka_transaction_worker_idle_timeout,
 * for the same producer's next transaction (same producer id and epoch),
 * which the listener's claim hands to it through the slot
 * (shared/kafka_txns.c) instead of starting a process: a process's start,
 * connection and cold caches were most of a small transaction's time.
 * An idle worker holds no transaction, no snapshot and no lock (its xmin
 * holds nothing back), counts toward no limit, and exits when its slot is
 * given up (another transaction needs it, its producer's InitProducerId,
 * a claim of the producer at another epoch), when its idle time passes,
 * on SIGTERM, and instead of idling after a transaction that failed,
 * timed out or was fenced, or when its memory grew past
 * TXN_WORKER_MAX_MEMORY.  It reads the configuration files on SIGHUP,
 * outside its transactions (while idle, and as a transaction begins):
 * each transaction runs with the server's settings as they were at its
 * start (synchronous_commit among them), as it did with a process of its
 * own, not those the worker started with.
 *
 * Each open transaction costs one of max_worker_processes for its life,
 * and so does an idle worker.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/transactions.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/wire/protocol.h"

PGDLLEXPORT void topic_kafka_txn_main(Datum main_arg);

/*
 * A worker whose memory grew past this (bytes, all its contexts) exits
 * after its transaction instead of waiting for the next: the memory of a
 * transaction's requests is freed with them, but what a long-lived
 * process caches (relations, catalogs, plans) is not bounded by them
 */
#define TXN_WORKER_MAX_MEMORY	((Size) 64 * 1024 * 1024)

static int	my_slot = -1;
static KafkaTxnInfo txn;

/*
 * A request failed: the transaction was rolled back, the worker waits for
 * the producer's abort (run_item)
 */
static bool txn_failed = false;

/*
 * The transaction ended as its producer asked (EndTxn commit or abort):
 * the worker may wait for the producer's next one
 */
static bool txn_may_idle = false;

/* the slot is idle, the worker waits for the producer's next transaction */
static bool txn_kept = false;
static Oid	saved_user;
static int	saved_sec_context;

/* How the row is marked when the transaction aborted */
typedef enum AbortKind
{
	ABORT_ASKED,				/* EndTxn abort: the epoch stays */
	ABORT_FENCED,				/* a newer producer aborted it: its epoch moved */
	ABORT_FAILED				/* timed out or failed: the producer is fenced,
								 * at 32767 too (never handed out: the next
								 * InitProducerId gives a new producer id) */
} AbortKind;

/* The worker leaves, however: its slot is free (after the rollback) */
static void
worker_exit(int code, Datum arg)
{
	kafka_txn_detach(my_slot);
}

/* Begin the Kafka transaction's PostgreSQL transaction, as its role */
static void
begin_xact(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	GetUserIdAndSecContext(&saved_user, &saved_sec_context);
	SetUserIdAndSecContext(txn.role, saved_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
}

/* Run sql on the row of the transaction's producer; the rows changed */
static uint64
mark_row(const char *sql)
{
	Oid			types[2] = {INT8OID, INT2OID};
	Datum		values[2];

	TopicInternalSql state;
	uint64		n;

	values[0] = Int64GetDatum(txn.producer_id);
	values[1] = Int16GetDatum(txn.producer_epoch);
	topic_internal_sql_begin(&state);
	if (SPI_execute_with_args(sql, 2, types, values, NULL, false, 0) < 0)
		elog(ERROR, "could not change topics.kafka_transactional_ids");
	n = SPI_processed;
	topic_internal_sql_end(&state);
	return n;
}

/*
 * Roll the transaction back (if it is still open) and mark the row as
 * kind says, in a transaction of its own.
 *
 * An ERROR here (the row's UPDATE failing: a lock_timeout of the
 * server's configuration while a listener holds the row, "out of shared
 * memory") is not caught: from the timeout path and from run_item's
 * PG_CATCH it ends the worker as FATAL.  That is safe, not retried: the
 * PostgreSQL transaction is rolled back already or by the exit, the slot
 * is freed by worker_exit, and the row left Ongoing (or PrepareAbort) is
 * a transaction lost with its worker, whose producer is fenced and which
 * the background worker's round or the id's next InitProducerId ends
 * (worker/lost_transactions.c).
 */
static void
end_aborted(AbortKind kind)
{
	AbortCurrentTransaction();
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (kind == ABORT_FENCED)
		(void) mark_row("UPDATE topics.kafka_transactional_ids "
						"SET state = 'CompleteAbort', partitions = '{}', groups = '{}', "
						"updated_at = pg_catalog.now() "
						"WHERE producer_id = $1 AND state = 'PrepareAbort'");
	else
		(void) mark_row(kind == ABORT_FAILED ?
						"UPDATE topics.kafka_transactional_ids "
						"SET state = 'CompleteAbort', partitions = '{}', groups = '{}', "
						"producer_epoch = LEAST(producer_epoch + 1, 32767), "
						"last_producer_id = -1, last_producer_epoch = -1, "
						"updated_at = pg_catalog.now() "
						"WHERE producer_id = $1 AND producer_epoch = $2 AND state = 'Ongoing'" :
						"UPDATE topics.kafka_transactional_ids "
						"SET state = 'CompleteAbort', partitions = '{}', groups = '{}', "
						"updated_at = pg_catalog.now() "
						"WHERE producer_id = $1 AND producer_epoch = $2 AND state = 'Ongoing'");
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/*
 * Commit the transaction, the row marked CompleteCommit in it: false
 * (nothing committed) if the row is not its any more (a newer producer
 * fenced it meanwhile)
 */
static bool
end_committed(void)
{
	if (mark_row("UPDATE topics.kafka_transactional_ids "
				 "SET state = 'CompleteCommit', partitions = '{}', groups = '{}', "
				 "updated_at = pg_catalog.now() "
				 "WHERE producer_id = $1 AND producer_epoch = $2 AND state = 'Ongoing'") != 1)
		return false;
	SetUserIdAndSecContext(saved_user, saved_sec_context);
	if (ActiveSnapshotSet())
		PopActiveSnapshot();
	/* as the server's synchronous_commit says: acks=all's wait */
	CommitTransactionCommand();
	return true;
}

/*
 * Run req in the transaction: a Produce or TxnOffsetCommit is answered
 * all_error for every partition, if that is not KAFKA_NONE, else written;
 * EndTxn ends the transaction (*ended set), but a failed transaction
 * (txn_failed) is only aborted: its commit is answered INVALID_TXN_STATE,
 * as Kafka answers an EndTxn the transaction's state does not allow.
 */
static KafkaOutcome
run_request(KafkaRequest *req, MemoryContext item_context, int16 all_error,
			bool *ended)
{
	bool		commit;
	int64		producer_id;
	int16		producer_epoch;
	int16		error = KAFKA_NONE;

	switch (req->api_key)
	{
		case KAFKA_API_PRODUCE:
			return kafka_txn_produce(req, &txn, all_error);
		case KAFKA_API_TXN_OFFSET_COMMIT:
			return kafka_txn_offset_commit_run(req, &txn, all_error);
		case KAFKA_API_END_TXN:
			break;
		default:
			elog(ERROR, "unexpected Kafka request %d for a transaction",
				 req->api_key);
	}
	if (!kafka_end_txn_decode(req, &commit, &producer_id, &producer_epoch))
		return KAFKA_CLOSE;

	/*
	 * Another producer's EndTxn never ends this transaction (the listener
	 * checked the slot's producer when it posted; this holds even if that
	 * check were lost): the request is answered, the transaction goes on
	 */
	if (producer_id != txn.producer_id ||
		producer_epoch != txn.producer_epoch)
		error = kafka_txn_fenced_error(req->api_key, req->api_version);
	else if (commit && txn_failed)
		error = KAFKA_INVALID_TXN_STATE;
	else if (commit && kafka_writes_refused())
	{
		/*
		 * as the listener answers a fenced node's EndTxn: the transaction
		 * stays open, the client retries here or at the new primary
		 */
		error = KAFKA_NOT_COORDINATOR;
	}
	else
	{
		if (commit && !end_committed())
		{
			error = kafka_txn_fenced_error(req->api_key, req->api_version);
			end_aborted(ABORT_FENCED);
		}
		else
		{
			if (!commit)
				end_aborted(ABORT_ASKED);
			txn_may_idle = true;
		}
		*ended = true;
	}
	MemoryContextSwitchTo(item_context);
	kafka_end_txn_answer(req, error);
	return KAFKA_ANSWER;
}

/*
 * May the worker wait for its producer's next transaction, the one it
 * served ended?  Not after a failure or a fence (txn_may_idle unset), not
 * when waiting is switched off, and not once its memory grew too much
 */
static bool
may_idle(void)
{
	return txn_may_idle && !txn_failed &&
		pg_topics_kafka_transaction_worker_idle_timeout > 0 &&
		MemoryContextMemAllocated(TopMemoryContext, true) <=
		TXN_WORKER_MAX_MEMORY;
}

/* Read the configuration files again if a SIGHUP asked for it */
static void
reload_if_asked(void)
{
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/*
 * Run the request in the segment of handle in the transaction: its
 * answer goes back in the segment.  True if the transaction ended (EndTxn,
 * or a failure that aborted it).
 */
static bool
run_item(dsm_handle handle)
{
	dsm_segment *seg = dsm_attach(handle);
	KafkaTxnItem *item;
	KafkaRequest req;
	KafkaWatch	watch;
	StringInfoData answer;
	MemoryContext item_context;
	MemoryContext oldcontext;
	volatile KafkaOutcome outcome = KAFKA_CLOSE;
	volatile bool ended = false;
	volatile int16 caught = KAFKA_NONE;

	if (seg == NULL)
	{
		/* its listener gave up on it (the client went away) */
		(void) kafka_txn_done(my_slot, false, false);
		return false;
	}
	/* mapped until detached here, not until the transaction ends */
	dsm_pin_mapping(seg);
	item = dsm_segment_address(seg);
	/* not the transaction's: EndTxn ends it before the answer is written */
	item_context = AllocSetContextCreate(TopMemoryContext,
										 "Kafka transaction request",
										 ALLOCSET_DEFAULT_SIZES);
	oldcontext = CurrentMemoryContext;
	MemoryContextSwitchTo(item_context);
	memset(&req, 0, sizeof(req));
	memset(&watch, 0, sizeof(watch));
	req.api_key = item->api_key;
	req.api_version = item->api_version;
	req.flexible = item->flexible;
	kafka_reader_init(&req.body, item->data, item->body_len);
	req.body.alloc_left = SIZE_MAX;
	req.body.elements_left = KAFKA_MAX_REQUEST_ELEMENTS;
	req.received = GetCurrentTimestamp();
	req.watch = &watch;
	initStringInfo(&answer);
	req.response = &answer;

	/* each request sees what committed before it, and what came before */
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());

	/*
	 * The listener looked at the node's fence before it handed the request
	 * over, which may have waited since (behind the transaction's other
	 * requests, on a lock): the configuration files are read again here,
	 * before anything is written or committed, so that a node fenced
	 * meanwhile stores nothing (fence.c)
	 */
	kafka_fence_reload(false);
	PG_TRY();
	{
		outcome = run_request(&req, item_context,
							  txn_failed ? KAFKA_INVALID_TXN_STATE : KAFKA_NONE,
							  (bool *) &ended);
		if (!ended)
			PopActiveSnapshot();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		HOLD_INTERRUPTS();
		MemoryContextSwitchTo(item_context);
		edata = CopyErrorData();
		EmitErrorReport();
		FlushErrorState();
		RESUME_INTERRUPTS();
		if (req.api_key != KAFKA_API_END_TXN)
		{
			/*
			 * A Produce or TxnOffsetCommit failed (a partition's write, its
			 * records refused by the topic's types): the transaction lost
			 * part of what it was told went in, as a Kafka producer's
			 * transaction whose Produce failed, which it must abort.  It is
			 * rolled back now, and the worker waits for that abort in an
			 * empty transaction of its own, its slot kept (the producer
			 * is not fenced); the request's partitions are answered the
			 * error, the later requests INVALID_TXN_STATE.
			 */
			caught = kafka_error_of(edata);
			if (caught == KAFKA_NONE)
				caught = KAFKA_INVALID_TXN_STATE;
			AbortCurrentTransaction();
			txn_failed = true;
			begin_xact();
			ereport(LOG,
					(errmsg("Kafka transaction of producer %lld epoch %d failed: it is rolled back and waits for the producer's abort",
							(long long) txn.producer_id, txn.producer_epoch)));
		}
		else
		{
			/* its end failed: it is over, the producer fenced */
			outcome = KAFKA_CLOSE;
			ended = true;
			item->failed = true;
			end_aborted(ABORT_FAILED);
			ereport(LOG,
					(errmsg("Kafka transaction of producer %lld epoch %d aborted after its request failed",
							(long long) txn.producer_id, txn.producer_epoch)));
		}
	}
	PG_END_TRY();

	if (caught != KAFKA_NONE)
	{
		/* the failed request's answer: every partition the error */
		MemoryContextSwitchTo(item_context);
		kafka_reader_init(&req.body, item->data, item->body_len);
		req.body.alloc_left = SIZE_MAX;
		req.body.elements_left = KAFKA_MAX_REQUEST_ELEMENTS;
		resetStringInfo(&answer);
		PushActiveSnapshot(GetTransactionSnapshot());
		outcome = run_request(&req, item_context, caught, (bool *) &ended);
		PopActiveSnapshot();
	}

	if (outcome == KAFKA_ANSWER && answer.len > item->answer_cap)
	{
		outcome = KAFKA_CLOSE;
		item->too_large = true;
	}
	if (outcome == KAFKA_ANSWER)
	{
		memcpy(item->data + item->body_len, answer.data, answer.len);
		item->answer_len = answer.len;
	}
	item->outcome = outcome;

	/*
	 * The segment says it was answered before the slot does: a listener
	 * that wakes after the slot was freed and taken by another transaction
	 * still finds its answer here
	 */
	pg_write_barrier();
	item->answered = true;
	/* an ended transaction took its memory with it */
	MemoryContextSwitchTo(ended ? TopMemoryContext : oldcontext);
	MemoryContextDelete(item_context);
	dsm_detach(seg);
	txn_kept = kafka_txn_done(my_slot, ended, ended && may_idle());
	return ended;
}

/*
 * Serve the transaction of txn, which the slot says: its requests until
 * it ends.  txn_kept says whether the worker may wait for the producer's
 * next one (the slot is idle), else the slot is free.
 */
static void
serve_transaction(void)
{
	TimestampTz deadline;

	txn_failed = false;
	txn_may_idle = false;
	txn_kept = false;
	kafka_txn_produce_begin();
	/* a transaction runs with the settings of its start, as before reuse */
	reload_if_asked();
	deadline = TimestampTzPlusMilliseconds(txn.started_at, txn.timeout_ms);
	begin_xact();
	pgstat_report_activity(STATE_IDLEINTRANSACTION, NULL);

	for (;;)
	{
		dsm_handle	handle;
		bool		abort_asked;
		long		wait_ms;

		CHECK_FOR_INTERRUPTS();
		if (kafka_txn_take(my_slot, &handle, &abort_asked) && !abort_asked)
		{
			pgstat_report_activity(STATE_RUNNING, "Kafka transaction request");
			if (run_item(handle))
				return;
			pgstat_report_activity(STATE_IDLEINTRANSACTION, NULL);
			continue;
		}
		if (abort_asked)
		{
			/* a newer producer of the id: the request taken is not run */
			end_aborted(ABORT_FENCED);
			kafka_txn_detach(my_slot);
			return;
		}
		if (GetCurrentTimestamp() >= deadline)
		{
			end_aborted(ABORT_FAILED);
			kafka_txn_detach(my_slot);
			ereport(LOG,
					(errmsg("Kafka transaction of producer %lld epoch %d aborted: no EndTxn within its transaction.timeout.ms (%d ms)",
							(long long) txn.producer_id, txn.producer_epoch,
							txn.timeout_ms)));
			return;
		}
		wait_ms = (long) ((deadline - GetCurrentTimestamp() + 999) / 1000);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(wait_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * Wait, holding no transaction, for the producer's next transaction:
 * true once a claim handed it over (txn says it), false once the slot is
 * given up or pg_topics.kafka_transaction_worker_idle_timeout passed
 */
static bool
wait_idle(void)
{
	TimestampTz idle_since = GetCurrentTimestamp();

	Assert(!IsTransactionState());
	/* what a backend reports before it waits for its client */
	pgstat_report_stat(true);
	pgstat_report_activity(STATE_IDLE, NULL);
	for (;;)
	{
		TimestampTz until;
		TimestampTz now;
		KafkaTxnIdle state;
		long		wait_ms;

		CHECK_FOR_INTERRUPTS();
		reload_if_asked();
		now = GetCurrentTimestamp();
		until = TimestampTzPlusMilliseconds(idle_since,
											pg_topics_kafka_transaction_worker_idle_timeout);
		state = kafka_txn_idle_state(my_slot, now >= until, &txn);
		if (state == KAFKA_TXN_RESUMED)
			return true;
		if (state == KAFKA_TXN_GONE)
			return false;
		wait_ms = (long) ((until - now + 999) / 1000);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(wait_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* Entry point of a transaction worker: main_arg is its slot */
void
topic_kafka_txn_main(Datum main_arg)
{
	my_slot = DatumGetInt32(main_arg);
	pqsignal(SIGTERM, die);
	/* bgworkers ignore it by default: an idle worker outlives a reload */
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	before_shmem_exit(worker_exit, (Datum) 0);
	if (!kafka_txn_attach(my_slot, MyLatch, &txn))
		proc_exit(0);
	BackgroundWorkerInitializeConnectionByOid(txn.database, InvalidOid, 0);
	pgstat_report_appname("pg_topics kafka transaction");
	kafka_session_init();
	do
		serve_transaction();
	while (txn_kept && wait_idle());
	proc_exit(0);
}
