/*-------------------------------------------------------------------------
 *
 * ddl.c
 *	  Keep topics what they are: the column layout, and the statements that
 *	  would change or lock records.
 *
 * Three places catch what a log cannot do (docs/architecture.md section 11):
 * the access-method callbacks refuse whatever reaches them; the planner
 * hook refuses UPDATE, DELETE, MERGE, ON CONFLICT and row locks even when
 * no row would reach a callback (it sees rewritten queries, CTEs and SPI);
 * the utility hook decides every ALTER TABLE subcommand (one exhaustive
 * switch, alter_table_refusal) and the other statements that would change
 * a topic or make a table part of one, and asks internal_rels.c about DDL
 * on the extension's internal relations.  Every refusal is SQLSTATE 0A000
 * with a hint.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/objectaddress.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/tablespace.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "partitioning/partdesc.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/partcache.h"
#include "utils/syscache.h"

#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/am/tableam.h"
#include "pg_topics/api/groups.h"
#include "pg_topics/api/topics.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/hooks/copy.h"
#include "pg_topics/hooks/ddl.h"
#include "pg_topics/hooks/internal_rels.h"
#include "pg_topics/hooks/routing.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_ddl.h"

static planner_hook_type prev_planner_hook = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/*
 * The statements the utility hook refuses on a topic or one of its
 * partitions, each with a message of its own (see refuse())
 */
typedef enum DdlRefusal
{
	DDL_ALLOWED,				/* not refused */
	DDL_CHANGE_COLUMNS,
	DDL_CHANGE_DEFAULT,
	DDL_CHANGE_NOT_NULL,
	DDL_CHANGE_COMPRESSION,
	DDL_CHANGE_ACCESS_METHOD,
	DDL_CHANGE_PERSISTENCE,
	DDL_INHERITANCE,
	DDL_ROW_SECURITY,
	DDL_ATTACH_DETACH,
	DDL_ADD_CONSTRAINT,
	DDL_CLUSTER,
	DDL_ENABLE_TRIGGER_RULE,
	DDL_ATTACH_LOG,
	DDL_CREATE_PARTITION,
	DDL_CREATE_TRIGGER,
	DDL_CREATE_RULE,
	DDL_DROP_PARTITION,
	DDL_RENAME_COLUMN,
} DdlRefusal;

/*
 * Refuse a statement on topic (or partition) relid: 0A000 with a hint.
 * Long on purpose: one ereport per refusal, so that each message is
 * written out whole, once, for translation.
 */
static void
refuse(Oid relid, DdlRefusal refusal)
{
	const char *name = get_rel_name(relid);

	switch (refusal)
	{
		case DDL_ALLOWED:
			elog(ERROR, "refusing an allowed statement on topic \"%s\"", name);
			break;
		case DDL_CHANGE_COLUMNS:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changing the columns is not supported on topic \"%s\"", name),
					 errhint("The columns of a topic are fixed; create a new topic for a different layout.")));
			break;
		case DDL_CHANGE_DEFAULT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changing a column default is not supported on topic \"%s\"", name),
					 errhint("Keys, values and headers are stored as each producer gives them, on every path; the log fills partition, offset and timestamp.")));
			break;
		case DDL_CHANGE_NOT_NULL:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changing NOT NULL is not supported on topic \"%s\"", name),
					 errhint("On every path a NULL key is a keyless record and a NULL value a tombstone; partition, offset and timestamp are never NULL.")));
			break;
		case DDL_CHANGE_COMPRESSION:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changing a column's compression is not supported on topic \"%s\"", name),
					 errhint("Every path compresses large keys, values and headers the same way, with default_toast_compression.")));
			break;
		case DDL_CHANGE_ACCESS_METHOD:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changing the access method is not supported on topic \"%s\"", name),
					 errhint("Copy the records into a new table with INSERT ... SELECT instead.")));
			break;
		case DDL_CHANGE_PERSISTENCE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changing persistence is not supported on topic \"%s\"", name),
					 errhint("Topics are always logged, so that acknowledged records survive a crash.")));
			break;
		case DDL_INHERITANCE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("inheritance is not supported on topic \"%s\"", name),
					 errhint("Topics cannot take part in table inheritance.")));
			break;
		case DDL_ROW_SECURITY:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("row-level security is not supported on topic \"%s\"", name),
					 errhint("Grant SELECT per topic or per partition instead.")));
			break;
		case DDL_ATTACH_DETACH:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("attaching or detaching partitions is not supported on topic \"%s\"", name),
					 errhint("Use topics.add_partitions() to add partitions.")));
			break;
		case DDL_ADD_CONSTRAINT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("adding constraints or indexes is not supported on topic \"%s\"", name),
					 errhint("The log checks what it needs; validate records before producing them.")));
			break;
		case DDL_CLUSTER:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("CLUSTER is not supported on topic \"%s\"", name),
					 errhint("Use plain VACUUM; a log is never rewritten, and retention returns disk space.")));
			break;
		case DDL_ENABLE_TRIGGER_RULE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("enabling or disabling a trigger or rule is not supported on topic \"%s\"", name),
					 errhint("Consume the topic with topics.poll() to react to records.")));
			break;
		case DDL_ATTACH_LOG:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("attaching a topic_log relation as a partition is not supported on topic \"%s\"", name),
					 errhint("Create topics with topics.create_topic(); pg_restore rebuilds them with PGOPTIONS='-c session_replication_role=replica'.")));
			break;
		case DDL_CREATE_PARTITION:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("creating partitions by hand is not supported on topic \"%s\"", name),
					 errhint("Use topics.add_partitions() to add partitions.")));
			break;
		case DDL_CREATE_TRIGGER:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("CREATE TRIGGER is not supported on topic \"%s\"", name),
					 errhint("Consume the topic with topics.poll() to react to records.")));
			break;
		case DDL_CREATE_RULE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("CREATE RULE is not supported on topic \"%s\"", name),
					 errhint("Use a view over the topic instead.")));
			break;
		case DDL_DROP_PARTITION:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dropping one partition is not supported on topic \"%s\"", name),
					 errhint("Drop the whole topic with topics.drop_topic().")));
			break;
		case DDL_RENAME_COLUMN:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("renaming columns is not supported on topic \"%s\"", name),
					 errhint("The column names of a topic are fixed; renaming the topic itself works.")));
			break;
	}
}

