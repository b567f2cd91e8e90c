/*-------------------------------------------------------------------------
 *
 * routing.c
 *	  INSERT INTO a topic: fill in the partition from the key.
 *
 * PostgreSQL routes a row to a partition before any access-method code
 * runs, so the partition column must already hold the right value; it
 * cannot be a generated column (partition keys may not be) and BEFORE ROW
 * triggers run after routing.  The planner hook therefore rewrites every
 * INSERT into a topic, wherever it appears (rules, CTEs, SPI): the target
 * entry for "partition" becomes topics.partition_for_insert(topic, key),
 * which applies Kafka's partitioner at execution time with the topic's
 * current partition count.
 *
 * The key must be evaluated once: a volatile key expression in a
 * single-row VALUES (gen_random_uuid()::text, say) would otherwise give
 * the key column and the routing two different values.  Such a row is
 * moved into a subquery, and both entries read its output.
 *
 * Supplying the partition yourself is refused outside preserve mode, like
 * supplying the offset or the timestamp (writer/record_check.c checks those), and so is
 * writing into one of a topic's partitions directly (INSERT or COPY): the
 * key would not choose the partition there.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/partitioner.h"
#include "pg_topics/hooks/routing.h"
#include "pg_topics/log/topic_log.h"

PG_FUNCTION_INFO_V1(topic_partition_for_insert);

/* The target entry for attribute attno, or NULL */
static TargetEntry *
find_target(List *tlist, AttrNumber attno)
{
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (!tle->resjunk && tle->resno == attno)
			return tle;
	}
	return NULL;
}

/*
 * Move a single-row VALUES insert's expressions into a subquery, so that
 * each is evaluated once however often the target list refers to it.
 */
static void
wrap_row_in_subquery(Query *query)
{
	Query	   *sub = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	ListCell   *lc;
	int			rtindex;
	AttrNumber	subno = 0;

	sub->commandType = CMD_SELECT;
	sub->querySource = QSRC_ORIGINAL;
	sub->canSetTag = true;
	sub->jointree = makeFromExpr(NIL, NULL);
	sub->hasSubLinks = query->hasSubLinks;

	foreach(lc, query->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		char	   *name;

		if (tle->resjunk)
			continue;
		name = psprintf("c%d", ++subno);
		/* the expression moves one query level down */
		IncrementVarSublevelsUp((Node *) tle->expr, 1, 0);
		sub->targetList = lappend(sub->targetList,
								  makeTargetEntry(tle->expr, subno, name, false));
		colnames = lappend(colnames, makeString(name));
	}

	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->alias = makeAlias("topic_row", NIL);
	rte->eref = makeAlias("topic_row", colnames);
	rte->inFromCl = true;
	query->rtable = lappend(query->rtable, rte);
	rtindex = list_length(query->rtable);
	rtr->rtindex = rtindex;
	query->jointree->fromlist = lappend(query->jointree->fromlist, rtr);

	subno = 0;
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Expr	   *old;

		if (tle->resjunk)
			continue;
		old = (Expr *) list_nth_node(TargetEntry, sub->targetList, subno)->expr;
		tle->expr = (Expr *) makeVar(rtindex, ++subno, exprType((Node *) old),
									 exprTypmod((Node *) old),
									 exprCollation((Node *) old), 0);
	}
}

/* OID of topics.partition_for_insert(oid, anyelement) */
static Oid
partition_function_oid(void)
{
	Oid			argtypes[2] = {OIDOID, ANYELEMENTOID};

	return LookupFuncName(list_make2(makeString("topics"),
									 makeString("partition_for_insert")),
						  2, argtypes, false);
}

/*
 * Refuse to write into relid directly (command: "INSERT" or "COPY") if it
 * is a partition of a topic, outside preserve mode: records reach a
 * partition through the topic, routed by key, or through topics.produce()
 * with an explicit partition.  Replication's apply and restores write
 * partitions directly, in preserve mode.
 */
void
topic_refuse_direct_insert(Oid relid, const char *command)
{
	Oid			parent;

	if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA ||
		get_rel_relkind(relid) != RELKIND_RELATION ||
		!get_rel_relispartition(relid) || !topic_is_log_relation(relid))
		return;
	parent = get_partition_parent(relid, true);
	if (!topic_is_topic_parent_oid(parent))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot %s into partition \"%s\" of topic \"%s\" directly",
					command, get_rel_name(relid), get_rel_name(parent)),
			 errdetail("A record's key chooses its partition, as Kafka's partitioner does."),
			 errhint("%s into the topic \"%s\" instead, or call topics.produce() with partition => n to choose the partition.",
					 command, get_rel_name(parent))));
}

