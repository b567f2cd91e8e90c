/*-------------------------------------------------------------------------
 *
 * fetch_scan.c
 *	  TopicFetch and TopicPoll: topics.fetch() and topics.poll() in FROM,
 *	  without materializing their rows.
 *
 * The executor materializes every set-returning function in FROM: each row
 * is formed, copied into a tuplestore and read back out.  For fetch and
 * poll, whose rows are records already laid out on pinned pages, that copy
 * was the largest part of what a record cost above heap's index scan (see
 * docs/benchmarks.md).  So the planner hook replaces the function scan of
 * topics.fetch(...) or topics.poll(...) in FROM with this custom scan,
 * which runs the same read (fetch.c, groups.c: the same checks, long-poll,
 * stable-read rule, group positions and errors) with a sink that keeps a
 * reference to each record instead of a copy, and hands the records out as
 * virtual tuples whose key, value and headers point into the pages.
 *
 * The pages stay pinned, and their segments locked, until the scan ends or
 * reads again, so the records cannot move or go: a page's records are
 * immutable once written, and retention drops a segment only when it gets
 * its lock without waiting.  Pins are bounded (FETCH_SCAN_MAX_PINS); past
 * that, and for records that were copied anyway (TOAST, replicas' unordered
 * reads), the fields live in the scan's read memory.
 *
 * The functions keep their meaning: each is called once per distinct set
 * of arguments (a rescan with the same arguments returns the same records,
 * as a function scan's tuplestore would; poll does not poll twice), its
 * arguments are evaluated as the function's would be, and a query the scan
 * cannot serve (WITH ORDINALITY, ROWS FROM, a whole-row reference to the
 * result) keeps the function scan.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_language_d.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "fetch.h"
#include "groups.h"
#include "topic_log.h"

/* Pages a scan keeps pinned at most; records past them are copied */
#define FETCH_SCAN_MAX_PINS		64

/* fetch's and poll's arguments, in order (the row type first) */
#define SCAN_NARGS				5

/* A record of the result: fixed columns, and where its fields are */
typedef struct FetchedRecord
{
	int32		partition;
	int64		offset;
	TimestampTz timestamp;
	Pointer		fields[3];		/* key, value, headers; NULL is SQL NULL */
} FetchedRecord;

/* Which function a scan stands for */
typedef enum TopicReadKind
{
	READ_FETCH,
	READ_POLL
} TopicReadKind;

typedef struct TopicFetchState
{
	CustomScanState css;
	TopicReadKind kind;
	Oid			rowtype;
	List	   *args;			/* ExprStates of fetch's arguments */
	Bitmapset  *arg_params;		/* parameters the arguments use */
	bool		read_done;
	MemoryContext read_cxt;		/* records, and copies of their fields */
	FetchedRecord *records;
	int			nrecords;
	int			maxrecords;
	int			next;
	Buffer		pins[FETCH_SCAN_MAX_PINS];
	int			npins;
	List	   *locked;			/* OIDs of segments locked for the records */
} TopicFetchState;

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

static Plan *plan_fetch_path(PlannerInfo *root, RelOptInfo *rel,
							 CustomPath *best_path, List *tlist,
							 List *clauses, List *custom_plans);
