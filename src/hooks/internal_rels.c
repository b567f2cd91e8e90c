/*-------------------------------------------------------------------------
 *
 * internal_rels.c
 *	  The extension's internal relations: what they are, and keeping users'
 *	  DDL and users' objects off them.
 *
 * pg_topics creates, changes and drops its internal relations on its own:
 * the segments in schema topics_segments (retention, TRUNCATE and
 * drop_topic() drop them), and the tables of schema topics with their
 * indexes, TOAST tables and sequences.  Two things would break that:
 *
 * - DDL on them (ALTER TABLE, RENAME, SET SCHEMA, CREATE INDEX / TRIGGER /
 *	 RULE / POLICY / STATISTICS on them, inheriting from them, publishing
 *	 them, ...).  ddl.c asks topic_refuse_internal_relation() for each
 *	 relation a utility statement names.
 *
 * - An object outside the extension that depends on one of them: a view,
 *	 a column default 'topics_segments.seg_1_0'::regclass, extended
 *	 statistics, a child table, a column of a segment's row type.  Dropping
 *	 the internal relation then fails with 2BP01 in someone else's
 *	 retention or drop_topic().  Any role can make such a dependency (a
 *	 view or a regclass constant needs no privilege on what it names), and
 *	 there are too many statements that can to list them.  So the check
 *	 looks at what was recorded instead: the object-access hook notes every
 *	 object a utility statement creates or alters, and when the statement
 *	 ends, the pg_depend rows of those objects are read; one that refers to
 *	 an internal relation (or its row type, or schema topics_segments)
 *	 fails the statement, which rolls the dependency back with it.
 *
 * pg_topics' own DDL (topic_ddl_run_internal), its extension scripts and
 * binary upgrades (which recreate the internal relations as they were) are
 * exempt.  Publishing topics.consumer_offsets is allowed (group positions
 * travel with the topics, replication.md); a publication never blocks a
 * drop.
 *
 * Refusing was chosen over dropping such dependents along with a segment:
 * the user learns at once, in the statement that would have made the
 * dependency, and nothing of theirs vanishes later in another role's
 * retention.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_publication_rel.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/hooks/internal_rels.h"
#include "pg_topics/segments/segment.h"

static object_access_hook_type prev_object_access_hook = NULL;

/* ObjectAddress * of what the running utility statement created or altered */
static List *touched = NIL;

/*
 * Is this DDL pg_topics' own: its C code, its extension script (not another
 * extension's), or a binary upgrade recreating what it had made?
 */
bool
topic_internal_ddl_exempt(void)
{
	return topic_ddl_is_internal() || IsBinaryUpgrade ||
		(creating_extension &&
		 CurrentExtensionObject == get_extension_oid("pg_topics", true));
}

/*
 * The relation relid belongs to: the table of an index or TOAST table, the
 * table owning a sequence; relid itself otherwise.
 */
static Oid
owning_relation(Oid relid)
{
	char		relkind = get_rel_relkind(relid);
	Oid			owner = relid;

	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
	{
		HeapTuple	tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(relid));

		if (HeapTupleIsValid(tuple))
		{
			owner = ((Form_pg_index) GETSTRUCT(tuple))->indrelid;
			ReleaseSysCache(tuple);
		}
	}
	else if (relkind == RELKIND_TOASTVALUE)
	{
		/*
		 * No catalog entry points back from a TOAST table; it is named
		 * after its table (rewrites keep the name in step with the table)
		 */
		const char *name = get_rel_name(relid);
		Oid			table;

		if (name != NULL && sscanf(name, "pg_toast_%u", &table) == 1 &&
			get_rel_relkind(table) != '\0')
		{
			HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(table));

			if (HeapTupleIsValid(tuple))
			{
				if (((Form_pg_class) GETSTRUCT(tuple))->reltoastrelid == relid)
					owner = table;
				ReleaseSysCache(tuple);
			}
		}
	}
	else if (relkind == RELKIND_SEQUENCE)
	{
		/* an owned sequence depends automatically, an identity one internally */
		Relation	depRel = table_open(DependRelationId, AccessShareLock);
		ScanKeyData key[2];
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key[0], Anum_pg_depend_classid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(RelationRelationId));
		ScanKeyInit(&key[1], Anum_pg_depend_objid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(relid));
		scan = systable_beginscan(depRel, DependDependerIndexId, true,
								  NULL, 2, key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tup);

			if (dep->refclassid == RelationRelationId &&
				(dep->deptype == DEPENDENCY_INTERNAL ||
				 dep->deptype == DEPENDENCY_AUTO))
			{
				owner = dep->refobjid;
				break;
			}
		}
		systable_endscan(scan);
		table_close(depRel, AccessShareLock);
	}
	return owner;
}

