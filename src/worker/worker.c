/*-------------------------------------------------------------------------
 *
 * worker.c
 *	  The background worker: segments ahead of need, and retention.
 *
 * A launcher runs for the whole cluster (started at server start, after
 * recovery).  Every pg_topics.worker_naptime, and at once when a producer
 * asks for a segment, it starts a short-lived worker in each database that
 * accepts connections; one at a time, so it needs one spare background
 * worker slot.  A database worker does nothing where the extension is not
 * installed; elsewhere, for every partition's log, it:
 *
 * - creates a SPARE segment if there is none, so that a roll never waits
 *   for DDL (the segment commits before its entry is added),
 * - sets when the LIVE segment rolls (from the topic's retention settings
 *   and pg_topics.segment_size), and rolls it if it is due by its whole
 *   size on disk, by age or by a writer's flag: retention never depends on
 *   someone producing after the budget is exceeded,
 * - applies retention (retention.c), dropping whole segments, and
 *   compacts topics.consumer_offsets (compaction.c),
 * - forgets directory entries of segments dropped earlier,
 * - creates a spare again if the roll used it up,
 * - logs the stable-offset markers of published logs that changed
 *   (markers.c),
 * - and drops segments no directory names (orphans of a crash between
 *   creating a segment and adding it, or of a partition dropped without
 *   its segments), taking a lock only on real candidates.
 *
 * Whether the launcher runs, when a round last finished and why workers
 * cannot start are kept for topics.maintenance (maintenance.c), and said
 * once in the log rather than per attempt.
 *
 * Short-lived database workers keep no connection open, so DROP DATABASE
 * is not held up for long; an error in one log is reported and the worker
 * goes on with the next.  In a database that is read-only (the server's
 * default_transaction_read_only, as pg_auto_failover fences a node, or the
 * database's) a worker does nothing at all: every change would fail, each
 * with its error in the log, round after round.  It is said once, and
 * once when the database is writable again (maintenance.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/partition.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/unless_locked.h"
#include "pg_topics/worker/expired_transactional_ids.h"
#include "pg_topics/worker/lost_transactions.h"
#include "pg_topics/base/wakeup.h"
#include "pg_topics/replication/markers.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/maintenance.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/worker/compaction.h"
#include "pg_topics/worker/log_cleaner.h"
#include "pg_topics/worker/replica_cleaner.h"
#include "pg_topics/worker/retention.h"
#include "pg_topics/worker/worker.h"

PGDLLEXPORT void topic_launcher_main(Datum main_arg);
PGDLLEXPORT void topic_db_worker_main(Datum main_arg);

/* Register the launcher; from _PG_init, while preloading */
void
topic_worker_init(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_topics");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "topic_launcher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "pg_topics launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "pg_topics launcher");
	/* said in the log and in topics.maintenance when there is no slot */
	if (topic_maintenance_register_launcher())
		RegisterBackgroundWorker(&worker);
}

/* Databases a round visits: those accepting connections, not templates */
static List *
databases(void)
{
	List	   *result = NIL;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tuple;
	MemoryContext caller = CurrentMemoryContext;

	StartTransactionCommand();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tuple);
		MemoryContext old;

		if (!db->datallowconn || db->datistemplate)
			continue;
		old = MemoryContextSwitchTo(caller);
		result = lappend_oid(result, db->oid);
		MemoryContextSwitchTo(old);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return result;
}

/* Run one database worker for dboid and wait for it to finish */
static void
run_database(Oid dboid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	pid_t		pid;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_topics");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "topic_db_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "pg_topics worker for database %u", dboid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "pg_topics worker");
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	worker.bgw_notify_pid = MyProcPid;

	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		topic_maintenance_worker_start_failed(dboid);
		return;
	}
	topic_maintenance_worker_started();
	if (WaitForBackgroundWorkerStartup(handle, &pid) != BGWH_STARTED)
		return;
	WaitForBackgroundWorkerShutdown(handle);
}

/* The launcher is gone: producers must not set a stale latch */
static void
launcher_exit(int code, Datum arg)
{
	topic_wakeup_set_launcher(NULL);
	topic_maintenance_launcher_stopped();
}