/*
 * pg_restore (and pg_upgrade) rebuild a topic the way pg_dump wrote it: the
 * parent, its topic_log partitions, then ATTACH PARTITION ... FOR VALUES
 * IN (n) for each.  That is allowed in preserve mode, or in a binary
 * upgrade, for an empty log with a topic's columns under a parent with the
 * same columns, partitioned by LIST (partition).  With its first partition
 * the parent depends on the extension again, as create_topic() makes it.
 * False outside restores: the caller refuses as usual.
 */
static bool
restore_attach_allowed(Oid parentid, PartitionCmd *pcmd)
{
	Oid			partid = RangeVarGetRelid(pcmd->name, NoLock, true);
	PartitionBoundSpec *bound = pcmd->bound;
	Relation	parent;
	Relation	part;
	PartitionKey key;
	Node	   *value;
	bool		first;

	if (SessionReplicationRole != SESSION_REPLICATION_ROLE_REPLICA &&
		!IsBinaryUpgrade)
		return false;
	if (!OidIsValid(partid) || get_rel_relkind(parentid) != RELKIND_PARTITIONED_TABLE)
		return false;

	parent = table_open(parentid, AccessShareLock);
	part = table_open(partid, AccessShareLock);
	topic_check_columns(parent);
	topic_check_columns(part);

	key = RelationGetPartitionKey(parent);
	value = (bound != NULL && bound->strategy == PARTITION_STRATEGY_LIST &&
			 !bound->is_default && list_length(bound->listdatums) == 1) ?
		linitial(bound->listdatums) : NULL;
	if (key->strategy != PARTITION_STRATEGY_LIST || key->partnatts != 1 ||
		key->partattrs[0] != Anum_topic_partition ||
		value == NULL || !IsA(value, A_Const) ||
		!IsA(&((A_Const *) value)->val, Integer) ||
		intVal(&((A_Const *) value)->val) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" cannot be restored as a partition of topic \"%s\"",
						RelationGetRelationName(part), RelationGetRelationName(parent)),
				 errdetail("A topic is partitioned by LIST (partition), one partition number each, FOR VALUES IN (n) with n >= 0.")));
	if (topic_router_blocks(part) > TOPIC_LOG_FIRST_DATA_BLKNO)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" cannot be restored as a partition of topic \"%s\"",
						RelationGetRelationName(part), RelationGetRelationName(parent)),
				 errdetail("Only a topic_log relation without records can be attached; restore the records after attaching it.")));
	/* what ALTER TABLE refuses on a topic cannot come in through a dump either */
	for (int attnum = Anum_topic_key; attnum <= Natts_topic; attnum++)
	{
		Form_pg_attribute patt = TupleDescAttr(RelationGetDescr(parent), attnum - 1);
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(part), attnum - 1);

		if (patt->attnotnull || patt->atthasdef || att->attnotnull || att->atthasdef)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("\"%s\" cannot be restored as a partition of topic \"%s\"",
							RelationGetRelationName(part), RelationGetRelationName(parent)),
					 errdetail("Column \"%s\" has a default or NOT NULL, which topics.produce() and COPY would not honour.",
							   NameStr(att->attname))));
	}

	first = RelationGetPartitionDesc(parent, true)->nparts == 0;
	table_close(part, AccessShareLock);
	table_close(parent, AccessShareLock);

	if (first)
		topic_record_extension_dependency(parentid);
	return true;
}

/* Check one (sub)query for statements a topic refuses */
static void
check_query(Query *query)
{
	ListCell   *lc;

	if (query->resultRelation > 0 &&
		(query->commandType == CMD_UPDATE ||
		 query->commandType == CMD_DELETE ||
		 query->commandType == CMD_MERGE ||
		 (query->commandType == CMD_INSERT && query->onConflict != NULL)))
	{
		Oid			relid = rt_fetch(query->resultRelation, query->rtable)->relid;

		if (topic_is_topic_relation(relid))
			topic_refuse_dml(relid, query->commandType);
	}

	foreach(lc, query->rowMarks)
	{
		RowMarkClause *rc = lfirst_node(RowMarkClause, lc);
		RangeTblEntry *rte = rt_fetch(rc->rti, query->rtable);

		if (rte->rtekind == RTE_RELATION && topic_is_topic_relation(rte->relid))
			topic_refuse_dml(rte->relid, CMD_SELECT);
	}
}

