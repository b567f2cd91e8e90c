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
 * rows to this context's free lists for the next call.  Whatever is left
 * at the end of the top-level transaction belongs to queries that failed
 * (an aborted query's executor is not shut down; its portal is only
 * dropped) and is released then: no function scan's result outlives its
 * transaction, since holdable cursors copy their rows out at commit.  A
 * reset keeps the first block, so an outsized call returns everything
 * beyond it at its transaction's end.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "pg_topics.h"

/* a default fetch of 1000 records of about 100 bytes fits in the first block */
#define RESULT_KEEPER_BYTES (1024 * 1024)

static MemoryContext ResultContext = NULL;
static bool ResultContextUsed = false;

static void
result_store_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			if (ResultContextUsed)
			{
				MemoryContextReset(ResultContext);
				ResultContextUsed = false;
			}
			break;
		default:
			break;
	}
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
	{
		ResultContext = AllocSetContextCreate(TopMemoryContext,
											  "pg_topics result rows",
											  RESULT_KEEPER_BYTES,
											  RESULT_KEEPER_BYTES,
											  ALLOCSET_DEFAULT_MAXSIZE);
		RegisterXactCallback(result_store_xact_callback, NULL);
	}
	ResultContextUsed = true;

	random_access = (rsinfo->allowedModes & SFRM_Materialize_Random) != 0;
	MemoryContextSwitchTo(ResultContext);
	rsinfo->setResult = tuplestore_begin_heap(random_access, false, work_mem);
	MemoryContextSwitchTo(old);

	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setDesc = desc;
}
