/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  What a topic is, found from PostgreSQL's own catalogs.
 *
 * A topic is a table partitioned by LIST (partition) whose partitions are
 * topic_log relations, one per Kafka partition, plus a row of settings in
 * topics.topic_config (retention).  The hot paths (produce, fetch, INSERT
 * routing) need only the first part, which the relcache already holds:
 * the parent's partition descriptor maps partition numbers to partitions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "pg_topics/base/catalog.h"

/* The columns every topic relation has, in order */
static const struct
{
	const char *name;
	Oid			types[3];
}			topic_columns[Natts_topic] =
{
	{"partition", {INT4OID}},
	{"offset", {INT8OID}},
	{"timestamp", {TIMESTAMPTZOID}},
	{"key", {BYTEAOID, TEXTOID, JSONBOID}},
	{"value", {BYTEAOID, TEXTOID, JSONBOID}},
	{"headers", {JSONBOID}},
};

/* Is rel (open) a topic's parent table? */
bool
topic_is_topic_parent(Relation rel)
{
	PartitionDesc partdesc;

	if (rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		return false;
	if (RelationGetDescr(rel)->natts != Natts_topic ||
		strcmp(NameStr(TupleDescAttr(RelationGetDescr(rel), 0)->attname), "partition") != 0)
		return false;
	partdesc = RelationGetPartitionDesc(rel, true);
	return partdesc->nparts > 0 &&
		topic_is_log_relation(partdesc->oids[0]);
}

/* Is relid a topic's parent table? */
bool
topic_is_topic_parent_oid(Oid relid)
{
	Relation	rel;
	bool		result;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return false;
	rel = relation_open(relid, AccessShareLock);
	result = topic_is_topic_parent(rel);
	relation_close(rel, AccessShareLock);
	return result;
}

/* Refuse rel unless it is a topic */
static void
require_topic(Relation rel)
{
	if (!topic_is_topic_parent(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a topic", RelationGetRelationName(rel)),
				 rel->rd_rel->relispartition ?
				 errhint("Name the topic, not one of its partitions.") :
				 errhint("Create topics with topics.create_topic().")));
}

/*
 * Open the topic named by a text argument (parsed like a relation name:
 * 'Orders' is orders) with lockmode, checking privilege mode on it.
 */
Relation
topic_open_by_name(text *name, LOCKMODE lockmode, AclMode privilege)
{
	RangeVar   *rv = makeRangeVarFromNameList(textToQualifiedNameList(name));

	return topic_open(RangeVarGetRelid(rv, lockmode, false), NoLock, privilege);
}

/* Open a topic by OID, as topic_open_by_name; NULL if it was dropped */
Relation
topic_try_open(Oid relid, LOCKMODE lockmode, AclMode privilege)
{
	Relation	rel = try_relation_open(relid, lockmode);

	if (rel == NULL)
		return NULL;
	relation_close(rel, NoLock);
	return topic_open(relid, NoLock, privilege);
}

/*
 * Open a topic by OID, as topic_open_by_name.  The OID comes from the user
 * (a regclass or oid argument), so one that names no relation is a user's
 * error (42P01), not relation_open's internal one.
 */
Relation
topic_open(Oid relid, LOCKMODE lockmode, AclMode privilege)
{
	Relation	rel = try_relation_open(relid, lockmode);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	require_topic(rel);
	if (privilege != TOPIC_NO_ACL_CHECK)
	{
		AclResult	aclresult = pg_class_aclcheck(relid, GetUserId(), privilege);

		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_TABLE, RelationGetRelationName(rel));
	}
	return rel;
}

/*
 * May the current user see what topic relid holds without reading it:
 * offsets, sizes, the transaction holding it back, its consumer groups and
 * their members?  Whoever may SELECT it may; so may superusers and members
 * of pg_monitor, who watch every topic (and still cannot read its records).
 * A topic dropped meanwhile is seen by nobody.
 */
bool
topic_may_describe(Oid relid)
{
	Oid			userid = GetUserId();
	bool		missing = false;

	if (has_privs_of_role(userid, ROLE_PG_MONITOR))
		return true;
	return pg_class_aclcheck_ext(relid, userid, ACL_SELECT, &missing) == ACLCHECK_OK &&
		!missing;
}

/* Refuse (42501) a caller who may not see open topic's metadata */
void
topic_check_describe(Relation topic)
{
	if (!topic_may_describe(RelationGetRelid(topic)))
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE,
					   RelationGetRelationName(topic));
}

/* Number of partitions of an open topic */
int32
topic_partition_count(Relation topic)
{
	return RelationGetPartitionDesc(topic, true)->nparts;
}

