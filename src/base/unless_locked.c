/*-------------------------------------------------------------------------
 *
 * unless_locked.c
 *	  Running a step of upkeep in a subtransaction that a lock it cannot
 *	  take gives up.
 *
 * The background worker's rewrites (the log cleaner's and a logical
 * replica's) swap a segment under a lock that readers hold against it; not
 * waiting, or waiting only lock_timeout long, the swap fails with
 * ERRCODE_LOCK_NOT_AVAILABLE.  What the step wrote by then (a whole new
 * file, its WAL) must go, and the worker's transaction must go on to the
 * next segment: the step runs in a subtransaction, rolled back on that
 * error only.  Any other error ends the caller's transaction as usual.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "pg_topics/base/unless_locked.h"

/*
 * Call fn(arg) in a subtransaction.  False if a lock was not available:
 * the subtransaction is rolled back and the error forgotten.
 */
bool
topic_call_unless_locked(void (*fn) (void *arg), void *arg)
{
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		done = true;

	BeginInternalSubTransaction(NULL);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(context);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		FreeErrorData(edata);
		done = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(context);
	CurrentResourceOwner = owner;
	return done;
}
