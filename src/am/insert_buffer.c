/*-------------------------------------------------------------------------
 *
 * insert_buffer.c
 *	  Rows of an INSERT statement wait here to be written as batches.
 *
 * The executor hands the access method one row at a time.  Written one by
 * one, every row would be a batch of its own: a batch header on the page,
 * a WAL record and a pass through the tail lock per row.  So while an
 * INSERT runs whose rows nobody looks at once they are written (no
 * RETURNING, no view's WITH CHECK OPTION, no data-modifying WITH: the
 * ExecutorRun hook in hooks/insert_statement.c decides), the access method
 * checks each row as it comes and copies it here, and the rows are written
 * a partition at a time with topic_insert_rows(), as produce_batch writes
 * them:
 *
 * - when TOPIC_BUFFER_ROWS rows or TOPIC_BUFFER_BYTES bytes wait;
 * - when the statement ends, before its AFTER triggers and before the next
 *   statement, so that what follows sees every row;
 * - when another statement starts inside it (a function the INSERT calls
 *   may read the topic, and sees the rows inserted before, as with heap):
 *   the ExecutorRun hook, and the utility hook for statements with no plan;
 * - before any other write to a topic (produce() called by the INSERT
 *   follows the rows inserted before it).
 *
 * A subscription's workers insert what they apply one row per call, with
 * no statement around it.  When the subscription replicates nothing but
 * topics, their rows wait too, from one call to the next, until the
 * transaction commits (or the rows fill the buffer, or anything else above
 * comes first, or the partition is truncated), so that a subscriber writes
 * batches as its publisher does.  Nobody else sees the rows before the
 * commit, and no code but the worker's runs in its transaction: a topic
 * has no triggers, defaults or constraints of its own, while another
 * table's could read the topic (in a subtransaction, which could not see
 * rows waiting in its parent), so a subscription that also replicates
 * other tables writes each row at once, as COPY does for a table with
 * triggers.
 *
 * They are written in the mode they were inserted in: preserve mode or
 * not, whatever a function the INSERT calls has SET since.
 *
 * Rows are written only while the (sub)transaction that inserted them is
 * the current one: a batch carries its writer's xid, and so does the WAL
 * record that logical decoding attributes to a transaction.  A statement
 * that runs in a subtransaction opened under the INSERT (a PL/pgSQL block
 * with EXCEPTION in a function it calls) therefore leaves the waiting rows
 * alone and writes its own at once; it does not see the INSERT's earlier
 * rows, which is the one difference from writing them one by one.  When
 * that (sub)transaction aborts, its waiting rows go with it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/relation.h"
#include "access/xact.h"
#include "commands/trigger.h"
#include "catalog/pg_subscription_rel.h"
#include "executor/tuptable.h"
#include "replication/logicalworker.h"
#include "replication/worker_internal.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_topics/am/insert.h"
#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/writer/record.h"

/*
 * As many rows as a produce_batch call of the benchmark, or this many
 * bytes: enough that the batch headers and WAL record headers are a small
 * share of the bytes, little enough to keep in memory per backend.
 */
#define TOPIC_BUFFER_ROWS	1000
#define TOPIC_BUFFER_BYTES	(1024 * 1024)

/* One waiting row, a copy of the executor's, for the partition relid */
typedef struct WaitingRow
{
	Oid			relid;
	TupleTableSlot *slot;
} WaitingRow;

/* The running statement's rows may wait, if inserted in this subtransaction */
static bool rows_wait = false;
static SubTransactionId rows_wait_subid = InvalidSubTransactionId;

/* The rows waiting were applied by a subscription's worker: they wait for commit */
static bool waiting_applied = false;

/* Does this worker's subscription replicate topics only? -1: not known */
static int	subscription_only_topics = -1;

/*
 * The rows waiting, all of one (sub)transaction and command, and all in
 * preserve mode or none: the mode of when they were inserted, which is not
 * necessarily the session's when they are written (a function the INSERT
 * calls may SET session_replication_role)
 */
static WaitingRow waiting[TOPIC_BUFFER_ROWS];
static int	nwaiting = 0;
static SubTransactionId waiting_subid = InvalidSubTransactionId;
static CommandId waiting_cid = InvalidCommandId;
static bool waiting_preserve = false;
static Size waiting_bytes = 0;

/* Slots made so far (waiting[i].slot for i < nslots), and their memory */
static int	nslots = 0;
static MemoryContext buffer_context = NULL;
static TupleDesc buffer_desc = NULL;

/* Writing the waiting rows: a write this causes must not start another */
static bool flushing = false;

/*
 * The slot for the next waiting row.  Every topic has the same physical
 * row (int4, int8, timestamptz and three varlena columns aligned alike,
 * whatever the key and value types), so one descriptor serves them all.
 */