/* Visit every Query in a tree: subqueries, CTEs, sublinks */
static bool
check_query_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		check_query((Query *) node);
		topic_route_insert((Query *) node);
		return query_tree_walker((Query *) node, check_query_walker, context, 0);
	}
	return expression_tree_walker(node, check_query_walker, context);
}

static PlannedStmt *
topic_planner(Query *parse, const char *query_string, int cursorOptions,
			  ParamListInfo boundParams)
{
	check_query_walker((Node *) parse, NULL);

	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

/*
 * What ALTER TABLE subcommand subtype does to a topic or one of its
 * partitions: DDL_ALLOWED when the log honours it on every path (produce,
 * COPY, INSERT, fetch, retention, pg_dump), otherwise the refusal that
 * refuse() raises.  Every AlterTableType is listed and there is no default,
 * so that a subcommand a new PostgreSQL adds fails the build here (the
 * pragma turns -Wswitch into an error) until someone classifies it.
 * ATTACH and DETACH PARTITION are refused here; check_alter_table lets
 * pg_topics' own DDL and restores through.  Long on purpose: the switch
 * names every subcommand, one per line.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
static DdlRefusal
alter_table_refusal(AlterTableType subtype)
{
	switch (subtype)
	{
			/* the layout is fixed */
		case AT_AddColumn:
#if PG_VERSION_NUM < 160000
		case AT_AddColumnRecurse:
		case AT_DropColumnRecurse:
#endif
		case AT_AddColumnToView:
		case AT_DropColumn:
		case AT_AlterColumnType:
		case AT_AlterColumnGenericOptions:
		case AT_AddIdentity:
		case AT_SetIdentity:
		case AT_DropIdentity:
		case AT_DropExpression:
#if PG_VERSION_NUM >= 170000
		case AT_SetExpression:
#endif
		case AT_AddOf:
		case AT_DropOf:
		case AT_SetStorage:
			return DDL_CHANGE_COLUMNS;

			/*
			 * topics.produce(), produce_batch() and COPY write records
			 * without the executor's defaults and NOT NULL checks: what
			 * INSERT alone would honour is refused
			 */
		case AT_ColumnDefault:
			return DDL_CHANGE_DEFAULT;
		case AT_SetNotNull:
		case AT_DropNotNull:
#if PG_VERSION_NUM < 180000
		case AT_CheckNotNull:
#endif
			return DDL_CHANGE_NOT_NULL;
		case AT_SetCompression:
			return DDL_CHANGE_COMPRESSION;

		case AT_SetAccessMethod:
			return DDL_CHANGE_ACCESS_METHOD;

		case AT_SetLogged:
		case AT_SetUnLogged:
			return DDL_CHANGE_PERSISTENCE;

		case AT_AddInherit:
		case AT_DropInherit:
			return DDL_INHERITANCE;

		case AT_EnableRowSecurity:
		case AT_ForceRowSecurity:
			return DDL_ROW_SECURITY;

		case AT_AttachPartition:
		case AT_DetachPartition:
		case AT_DetachPartitionFinalize:
			return DDL_ATTACH_DETACH;

		case AT_AddConstraint:
#if PG_VERSION_NUM < 160000
		case AT_AddConstraintRecurse:
#endif
		case AT_ReAddConstraint:
		case AT_ReAddDomainConstraint:
		case AT_AddIndex:
		case AT_ReAddIndex:
		case AT_AddIndexConstraint:
			return DDL_ADD_CONSTRAINT;

		case AT_ClusterOn:
			return DDL_CLUSTER;

		case AT_EnableTrig:
		case AT_EnableAlwaysTrig:
		case AT_EnableReplicaTrig:
		case AT_DisableTrig:
		case AT_EnableRule:
		case AT_EnableAlwaysRule:
		case AT_EnableReplicaRule:
		case AT_DisableRule:
			return DDL_ENABLE_TRIGGER_RULE;

			/*
			 * Accepted: planner settings, ownership, tablespace (a
			 * partition's segments move with it), storage parameters,
			 * replica identity (UPDATE and DELETE are refused anyway), and
			 * what has nothing to act on in a topic (no constraints, no
			 * triggers, no clustered index, no OIDs, not foreign).
			 */
		case AT_SetStatistics:
		case AT_SetOptions:
		case AT_ResetOptions:
		case AT_ChangeOwner:
		case AT_SetTableSpace:
		case AT_SetRelOptions:
		case AT_ResetRelOptions:
		case AT_ReplaceRelOptions:
		case AT_ReplicaIdentity:
		case AT_DisableRowSecurity:
		case AT_NoForceRowSecurity:
		case AT_AlterConstraint:
		case AT_ValidateConstraint:
		case AT_DropConstraint:
#if PG_VERSION_NUM < 160000
		case AT_ValidateConstraintRecurse:
		case AT_DropConstraintRecurse:
#endif
		case AT_EnableTrigAll:
		case AT_DisableTrigAll:
		case AT_EnableTrigUser:
		case AT_DisableTrigUser:
		case AT_DropCluster:
		case AT_DropOids:
		case AT_GenericOptions:
		case AT_ReAddComment:
		case AT_ReAddStatistics:
			return DDL_ALLOWED;

			/*
			 * CREATE TABLE ... (LIKE ... INCLUDING DEFAULTS) gives its new
			 * relation the defaults it copied this way: not a change
			 */
		case AT_CookedColumnDefault:
			return DDL_ALLOWED;
	}
	elog(ERROR, "unrecognized ALTER TABLE subcommand %d", (int) subtype);
	return DDL_ALLOWED;			/* keep compiler quiet */
}
#pragma GCC diagnostic pop