/*
 * Is relid one of pg_topics' internal relations, or an index, TOAST table
 * or sequence of one?  Views count only when with_views: the views of
 * schema topics are the extension's interface, which users may build on.
 */
static bool
is_internal_relation(Oid relid, bool with_views)
{
	Oid			owner = owning_relation(relid);
	Oid			nspid = get_rel_namespace(owner);
	Oid			extoid;

	if (!OidIsValid(nspid))
		return false;
	if (nspid == get_namespace_oid(TOPIC_SEGMENT_SCHEMA, true))
		return true;
	if (!with_views && get_rel_relkind(owner) == RELKIND_VIEW)
		return false;
	extoid = get_extension_oid("pg_topics", true);
	return OidIsValid(extoid) &&
		getExtensionOfObject(RelationRelationId, owner) == extoid;
}

/* The schema of extension pg_topics (topics, unless installed elsewhere) */
Oid
topic_extension_schema(void)
{
	Oid			extoid = get_extension_oid("pg_topics", true);
	Oid			nspid = InvalidOid;
	Relation	extRel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(extoid))
		return InvalidOid;
	extRel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(extoid));
	scan = systable_beginscan(extRel, ExtensionOidIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		nspid = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(extRel, AccessShareLock);
	return nspid;
}

/* Is relid one of pg_topics' internal relations (a segment, an internal log)? */
static bool
topic_is_internal_relation(Oid relid)
{
	return is_internal_relation(relid, true);
}

/*
 * Refuse DDL a user aims at internal relation relid; what names the
 * statement or clause, as the subject of a sentence ("TRUNCATE")
 */
void
topic_refuse_internal_relation(Oid relid, const char *what)
{
	if (!OidIsValid(relid) || topic_internal_ddl_exempt() ||
		!topic_is_internal_relation(relid))
		return;

	if (get_rel_namespace(owning_relation(relid)) ==
		get_namespace_oid(TOPIC_SEGMENT_SCHEMA, true))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is a segment of a topic's partition, managed by pg_topics",
						get_rel_name(relid)),
				 errdetail("%s is not supported on segments.", what),
				 errhint("Work on the topic or its partitions instead; retention and topics.delete_records() drop segments.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("\"%s\" is an internal relation of pg_topics",
					get_rel_name(relid)),
			 errdetail("%s is not supported on the extension's internal relations.", what),
			 errhint("The extension creates and changes its internal relations itself; use its functions and views instead.")));
}

/* The same for a relation named by rv (nothing if there is none) */
void
topic_refuse_internal_rangevar(RangeVar *rv, const char *what)
{
	if (rv != NULL)
		topic_refuse_internal_relation(RangeVarGetRelid(rv, NoLock, true), what);
}

/*
 * Is the object refclassid/refobjid one that nothing outside pg_topics may
 * depend on: an internal relation, its row type (or that type's array
 * type), or schema topics_segments?  Returns the relation (or InvalidOid
 * for the schema) in *relid.
 */
static bool
is_internal_referent(Oid refclassid, Oid refobjid, Oid *relid)
{
	*relid = InvalidOid;
	if (refclassid == RelationRelationId)
	{
		*relid = refobjid;
		return is_internal_relation(refobjid, false);
	}
	if (refclassid == TypeRelationId)
	{
		Oid			typrelid = get_typ_typrelid(refobjid);

		if (!OidIsValid(typrelid) && OidIsValid(get_element_type(refobjid)))
			typrelid = get_typ_typrelid(get_element_type(refobjid));
		*relid = typrelid;
		return OidIsValid(typrelid) && is_internal_relation(typrelid, false);
	}
	if (refclassid == NamespaceRelationId)
		return refobjid == get_namespace_oid(TOPIC_SEGMENT_SCHEMA, true);
	return false;
}

static void check_dependencies(const ObjectAddress *addr);