static TupleTableSlot *
next_slot(Relation rel)
{
	MemoryContext old;

	if (nwaiting < nslots)
		return waiting[nwaiting].slot;
	if (buffer_context == NULL)
		buffer_context = AllocSetContextCreate(TopMemoryContext,
											   "topic_log insert buffer",
											   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(buffer_context);
	/* not reference-counted: the slots need no resource owner */
	if (buffer_desc == NULL)
		buffer_desc = CreateTupleDescCopy(RelationGetDescr(rel));
	Assert(RelationGetDescr(rel)->natts == buffer_desc->natts);
	waiting[nslots].slot = MakeSingleTupleTableSlot(buffer_desc, &TTSOpsVirtual);
	MemoryContextSwitchTo(old);
	return waiting[nslots++].slot;
}

/* Forget the waiting rows, with the memory of their values */
static void
discard_waiting(void)
{
	int			i;

	for (i = 0; i < nslots; i++)
		ExecClearTuple(waiting[i].slot);
	nwaiting = 0;
	waiting_bytes = 0;
	waiting_applied = false;
	flushing = false;
}

/*
 * Error context of applied rows written late (at commit, say): the apply
 * worker's own context names the transaction, this the partition.
 */
static void
applied_rows_context(void *arg)
{
	errcontext("writing the rows applied to partition %s", (const char *) arg);
}

/*
 * Write the waiting rows, a partition at a time in the order its rows came,
 * if their (sub)transaction is the current one.
 */
void
topic_buffer_flush(void)
{
	TupleTableSlot *slots[TOPIC_BUFFER_ROWS];
	bool		written[TOPIC_BUFFER_ROWS];
	int			n = nwaiting;
	bool		applied = waiting_applied;
	int			i;

	if (n == 0 || flushing || GetCurrentSubTransactionId() != waiting_subid)
		return;

	/*
	 * The rows are taken from the buffer before they are written: should a
	 * write fail, the (sub)transaction they belong to aborts.
	 */
	flushing = true;
	nwaiting = 0;
	waiting_bytes = 0;
	waiting_applied = false;
	memset(written, 0, sizeof(bool) * n);
	for (i = 0; i < n; i++)
	{
		Relation	rel;
		int			count = 0;
		int			j;

		if (written[i])
			continue;
		for (j = i; j < n; j++)
			if (!written[j] && waiting[j].relid == waiting[i].relid)
			{
				slots[count++] = waiting[j].slot;
				written[j] = true;
			}
		/* the INSERT (or the worker) holds its lock on the partition */
		rel = relation_open(waiting[i].relid, NoLock);
		if (applied)
		{
			ErrorContextCallback context;

			context.callback = applied_rows_context;
			context.arg = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													 RelationGetRelationName(rel));
			context.previous = error_context_stack;
			error_context_stack = &context;
			topic_insert_rows(rel, slots, count, waiting_cid, waiting_preserve, NULL);
			error_context_stack = context.previous;
		}
		else
			topic_insert_rows(rel, slots, count, waiting_cid, waiting_preserve, NULL);
		relation_close(rel, NoLock);
	}
	for (i = 0; i < n; i++)
		ExecClearTuple(waiting[i].slot);
	flushing = false;
}

/* The subscription's relations changed: look again */
static void
subscription_relations_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	subscription_only_topics = -1;
}

/* Does the subscription of this worker replicate topics only? */
static bool
subscription_replicates_topics_only(void)
{
	static bool callback_registered = false;
	List	   *rels;
	ListCell   *lc;
	bool		only_topics = true;

	if (subscription_only_topics >= 0)
		return subscription_only_topics == 1;
	if (!callback_registered)
	{
		CacheRegisterSyscacheCallback(SUBSCRIPTIONRELMAP,
									  subscription_relations_changed,
									  (Datum) 0);
		callback_registered = true;
	}
	if (MySubscription == NULL)
		return false;
#if PG_VERSION_NUM >= 160000
	rels = GetSubscriptionRelations(MySubscription->oid, false);
#else
	rels = GetSubscriptionRelations(MySubscription->oid);
#endif
	foreach(lc, rels)
	{
		SubscriptionRelState *state = lfirst(lc);

		if (!topic_is_topic_parent_oid(state->relid) &&
			!topic_is_log_relation(state->relid))
			only_topics = false;
	}
	list_free_deep(rels);
	subscription_only_topics = only_topics ? 1 : 0;
	return only_topics;
}

/*
 * A subscription's worker applying a transaction: its rows may wait for
 * the commit if no other code can run in the transaction (see the top).
 * (Its transactions have no subtransactions; should one ever come, its
 * rows are written at once.)
 */