/* Refuse ALTER TABLE subcommands that would change what a topic is */
static void
check_alter_table(AlterTableStmt *stmt)
{
	Oid			relid;
	ListCell   *lc;
	bool		is_topic;

	if (stmt->relation == NULL)
		return;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	/* pg_topics' own DDL (attaching partitions, moving segments) */
	if (!OidIsValid(relid) || topic_ddl_is_internal())
		return;
	topic_refuse_internal_relation(relid, "ALTER TABLE");
	is_topic = topic_is_topic_relation(relid);

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		DdlRefusal	refusal;

		if (!is_topic)
		{
			/* nothing may inherit from or take in a topic or an internal relation */
			if (cmd->subtype == AT_AddInherit)
			{
				Oid			parentid = RangeVarGetRelid((RangeVar *) cmd->def, NoLock, true);

				topic_refuse_internal_relation(parentid, "INHERIT");
				if (OidIsValid(parentid) && topic_is_topic_relation(parentid))
					refuse(parentid, DDL_INHERITANCE);
			}
			if (cmd->subtype == AT_AttachPartition)
				topic_refuse_internal_rangevar(((PartitionCmd *) cmd->def)->name,
											   "ATTACH PARTITION");
			/* a log belongs to its topic: no attaching it elsewhere */
			if (cmd->subtype == AT_AttachPartition)
			{
				PartitionCmd *pcmd = (PartitionCmd *) cmd->def;
				Oid			partid = RangeVarGetRelid(pcmd->name, NoLock, true);

				if (OidIsValid(partid) && topic_is_log_relation(partid) &&
					!restore_attach_allowed(relid, pcmd))
					refuse(partid, DDL_ATTACH_LOG);
			}
			/* nothing else may become a topic by rewriting */
			if (cmd->subtype == AT_SetAccessMethod && cmd->name != NULL &&
				strcmp(cmd->name, TOPIC_AM_NAME) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("a table cannot be converted to a topic"),
						 errhint("Create a topic and copy the rows into it with INSERT ... SELECT.")));
			continue;
		}

		refusal = alter_table_refusal(cmd->subtype);
		if (refusal == DDL_ALLOWED)
			continue;
		/* pg_restore rebuilding a topic */
		if (cmd->subtype == AT_AttachPartition &&
			restore_attach_allowed(relid, (PartitionCmd *) cmd->def))
			continue;
		refuse(relid, refusal);
	}
}

/*
 * Refuse making a table a partition or child of a topic or of an internal
 * relation (CREATE TABLE ... PARTITION OF, INHERITS)
 */
static void
check_create_parents(CreateStmt *stmt)
{
	ListCell   *lc;

	if (topic_ddl_is_internal())
		return;
	foreach(lc, stmt->inhRelations)
	{
		RangeVar   *rv = lfirst_node(RangeVar, lc);
		Oid			parentid = RangeVarGetRelid(rv, NoLock, true);

		if (!OidIsValid(parentid))
			continue;
		topic_refuse_internal_relation(parentid, stmt->partbound != NULL ?
									   "PARTITION OF" : "INHERITS");
		if (!topic_is_topic_relation(parentid))
			continue;
		if (stmt->partbound != NULL)
			refuse(parentid, DDL_CREATE_PARTITION);
		refuse(parentid, DDL_INHERITANCE);
	}
}

/*
 * Refuse publishing an internal relation, or a schema that holds them;
 * command is "CREATE PUBLICATION" or "ALTER PUBLICATION"
 */
static void
check_publication_objects(List *pubobjects, const char *command)
{
	ListCell   *lc;

	foreach(lc, pubobjects)
	{
		PublicationObjSpec *obj = lfirst_node(PublicationObjSpec, lc);

		if (obj->pubobjtype == PUBLICATIONOBJ_TABLE && obj->pubtable != NULL)
		{
			Oid			relid = RangeVarGetRelid(obj->pubtable->relation, NoLock, true);

			/*
			 * topics.consumer_offsets travels with the topics to carry group
			 * positions (replication.md); the rest stays local
			 */
			if (OidIsValid(relid) && topic_is_log_relation(relid) &&
				get_rel_namespace(relid) == topic_extension_schema())
				continue;
			topic_refuse_internal_relation(relid, command);
		}
		else if (obj->pubobjtype == PUBLICATIONOBJ_TABLES_IN_SCHEMA &&
				 obj->name != NULL && !topic_internal_ddl_exempt() &&
				 (strcmp(obj->name, TOPIC_SEGMENT_SCHEMA) == 0 ||
				  get_namespace_oid(obj->name, true) == topic_extension_schema()))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("schema \"%s\" holds internal relations of pg_topics and cannot be published",
							obj->name),
					 errhint("Publish topics with FOR TABLE; their records travel with their partitions.")));
	}
}

/*
 * Refuse SECURITY LABEL or COMMENT (what) on an internal relation or one
 * of its columns: pg_dump would carry it to a restore, where the relation
 * does not exist under that name
 */