/*
 * If query inserts into a topic, make it route by key.  Called by the
 * planner hook for every Query of the tree.
 */
void
topic_route_insert(Query *query)
{
	RangeTblEntry *target;
	TargetEntry *partition_tle;
	TargetEntry *key_tle;
	Relation	topic;
	Oid			key_type;
	Expr	   *key_expr;
	FuncExpr   *call;

	if (query->commandType != CMD_INSERT || query->resultRelation <= 0)
		return;
	target = rt_fetch(query->resultRelation, query->rtable);
	topic_refuse_direct_insert(target->relid, "INSERT");
	if (target->relkind != RELKIND_PARTITIONED_TABLE ||
		!topic_is_topic_parent_oid(target->relid))
		return;

	partition_tle = find_target(query->targetList, Anum_topic_partition);
	if (partition_tle != NULL)
	{
		if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
			return;				/* preserve mode keeps what it is given */
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"partition\" of a topic is assigned by the log"),
				 errdetail("Records are routed by key, as Kafka's partitioner does."),
				 errhint("Leave out the \"partition\" column, or call topics.produce() with partition => n to choose one.")));
	}

	key_tle = find_target(query->targetList, Anum_topic_key);
	if (key_tle != NULL && contain_volatile_functions((Node *) key_tle->expr))
	{
		if (list_length(query->rtable) != 1 || query->setOperations != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a volatile key expression cannot be routed here"),
					 errhint("Compute the key in a subquery: INSERT INTO topic (key, value) SELECT ...")));
		wrap_row_in_subquery(query);
		key_tle = find_target(query->targetList, Anum_topic_key);
	}

	topic = topic_open(target->relid, NoLock, TOPIC_NO_ACL_CHECK);
	key_type = topic_column_type(topic, Anum_topic_key);
	relation_close(topic, NoLock);

	key_expr = key_tle != NULL ? (Expr *) copyObject(key_tle->expr) :
		(Expr *) makeNullConst(key_type, -1, InvalidOid);
	call = makeFuncExpr(partition_function_oid(), INT4OID,
						list_make2(makeConst(OIDOID, -1, InvalidOid, sizeof(Oid),
											 ObjectIdGetDatum(target->relid),
											 false, true),
								   key_expr),
						InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);

	/* keep the target list in attribute order */
	partition_tle = makeTargetEntry((Expr *) call, Anum_topic_partition,
									pstrdup("partition"), false);
	query->targetList = lcons(partition_tle, query->targetList);
}

/* Per-statement state of topics.partition_for_insert */
typedef struct RouteCache
{
	Oid			relid;
	int32		nparts;
	Oid			key_type;
} RouteCache;

/*
 * topics.partition_for_insert(topic oid, key anyelement) RETURNS int:
 * the partition INSERT routes a record with this key to.
 */
Datum
topic_partition_for_insert(PG_FUNCTION_ARGS)
{
	RouteCache *cache = (RouteCache *) fcinfo->flinfo->fn_extra;
	Oid			relid = PG_GETARG_OID(0);
	TopicPartitioner part;

	if (cache == NULL || cache->relid != relid)
	{
		Relation	topic = topic_open(relid, AccessShareLock, TOPIC_NO_ACL_CHECK);

		cache = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(RouteCache));
		cache->relid = relid;
		cache->nparts = topic_partition_count(topic);
		cache->key_type = topic_column_type(topic, Anum_topic_key);
		/* the hash reads the key as the topic's key type: nothing else will do */
		if (get_fn_expr_argtype(fcinfo->flinfo, 1) != cache->key_type)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("key of type %s does not match the key type %s of topic \"%s\"",
							format_type_be(get_fn_expr_argtype(fcinfo->flinfo, 1)),
							format_type_be(cache->key_type),
							RelationGetRelationName(topic))));
		relation_close(topic, NoLock);
		fcinfo->flinfo->fn_extra = cache;
	}

	/*
	 * A call per row: the keyless rows of one INSERT share a partition
	 * because the partitioner's sticky choice lasts the statement.
	 */
	topic_partitioner_init(&part, relid, cache->key_type, cache->nparts);
	PG_RETURN_INT32(topic_partition_choose(&part, PG_ARGISNULL(1) ? (Datum) 0 :
										   PG_GETARG_DATUM(1), PG_ARGISNULL(1)));
}