/*
 * The relation holding partition number partition of an open topic, or
 * InvalidOid when there is none.
 */
Oid
topic_partition_relid(Relation topic, int32 partition)
{
	PartitionDesc partdesc = RelationGetPartitionDesc(topic, true);
	PartitionBoundInfo bounds = partdesc->boundinfo;
	int			i;

	if (bounds == NULL)
		return InvalidOid;
	/* LIST bounds are sorted: binary search the single-value datums */
	{
		int			lo = 0;
		int			hi = bounds->ndatums - 1;

		while (lo <= hi)
		{
			int			mid = lo + (hi - lo) / 2;
			int32		value = DatumGetInt32(bounds->datums[mid][0]);

			if (value == partition)
			{
				i = bounds->indexes[mid];
				return i >= 0 ? partdesc->oids[i] : InvalidOid;
			}
			if (value < partition)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
	}
	return InvalidOid;
}

/* Refuse a partition number the topic does not have (22023) */
void
topic_check_partition(Relation topic, int32 partition)
{
	int32		nparts = topic_partition_count(topic);

	if (partition < 0 || partition >= nparts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition %d of topic \"%s\" does not exist",
						partition, RelationGetRelationName(topic)),
				 errdetail("The topic has partitions 0 to %d.", nparts - 1)));
}

/* Type of the key (Anum_topic_key) or value column of an open topic */
Oid
topic_column_type(Relation topic, int attnum)
{
	return TupleDescAttr(RelationGetDescr(topic), attnum - 1)->atttypid;
}

/*
 * Have every session plan again the statements that call topics.fetch or
 * topics.poll.  They name a topic by its row type (NULL::orders), which
 * PostgreSQL's plan cache does not track: after the topic is dropped, a
 * saved plan (a prepared statement, PL/pgSQL) would still carry the old
 * type's OID.  It does track the functions a plan calls, so an
 * invalidation of their pg_proc rows, sent when the dropping transaction
 * commits, makes those plans parse their statement again and find the
 * topic by name.
 */
void
topic_invalidate_read_plans(void)
{
	static const char *const readers[] = {"fetch", "poll"};
	Relation	pg_proc = table_open(ProcedureRelationId, AccessShareLock);
	Oid			nspid = get_namespace_oid("topics", false);

	for (int i = 0; i < lengthof(readers); i++)
	{
		CatCList   *list = SearchSysCacheList1(PROCNAMEARGSNSP,
											   CStringGetDatum(readers[i]));

		for (int j = 0; j < list->n_members; j++)
		{
			HeapTuple	tuple = &list->members[j]->tuple;

			if (((Form_pg_proc) GETSTRUCT(tuple))->pronamespace == nspid)
				CacheInvalidateHeapTuple(pg_proc, tuple, NULL);
		}
		ReleaseSysCacheList(list);
	}
	table_close(pg_proc, AccessShareLock);
}

Oid
topic_log_am_oid(void)
{
	return get_am_oid(TOPIC_AM_NAME, true);
}

/* Is relid a topic or a partition of one? */
bool
topic_is_topic_relation(Oid relid)
{
	return topic_is_log_relation(relid) || topic_is_topic_parent_oid(relid);
}

/* Is relid a relation stored by topic_log? */
bool
topic_is_log_relation(Oid relid)
{
	HeapTuple	tuple;
	Oid			relam;
	Oid			amoid;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return false;
	relam = ((Form_pg_class) GETSTRUCT(tuple))->relam;
	ReleaseSysCache(tuple);

	if (!OidIsValid(relam))
		return false;
	amoid = topic_log_am_oid();
	return OidIsValid(amoid) && relam == amoid;
}

/*
 * Refuse a relation whose columns are not a topic's: the on-disk format,
 * decoding and every function rely on the fixed layout.
 */