static void
check_relation_annotation(ObjectType objtype, Node *object, const char *what)
{
	ObjectAddress address;
	Relation	rel = NULL;

	switch (objtype)
	{
		case OBJECT_TABLE:
		case OBJECT_COLUMN:
		case OBJECT_SEQUENCE:
		case OBJECT_VIEW:
		case OBJECT_MATVIEW:
		case OBJECT_FOREIGN_TABLE:
			break;
		default:
			return;
	}
	address = get_object_address(objtype, object, &rel, AccessShareLock, true);
	if (rel != NULL)
		relation_close(rel, NoLock);
	if (address.classId == RelationRelationId)
		topic_refuse_internal_relation(address.objectId, what);
}

/*
 * Refuse GRANT and REVOKE on an internal relation, or on all tables of the
 * segments' schema: privileges there would be a way around the topics'
 * own, and pg_dump would carry them to a restore that cannot apply them
 */
static void
check_grant(GrantStmt *stmt)
{
	const char *what = stmt->is_grant ? "GRANT" : "REVOKE";
	ListCell   *lc;

	if (topic_internal_ddl_exempt())
		return;
	if (stmt->targtype == ACL_TARGET_ALL_IN_SCHEMA)
	{
		foreach(lc, stmt->objects)
			if (strcmp(strVal(lfirst(lc)), TOPIC_SEGMENT_SCHEMA) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("schema \"%s\" holds the segments of topics' partitions, managed by pg_topics",
								TOPIC_SEGMENT_SCHEMA),
						 errdetail("%s on all its tables is not supported.", what),
						 errhint("Grant privileges on the topics; they decide who reads and writes the segments.")));
		return;
	}
	if (stmt->targtype != ACL_TARGET_OBJECT ||
		(stmt->objtype != OBJECT_TABLE && stmt->objtype != OBJECT_SEQUENCE))
		return;
	foreach(lc, stmt->objects)
		if (IsA(lfirst(lc), RangeVar))
			topic_refuse_internal_rangevar(lfirst_node(RangeVar, lc), what);
}

/*
 * Refuse CREATE TRIGGER, RULE or POLICY (command) on an internal relation,
 * and with refusal on a topic: what it would attach to the relation named
 * by rv never sees the records
 */
static void
check_attached_object(RangeVar *rv, const char *command, DdlRefusal refusal)
{
	Oid			relid = RangeVarGetRelid(rv, NoLock, true);

	topic_refuse_internal_relation(relid, command);
	if (OidIsValid(relid) && topic_is_topic_relation(relid))
		refuse(relid, refusal);
}

/*
 * Refuse CREATE TABLE (or CREATE FOREIGN TABLE, which begins with a
 * CreateStmt) under a topic or an internal relation, and a topic_log
 * partition made by hand
 */
static void
check_create_table(Node *parsetree)
{
	CreateStmt *stmt = (CreateStmt *) parsetree;
	const char *am = stmt->accessMethod ? stmt->accessMethod :
		default_table_access_method;

	check_create_parents(stmt);
	if (stmt->partbound != NULL && !topic_ddl_is_internal() &&
		IsA(parsetree, CreateStmt) && strcmp(am, TOPIC_AM_NAME) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a topic_log relation cannot be created as a partition"),
				 errhint("Create topics with topics.create_topic(), and grow them with topics.add_partitions().")));
}

/* A topic partition the running utility statement dropped */
typedef struct DroppedPartition
{
	Oid			topic;
	char		name[NAMEDATALEN];
} DroppedPartition;

static object_access_hook_type prev_object_access_hook = NULL;
static List *dropped_partitions = NIL;

/*
 * Note every topic partition that is dropped, whatever drops it: DROP
 * TABLE of the topic, but also DROP SCHEMA ... CASCADE of a schema the
 * partition was moved to, or DROP OWNED BY a role it was given to
 */
static void
ddl_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access == OAT_DROP && classId == RelationRelationId && subId == 0 &&
		get_rel_relispartition(objectId) && topic_is_log_relation(objectId))
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		DroppedPartition *dropped = palloc(sizeof(DroppedPartition));

		dropped->topic = get_partition_parent(objectId, true);
		strlcpy(dropped->name, get_rel_name(objectId), NAMEDATALEN);
		dropped_partitions = lappend(dropped_partitions, dropped);
		MemoryContextSwitchTo(old);
	}
}

/*
 * After a utility statement: refuse it if it dropped a partition of a topic
 * that is still there (a topic keeps every partition it was given)
 */
static void
check_dropped_partitions(List *dropped)
{
	ListCell   *lc;

	if (dropped == NIL)
		return;
	CommandCounterIncrement();
	foreach(lc, dropped)
	{
		DroppedPartition *partition = lfirst(lc);
		char	   *topic = get_rel_name(partition->topic);

		if (topic != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot drop partition \"%s\" of topic \"%s\" without the topic",
							partition->name, topic),
					 errdetail("The statement would drop the partition alone, with a schema it was moved to or as an object of a role it was given to, and a topic keeps all its partitions."),
					 errhint("Drop the whole topic with topics.drop_topic(), or give the partition back to the topic's schema or owner first.")));
	}
	list_free_deep(dropped);
}

/* Refuse DROP TABLE of one partition of a topic */
static void
check_drop(DropStmt *stmt)
{
	ListCell   *lc;

	if (stmt->removeType != OBJECT_TABLE)
		return;
	foreach(lc, stmt->objects)
	{
		RangeVar   *rv = makeRangeVarFromNameList(lfirst(lc));
		Oid			relid = RangeVarGetRelid(rv, NoLock, true);

		if (OidIsValid(relid) && get_rel_relispartition(relid) &&
			topic_is_log_relation(relid))
			refuse(relid, DDL_DROP_PARTITION);
	}
}