void
topic_launcher_main(Datum main_arg)
{
	volatile TimestampTz last_round = 0;
	MemoryContext turn_context;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	topic_wakeup_set_launcher(MyLatch);
	topic_maintenance_launcher_started();
	before_shmem_exit(launcher_exit, (Datum) 0);
	turn_context = AllocSetContextCreate(TopMemoryContext,
										 "pg_topics launcher turn",
										 ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(turn_context);

	for (;;)
	{
		Oid			wake;
		TimestampTz now;
		volatile long next_expiry;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		/*
		 * An error here is someone else's doing (the shared lock table
		 * filled by another transaction: "out of shared memory"): report
		 * it, and try again next time rather than exit
		 */
		next_expiry = -1;
		PG_TRY();
		{
			wake = topic_wakeup_take_database();
			if (OidIsValid(wake))
				run_database(wake);

			now = GetCurrentTimestamp();
			if (TimestampDifferenceExceeds(last_round, now, pg_topics_worker_naptime))
			{
				List	   *dbs = databases();
				ListCell   *lc;

				foreach(lc, dbs)
					run_database(lfirst_oid(lc));
				list_free(dbs);
				last_round = GetCurrentTimestamp();
			}

			/* producers holding readers back too long; sleep until the next one would */
			next_expiry = topic_registry_end_old_producers();
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(turn_context);
			EmitErrorReport();
			FlushErrorState();
			AbortOutOfAnyTransaction();
			last_round = GetCurrentTimestamp();
		}
		PG_END_TRY();
		MemoryContextSwitchTo(turn_context);
		MemoryContextReset(turn_context);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 next_expiry >= 0 ? Min(next_expiry, pg_topics_worker_naptime) :
						 pg_topics_worker_naptime, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * OIDs of relations stored by topic_log in this database: partition logs,
 * or segments; the list is made in context into.
 */
static List *
log_relations(bool segments, MemoryContext into)
{
	List	   *result = NIL;
	Oid			am = topic_log_am_oid();
	Oid			segnsp = topic_segment_namespace();
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tuple;

	rel = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tuple);

		if (c->relam == am && c->relkind == RELKIND_RELATION &&
			(c->relnamespace == segnsp) == segments)
		{
			MemoryContext old = MemoryContextSwitchTo(into);

			result = lappend_oid(result, c->oid);
			MemoryContextSwitchTo(old);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return result;
}

/*
 * Run fn(relid) in a transaction of its own; report an error and go on.
 * True if it committed.
 */
static bool
in_transaction(void (*fn) (Oid), Oid relid)
{
	MemoryContext context = CurrentMemoryContext;
	bool		committed = false;

	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		fn(relid);
		PopActiveSnapshot();
		CommitTransactionCommand();
		committed = true;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(context);
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(context);
	return committed;
}

/*
 * Open a log for upkeep, or NULL if someone holds a conflicting lock (a
 * long VACUUM, an open TRUNCATE): it waits for the next round rather than
 * hold up every other log.
 */
static Relation
open_for_upkeep(Oid relid)
{
	if (!ConditionalLockRelationOid(relid, ShareUpdateExclusiveLock))
		return NULL;
	return try_relation_open(relid, NoLock);
}

static void
close_after_upkeep(Relation rel)
{
	relation_close(rel, ShareUpdateExclusiveLock);
}

/*
 * Retention of one partition's log: roll its LIVE segment when it is due
 * (by size on disk or by age, whether or not anyone produces), then drop
 * whole segments
 */
static bool log_compacted = false;

static void
maintain_log(Oid relid)
{
	Relation	router = open_for_upkeep(relid);
	Oid			topic;

	log_compacted = false;
	if (router == NULL)
		return;
	if (topic_log_is_router(router))
	{
		(void) topic_retention_apply(router, false, NULL);
		/* whether clean_log has anything to look at: no transaction if not */
		log_compacted = router->rd_rel->relispartition &&
			OidIsValid(topic = get_partition_parent(relid, true)) &&
			topic_config_of(topic)->compact;
	}
	close_after_upkeep(router);
}

/* Forget the entries of segments whose drop committed (a later transaction) */
static void
forget_gone(Oid relid)
{
	Relation	router = open_for_upkeep(relid);

	if (router == NULL)
		return;
	if (topic_log_is_router(router))
		topic_segments_forget_gone(router);
	close_after_upkeep(router);
}

/* Create a spare segment for a log that has none (committed by the caller) */
static Oid	spare_router = InvalidOid;
static Oid	spare_relid = InvalidOid;
static uint32 spare_segno = 0;

static void
create_spare(Oid relid)
{
	Relation	router = open_for_upkeep(relid);
	TopicSegmentDir *dir;
	bool		has_spare = false;

	spare_relid = InvalidOid;
	if (router == NULL)
		return;
	if (topic_log_is_router(router))
	{
		dir = topic_segdir_read(router);
		for (int i = 0; i < dir->nentries; i++)
			if (dir->entries[i].state == TOPIC_SEGMENT_SPARE)
				has_spare = true;
		if (!has_spare && dir->nentries < (int) TOPIC_LOG_MAX_SEGMENTS)
		{
			spare_router = relid;
			spare_relid = topic_segment_create_spare(router, &spare_segno);
		}
		pfree(dir);
	}
	close_after_upkeep(router);
}

static void
add_spare(Oid relid)
{
	Relation	router = open_for_upkeep(relid);

	if (router == NULL)
		return;
	topic_segment_add_spare(router, spare_relid, spare_segno);
	close_after_upkeep(router);
}

/* Compaction of topics.consumer_offsets: copy, commit, then cut */
static int64 compaction_cut = -1;

static void
compact_copy(Oid relid)
{
	Relation	log = open_for_upkeep(relid);

	compaction_cut = -1;
	if (log == NULL)
		return;
	compaction_cut = topic_offsets_compact_copy(log);
	close_after_upkeep(log);
}

static void
compact_finish(Oid relid)
{
	Relation	log = open_for_upkeep(relid);

	if (log == NULL)
		return;
	topic_offsets_compact_finish(log, compaction_cut);
	close_after_upkeep(log);
}

/*
 * Log compaction of a partition of a compacted topic (log_cleaner.c): a
 * transaction plans the pass when the partition is due, then each segment
 * is cleaned in a transaction of its own, so that a swapped segment's lock
 * is held only until its own commit.
 */
static TopicCleanPass *clean_pass = NULL;

/*
 * Does the pass wait for a segment's readers?  Only when its dirty part is
 * older than max.compaction.lag.ms, and only until a wait first times out
 * (lock_timeout): a reader that stays in its transaction holds every
 * segment it read, and waiting for it at each of them would hold up the
 * round's other partitions that many times.
 */
static bool clean_wait = false;

static void
clean_plan(Oid relid)
{
	Relation	router = open_for_upkeep(relid);
	Oid			topic;

	clean_pass = NULL;
	if (router == NULL)
		return;
	if (topic_log_is_router(router) && router->rd_rel->relispartition &&
		OidIsValid(topic = get_partition_parent(relid, true)) &&
		!topic_partition_is_replica(relid, topic))
	{
		TopicConfig config = *topic_config_of(topic);
		TimestampTz now = GetCurrentTimestamp();

		if (config.compact && topic_cleaner_due(router, &config, now))
			clean_pass = topic_cleaner_begin(router, &config, now);
	}
	close_after_upkeep(router);
}

/* topic_call_unless_locked's step: the pass's next segment */
static void
clean_step_now(void *unused)
{
	int64		removed = 0;

	(void) topic_cleaner_step(clean_pass, clean_wait, &removed);
}

/*
 * The pass's next segment.  A segment that readers hold is left for the
 * next round (when clean_wait, once they held it lock_timeout long): a new
 * file already written goes with the subtransaction that wrote it.
 */
static void
clean_step(Oid relid)
{
	Relation	router = open_for_upkeep(relid);

	if (router == NULL)
	{
		/* someone else works on the log: the pass ends here */
		topic_cleaner_end(clean_pass);
		clean_pass = NULL;
		return;
	}
	if (!topic_call_unless_locked(clean_step_now, NULL))
		clean_wait = false;
	close_after_upkeep(router);
}

static void
clean_log(Oid relid)
{
	if (!log_compacted)
		return;
	if (!in_transaction(clean_plan, relid) || clean_pass == NULL)
		return;
	clean_wait = topic_cleaner_overdue(clean_pass);
	while (clean_pass != NULL && topic_cleaner_more(clean_pass))
	{
		CHECK_FOR_INTERRUPTS();
		if (!in_transaction(clean_step, relid))
			break;
	}
	if (clean_pass != NULL)
		topic_cleaner_end(clean_pass);
	clean_pass = NULL;
}

/* The logs whose stable offsets a round sends (docs/replication.md) */
static List *marker_logs = NIL;

static void
refresh_markers(Oid unused)
{
	ListCell   *lc;

	foreach(lc, marker_logs)
	{
		CHECK_FOR_INTERRUPTS();
		topic_markers_refresh(lfirst_oid(lc));
	}
}

/* A spare segment for log relid if it has none: created, committed, added */
static void
ensure_spare(Oid relid)
{
	if (in_transaction(create_spare, relid) && OidIsValid(spare_relid))
		in_transaction(add_spare, spare_router);
}

static void
sweep_orphan(Oid relid)
{
	topic_segment_drop_if_orphan(relid);
}

/* What the round's first and last transactions found */
static bool installed = false;
static bool read_only = false;
static char *database_name = NULL;
static List *found_logs = NIL;
static MemoryContext round_context = NULL;

/*
 * Logical replicas remove what their publishers' log cleaners removed
 * (replica_cleaner.c): for each partition that has removals, a transaction
 * plans the pass, each segment is rewritten in a transaction of its own
 * (a swapped segment's lock is held only until its own commit), and a last
 * one takes what was removed out of topics.replica_removals.
 */
static List *removal_logs = NIL;
static TopicReplicaPass *replica_pass = NULL;

static void
find_removals(Oid unused)
{
	MemoryContext old = MemoryContextSwitchTo(round_context);

	removal_logs = topic_replica_removals_pending();
	MemoryContextSwitchTo(old);
}

static void
replica_plan(Oid relid)
{
	Relation	router = open_for_upkeep(relid);

	replica_pass = NULL;
	if (router == NULL)
	{
		/* dropped with its topic: its removals go too */
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			topic_replica_removals_forget(relid);
		return;
	}
	if (topic_log_is_router(router))
		replica_pass = topic_replica_removals_begin(router);
	close_after_upkeep(router);
}

/*
 * The pass's next segment, or its end (replica_last).  When someone else
 * holds the log, the pass stops (replica_stopped) and the row stays whole.
 */
static bool replica_last = false;
static bool replica_stopped = false;

static void
replica_step(Oid relid)
{
	Relation	router = open_for_upkeep(relid);

	if (router == NULL)
	{
		replica_stopped = true;
		return;
	}
	if (replica_last)
		topic_replica_removals_finish(router, replica_pass);
	else
		topic_replica_removals_step(router, replica_pass);
	close_after_upkeep(router);
}

static void
remove_replicated(Oid relid)
{
	if (!in_transaction(replica_plan, relid) || replica_pass == NULL)
		return;
	replica_last = false;
	replica_stopped = false;

	while (topic_replica_removals_more(replica_pass) && !replica_stopped)
	{
		CHECK_FOR_INTERRUPTS();
		/* an error leaves the row whole too, for the next round */
		if (!in_transaction(replica_step, relid))
			replica_stopped = true;
	}
	if (!replica_stopped)
	{
		replica_last = true;
		in_transaction(replica_step, relid);
	}
	topic_replica_removals_end(replica_pass);
	replica_pass = NULL;
}

/*
 * Are this worker's transactions read-only, as a session's would be?  And
 * the database's name, for the log.
 */
static void
find_read_only(Oid unused)
{
	read_only = XactReadOnly;
	database_name = MemoryContextStrdup(round_context,
										get_database_name(MyDatabaseId));
}

static void
find_installed(Oid unused)
{
	installed = OidIsValid(get_extension_oid("pg_topics", true)) &&
		OidIsValid(get_namespace_oid(TOPIC_SEGMENT_SCHEMA, true));
}

static Oid	found_offsets_log = InvalidOid;

static void
end_lost_transactions(Oid unused)
{
	topic_end_lost_kafka_transactions();
}

static void
expire_transactional_ids(Oid unused)
{
	topic_expire_kafka_transactional_ids();
}

/*
 * The partitions' logs (segments false; and topics.consumer_offsets' log)
 * or the segments, into found_logs
 */
static void
find_logs(Oid segments)
{
	found_logs = log_relations(OidIsValid(segments), round_context);
	if (!OidIsValid(segments))
		found_offsets_log = topic_offsets_log_relid();
}

void
topic_db_worker_main(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	MemoryContext context = AllocSetContextCreate(TopMemoryContext,
												  "pg_topics worker",
												  ALLOCSET_DEFAULT_SIZES);
	List	   *logs;
	Oid			offsets_log;
	ListCell   *lc;
	sigjmp_buf	local_sigjmp_buf;

	/*
	 * An error that ends the round (connecting, when another transaction
	 * has filled the shared lock table: "out of shared memory") is
	 * reported, and the worker ends as after a round: the launcher starts
	 * the next one, and the postmaster does not log a failed worker.
	 */
	if (sigsetjmp(local_sigjmp_buf, 1) != 0)
	{
		error_context_stack = NULL;
		HOLD_INTERRUPTS();
		EmitErrorReport();
		proc_exit(0);
	}
	PG_exception_stack = &local_sigjmp_buf;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("pg_topics worker");
	/* never wait long for anyone: what is busy now is done next round */
	SetConfigOption("lock_timeout", "1000", PGC_SUSET, PGC_S_OVERRIDE);

	/*
	 * Every transaction of the round runs in_transaction: an error, even
	 * one that is someone else's doing (another transaction filling the
	 * shared lock table: "out of shared memory"), is reported and ends
	 * only its step, or the round, never with the process failing
	 */
	round_context = context;
	if (!in_transaction(find_installed, InvalidOid) || !installed ||
		!in_transaction(find_read_only, InvalidOid))
		proc_exit(0);
	topic_maintenance_read_only(dboid, database_name, read_only);
	if (read_only || !in_transaction(find_logs, InvalidOid))
		proc_exit(0);
	logs = found_logs;
	offsets_log = found_offsets_log;

	/*
	 * A spare before retention, so that a LIVE segment due to roll rolls in
	 * this round, and another one after it for the producers if that roll
	 * used it up.
	 */
	foreach(lc, logs)
	{
		CHECK_FOR_INTERRUPTS();
		ensure_spare(lfirst_oid(lc));
		if (!in_transaction(maintain_log, lfirst_oid(lc)))
			log_compacted = false;
		in_transaction(forget_gone, lfirst_oid(lc));
		clean_log(lfirst_oid(lc));
		if (lfirst_oid(lc) == offsets_log &&
			in_transaction(compact_copy, offsets_log) && compaction_cut >= 0)
			in_transaction(compact_finish, offsets_log);
		ensure_spare(lfirst_oid(lc));
	}

	if (in_transaction(find_removals, InvalidOid))
	{
		foreach(lc, removal_logs)
		{
			CHECK_FOR_INTERRUPTS();
			remove_replicated(lfirst_oid(lc));
		}
	}

	/*
	 * markers for the published logs in one transaction: one xid a round,
	 * and none when no marker changed (markers.c)
	 */
	if (XLogLogicalInfoActive())
	{
		marker_logs = logs;
		topic_markers_round_begin(list_length(logs));
		if (in_transaction(refresh_markers, InvalidOid))
			topic_markers_round_committed(logs);
	}

	/* Kafka transactions lost with their PostgreSQL transaction */
	in_transaction(end_lost_transactions, InvalidOid);
	/* transactional ids unused for longer than their expiration */
	in_transaction(expire_transactional_ids, InvalidOid);

	/* orphans: cheap to look for (no locks), so every round */
	if (in_transaction(find_logs, (Oid) 1))
	{
		foreach(lc, found_logs)
			in_transaction(sweep_orphan, lfirst_oid(lc));
	}
	topic_maintenance_round_done(dboid);
	proc_exit(0);
}