/* Check the column defaults (and generation expressions) of table relid */
static void
check_column_defaults(Oid relid)
{
	Relation	adRel = table_open(AttrDefaultRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	ScanKeyInit(&key, Anum_pg_attrdef_adrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(adRel, AttrDefaultIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		ObjectAddress def;

		ObjectAddressSet(def, AttrDefaultRelationId,
						 ((Form_pg_attrdef) GETSTRUCT(tup))->oid);
		check_dependencies(&def);
	}
	systable_endscan(scan);
	table_close(adRel, AccessShareLock);
}

/* Fail if object addr (not pg_topics' own) depends on an internal relation */
static void
check_dependencies(const ObjectAddress *addr)
{
	Relation	depRel;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			extoid = get_extension_oid("pg_topics", true);

	if (!OidIsValid(extoid))
		return;
	/* the extension's own objects, and the indexes and TOAST tables of its relations */
	if (getExtensionOfObject(addr->classId, addr->objectId) == extoid)
		return;
	/* which relations may be published is decided by ddl.c; none is ever blocked */
	if (addr->classId == PublicationRelRelationId)
		return;
	if (addr->classId == RelationRelationId)
	{
		char		relkind = get_rel_relkind(addr->objectId);

		if ((relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX ||
			 relkind == RELKIND_TOASTVALUE) &&
			is_internal_relation(addr->objectId, true))
			return;
	}

	depRel = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_classid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(addr->classId));
	ScanKeyInit(&key[1], Anum_pg_depend_objid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(addr->objectId));
	scan = systable_beginscan(depRel, DependDependerIndexId, true,
							  NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tup);
		Oid			relid;

		/*
		 * Belonging to an extension is no use of it; and the parts of a
		 * relation (its row type, TOAST table) depend on it internally and
		 * are checked as that relation
		 */
		if (dep->deptype == DEPENDENCY_EXTENSION ||
			dep->deptype == DEPENDENCY_AUTO_EXTENSION ||
			dep->deptype == DEPENDENCY_INTERNAL)
			continue;
		if (!is_internal_referent(dep->refclassid, dep->refobjid, &relid))
			continue;
		if (OidIsValid(relid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s cannot depend on \"%s\", an internal relation of pg_topics",
							getObjectDescription(addr, false), get_rel_name(relid)),
					 errdetail("pg_topics drops and replaces its internal relations on its own (retention, TRUNCATE, drop_topic()), which a dependent object would block."),
					 errhint("Refer to the topic, its partitions or the views of schema topics instead.")));
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot be placed in schema \"%s\"",
						getObjectDescription(addr, false), TOPIC_SEGMENT_SCHEMA),
				 errdetail("Schema \"%s\" holds the segments pg_topics manages.", TOPIC_SEGMENT_SCHEMA),
				 errhint("Create it in another schema.")));
	}
	systable_endscan(scan);
	table_close(depRel, AccessShareLock);

	if (addr->classId == RelationRelationId)
		check_column_defaults(addr->objectId);
}

static void
internal_rels_object_access(ObjectAccessType access, Oid classId, Oid objectId,
							int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	if ((access == OAT_POST_CREATE || access == OAT_POST_ALTER) &&
		!topic_internal_ddl_exempt())
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		ObjectAddress *addr = palloc(sizeof(ObjectAddress));

		/*
		 * A new inheritance is reported against pg_inherits, a column
		 * default against pg_attrdef, each with the table's OID: the table
		 * is checked, with its defaults
		 */
		addr->classId = (classId == InheritsRelationId ||
						 classId == AttrDefaultRelationId) ? RelationRelationId : classId;
		addr->objectId = objectId;
		addr->objectSubId = 0;
		touched = lappend(touched, addr);
		MemoryContextSwitchTo(old);
	}
}

/* Start a utility statement: set the notes of outer ones aside */
void
topic_internal_deps_begin(List **saved)
{
	*saved = touched;
	touched = NIL;
}

/* Abandon a failed statement's notes and bring the outer ones back */
void
topic_internal_deps_abort(List **saved)
{
	touched = *saved;
}

/* Check the objects of list mine, and forget them */
static void
check_touched(List *mine)
{
	ListCell   *lc;

	if (mine == NIL)
		return;
	CommandCounterIncrement();
	foreach(lc, mine)
	{
		/* one dropped again within the statement has no pg_depend rows */
		check_dependencies((ObjectAddress *) lfirst(lc));
	}
	list_free_deep(mine);
}

/* The statement is done: check what it created or altered */
void
topic_internal_deps_end(List **saved)
{
	List	   *mine = touched;

	touched = *saved;
	check_touched(mine);
}

/*
 * A backstop for objects made outside ProcessUtility: check them before
 * commit; forget them at abort.
 */
static void
internal_rels_xact_callback(XactEvent event, void *arg)
{
	List	   *mine = touched;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			touched = NIL;
			check_touched(mine);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			touched = NIL;
			list_free_deep(mine);
			break;
		default:
			break;
	}
}

void
topic_internal_rels_init(void)
{
	prev_object_access_hook = object_access_hook;
	object_access_hook = internal_rels_object_access;
	RegisterXactCallback(internal_rels_xact_callback, NULL);
}
