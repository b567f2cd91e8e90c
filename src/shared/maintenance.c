/*-------------------------------------------------------------------------
 *
 * maintenance.c
 *	  Whether the background worker runs, when it last ran, and why not:
 *	  the topics.maintenance view, and the log lines that go with it.
 *
 * Retention, segments ahead of need and orphan cleanup all depend on the
 * background worker (worker.c).  When it cannot run, that must not go
 * unnoticed: the reason is kept in shared memory, shown by the view, and
 * said once in the server log when it starts and once when it ends, never
 * per attempt.  The reasons are a max_worker_processes with no slot left
 * for the launcher at server start, no free slot for a database worker
 * when the launcher asks for one, and a database that is read-only
 * (default_transaction_read_only, set in the server's configuration as
 * pg_auto_failover fences a node, or by ALTER DATABASE or ALTER ROLE),
 * where the worker waits until it is writable.  topics.enforce_retention()
 * reads the reason for its error when it needs the worker.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "postmaster/bgworker_internals.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/shared/maintenance.h"

PG_FUNCTION_INFO_V1(topic_maintenance_info);

/* Databases whose last round is remembered (the rest: the oldest goes) */
#define MAINTENANCE_DATABASES	64

typedef enum MaintenanceProblem
{
	MAINT_OK,
	MAINT_NO_LAUNCHER_SLOT,		/* the launcher could not be registered */
	MAINT_NO_WORKER_SLOT		/* no slot for a database worker */
} MaintenanceProblem;

typedef struct DatabaseRound
{
	Oid			dboid;
	TimestampTz last_round;
	TimestampTz read_only_since;	/* 0: writable when the worker last looked */
} DatabaseRound;

typedef struct MaintenanceShared
{
	slock_t		mutex;			/* protects everything below */
	pid_t		launcher_pid;	/* 0: not running */
	MaintenanceProblem problem;
	TimestampTz problem_since;
	int64		failed_starts;	/* since the problem began */
	DatabaseRound rounds[MAINTENANCE_DATABASES];
} MaintenanceShared;

static MaintenanceShared *maint = NULL;

/* Set in the postmaster (inherited by every child) when no slot was left */
static bool launcher_unregistered = false;

Size
topic_maintenance_shmem_size(void)
{
	return MAXALIGN(sizeof(MaintenanceShared));
}

void
topic_maintenance_shmem_startup(void)
{
	bool		found;

	maint = ShmemInitStruct("pg_topics maintenance", sizeof(MaintenanceShared),
							&found);
	if (!found)
	{
		memset(maint, 0, sizeof(MaintenanceShared));
		SpinLockInit(&maint->mutex);
		if (launcher_unregistered)
		{
			maint->problem = MAINT_NO_LAUNCHER_SLOT;
			maint->problem_since = GetCurrentTimestamp();
		}
	}
}

/*
 * Is there a background worker slot left for the launcher?  From _PG_init
 * in the postmaster, before registering it: PostgreSQL would only say "too
 * many background workers", which names nobody; we say what stops working.
 */
bool
topic_maintenance_register_launcher(void)
{
	int			registered = 0;

#if PG_VERSION_NUM >= 180000
	dlist_iter	iter;

	dlist_foreach(iter, &BackgroundWorkerList)
		registered++;
#else
	slist_iter	iter;

	slist_foreach(iter, &BackgroundWorkerList)
		registered++;
#endif
	if (registered < max_worker_processes)
		return true;
	launcher_unregistered = true;
	ereport(WARNING,
			(errmsg("max_worker_processes is too small for the pg_topics background worker"),
			 errdetail("All %d background worker slots are taken, so the worker that applies retention and creates segments ahead of need cannot run; topics.maintenance shows this, and topics.enforce_retention() fails when it would need the worker.",
					   max_worker_processes),
			 errhint("Raise max_worker_processes by 2 (the launcher and one database worker) and restart the server.")));
	return false;
}

void
topic_maintenance_launcher_started(void)
{
	SpinLockAcquire(&maint->mutex);
	maint->launcher_pid = MyProcPid;
	SpinLockRelease(&maint->mutex);
}

void
topic_maintenance_launcher_stopped(void)
{
	SpinLockAcquire(&maint->mutex);
	maint->launcher_pid = 0;
	SpinLockRelease(&maint->mutex);
}

/*
 * The launcher found no free slot for dboid's worker.  Said once, when it
 * starts failing; the launcher tries again at every round and wake-up.
 */
void
topic_maintenance_worker_start_failed(Oid dboid)
{
	bool		first;

	SpinLockAcquire(&maint->mutex);
	first = maint->problem != MAINT_NO_WORKER_SLOT;
	if (first)
	{
		maint->problem = MAINT_NO_WORKER_SLOT;
		maint->problem_since = GetCurrentTimestamp();
		maint->failed_starts = 0;
	}
	maint->failed_starts++;
	SpinLockRelease(&maint->mutex);
	if (first)
		ereport(WARNING,
				(errmsg("pg_topics could not start its background worker for database %u: no background worker slot is free",
						dboid),
				 errdetail("Until one is, retention is not applied and no segments are created ahead of need; topics.maintenance shows this, and this message is not repeated."),
				 errhint("Raise max_worker_processes; pg_topics needs one slot for its launcher and one for a database worker.")));
}