static bool
applied_rows_may_wait(void)
{
	return IsLogicalWorker() && GetCurrentTransactionNestLevel() == 1 &&
		subscription_replicates_topics_only();
}

/*
 * Keep a copy of the row in slot for partition rel, if the running
 * statement lets rows wait, or a subscription's worker inserts it; false
 * if the caller must write it now.
 */
bool
topic_buffer_add(Relation rel, TupleTableSlot *slot, CommandId cid)
{
	TupleTableSlot *copy;
	bool		preserve;
	bool		applied;
	int			f;

	if (flushing || !topic_log_is_router(rel))
		return false;
	if (rows_wait && GetCurrentSubTransactionId() == rows_wait_subid)
		applied = false;
	else if (!rows_wait && applied_rows_may_wait())
		applied = true;
	else
		return false;

	/* the rules of now, and errors that name the row that broke them */
	preserve = (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA);
	topic_record_check_row(rel, slot, preserve);

	/*
	 * A statement's rows are written with its command ID.  The worker's
	 * calls each have their own; the first one's serves them all, as nothing
	 * in its transaction reads them.
	 */
	if (nwaiting > 0 && (applied != waiting_applied ||
						 (!applied && cid != waiting_cid) ||
						 preserve != waiting_preserve))
		topic_buffer_flush();
	if (nwaiting == 0)
		waiting_cid = cid;

	copy = next_slot(rel);
	ExecCopySlot(copy, slot);
	waiting[nwaiting].relid = RelationGetRelid(rel);
	waiting_subid = GetCurrentSubTransactionId();
	waiting_applied = applied;
	waiting_preserve = preserve;
	/* a value toasted elsewhere is read back when written: count it whole */
	for (f = Anum_topic_key; f <= Anum_topic_headers; f++)
		if (!copy->tts_isnull[f - 1])
			waiting_bytes += toast_datum_size(copy->tts_values[f - 1]);
	nwaiting++;

	if (nwaiting == TOPIC_BUFFER_ROWS || waiting_bytes >= TOPIC_BUFFER_BYTES)
		topic_buffer_flush();
	return true;
}

/*
 * A statement starts: write the rows waiting at this level (it may read
 * them), and let its own rows wait if rows_may_wait and none of another
 * level still wait.  Returns what the statement around it had, for
 * topic_buffer_statement_end.
 */
TopicBufferScope
topic_buffer_statement_start(bool rows_may_wait)
{
	TopicBufferScope outer = {rows_wait, rows_wait_subid};

	topic_buffer_flush();
	rows_wait = rows_may_wait && nwaiting == 0 && !flushing;
	rows_wait_subid = GetCurrentSubTransactionId();
	return outer;
}

/*
 * The statement ends: write its waiting rows, or forget them if it failed,
 * and go back to the statement around it.
 */
void
topic_buffer_statement_end(TopicBufferScope outer, bool failed)
{
	bool		had_rows_wait = rows_wait;

	rows_wait = outer.rows_wait;
	rows_wait_subid = outer.subid;
	if (had_rows_wait && failed)
		discard_waiting();
	else if (had_rows_wait)
		topic_buffer_flush();
}

static void
buffer_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			/*
			 * A subscription's worker's rows go in now, before the
			 * stable-offset markers and the segment work of the commit
			 * (their callbacks were registered earlier, so run later).  The
			 * worker commits without a snapshot.  Every statement writes its
			 * rows before it ends.
			 */
			if (nwaiting > 0 && waiting_applied)
			{
				bool		snapshot = !ActiveSnapshotSet();

				if (snapshot)
					PushActiveSnapshot(GetTransactionSnapshot());
				topic_buffer_flush();
				if (snapshot)
					PopActiveSnapshot();
			}
			if (nwaiting > 0)
				elog(ERROR, "rows inserted into a topic were not written before commit");
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			if (nwaiting > 0 || flushing)
				discard_waiting();
			rows_wait = false;
			break;
		default:
			break;
	}
}

static void
buffer_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	if (nwaiting == 0 && !flushing)
		return;
	/* a statement ends before its subtransaction does */
	if (event == SUBXACT_EVENT_PRE_COMMIT_SUB && nwaiting > 0 &&
		waiting_subid == mySubid)
		elog(ERROR, "rows inserted into a topic were not written before their subtransaction committed");
	/* the rows of an aborting subtransaction go with it */
	if (event == SUBXACT_EVENT_ABORT_SUB &&
		(waiting_subid == mySubid || flushing))
		discard_waiting();
}

void
topic_buffer_init(void)
{
	RegisterXactCallback(buffer_xact_callback, NULL);
	RegisterSubXactCallback(buffer_subxact_callback, NULL);
}
