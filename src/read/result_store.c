/*-------------------------------------------------------------------------
 *
 * result_store.c
 *	  The memory fetch and poll build their result rows in.
 *
 * A materialized set-returning function normally puts its tuplestore in
 * the query's memory, which is new for every call and returned to malloc
 * when the query ends.  A call that returns a thousand records builds
 * about 250 kB of rows there; glibc hands blocks that large back to the
 * kernel when they are freed, so every call page-faults its rows' memory
 * in again, and a profile of fetch showed half of its time in those page
 * faults and in zeroing fresh pages.
 *
 * So the records' tuplestore lives in a context of this backend whose
 * first block (RESULT_KEEPER_BYTES) is kept for the life of the backend.
 * The executor ends the tuplestore when the query ends, which returns its
 * rows to this context's free lists for the next call.  A query that fails
 * is not shut down (its portal is only dropped), so its rows would stay:
 * each store counts as live until its query's memory goes away (a reset
 * callback there), and when no store is live the context is reset, which
 * frees what failed queries left and whatever an outsized call took
 * beyond the first block.  Holdable cursors copy their rows out before
 * their query's memory goes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "pg_topics/read/read.h"

/* a default fetch of 1000 records of about 100 bytes fits in the first block */
#define RESULT_KEEPER_BYTES (1024 * 1024)

static MemoryContext ResultContext = NULL;
static int	live_stores = 0;

/* A query that had a store in ResultContext is over, one way or another */
static void
store_query_ended(void *arg)
{
	if (--live_stores == 0)
		MemoryContextReset(ResultContext);
}

/*
 * Start a materialized set-returning function whose rows are records:
 * like InitMaterializedSRF, with the tuplestore in ResultContext.
 */
void
topic_init_record_srf(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old;
	MemoryContextCallback *ended;
	TupleDesc	desc;
	bool		random_access;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	if ((rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("materialize mode required, but it is not allowed in this context")));

	/* the descriptor goes where the executor frees it: the query's memory */
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (rsinfo->expectedDesc != NULL)
		desc = CreateTupleDescCopy(rsinfo->expectedDesc);
	else if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	if (ResultContext == NULL)
		ResultContext = AllocSetContextCreate(TopMemoryContext,
											  "pg_topics result rows",
											  RESULT_KEEPER_BYTES,
											  RESULT_KEEPER_BYTES,
											  ALLOCSET_DEFAULT_MAXSIZE);
	ended = palloc(sizeof(MemoryContextCallback));
	ended->func = store_query_ended;
	ended->arg = NULL;
	MemoryContextRegisterResetCallback(rsinfo->econtext->ecxt_per_query_memory,
									   ended);
	live_stores++;

	random_access = (rsinfo->allowedModes & SFRM_Materialize_Random) != 0;
	MemoryContextSwitchTo(ResultContext);
	rsinfo->setResult = tuplestore_begin_heap(random_access, false, work_mem);
	MemoryContextSwitchTo(old);

	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setDesc = desc;
}
