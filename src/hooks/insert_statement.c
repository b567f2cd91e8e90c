/*-------------------------------------------------------------------------
 *
 * insert_statement.c
 *	  The executor hook that lets an INSERT's rows go in as batches.
 *
 * Around every statement's run, the ExecutorRun hook tells the access
 * method's insert buffer (am/insert_buffer.c) whether the statement's rows
 * may wait to be written together, and writes them when the run ends.
 * They may wait when the statement may insert more than one row and
 * nothing in it looks at a row once it is inserted: a row's offset and
 * timestamp are filled in only when it is written, and RETURNING and a
 * view's WITH CHECK OPTION read them right after each row.  Nor with a data-modifying WITH, whose
 * ModifyTable nodes may finish in ExecutorFinish, after the run.
 * Runs nest with the C stack (a function the statement calls runs its own
 * queries inside this run), so each run restores the one around it, also
 * when it fails.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/plannodes.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/hooks/insert_statement.h"

static ExecutorRun_hook_type prev_ExecutorRun = NULL;

/* May the rows this statement inserts wait to be written together? */
static bool
rows_may_wait(QueryDesc *queryDesc)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ModifyTable *mt;

	if (queryDesc->operation != CMD_INSERT || stmt == NULL ||
		stmt->hasModifyingCTE || !IsA(stmt->planTree, ModifyTable))
		return false;
	mt = (ModifyTable *) stmt->planTree;
	if (mt->returningLists != NIL || mt->withCheckOptionLists != NIL ||
		mt->onConflictAction != ONCONFLICT_NONE)
		return false;

	/*
	 * A Result without a subplan makes one row (INSERT ... VALUES of one
	 * row, the commonest INSERT of all): nothing to gather, so it does not
	 * pay for the copy
	 */
	if (outerPlan(mt) != NULL && IsA(outerPlan(mt), Result) &&
		outerPlan(outerPlan(mt)) == NULL)
		return false;
	return true;
}

/* 18 dropped ExecutorRun's execute_once */
#if PG_VERSION_NUM >= 180000
#define EXECUTOR_RUN_ARGS(q, d, c, e)	(q), (d), (c)
#else
#define EXECUTOR_RUN_ARGS(q, d, c, e)	(q), (d), (c), (e)
#endif

static void
#if PG_VERSION_NUM >= 180000
topic_ExecutorRun(QueryDesc *queryDesc, ScanDirection direction, uint64 count)
#else
topic_ExecutorRun(QueryDesc *queryDesc, ScanDirection direction,
				  uint64 count, bool execute_once)
#endif
{
	TopicBufferScope outer;

	outer = topic_buffer_statement_start(rows_may_wait(queryDesc));
	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(EXECUTOR_RUN_ARGS(queryDesc, direction, count,
											   execute_once));
		else
			standard_ExecutorRun(EXECUTOR_RUN_ARGS(queryDesc, direction, count,
												   execute_once));
	}
	PG_CATCH();
	{
		topic_buffer_statement_end(outer, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	topic_buffer_statement_end(outer, false);
}

void
topic_insert_statement_init(void)
{
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = topic_ExecutorRun;
}
