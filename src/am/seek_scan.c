/*-------------------------------------------------------------------------
 *
 * seek_scan.c
 *	  TopicSeek: plain SQL over a topic reads only the pages it needs.
 *
 * Offsets increase along a partition's log, and so do timestamps, and every
 * page's special space says which offsets and times it holds.  So a query
 * with WHERE "offset" BETWEEN a AND b or WHERE "timestamp" >= now() - '1
 * hour' on a topic partition needs a binary search for the first page and
 * a scan that stops at the last, not the whole log.  The planner hook adds
 * that path (a CustomScan, visible in EXPLAIN as "Custom Scan (TopicSeek)")
 * for every topic_log relation with such predicates; partition pruning on
 * "partition" already narrows a topic to its partitions.
 *
 * The predicates stay in the plan as filters: the seek only chooses which
 * pages to read, so it can never change an answer.  Their other sides are
 * evaluated when the scan starts (they may be parameters or stable
 * expressions such as now()).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/am/scan.h"
#include "pg_topics/am/seek_scan.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/log/topic_log.h"

/* What a bound compares: the offset or the timestamp */
#define SEEK_OFFSET		0
#define SEEK_TIME		1

/* How it compares (the column on the left) */
#define SEEK_LT			0
#define SEEK_LE			1
#define SEEK_EQ			2
#define SEEK_GE			3
#define SEEK_GT			4

typedef struct TopicSeekState
{
	CustomScanState css;
	List	   *kinds;			/* per bound: column * 8 + comparison */
	List	   *exprs;			/* per bound: ExprState of the other side */
	TableScanDesc scan;
	BlockNumber scanned;		/* blocks read, for EXPLAIN ANALYZE */
	BlockNumber nblocks;
} TopicSeekState;

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

static Plan *plan_seek_path(PlannerInfo *root, RelOptInfo *rel,
							CustomPath *best_path, List *tlist,
							List *clauses, List *custom_plans);