static Node *create_fetch_state(CustomScan *cscan);
static void begin_fetch(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_fetch(CustomScanState *node);
static void end_fetch(CustomScanState *node);
static void rescan_fetch(CustomScanState *node);
static void explain_fetch(CustomScanState *node, List *ancestors,
						  ExplainState *es);

static const CustomPathMethods fetch_path_methods = {
	.CustomName = "TopicFetch",
	.PlanCustomPath = plan_fetch_path,
};

static const CustomPathMethods poll_path_methods = {
	.CustomName = "TopicPoll",
	.PlanCustomPath = plan_fetch_path,
};

static const CustomScanMethods fetch_scan_methods = {
	.CustomName = "TopicFetch",
	.CreateCustomScanState = create_fetch_state,
};

static const CustomScanMethods poll_scan_methods = {
	.CustomName = "TopicPoll",
	.CreateCustomScanState = create_fetch_state,
};

static const CustomExecMethods fetch_exec_methods = {
	.CustomName = "TopicFetch",
	.BeginCustomScan = begin_fetch,
	.ExecCustomScan = exec_fetch,
	.EndCustomScan = end_fetch,
	.ReScanCustomScan = rescan_fetch,
	.ExplainCustomScan = explain_fetch,
};

static const CustomExecMethods poll_exec_methods = {
	.CustomName = "TopicPoll",
	.BeginCustomScan = begin_fetch,
	.ExecCustomScan = exec_fetch,
	.EndCustomScan = end_fetch,
	.ReScanCustomScan = rescan_fetch,
	.ExplainCustomScan = explain_fetch,
};

/*
 * Is funcid topics.fetch or topics.poll?  Asked of C functions only, by
 * their address; *kind says which.
 */
static bool
is_topic_read(Oid funcid, TopicReadKind *kind)
{
	FmgrInfo	flinfo;
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		is_c;

	if (!HeapTupleIsValid(tuple))
		return false;
	is_c = ((Form_pg_proc) GETSTRUCT(tuple))->prolang == ClanguageId;
	ReleaseSysCache(tuple);
	if (!is_c)
		return false;
	fmgr_info(funcid, &flinfo);
	if (flinfo.fn_addr == topic_fetch)
		*kind = READ_FETCH;
	else if (flinfo.fn_addr == topic_poll)
		*kind = READ_POLL;
	else
		return false;
	return true;
}

/*
 * Does rowtype have a topic's columns?  Only then can the scan form its
 * rows; any other type keeps the function scan, which fails with 42809.
 */
static bool
has_topic_columns(Oid rowtype)
{
	static const Oid fixed[] = {INT4OID, INT8OID, TIMESTAMPTZOID};
	TupleDesc	desc = lookup_rowtype_tupdesc_noerror(rowtype, -1, true);
	bool		ok;
	int			i;

	if (desc == NULL)
		return false;
	ok = desc->natts == Natts_topic;
	for (i = 0; ok && i < Natts_topic; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			ok = false;
		else if (i < 3)
			ok = att->atttypid == fixed[i];
		else
			ok = att->atttypid == BYTEAOID || att->atttypid == TEXTOID ||
				att->atttypid == JSONBOID;
	}
	ReleaseTupleDesc(desc);
	return ok;
}

/* Does the query use the function's result other than column by column? */
static bool
needs_whole_row(RelOptInfo *rel)
{
	Bitmapset  *attnos = NULL;
	ListCell   *lc;

	foreach(lc, rel->reltarget->exprs)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (!IsA(var, Var) || var->varattno <= 0)
			return true;
	}
	foreach(lc, rel->baserestrictinfo)
		pull_varattnos((Node *) lfirst_node(RestrictInfo, lc)->clause,
					   rel->relid, &attnos);
	return bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attnos);
}

/* The function's columns as Vars of its range table entry relid */
static List *
scan_columns(Index relid, Oid rowtype)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(rowtype, -1);
	List	   *columns = NIL;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Var		   *var = makeVar(relid, i + 1, att->atttypid,
								  att->atttypmod, att->attcollation, 0);

		columns = lappend(columns,
						  makeTargetEntry((Expr *) var, i + 1,
										  pstrdup(NameStr(att->attname)),
										  false));
	}
	ReleaseTupleDesc(desc);
	return columns;
}

/* Replace the function scan of fetch() or poll() in FROM with a scan */
static void
fetch_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					   RangeTblEntry *rte)
{
	RangeTblFunction *rtfunc;
	FuncExpr   *call;
	TopicReadKind kind;
	Path	   *function_path;
	CustomPath *path;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (rte->rtekind != RTE_FUNCTION || rte->funcordinality ||
		list_length(rte->functions) != 1 || list_length(rel->pathlist) != 1)
		return;
	rtfunc = linitial_node(RangeTblFunction, rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr))
		return;
	call = (FuncExpr *) rtfunc->funcexpr;
	if (!call->funcretset || list_length(call->args) != SCAN_NARGS ||
		!is_topic_read(call->funcid, &kind) ||
		!has_topic_columns(exprType(linitial(call->args))) ||
		needs_whole_row(rel))
		return;

	/* as the function scan would, but streaming */
	function_path = linitial(rel->pathlist);
	path = makeNode(CustomPath);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.param_info = function_path->param_info;
	path->path.rows = function_path->rows;
	path->path.startup_cost = function_path->startup_cost;
	path->path.total_cost = function_path->total_cost;
	path->flags = 0;
	path->custom_private = list_make1(call);
	path->methods = kind == READ_FETCH ? &fetch_path_methods : &poll_path_methods;

	rel->pathlist = NIL;
	add_path(rel, &path->path);
}