/*
 * Refuse renaming the schemas pg_topics finds its relations by, an internal
 * relation, or the columns of a topic
 */
static void
check_rename(RenameStmt *stmt)
{
	Oid			relid;

	if (stmt->renameType == OBJECT_SCHEMA && !topic_internal_ddl_exempt() &&
		(strcmp(stmt->subname, TOPIC_SEGMENT_SCHEMA) == 0 ||
		 get_namespace_oid(stmt->subname, true) == topic_extension_schema()))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("schema \"%s\" holds internal relations of pg_topics and cannot be renamed",
						stmt->subname)));
	if (stmt->relation == NULL)
		return;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	topic_refuse_internal_relation(relid, "RENAME");
	if (stmt->renameType == OBJECT_COLUMN &&
		OidIsValid(relid) && topic_is_topic_relation(relid))
		refuse(relid, DDL_RENAME_COLUMN);
}

/*
 * Refuse utility statements that would change what a topic is.  One case
 * per statement type, each a line or two or a call to its own check, so
 * that every statement the hook looks at is listed in one place: longer
 * than a screen on purpose.
 */
static void
check_utility(Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_AlterTableStmt:
			check_alter_table((AlterTableStmt *) parsetree);
			break;
		case T_TruncateStmt:
			{
				ListCell   *lc;

				foreach(lc, ((TruncateStmt *) parsetree)->relations)
					topic_refuse_internal_rangevar(lfirst_node(RangeVar, lc), "TRUNCATE");
				break;
			}
		case T_AlterObjectSchemaStmt:
			{
				AlterObjectSchemaStmt *stmt = (AlterObjectSchemaStmt *) parsetree;
				Oid			relid = stmt->relation ?
					RangeVarGetRelid(stmt->relation, NoLock, true) : InvalidOid;

				topic_refuse_internal_relation(relid, "SET SCHEMA");
				if (OidIsValid(relid) && topic_is_topic_relation(relid))
					topic_refuse_undumped_schema(get_namespace_oid(stmt->newschema,
																   true));
				break;
			}
		case T_CreateTableAsStmt:
			{
				IntoClause *into = ((CreateTableAsStmt *) parsetree)->into;
				const char *am = into->accessMethod ? into->accessMethod :
					default_table_access_method;

				if (strcmp(am, TOPIC_AM_NAME) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("a topic_log relation cannot be created with CREATE TABLE AS"),
							 errhint("Create the topic first, then INSERT ... SELECT into it.")));
				break;
			}
		case T_CreateStmt:
		case T_CreateForeignTableStmt:
			check_create_table(parsetree);
			break;
		case T_ViewStmt:
			if (((ViewStmt *) parsetree)->replace)
				topic_refuse_internal_rangevar(((ViewStmt *) parsetree)->view,
											   "CREATE OR REPLACE VIEW");
			break;
		case T_IndexStmt:
			topic_refuse_internal_rangevar(((IndexStmt *) parsetree)->relation, "CREATE INDEX");
			break;
		case T_ClusterStmt:
			topic_refuse_internal_rangevar(((ClusterStmt *) parsetree)->relation, "CLUSTER");
			break;
		case T_CreateStatsStmt:
			{
				ListCell   *lc;

				foreach(lc, ((CreateStatsStmt *) parsetree)->relations)
					if (IsA(lfirst(lc), RangeVar))
						topic_refuse_internal_rangevar(lfirst_node(RangeVar, lc),
													   "CREATE STATISTICS");
				break;
			}
		case T_CreateTrigStmt:
			check_attached_object(((CreateTrigStmt *) parsetree)->relation,
								  "CREATE TRIGGER", DDL_CREATE_TRIGGER);
			break;
		case T_RuleStmt:
			check_attached_object(((RuleStmt *) parsetree)->relation,
								  "CREATE RULE", DDL_CREATE_RULE);
			break;
		case T_CreatePolicyStmt:
			check_attached_object(((CreatePolicyStmt *) parsetree)->table,
								  "CREATE POLICY", DDL_ROW_SECURITY);
			break;
		case T_SecLabelStmt:
			check_relation_annotation(((SecLabelStmt *) parsetree)->objtype,
									  ((SecLabelStmt *) parsetree)->object,
									  "SECURITY LABEL");
			break;
		case T_CommentStmt:
			check_relation_annotation(((CommentStmt *) parsetree)->objtype,
									  ((CommentStmt *) parsetree)->object,
									  "COMMENT");
			break;
		case T_GrantStmt:
			check_grant((GrantStmt *) parsetree);
			break;
		case T_CreatePublicationStmt:
			check_publication_objects(((CreatePublicationStmt *) parsetree)->pubobjects,
									  "CREATE PUBLICATION");
			break;
		case T_AlterPublicationStmt:
			if (((AlterPublicationStmt *) parsetree)->action != AP_DropObjects)
				check_publication_objects(((AlterPublicationStmt *) parsetree)->pubobjects,
										  "ALTER PUBLICATION");
			break;
		case T_AlterExtensionContentsStmt:
			{
				AlterExtensionContentsStmt *stmt = (AlterExtensionContentsStmt *) parsetree;

				/* pg_dump --binary-upgrade rebuilds the membership this way */
				if (strcmp(stmt->extname, "pg_topics") == 0 && !topic_internal_ddl_exempt())
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("the members of extension \"pg_topics\" cannot be changed by hand"),
							 errhint("pg_topics adds and removes its internal relations itself.")));
				break;
			}
		case T_DropStmt:
			check_drop((DropStmt *) parsetree);
			break;
		case T_RenameStmt:
			check_rename((RenameStmt *) parsetree);
			break;
		default:
			break;
	}
}