static Node *create_seek_state(CustomScan *cscan);
static void begin_seek(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_seek(CustomScanState *node);
static void end_seek(CustomScanState *node);
static void rescan_seek(CustomScanState *node);
static void explain_seek(CustomScanState *node, List *ancestors,
						 ExplainState *es);

static const CustomPathMethods seek_path_methods = {
	.CustomName = "TopicSeek",
	.PlanCustomPath = plan_seek_path,
};

static const CustomScanMethods seek_scan_methods = {
	.CustomName = "TopicSeek",
	.CreateCustomScanState = create_seek_state,
};

static const CustomExecMethods seek_exec_methods = {
	.CustomName = "TopicSeek",
	.BeginCustomScan = begin_seek,
	.ExecCustomScan = exec_seek,
	.EndCustomScan = end_seek,
	.ReScanCustomScan = rescan_seek,
	.ExplainCustomScan = explain_seek,
};

/* Comparison of an operator by name, flipped when the column is on the right */
static int
comparison_of(Oid opno, bool flipped)
{
	char	   *name = get_opname(opno);
	int			cmp;

	if (name == NULL)
		return -1;
	if (strcmp(name, "<") == 0)
		cmp = SEEK_LT;
	else if (strcmp(name, "<=") == 0)
		cmp = SEEK_LE;
	else if (strcmp(name, "=") == 0)
		cmp = SEEK_EQ;
	else if (strcmp(name, ">=") == 0)
		cmp = SEEK_GE;
	else if (strcmp(name, ">") == 0)
		cmp = SEEK_GT;
	else
		return -1;
	if (flipped && cmp != SEEK_EQ)
		cmp = SEEK_GT - cmp;
	return cmp;
}

/*
 * If clause compares "offset" or "timestamp" of rel with something that is
 * constant during a scan, describe it: *kind and *other.
 */
static bool
seekable_clause(RelOptInfo *rel, Expr *clause, int *kind, Expr **other)
{
	OpExpr	   *op;
	Node	   *left;
	Node	   *right;
	Var		   *var;
	bool		flipped = false;
	int			column;
	int			cmp;
	Oid			othertype;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return false;
	op = (OpExpr *) clause;
	left = linitial(op->args);
	right = lsecond(op->args);
	if (IsA(right, Var) && !IsA(left, Var))
	{
		Node	   *tmp = left;

		left = right;
		right = tmp;
		flipped = true;
	}
	if (!IsA(left, Var))
		return false;
	var = (Var *) left;
	if (var->varno != rel->relid || var->varlevelsup != 0)
		return false;
	if (var->varattno == Anum_topic_offset)
		column = SEEK_OFFSET;
	else if (var->varattno == Anum_topic_timestamp)
		column = SEEK_TIME;
	else
		return false;
	if (contain_var_clause(right) || contain_volatile_functions(right))
		return false;

	othertype = exprType(right);
	if (column == SEEK_OFFSET &&
		othertype != INT8OID && othertype != INT4OID && othertype != INT2OID)
		return false;
	if (column == SEEK_TIME && othertype != TIMESTAMPTZOID)
		return false;
	cmp = comparison_of(op->opno, flipped);
	if (cmp < 0)
		return false;

	*kind = column * 8 + cmp;
	*other = (Expr *) right;
	return true;
}

/* Offer a TopicSeek path for a topic_log relation with seekable quals */
static void
topic_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					   RangeTblEntry *rte)
{
	List	   *kinds = NIL;
	List	   *others = NIL;
	ListCell   *lc;
	CustomPath *path;
	double		fraction;
	double		pages;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_RELATION ||
		rel->baserestrictinfo == NIL || !topic_is_log_relation(rte->relid))
		return;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		int			kind;
		Expr	   *other;

		if (seekable_clause(rel, rinfo->clause, &kind, &other))
		{
			kinds = lappend_int(kinds, kind);
			others = lappend(others, other);
		}
	}
	if (kinds == NIL)
		return;

	path = makeNode(CustomPath);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.param_info = NULL;
	path->path.rows = rel->rows;
	path->flags = 0;
	path->custom_private = list_make2(kinds, others);
	path->methods = &seek_path_methods;

	/* the pages holding the selected fraction, plus the binary search */
	fraction = rel->tuples > 0 ? Min(1.0, rel->rows / rel->tuples) : 1.0;
	pages = Max(1.0, ceil(fraction * rel->pages)) +
		(rel->pages > 1 ? log2(rel->pages) : 1.0);
	path->path.startup_cost = (rel->pages > 1 ? log2(rel->pages) : 1.0) *
		random_page_cost;
	path->path.total_cost = path->path.startup_cost + pages * seq_page_cost +
		fraction * rel->tuples * (cpu_tuple_cost +
								  list_length(rel->baserestrictinfo) * cpu_operator_cost);
	add_path(rel, &path->path);
}

static Plan *
plan_seek_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan.targetlist = tlist;
	/* every predicate stays a filter: the seek only picks the pages */
	cscan->scan.plan.qual = extract_actual_clauses(clauses, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_private = list_make1(linitial(best_path->custom_private));
	cscan->custom_exprs = lsecond(best_path->custom_private);
	cscan->methods = &seek_scan_methods;
	return &cscan->scan.plan;
}