/* A database worker started: the problem, if any, is over (said once) */
void
topic_maintenance_worker_started(void)
{
	int64		failed = 0;
	bool		was_failing;

	SpinLockAcquire(&maint->mutex);
	was_failing = maint->problem == MAINT_NO_WORKER_SLOT;
	if (was_failing)
	{
		failed = maint->failed_starts;
		maint->problem = MAINT_OK;
		maint->problem_since = 0;
		maint->failed_starts = 0;
	}
	SpinLockRelease(&maint->mutex);
	if (was_failing)
		ereport(LOG,
				(errmsg("pg_topics background worker started again after %lld attempts found no free slot",
						(long long) failed)));
}

/*
 * dboid's entry, taking the one of the database visited longest ago if it
 * has none (the mutex held)
 */
static DatabaseRound *
database_round(Oid dboid)
{
	int			victim = 0;

	for (int i = 0; i < MAINTENANCE_DATABASES; i++)
	{
		if (maint->rounds[i].dboid == dboid)
			return &maint->rounds[i];
		if (maint->rounds[i].last_round < maint->rounds[victim].last_round)
			victim = i;
	}
	memset(&maint->rounds[victim], 0, sizeof(DatabaseRound));
	maint->rounds[victim].dboid = dboid;
	return &maint->rounds[victim];
}

/* A database worker finished its round in dboid */
void
topic_maintenance_round_done(Oid dboid)
{
	TimestampTz now = GetCurrentTimestamp();

	SpinLockAcquire(&maint->mutex);
	database_round(dboid)->last_round = now;
	SpinLockRelease(&maint->mutex);
}

/*
 * A database worker found dboid (named dbname) read-only (and does
 * nothing there), or writable.  Said once when it starts being read-only and once when it
 * ends, whatever the number of rounds between.
 */
void
topic_maintenance_read_only(Oid dboid, const char *dbname, bool read_only)
{
	DatabaseRound *round;
	bool		changed;

	SpinLockAcquire(&maint->mutex);
	round = database_round(dboid);
	changed = (round->read_only_since != 0) != read_only;
	if (changed)
		round->read_only_since = read_only ? GetCurrentTimestamp() : 0;
	SpinLockRelease(&maint->mutex);
	if (changed && read_only)
		ereport(LOG,
				(errmsg("pg_topics background worker waits: database \"%s\" is read-only",
						dbname),
				 errdetail("default_transaction_read_only is on for it; until it is off, retention is not applied and no segments are created ahead of need. topics.maintenance shows this, and this message is not repeated.")));
	else if (changed)
		ereport(LOG,
				(errmsg("pg_topics background worker resumes: database \"%s\" is writable again",
						dbname)));
}

/*
 * Why maintenance is not running, as a sentence for an errdetail, or NULL
 * if it is.
 */
const char *
topic_maintenance_problem(void)
{
	MaintenanceProblem problem;
	pid_t		launcher;
	bool		read_only = false;

	if (maint == NULL)
		return "pg_topics is not in shared_preload_libraries, so its background worker is not running.";
	SpinLockAcquire(&maint->mutex);
	problem = maint->problem;
	launcher = maint->launcher_pid;
	for (int i = 0; i < MAINTENANCE_DATABASES; i++)
		if (maint->rounds[i].dboid == MyDatabaseId)
			read_only = maint->rounds[i].read_only_since != 0;
	SpinLockRelease(&maint->mutex);
	switch (problem)
	{
		case MAINT_NO_LAUNCHER_SLOT:
			return "max_worker_processes left no background worker slot for the pg_topics launcher at server start.";
		case MAINT_NO_WORKER_SLOT:
			return "The pg_topics launcher finds no free background worker slot for a database worker.";
		case MAINT_OK:
			break;
	}
	if (launcher == 0)
		return RecoveryInProgress() ?
			"The server is in recovery; the pg_topics launcher starts when it ends." :
			"The pg_topics launcher is not running (it is restarted after 10 seconds if it stopped).";
	if (read_only)
		return "The database is read-only (default_transaction_read_only is on for it): the pg_topics background worker waits until it is writable.";
	return NULL;
}

/*
 * topics.maintenance_info() RETURNS TABLE(running boolean, launcher_pid int,
 *		last_round timestamptz, problem text, problem_since timestamptz):
 * one row, for the current database
 */
Datum
topic_maintenance_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	const char *problem = topic_maintenance_problem();
	pid_t		launcher = 0;
	TimestampTz last_round = 0;
	TimestampTz since = 0;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	if (maint != NULL)
	{
		SpinLockAcquire(&maint->mutex);
		launcher = maint->launcher_pid;
		since = maint->problem_since;
		for (i = 0; i < MAINTENANCE_DATABASES; i++)
			if (maint->rounds[i].dboid == MyDatabaseId)
			{
				last_round = maint->rounds[i].last_round;
				if (since == 0)
					since = maint->rounds[i].read_only_since;
			}
		SpinLockRelease(&maint->mutex);
	}
	values[0] = BoolGetDatum(problem == NULL);
	values[1] = Int32GetDatum(launcher);
	nulls[1] = launcher == 0;
	values[2] = TimestampTzGetDatum(last_round);
	nulls[2] = last_round == 0;
	values[3] = problem ? CStringGetTextDatum(problem) : (Datum) 0;
	nulls[3] = problem == NULL;
	values[4] = TimestampTzGetDatum(since);
	nulls[4] = problem == NULL || since == 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