/*
 * The scan's tuples are the function's rows (scanrelid 0: a function is no
 * relation to open), described by Vars of the function's range table entry
 * that setrefs.c matches the plan's expressions against.
 */
static Plan *
plan_fetch_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	FuncExpr   *call = linitial(best_path->custom_private);
	Oid			rowtype = exprType(linitial(call->args));

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(clauses, false);
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_scan_tlist = scan_columns(rel->relid, rowtype);
	cscan->custom_exprs = copyObject(call->args);
	cscan->custom_private = list_make1_oid(rowtype);
	cscan->methods = best_path->methods == &poll_path_methods ?
		&poll_scan_methods : &fetch_scan_methods;
	return &cscan->scan.plan;
}

static Node *
create_fetch_state(CustomScan *cscan)
{
	TopicFetchState *state = palloc0(sizeof(TopicFetchState));

	NodeSetTag(state, T_CustomScanState);
	state->kind = cscan->methods == &poll_scan_methods ? READ_POLL : READ_FETCH;
	state->css.methods = state->kind == READ_POLL ?
		&poll_exec_methods : &fetch_exec_methods;
	state->rowtype = linitial_oid(cscan->custom_private);
	return (Node *) state;
}

static void
begin_fetch(CustomScanState *node, EState *estate, int eflags)
{
	TopicFetchState *state = (TopicFetchState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	ListCell   *lc;

	foreach(lc, cscan->custom_exprs)
	{
		state->args = lappend(state->args,
							  ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps));
		state->arg_params = bms_join(state->arg_params,
									 pull_paramids((Expr *) lfirst(lc)));
	}
	state->read_cxt = AllocSetContextCreate(estate->es_query_cxt,
											"TopicFetch records",
											ALLOCSET_DEFAULT_SIZES);
}

/* Copy a field into the read's memory (the caller's context) */
static Pointer
copy_field(Pointer field)
{
	Size		size = VARSIZE_ANY(field);
	Pointer		copy = palloc(size);

	memcpy(copy, field, size);
	return copy;
}

/*
 * The sink: remember where record rec is.  Runs in the read's memory with
 * the record's page share-locked.
 */
static void
keep_record(StableRead *read, Relation seg, Buffer buffer, int32 partition,
			TopicRecord *rec)
{
	TopicFetchState *state = (TopicFetchState *) read->sink_arg;
	FetchedRecord *out;
	bool		pinned = false;
	int			f;

	if (state->nrecords == state->maxrecords)
	{
		state->maxrecords = Max(64, state->maxrecords * 2);
		state->records = repalloc_huge(state->records,
									   sizeof(FetchedRecord) * state->maxrecords);
	}
	out = &state->records[state->nrecords++];
	out->partition = partition;
	out->offset = rec->offset;
	out->timestamp = rec->timestamp;
	out->fields[0] = rec->key;
	out->fields[1] = rec->value;
	out->fields[2] = rec->headers;

	if (BufferIsValid(buffer))
	{
		if (state->npins > 0 && state->pins[state->npins - 1] == buffer)
			pinned = true;
		else if (state->npins < FETCH_SCAN_MAX_PINS)
		{
			Oid			segid = RelationGetRelid(seg);

			IncrBufferRefCount(buffer);
			state->pins[state->npins++] = buffer;
			pinned = true;
			/*
			 * The segment stays until the scan is done with its records.
			 * The read holds it already, so this cannot wait.
			 */
			if (!list_member_oid(state->locked, segid))
			{
				LockRelationOid(segid, AccessShareLock);
				state->locked = lappend_oid(state->locked, segid);
			}
		}
	}
	for (f = 0; f < 3; f++)
	{
		if (out->fields[f] == NULL)
			continue;
		/* a row leaves with its TOAST, as the function's rows do */
		if (VARATT_IS_EXTERNAL(out->fields[f]))
			out->fields[f] = (Pointer) detoast_external_attr((struct varlena *) out->fields[f]);
		else if (BufferIsValid(buffer) && !pinned)
			out->fields[f] = copy_field(out->fields[f]);
	}
}

/* Make room for the first records of a read of at most max_records */
static void
start_records(TopicFetchState *state, int32 max_records)
{
	state->maxrecords = Min(max_records, 1024);
	state->records = palloc(sizeof(FetchedRecord) * state->maxrecords);
}

