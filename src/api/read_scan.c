/*-------------------------------------------------------------------------
 *
 * read_scan.c
 *	  TopicFetch and TopicPoll: topics.fetch() and topics.poll() in FROM,
 *	  without materializing their rows.
 *
 * The executor materializes every set-returning function in FROM: each row
 * is formed, copied into a tuplestore and read back out.  For fetch and
 * poll, whose rows are records already laid out on pinned pages, that copy
 * was the largest part of what a record cost above heap's index scan (see
 * docs/benchmarks.md).  So the planner hook replaces the function scan of
 * topics.fetch(...) or topics.poll(...) in FROM with this custom scan,
 * which runs the same read (fetch.c, poll.c: the same checks, long-poll,
 * stable-read rule, group positions and errors) with a sink that keeps a
 * reference to each record instead of a copy, and hands the records out as
 * virtual tuples whose key, value and headers point into the pages.
 *
 * The pages stay pinned, and their segments locked, until the scan ends or
 * reads again, so the records cannot move or go: a page's records are
 * immutable once written, and retention drops a segment only when it gets
 * its lock without waiting.  Pins are bounded, per scan and per backend
 * (pin_budget), and so is memory: a read that would need more pins, a
 * record with TOAST, a replica's unordered read and any read on a hot
 * standby (where holding a segment would hold back the replay of its drop)
 * go into a tuplestore of rows, limited by work_mem, as the function's do.
 *
 * The functions keep their meaning: each is called once per distinct set
 * of arguments (a rescan with the same arguments returns the same records,
 * as a function scan's tuplestore would; poll does not poll twice), its
 * arguments are evaluated as the function's would be, EXECUTE on it is
 * checked, the scan goes backward (so cursors stay scrollable), and a
 * query the scan cannot serve (WITH ORDINALITY, ROWS FROM, a whole-row
 * reference to the result) keeps the function scan.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_language_d.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif
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
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/api/fetch.h"
#include "pg_topics/api/groups.h"
#include "pg_topics/log/topic_log.h"

/* Pages one scan keeps pinned at most */
#define FETCH_SCAN_MAX_PINS		64

/* fetch's and poll's arguments: the row type, then TOPIC_READ_NARGS more */
#define SCAN_NARGS				(1 + TOPIC_READ_NARGS)

/* A record of the result, its fields on a pinned page */
typedef struct FetchedRecord
{
	int32		partition;
	TopicRecord rec;
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
	Oid			funcid;
	FmgrInfo	flinfo;			/* for pg_stat_user_functions */
	Oid			rowtype;
	List	   *args;			/* ExprStates of the function's arguments */
	Bitmapset  *arg_params;		/* parameters the arguments depend on */
	bool		read_done;
	bool		may_pin;		/* this read may keep references */
	bool		random_access;	/* the scan may go backward */
	MemoryContext read_cxt;		/* records and rows of the current read */

	/* the records read: as references to pinned pages ... */
	FetchedRecord *records;
	int			nrecords;
	int			maxrecords;
	Buffer		pins[FETCH_SCAN_MAX_PINS];
	int			npins;
	List	   *locked;			/* OIDs of segments locked for the records */
	/* ... or, when that is not possible, as rows, like the function's */
	Tuplestorestate *store;
	TupleTableSlot *store_slot;

	/* position among the references, as a tuplestore read pointer's */
	int			next;			/* records[next] is the next one forward */
	bool		eof;			/* forward reading ran past the last one */
} TopicFetchState;

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* Pins all scans of this backend hold; see pin_budget() */
static int	backend_pins = 0;

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
 * Is funcid topics.fetch or topics.poll?  The C symbol names them, and
 * their address in this library confirms it (no other library is loaded to
 * ask); *kind says which.
 */
static bool
is_topic_read(Oid funcid, TopicReadKind *kind)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	FmgrInfo	flinfo;
	Datum		prosrc;
	bool		isnull;
	char	   *symbol;

	if (!HeapTupleIsValid(tuple))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tuple))->prolang != ClanguageId)
	{
		ReleaseSysCache(tuple);
		return false;
	}
	prosrc = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_prosrc, &isnull);
	symbol = isnull ? NULL : TextDatumGetCString(prosrc);
	ReleaseSysCache(tuple);
	if (symbol == NULL ||
		(strcmp(symbol, "topic_fetch") != 0 && strcmp(symbol, "topic_poll") != 0))
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
		list_length(rte->functions) != 1 || list_length(rel->pathlist) != 1 ||
		IS_DUMMY_REL(rel))
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
	path->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
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
	cscan->custom_private = list_make2_oid(call->funcid, rowtype);
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
	state->funcid = linitial_oid(cscan->custom_private);
	state->rowtype = lsecond_oid(cscan->custom_private);
	return (Node *) state;
}