/*
 * The partition log whose tablespace an ALTER TABLE ... SET TABLESPACE is
 * about to change, or InvalidOid.
 */
static Oid
log_changing_tablespace(Node *parsetree)
{
	AlterTableStmt *stmt;
	ListCell   *lc;
	Oid			relid;

	if (!IsA(parsetree, AlterTableStmt))
		return InvalidOid;
	stmt = (AlterTableStmt *) parsetree;
	if (stmt->relation == NULL)
		return InvalidOid;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype != AT_SetTableSpace)
			continue;
		relid = RangeVarGetRelid(stmt->relation, NoLock, true);
		if (OidIsValid(relid) && topic_is_log_relation(relid) &&
			get_rel_namespace(relid) != get_namespace_oid(TOPIC_SEGMENT_SCHEMA, true))
			return relid;
	}
	return InvalidOid;
}

/* Move the segments of log relid to its (new) tablespace, as internal DDL */
static void
move_segments(void *arg)
{
	Oid			relid = *(Oid *) arg;
	Relation	router = relation_open(relid, AccessShareLock);
	TopicSegmentDir *dir = topic_segdir_read(router);
	Oid			spcid = router->rd_rel->reltablespace;
	const char *spcname = get_tablespace_name(OidIsValid(spcid) ? spcid : MyDatabaseTableSpace);

	for (int i = 0; i < dir->nentries; i++)
	{
		Relation	seg = topic_segment_open(relid, &dir->entries[i], AccessShareLock);
		char	   *sql;

		if (seg == NULL)
			continue;
		/* already there: no need to lock it exclusively */
		if (seg->rd_rel->reltablespace == spcid)
		{
			relation_close(seg, AccessShareLock);
			continue;
		}
		sql = psprintf("ALTER TABLE " TOPIC_SEGMENT_SCHEMA ".%s SET TABLESPACE %s",
					   quote_identifier(RelationGetRelationName(seg)),
					   quote_identifier(spcname));
		relation_close(seg, AccessShareLock);
		/* segments belong to the bootstrap superuser; the caller could move the partition */
		topic_internal_sql_ddl(sql, true);
	}
	pfree(dir);
	relation_close(router, AccessShareLock);
}

/*
 * After ALTER TABLE ALL IN TABLESPACE ... SET TABLESPACE: the partitions it
 * moved are in the new tablespace, their segments (owned by the bootstrap
 * superuser) perhaps not.  Move the segments of every partition log there
 * (move_segments leaves alone those already in place).
 */
static void
move_all_segments(AlterTableMoveAllStmt *stmt)
{
	Oid			spcid = get_tablespace_oid(stmt->new_tablespacename, false);
	Oid			amoid = topic_log_am_oid();
	Oid			segnsp = get_namespace_oid(TOPIC_SEGMENT_SCHEMA, true);
	List	   *logs = NIL;
	Relation	classRel;
	TableScanDesc scan;
	HeapTuple	tuple;
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TABLE || !OidIsValid(amoid))
		return;
	if (spcid == MyDatabaseTableSpace)
		spcid = InvalidOid;
	CommandCounterIncrement();
	classRel = table_open(RelationRelationId, AccessShareLock);
	scan = table_beginscan_catalog(classRel, 0, NULL);
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

		if (form->relam == amoid && form->reltablespace == spcid &&
			form->relnamespace != segnsp)
			logs = lappend_oid(logs, form->oid);
	}
	table_endscan(scan);
	table_close(classRel, AccessShareLock);

	foreach(lc, logs)
	{
		Oid			relid = lfirst_oid(lc);

		topic_ddl_run_internal(move_segments, &relid);
	}
	list_free(logs);
}

/* A topic that a statement is about to rename or move, and its name before */
typedef struct RenamedTopic
{
	Oid			relid;
	char	   *old_name;		/* schema-qualified, quoted: as positions' keys */
} RenamedTopic;

/* Is a RENAME or SET SCHEMA of this object type one of a relation itself? */
static bool
is_relation_object(ObjectType type)
{
	/*
	 * PostgreSQL renames a table by ALTER INDEX ... RENAME too (and checks
	 * the others against the relation's kind itself): whatever the form,
	 * the relation is renamed.
	 */
	return type == OBJECT_TABLE || type == OBJECT_INDEX ||
		type == OBJECT_SEQUENCE || type == OBJECT_VIEW ||
		type == OBJECT_MATVIEW || type == OBJECT_FOREIGN_TABLE;
}

/* Add topic relid, named as it is now, to the list of renamed topics */
static List *
add_renamed_topic(List *renamed, Oid relid)
{
	RenamedTopic *r = palloc(sizeof(RenamedTopic));
	char	   *nspname = get_namespace_name(get_rel_namespace(relid));
	char	   *relname = get_rel_name(relid);

	if (nspname == NULL || relname == NULL)
		return renamed;			/* dropped concurrently: nothing to follow */
	r->relid = relid;
	r->old_name = quote_qualified_identifier(nspname, relname);
	return lappend(renamed, r);
}