void
topic_check_columns(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;
	bool		ok = (desc->natts == Natts_topic);

	for (i = 0; ok && i < Natts_topic; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			t;

		ok = !att->attisdropped &&
			strcmp(NameStr(att->attname), topic_columns[i].name) == 0;
		if (ok)
		{
			ok = false;
			for (t = 0; t < lengthof(topic_columns[i].types); t++)
				if (OidIsValid(topic_columns[i].types[t]) &&
					att->atttypid == topic_columns[i].types[t])
					ok = true;
		}
		/* values are stored packed, as heap does for non-PLAIN storage */
		if (ok && att->attstorage == TYPSTORAGE_PLAIN && att->attlen == -1)
			ok = false;
	}

	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("relation \"%s\" does not have the columns of a topic",
						RelationGetRelationName(rel)),
				 errdetail("A topic_log relation has exactly the columns partition int, \"offset\" bigint, \"timestamp\" timestamptz, key and value of type bytea, text or jsonb, and headers jsonb, in this order."),
				 errhint("Declare partition int NOT NULL, \"offset\" bigint NOT NULL DEFAULT -1, \"timestamp\" timestamptz NOT NULL DEFAULT '-infinity', key, value and headers jsonb.")));

	/* the log fills offset and timestamp, but a record's partition comes from the row */
	if (!TupleDescAttr(desc, Anum_topic_partition - 1)->attnotnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("column \"partition\" of topic_log relation \"%s\" must be declared NOT NULL",
						RelationGetRelationName(rel)),
				 errdetail("Every record is stored with its partition number, so a row without one could never be written."),
				 errhint("Declare partition int NOT NULL, with a DEFAULT if INSERT should not have to name it.")));
}

/*
 * The partitions depend on the access method, the topic itself on the
 * extension: DROP EXTENSION refuses while topics exist, and CASCADE takes
 * whole topics, not just their partitions.
 */
void
topic_record_extension_dependency(Oid topic)
{
	ObjectAddress topic_addr;
	ObjectAddress extension_addr;

	ObjectAddressSet(topic_addr, RelationRelationId, topic);
	ObjectAddressSet(extension_addr, ExtensionRelationId,
					 get_extension_oid("pg_topics", false));
	recordDependencyOn(&topic_addr, &extension_addr, DEPENDENCY_NORMAL);
}

/* OID of topics.consumer_offsets in this database, or InvalidOid */
Oid
topic_offsets_log_relid(void)
{
	Oid			nsp = get_namespace_oid("topics", true);

	return OidIsValid(nsp) ? get_relname_relid("consumer_offsets", nsp) : InvalidOid;
}

/*
 * Every topic of this database (from topics.topic_config, which has a row
 * per topic), in no particular order; NIL if the extension is not
 * installed.  No privilege is checked: the caller filters.
 */
List *
topic_list_topics(void)
{
	Oid			nsp = get_namespace_oid("topics", true);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid("topic_config", nsp) : InvalidOid;
	List	   *topics = NIL;
	Relation	config;
	TableScanDesc scan;
	TupleTableSlot *slot;

	if (!OidIsValid(relid))
		return NIL;
	config = table_open(relid, AccessShareLock);
	slot = table_slot_create(config, NULL);
	scan = table_beginscan(config, GetActiveSnapshot(), 0, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		topic = slot_getattr(slot, 1, &isnull);

		if (!isnull)
			topics = lappend_oid(topics, DatumGetObjectId(topic));
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	table_close(config, AccessShareLock);
	return topics;
}

/*
 * Is relid a topic's parent table, judged from the catalogs without
 * locking it, so that nobody's DDL or LOCK TABLE holds up the lookup?  The
 * answer may be out of date by the time the caller locks the relation,
 * which topic_open checks again.
 */
static bool
looks_like_topic_parent(Oid relid)
{
	HeapTuple	tuple;
	bool		partitioned;
	char	   *first_column;
	List	   *partitions;
	bool		result;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return false;
	partitioned = ((Form_pg_class) GETSTRUCT(tuple))->relkind == RELKIND_PARTITIONED_TABLE &&
		((Form_pg_class) GETSTRUCT(tuple))->relnatts == Natts_topic;
	ReleaseSysCache(tuple);
	if (!partitioned)
		return false;
	first_column = get_attname(relid, 1, true);
	if (first_column == NULL || strcmp(first_column, "partition") != 0)
		return false;
	pfree(first_column);
	partitions = find_inheritance_children(relid, NoLock);
	result = partitions != NIL && topic_is_log_relation(linitial_oid(partitions));
	list_free(partitions);
	return result;
}

/*
 * The topic named relname, exactly as written (not parsed as SQL would),
 * in schema nspname; InvalidOid if there is none (or no such schema).  How
 * the Kafka listener and the views find a topic a Kafka client names.  It
 * takes no lock: the caller locks (and opens, which checks) what it uses.
 */
Oid
topic_lookup_in_schema(const char *nspname, const char *relname)
{
	Oid			nspid = get_namespace_oid(nspname, true);
	Oid			relid;

	if (!OidIsValid(nspid) || strlen(relname) >= NAMEDATALEN)
		return InvalidOid;
	relid = get_relname_relid(relname, nspid);
	return OidIsValid(relid) && looks_like_topic_parent(relid) ? relid : InvalidOid;
}