/*
 * Parameters an argument depends on: its own, and those of the plans of
 * its subqueries (which a change of them makes return something else), as
 * the planner works out for a function scan.
 */
static bool
collect_params(Node *node, void *context)
{
	void	  **ctx = (void **) context;
	Bitmapset **params = (Bitmapset **) ctx[0];
	EState	   *estate = (EState *) ctx[1];

	if (node == NULL)
		return false;
	if (IsA(node, Param))
		*params = bms_add_member(*params, ((Param *) node)->paramid);
	else if (IsA(node, SubPlan))
	{
		SubPlan    *subplan = (SubPlan *) node;
		Plan	   *plan = list_nth(estate->es_plannedstmt->subplans,
									subplan->plan_id - 1);

		*params = bms_add_members(*params, plan->extParam);
	}
	return expression_tree_walker(node, collect_params, context);
}

static void
begin_fetch(CustomScanState *node, EState *estate, int eflags)
{
	TopicFetchState *state = (TopicFetchState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	void	   *ctx[2] = {&state->arg_params, estate};
	AclResult	aclresult;
	ListCell   *lc;

	/* as the executor does for a function it will call */
	aclresult = pg_proc_aclcheck(state->funcid, GetUserId(), ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(state->funcid));
	InvokeFunctionExecuteHook(state->funcid);
	fmgr_info(state->funcid, &state->flinfo);

	foreach(lc, cscan->custom_exprs)
	{
		state->args = lappend(state->args,
							  ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps));
		collect_params(lfirst(lc), ctx);
	}
	state->random_access = (eflags & EXEC_FLAG_BACKWARD) != 0;
	state->read_cxt = AllocSetContextCreate(estate->es_query_cxt,
											"TopicFetch records",
											ALLOCSET_DEFAULT_SIZES);
	state->store_slot = ExecInitExtraTupleSlot(estate,
											   node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
											   &TTSOpsMinimalTuple);

	/*
	 * Records are handed out in a slot that copies itself with the direct
	 * row layout (record_slot.c), for the nodes above that keep rows.  It
	 * is a virtual slot in every other respect, which is what the
	 * expressions over the scan were compiled for.
	 */
	node->ss.ss_ScanTupleSlot =
		ExecInitExtraTupleSlot(estate,
							   node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
							   topic_record_slot_ops());
}

/*
 * Pins all TopicFetch scans of a backend may hold: a share of shared
 * buffers (as PostgreSQL 16 limits a backend's extra pins), so that many
 * scans, cursors or backends cannot pin the buffer pool full.
 */
static int
pin_budget(void)
{
	return Min(4 * FETCH_SCAN_MAX_PINS,
			   NBuffers / (MaxBackends + NUM_AUXILIARY_PROCS) / 4);
}

/* Make room for the first records of a read of at most max_records */
static void
start_records(TopicFetchState *state, int32 max_records)
{
	state->maxrecords = Min(max_records, 1024);
	state->records = palloc(sizeof(FetchedRecord) * state->maxrecords);
}

/* Let go of the pages the records were referenced on */
static void
unpin_pages(TopicFetchState *state)
{
	int			i;

	for (i = 0; i < state->npins; i++)
		ReleaseBuffer(state->pins[i]);
	backend_pins = Max(0, backend_pins - state->npins);
	state->npins = 0;
}

/*
 * Go over to rows: the records referenced so far go into a new store, and
 * their pages are unpinned (their segments stay locked until the end).
 */
static void
start_store(TopicFetchState *state)
{
	int			i;

	state->store = tuplestore_begin_heap(state->random_access, false, work_mem);
	for (i = 0; i < state->nrecords; i++)
		topic_record_tuple_put(state->store, state->store_slot->tts_tupleDescriptor,
							   state->records[i].partition, &state->records[i].rec);
	state->nrecords = 0;
	unpin_pages(state);
}