/*
 * The topics a RENAME or SET SCHEMA is about to rename or move, with their
 * names before: the relation of ALTER TABLE (or INDEX, ...) ... RENAME TO
 * or SET SCHEMA if it is a topic, every topic of the schema of ALTER
 * SCHEMA ... RENAME TO.  Group positions are recorded by name
 * (topic_groups_topic_renamed).
 */
static List *
topics_being_renamed(Node *parsetree)
{
	RangeVar   *rv = NULL;
	Oid			relid;

	if (IsA(parsetree, RenameStmt) &&
		is_relation_object(((RenameStmt *) parsetree)->renameType))
		rv = ((RenameStmt *) parsetree)->relation;
	else if (IsA(parsetree, AlterObjectSchemaStmt) &&
			 is_relation_object(((AlterObjectSchemaStmt *) parsetree)->objectType))
		rv = ((AlterObjectSchemaStmt *) parsetree)->relation;
	else if (IsA(parsetree, RenameStmt) &&
			 ((RenameStmt *) parsetree)->renameType == OBJECT_SCHEMA)
	{
		Oid			nspid = get_namespace_oid(((RenameStmt *) parsetree)->subname,
											  true);
		List	   *topics;
		List	   *renamed = NIL;
		ListCell   *lc;

		if (!OidIsValid(nspid))
			return NIL;
		topics = topic_list_topics();
		foreach(lc, topics)
			if (get_rel_namespace(lfirst_oid(lc)) == nspid)
				renamed = add_renamed_topic(renamed, lfirst_oid(lc));
		list_free(topics);
		return renamed;
	}
	if (rv == NULL)
		return NIL;
	relid = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(relid) || !topic_is_topic_parent_oid(relid))
		return NIL;
	return add_renamed_topic(NIL, relid);
}

/*
 * After a RENAME or SET SCHEMA: record the group positions of the topics
 * it renamed or moved under their new names, and tombstone the old ones
 */
static void
follow_renamed_topics(List *renamed)
{
	ListCell   *lc;

	CommandCounterIncrement();
	foreach(lc, renamed)
	{
		RenamedTopic *r = lfirst(lc);

		/*
		 * Keep polls of the topic out until this transaction ends, as ALTER
		 * TABLE's own lock does (ALTER SCHEMA ... RENAME locks no table): a
		 * position a poll committed under the old name after these records
		 * would be lost with the new name, and taken by a topic created
		 * later under the old one.  The statement has checked the caller's
		 * right to rename.
		 */
		LockRelationOid(r->relid, AccessExclusiveLock);
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(r->relid)))
			continue;
		topic_groups_topic_renamed(r->relid, r->old_name);
	}
}

static void
topic_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					 bool readOnlyTree, ProcessUtilityContext context,
					 ParamListInfo params, QueryEnvironment *queryEnv,
					 DestReceiver *dest, QueryCompletion *qc)
{
	List	   *renamed;
	Oid			moving;
	TopicSegmentDdlState segments;
	List	   *outer_touched;
	List	   *outer_dropped = dropped_partitions;
	List	   *my_dropped;

	/* run inside an INSERT (by a function it calls): it sees the rows so far */
	topic_buffer_flush();
	check_utility(pstmt->utilityStmt);
	if (IsA(pstmt->utilityStmt, CopyStmt) &&
		topic_copy_from((CopyStmt *) pstmt->utilityStmt, queryString, qc))
		return;
	renamed = topics_being_renamed(pstmt->utilityStmt);
	moving = log_changing_tablespace(pstmt->utilityStmt);

	topic_segment_ddl_begin(&segments);
	topic_internal_deps_begin(&outer_touched);
	dropped_partitions = NIL;
	PG_TRY();
	{
		if (prev_ProcessUtility)
			prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_CATCH();
	{
		dropped_partitions = outer_dropped;
		topic_segment_ddl_abort(&segments);
		topic_internal_deps_abort(&outer_touched);
		PG_RE_THROW();
	}
	PG_END_TRY();
	my_dropped = dropped_partitions;
	dropped_partitions = outer_dropped;
	/*
	 * Before segments are dropped: nothing of the user's may depend on
	 * them.  A refusal forgets this statement's segment notes, as a failure
	 * of the statement itself does, or a savepoint that catches it would
	 * leave them to the commit.
	 */
	PG_TRY();
	{
		check_dropped_partitions(my_dropped);
		topic_internal_deps_end(&outer_touched);
	}
	PG_CATCH();
	{
		topic_segment_ddl_abort(&segments);
		PG_RE_THROW();
	}
	PG_END_TRY();
	topic_segment_ddl_end(&segments);

	/* a partition's records move with it */
	if (OidIsValid(moving))
	{
		CommandCounterIncrement();
		topic_ddl_run_internal(move_segments, &moving);
	}
	if (IsA(pstmt->utilityStmt, AlterTableMoveAllStmt))
		move_all_segments((AlterTableMoveAllStmt *) pstmt->utilityStmt);

	/* group positions are recorded by name: record them again */
	if (renamed != NIL)
		follow_renamed_topics(renamed);
}

void
topic_ddl_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = topic_planner;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = topic_ProcessUtility;
	prev_object_access_hook = object_access_hook;
	object_access_hook = ddl_object_access;
	topic_segment_ddl_init();
	topic_internal_rels_init();
}