static Node *
create_seek_state(CustomScan *cscan)
{
	TopicSeekState *state = palloc0(sizeof(TopicSeekState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &seek_exec_methods;
	state->kinds = linitial(cscan->custom_private);
	return (Node *) state;
}

static void
begin_seek(CustomScanState *node, EState *estate, int eflags)
{
	TopicSeekState *state = (TopicSeekState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	ListCell   *lc;

	foreach(lc, cscan->custom_exprs)
		state->exprs = lappend(state->exprs,
							   ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps));
}

/*
 * Evaluate the bounds and choose the part [*first, *end) of the log to
 * read; false when a bound is NULL (no row can match).
 */
static bool
compute_range(TopicSeekState *state, TableScanDesc scan, TopicScanPos *first,
			  TopicScanPos *end)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	ListCell   *lk;
	ListCell   *le;

	bool		upper_bounds = !topic_scan_is_unordered(scan);

	*first = 0;
	*end = PG_UINT64_MAX;
	forboth(lk, state->kinds, le, state->exprs)
	{
		int			kind = lfirst_int(lk);
		int			column = kind / 8;
		int			cmp = kind % 8;
		bool		isnull;
		Datum		value = ExecEvalExprSwitchContext((ExprState *) lfirst(le),
													  econtext, &isnull);

		if (isnull)
			return false;
		if (column == SEEK_OFFSET)
		{
			Oid			type = exprType((Node *) ((ExprState *) lfirst(le))->expr);
			int64		v = type == INT8OID ? DatumGetInt64(value) :
				type == INT4OID ? DatumGetInt32(value) : DatumGetInt16(value);

			/* lower bound: first page that may hold an offset >= lo */
			if (cmp == SEEK_GE || cmp == SEEK_EQ || cmp == SEEK_GT)
			{
				int64		lo = (cmp == SEEK_GT) ? v + 1 : v;

				if (v == PG_INT64_MAX && cmp == SEEK_GT)
					return false;
				*first = Max(*first, topic_scan_seek(scan, false, lo, 0));
			}
			/* upper bound: no page after the first one holding hi + 1 */
			if (cmp == SEEK_LE || cmp == SEEK_EQ || cmp == SEEK_LT)
			{
				int64		hi = (cmp == SEEK_LT) ? v - 1 : v;

				if (hi < 0)
					return false;
				if (hi < PG_INT64_MAX && upper_bounds)
					*end = Min(*end, topic_scan_seek(scan, false, hi + 1, 0) + 1);
			}
		}
		else
		{
			TimestampTz v = DatumGetTimestampTz(value);

			if (cmp == SEEK_GE || cmp == SEEK_EQ || cmp == SEEK_GT)
				*first = Max(*first, topic_scan_seek(scan, true, 0,
													 cmp == SEEK_GT ? v + 1 : v));
			if (cmp == SEEK_LE || cmp == SEEK_EQ || cmp == SEEK_LT)
			{
				TimestampTz hi = (cmp == SEEK_LT) ? v - 1 : v;

				if (hi < DT_NOEND && upper_bounds)
					*end = Min(*end, topic_scan_seek(scan, true, 0, hi + 1) + 1);
			}
		}
	}
	return true;
}

/* The next record of the chosen blocks; the executor applies the quals */
static TupleTableSlot *
seek_next(ScanState *ss)
{
	TopicSeekState *state = (TopicSeekState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;

	if (state->scan == NULL)
	{
		Relation	rel = ss->ss_currentRelation;
		TopicScanPos first;
		TopicScanPos end;

		state->scan = table_beginscan(rel, ss->ps.state->es_snapshot, 0, NULL);
		if (!compute_range(state, state->scan, &first, &end))
			first = end = 0;
		end = Max(first, end);
		topic_scan_set_limits(state->scan, first, end);
		state->scanned = topic_scan_count_blocks(state->scan, first, end);
		state->nblocks = topic_scan_count_blocks(state->scan, 0, PG_UINT64_MAX);
	}
	if (table_scan_getnextslot(state->scan, ForwardScanDirection, slot))
		return slot;
	return ExecClearTuple(slot);
}

static bool
seek_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_seek(CustomScanState *node)
{
	return ExecScan(&node->ss, seek_next, seek_recheck);
}

static void
end_seek(CustomScanState *node)
{
	TopicSeekState *state = (TopicSeekState *) node;

	if (state->scan != NULL)
		table_endscan(state->scan);
	state->scan = NULL;
}

static void
rescan_seek(CustomScanState *node)
{
	/* bounds may depend on parameters: seek again */
	end_seek(node);
	ExecScanReScan(&node->ss);
}

static void
explain_seek(CustomScanState *node, List *ancestors, ExplainState *es)
{
	TopicSeekState *state = (TopicSeekState *) node;
	StringInfoData keys;
	ListCell   *lc;
	static const char *const cmps[] = {"<", "<=", "=", ">=", ">"};

	initStringInfo(&keys);
	foreach(lc, state->kinds)
	{
		int			kind = lfirst_int(lc);

		appendStringInfo(&keys, "%s%s %s", keys.len > 0 ? ", " : "",
						 kind / 8 == SEEK_OFFSET ? "\"offset\"" : "\"timestamp\"",
						 cmps[kind % 8]);
	}
	ExplainPropertyText("Seek", keys.data, es);
	if (es->analyze && state->scan != NULL)
	{
		ExplainPropertyInteger("Log Pages", NULL, state->nblocks, es);
		ExplainPropertyInteger("Pages Scanned", NULL, state->scanned, es);
	}
}

void
topic_seek_init(void)
{
	RegisterCustomScanMethods(&seek_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = topic_set_rel_pathlist;
}