/* Can record rec, on buffer of seg, be kept as a reference?  Pins if so */
static bool
reference_record(TopicFetchState *state, Relation seg, Buffer buffer,
				 TopicRecord *rec)
{
	Pointer		fields[3] = {rec->key, rec->value, rec->headers};
	Oid			segid;
	int			f;

	if (!state->may_pin || !BufferIsValid(buffer))
		return false;
	for (f = 0; f < 3; f++)
		if (fields[f] != NULL && VARATT_IS_EXTERNAL(fields[f]))
			return false;
	if (state->npins > 0 && state->pins[state->npins - 1] == buffer)
		return true;
	if (state->npins == FETCH_SCAN_MAX_PINS || backend_pins >= pin_budget())
		return false;

	IncrBufferRefCount(buffer);
	state->pins[state->npins++] = buffer;
	backend_pins++;
	/*
	 * The segment stays until the scan is done with its records.  The read
	 * holds it already, so this neither waits nor processes invalidations
	 * (the page is share-locked).
	 */
	segid = RelationGetRelid(seg);
	Assert(CheckRelationLockedByMe(seg, AccessShareLock, true));
	if (!list_member_oid(state->locked, segid))
	{
		LockRelationOid(segid, AccessShareLock);
		state->locked = lappend_oid(state->locked, segid);
	}
	return true;
}

/*
 * The sink: keep record rec as a reference if possible, else as a row.
 * Runs in the read's memory with the record's page share-locked.
 */
static void
keep_record(TopicStableRead *read, Relation seg, Buffer buffer, int32 partition,
			TopicRecord *rec)
{
	TopicFetchState *state = (TopicFetchState *) read->sink_arg;
	FetchedRecord *out;

	if (state->store == NULL && !reference_record(state, seg, buffer, rec))
		start_store(state);
	if (state->store != NULL)
	{
		topic_record_tuple_put(state->store, state->store_slot->tts_tupleDescriptor,
							   partition, rec);
		return;
	}

	if (state->nrecords == state->maxrecords)
	{
		state->maxrecords *= 2;
		state->records = repalloc(state->records,
								  sizeof(FetchedRecord) * state->maxrecords);
	}
	out = &state->records[state->nrecords++];
	out->partition = partition;
	out->rec = *rec;
}

/* Forget the records read: unpin their pages, unlock their segments */
static void
release_records(TopicFetchState *state)
{
	ListCell   *lc;

	unpin_pages(state);
	foreach(lc, state->locked)
		UnlockRelationOid(lfirst_oid(lc), AccessShareLock);
	state->locked = NIL;
	if (state->store != NULL)
		tuplestore_end(state->store);
	state->store = NULL;
	ExecClearTuple(state->store_slot);
	/* the scan slot may point into the records and pages let go here */
	ExecClearTuple(state->css.ss.ss_ScanTupleSlot);
	state->records = NULL;
	state->nrecords = state->maxrecords = 0;
	state->next = 0;
	state->eof = false;
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
	TopicStableRead	sink;
	LOCAL_FCINFO(fcinfo, 0);
	PgStat_FunctionCallUsage usage;
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
	/* on a standby, a segment kept would hold back the replay of its drop */
	state->may_pin = !RecoveryInProgress();

	/* counted in pg_stat_user_functions as a call, as the function's is */
	InitFunctionCallInfoData(*fcinfo, &state->flinfo, 0, InvalidOid, NULL, NULL);
	pgstat_init_function_usage(fcinfo, &usage);

	old = MemoryContextSwitchTo(state->read_cxt);
	if (state->kind == READ_FETCH)
	{
		TopicFetchArgs args;

		topic = topic_fetch_begin(state->rowtype, &values[1], &nulls[1], &args);
		start_records(state, args.max_records);
		topic_fetch_read(topic, &args, &sink);
	}
	else
	{
		TopicPollArgs args;

		topic = topic_poll_begin(state->rowtype, &values[1], &nulls[1], &args);
		start_records(state, args.max_records);
		topic_poll_read(topic, &args, &sink);
	}
	MemoryContextSwitchTo(old);
	pgstat_end_function_usage(&usage, true);
	state->read_done = true;
	ResetExprContext(econtext);
}

/* The record at records[i] in the scan slot, pointing into its page */
static TupleTableSlot *
reference_slot(TopicFetchState *state, int i)
{
	TupleTableSlot *slot = state->css.ss.ss_ScanTupleSlot;
	FetchedRecord *r = &state->records[i];
	Pointer		fields[3] = {r->rec.key, r->rec.value, r->rec.headers};
	int			f;

	ExecClearTuple(slot);
	slot->tts_values[Anum_topic_partition - 1] = Int32GetDatum(r->partition);
	slot->tts_isnull[Anum_topic_partition - 1] = false;
#ifdef USE_FLOAT8_BYVAL
	slot->tts_values[Anum_topic_offset - 1] = Int64GetDatum(r->rec.offset);
	slot->tts_values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(r->rec.timestamp);
#else
	/* by reference: the record's own fields, which outlive the slot's use */
	slot->tts_values[Anum_topic_offset - 1] = PointerGetDatum(&r->rec.offset);
	slot->tts_values[Anum_topic_timestamp - 1] = PointerGetDatum(&r->rec.timestamp);
#endif
	slot->tts_isnull[Anum_topic_offset - 1] = false;
	slot->tts_isnull[Anum_topic_timestamp - 1] = false;
	for (f = 0; f < 3; f++)
	{
		slot->tts_values[Anum_topic_key - 1 + f] = PointerGetDatum(fields[f]);
		slot->tts_isnull[Anum_topic_key - 1 + f] = (fields[f] == NULL);
	}
	return topic_record_slot_store(slot, r->partition, &r->rec);
}