/* Forget the records read: unpin their pages, unlock their segments */
static void
release_records(TopicFetchState *state)
{
	ListCell   *lc;
	int			i;

	for (i = 0; i < state->npins; i++)
		ReleaseBuffer(state->pins[i]);
	state->npins = 0;
	foreach(lc, state->locked)
		UnlockRelationOid(lfirst_oid(lc), AccessShareLock);
	state->locked = NIL;
	state->records = NULL;
	state->nrecords = state->maxrecords = state->next = 0;
	MemoryContextReset(state->read_cxt);
	state->read_done = false;
}

/* Evaluate the arguments and read, as the function would */
static void
read_records(TopicFetchState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	Datum		values[SCAN_NARGS];
	bool		nulls[SCAN_NARGS];
	Relation	topic;
	StableRead	sink;
	MemoryContext old;
	ListCell   *lc;
	int			i = 0;

	foreach(lc, state->args)
	{
		values[i] = ExecEvalExprSwitchContext((ExprState *) lfirst(lc),
											  econtext, &nulls[i]);
		i++;
	}
	memset(&sink, 0, sizeof(sink));
	sink.sink = keep_record;
	sink.sink_arg = state;

	old = MemoryContextSwitchTo(state->read_cxt);
	if (state->kind == READ_FETCH)
	{
		int32		max_records = nulls[3] ? 0 : DatumGetInt32(values[3]);
		int64		wait_us = nulls[4] ? 0 :
			topic_interval_usecs(DatumGetIntervalP(values[4]));

		topic = topic_fetch_begin(state->rowtype, &nulls[1], max_records,
								  wait_us);
		start_records(state, max_records);
		sink.max_records = max_records;
		topic_fetch_read(topic, DatumGetInt32(values[1]),
						 DatumGetInt64(values[2]), wait_us, &sink);
	}
	else
	{
		TopicPollArgs args;

		topic = topic_poll_begin(state->rowtype, &values[1], &nulls[1], &args);
		start_records(state, args.max_records);
		topic_poll_read(topic, &args, &sink);
	}
	MemoryContextSwitchTo(old);
	state->read_done = true;
	ResetExprContext(econtext);
}

/* The next record as a virtual tuple; the executor applies the quals */
static TupleTableSlot *
fetch_next(ScanState *ss)
{
	TopicFetchState *state = (TopicFetchState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	FetchedRecord *rec;
	int			f;

	ExecClearTuple(slot);
	if (!state->read_done)
		read_records(state);
	if (state->next >= state->nrecords)
		return slot;

	rec = &state->records[state->next++];
	slot->tts_values[Anum_topic_partition - 1] = Int32GetDatum(rec->partition);
	slot->tts_isnull[Anum_topic_partition - 1] = false;
	slot->tts_values[Anum_topic_offset - 1] = Int64GetDatum(rec->offset);
	slot->tts_isnull[Anum_topic_offset - 1] = false;
	slot->tts_values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(rec->timestamp);
	slot->tts_isnull[Anum_topic_timestamp - 1] = false;
	for (f = 0; f < 3; f++)
	{
		slot->tts_values[Anum_topic_key - 1 + f] = PointerGetDatum(rec->fields[f]);
		slot->tts_isnull[Anum_topic_key - 1 + f] = (rec->fields[f] == NULL);
	}
	return ExecStoreVirtualTuple(slot);
}

static bool
fetch_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_fetch(CustomScanState *node)
{
	return ExecScan(&node->ss, fetch_next, fetch_recheck);
}

static void
end_fetch(CustomScanState *node)
{
	release_records((TopicFetchState *) node);
}

/*
 * Read again only when an argument changed; otherwise the same records
 * again, as a function scan rescans its tuplestore rather than call the
 * function twice.
 */
static void
rescan_fetch(CustomScanState *node)
{
	TopicFetchState *state = (TopicFetchState *) node;

	if (bms_overlap(node->ss.ps.chgParam, state->arg_params))
		release_records(state);
	else
		state->next = 0;
	ExecScanReScan(&node->ss);
}

static void
explain_fetch(CustomScanState *node, List *ancestors, ExplainState *es)
{
	TopicFetchState *state = (TopicFetchState *) node;

	ExplainPropertyText("Topic", format_type_be(state->rowtype), es);
	if (es->analyze && state->read_done)
		ExplainPropertyInteger("Pages Pinned", NULL, state->npins, es);
}

void
topic_fetch_scan_init(void)
{
	RegisterCustomScanMethods(&fetch_scan_methods);
	RegisterCustomScanMethods(&poll_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = fetch_set_rel_pathlist;
}