/*
 * The next record in the scan's direction, or an empty slot.  References
 * move as a tuplestore's read pointer does (backward from the end gives the
 * last record, otherwise the one before the last returned), so that both
 * kinds of result scroll alike.
 */
static TupleTableSlot *
fetch_next(TopicFetchState *state)
{
	TupleTableSlot *slot = state->css.ss.ss_ScanTupleSlot;
	bool		forward = ScanDirectionIsForward(state->css.ss.ps.state->es_direction);

	if (!state->read_done)
		read_records(state);

	if (state->store != NULL)
	{
		TupleTableSlot *row = state->store_slot;

		/* the row's values, in the scan slot the plan was built for */
		ExecClearTuple(slot);
		if (!tuplestore_gettupleslot(state->store, forward, false, row))
			return slot;
		slot_getallattrs(row);
		memcpy(slot->tts_values, row->tts_values, sizeof(Datum) * Natts_topic);
		memcpy(slot->tts_isnull, row->tts_isnull, sizeof(bool) * Natts_topic);
		return ExecStoreVirtualTuple(slot);
	}

	if (forward)
	{
		if (state->eof || state->next >= state->nrecords)
		{
			state->eof = true;
			return ExecClearTuple(slot);
		}
		return reference_slot(state, state->next++);
	}
	if (state->eof)
	{
		state->next = state->nrecords;
		state->eof = false;
	}
	else if (state->next > 0)
		state->next--;
	if (state->next <= 0)
		return ExecClearTuple(slot);
	return reference_slot(state, state->next - 1);
}

/*
 * ExecScan's loop, without its EvalPlanQual branch: a scan with no
 * relation of its own has no rows for EvalPlanQual to substitute, and the
 * function's rows are not locked rows.
 */
static TupleTableSlot *
exec_fetch(CustomScanState *node)
{
	TopicFetchState *state = (TopicFetchState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	for (;;)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		slot = fetch_next(state);
		if (TupIsNull(slot))
			return proj ? ExecClearTuple(proj->pi_state.resultslot) : slot;
		econtext->ecxt_scantuple = slot;
		if (qual == NULL || ExecQual(qual, econtext))
			return proj ? ExecProject(proj) : slot;
		InstrCountFiltered1(node, 1);
	}
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
	else if (state->store != NULL)
		tuplestore_rescan(state->store);
	else
	{
		state->next = 0;
		state->eof = false;
	}
}

static void
explain_fetch(CustomScanState *node, List *ancestors, ExplainState *es)
{
	TopicFetchState *state = (TopicFetchState *) node;
	Plan	   *plan = node->ss.ps.plan;

	ExplainPropertyText("Topic", format_type_be(state->rowtype), es);
	if (es->verbose)
	{
		FuncExpr   *call = makeFuncExpr(state->funcid, state->rowtype,
										((CustomScan *) plan)->custom_exprs,
										InvalidOid, InvalidOid,
										COERCE_EXPLICIT_CALL);
		List	   *context = set_deparse_context_plan(es->deparse_cxt, plan,
													   ancestors);

		call->funcretset = true;
		ExplainPropertyText("Function Call",
							deparse_expression((Node *) call, context, true, false),
							es);
	}
	if (es->analyze && state->read_done)
	{
		ExplainPropertyText("Records", state->store != NULL ? "copied" : "in place", es);
		if (state->store == NULL)
			ExplainPropertyInteger("Pages Pinned", NULL, state->npins, es);
	}
}

/* At the end of a transaction every scan has let go of its pins */
static void
fetch_scan_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PARALLEL_COMMIT)
		backend_pins = 0;
}

void
topic_fetch_scan_init(void)
{
	RegisterCustomScanMethods(&fetch_scan_methods);
	RegisterCustomScanMethods(&poll_scan_methods);
	RegisterXactCallback(fetch_scan_xact_callback, NULL);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = fetch_set_rel_pathlist;
}
