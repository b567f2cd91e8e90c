/*-------------------------------------------------------------------------
 *
 * topics.c
 *	  The life of a topic: create_topic, add_partitions, drop_topic.
 *
 * A topic is an ordinary partitioned table with one topic_log partition per
 * Kafka partition, so it is created with ordinary DDL run through SPI as
 * the calling user: PostgreSQL checks CREATE on the schema and ownership
 * exactly as for any table.  Partitions are added with CREATE TABLE and
 * ATTACH PARTITION, which takes SHARE UPDATE EXCLUSIVE on the topic, so
 * producers and readers keep going (PARTITION OF would lock them out).
 *
 * The topic's settings live in topics.topic_config, which PUBLIC cannot
 * touch; the functions write it as the bootstrap superuser after doing
 * the privilege checks themselves.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/twophase.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid_d.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/api/groups.h"
#include "pg_topics/api/topic_configs.h"
#include "pg_topics/api/topics.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/worker/retention.h"

PG_FUNCTION_INFO_V1(topic_create_topic);
PG_FUNCTION_INFO_V1(topic_add_partitions);
PG_FUNCTION_INFO_V1(topic_drop_topic);

/* Most partitions a topic may have */
#define TOPIC_MAX_PARTITIONS	10000

/* What create_topic and add_partitions hand to the internal DDL runner */
typedef struct PartitionsToAdd
{
	Oid			nspid;
	const char *topic_name;		/* unqualified, as stored */
	int32		from;
	int32		to;				/* exclusive */
	Oid			spcid;			/* the topic's tablespace, or InvalidOid */
} PartitionsToAdd;

/* Create and attach partitions [from, to) of a topic */
static void
add_partitions_internal(void *arg)
{
	PartitionsToAdd *add = (PartitionsToAdd *) arg;
	char	   *nspname = get_namespace_name(add->nspid);
	char	   *qualified = quote_qualified_identifier(nspname, add->topic_name);
	int32		p;

	for (p = add->from; p < add->to; p++)
	{
		char		label[16];
		char	   *router;
		char	   *qualified_leaf;

		snprintf(label, sizeof(label), "p%d", p);
		router = ChooseRelationName(add->topic_name, NULL, label, add->nspid, false);
		qualified_leaf = quote_qualified_identifier(nspname, router);
		/* in the topic's tablespace, as CREATE TABLE ... PARTITION OF */
		topic_internal_sql_ddl(psprintf("CREATE TABLE %s (LIKE %s INCLUDING DEFAULTS) USING " TOPIC_AM_NAME "%s%s",
										qualified_leaf, qualified,
										OidIsValid(add->spcid) ? " TABLESPACE " : "",
										OidIsValid(add->spcid) ?
										quote_identifier(get_tablespace_name(add->spcid)) : ""),
							   false);
		topic_internal_sql_ddl(psprintf("ALTER TABLE %s ATTACH PARTITION %s FOR VALUES IN (%d)",
										qualified, qualified_leaf, p),
							   false);
	}
}

/*
 * Refuse a caller who does not own the relation named name, before any
 * lock is queued on it.
 */
static void
check_owner(text *name)
{
	RangeVar   *rv = makeRangeVarFromNameList(textToQualifiedNameList(name));
	Oid			relid = RangeVarGetRelid(rv, NoLock, false);

	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
}

/*
 * Refuse a key or value type that topics do not take.  The regtype argument
 * may hold any OID ('-', 0, or one of a dropped type), so it is named
 * without looking it up.
 */
static void
check_payload_type(Oid typid, const char *what)
{
	if (typid != BYTEAOID && typid != TEXTOID && typid != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s type %s is not supported for topics", what,
						format_type_extended(typid, -1, FORMAT_TYPE_ALLOW_INVALID)),
				 errhint("Use bytea, text or jsonb.")));
}

static void
check_partition_count(int32 partitions)
{
	if (partitions < 1 || partitions > TOPIC_MAX_PARTITIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a topic has between 1 and %d partitions, not %d",
						TOPIC_MAX_PARTITIONS, partitions)));
}

/*
 * Entries of the shared lock table that dropping a topic takes for each
 * partition: its relation, TOAST table and index and their row types
 * (measured: 7.3 on average, segments included).  A new partition holds
 * about as many until its transaction ends.
 */
#define LOCKS_PER_PARTITION			8
/* and for each segment dropped in the same transaction (segment_ddl.c) */
#define LOCKS_PER_DROPPED_SEGMENT	4

/*
 * The most partitions a topic may have.  drop_topic and DROP TABLE lock
 * every partition in one transaction (the segments beyond a budget of
 * 2 * max_locks_per_transaction go to the worker), so a wider topic could
 * be created in steps but never dropped; and it bounds what one
 * create_topic or add_partitions can add, which would otherwise fail
 * half-way with "out of shared memory".  The lock table is sized for
 * max_locks_per_transaction entries per backend and prepared transaction,
 * and grows into PostgreSQL's spare shared memory beyond that (on default
 * settings, one transaction could take about 1.7 times as many); counting
 * half as much again keeps a transaction within what is there while
 * others hold their usual locks.  It is an estimate: a transaction that
 * holds many locks already can still run out.
 */
int64
topic_width_limit(void)
{
	int64		table = (int64) max_locks_per_xact *
		(MaxBackends + max_prepared_xacts);

	/* a lock table too small for the segment budget still drops one partition */
	return Max(1, (table * 3 / 2 - 2 * (int64) max_locks_per_xact * LOCKS_PER_DROPPED_SEGMENT) /
			   LOCKS_PER_PARTITION);
}

/*
 * Refuse a topic topic_name of partitions partitions, new (creating) or
 * grown, that no transaction could drop
 */
static void
check_topic_width(const char *topic_name, int32 partitions, bool creating)
{
	int64		most = topic_width_limit();

	if (partitions <= most)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 creating ?
			 errmsg("cannot create topic \"%s\" with %d partitions",
					topic_name, partitions) :
			 errmsg("cannot grow topic \"%s\" to %d partitions",
					topic_name, partitions),
			 errdetail("Dropping a topic locks all of its partitions in one transaction, so with max_locks_per_transaction = %d a topic can have at most about %lld partitions.",
					   max_locks_per_xact, (long long) most),
			 errhint("Raise max_locks_per_transaction, or spread the records over several topics.")));
}

/*
 * Record the topic's settings in topics.topic_config: retention,
 * retention_bytes, and configs (in a database whose SQL has the column
 * for them, 0.3 and later: create_topic of older SQL gives none)
 */
static void
store_config(Oid relid, const TopicConfigRow *row)
{
	Oid			argtypes[4] = {REGCLASSOID, INTERVALOID, INT8OID, TEXTOID};
	Datum		values[4] = {ObjectIdGetDatum(relid), PointerGetDatum(row->retention),
	Int64GetDatum(row->retention_bytes), CStringGetTextDatum(row->configs_json)};
	char		nulls[4] = {' ', row->retention == NULL ? 'n' : ' ',
	row->has_retention_bytes ? ' ' : 'n', ' '};
	Oid			config_rel = get_relname_relid("topic_config",
											   get_namespace_oid("topics", false));
	bool		has_configs = get_attnum(config_rel, "configs") != InvalidAttrNumber;
	int			rc;

	if (!has_configs && strcmp(row->configs_json, "{}") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("topic configs need the SQL of pg_topics 0.3 in this database"),
				 errhint("Run ALTER EXTENSION pg_topics UPDATE.")));
	rc = topic_internal_sql_exec(has_configs ?
								 "INSERT INTO topics.topic_config (topic, retention, retention_bytes, configs) VALUES ($1, $2, $3, $4::pg_catalog.jsonb)" :
								 "INSERT INTO topics.topic_config (topic, retention, retention_bytes) VALUES ($1, $2, $3)",
								 has_configs ? 4 : 3, argtypes, values, nulls, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not record topic settings: %s",
			 SPI_result_code_string(rc));
	topic_config_invalidate(relid);
}

/* Refuse a retention that is not positive, or too long to apply */
static void
check_retention(Interval *retention)
{
	Interval	zero = {0};

	if (DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(retention),
										  IntervalPGetDatum(&zero))) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retention must be positive")));

	/*
	 * Retention is applied in microseconds (retention.c): anything an
	 * int64 of them cannot hold, with room to subtract it from now,
	 * would fail at every round of the worker instead of here.
	 */
	if (DatumGetFloat8(DirectFunctionCall2(interval_part,
										   CStringGetTextDatum("epoch"),
										   IntervalPGetDatum(retention))) >=
		(float8) TOPIC_MAX_RETENTION_YEARS * DAYS_PER_YEAR * SECS_PER_DAY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retention must be less than %d years",
						TOPIC_MAX_RETENTION_YEARS)));
}

/*
 * Refuse schema nspid for a topic or one of its partitions: pg_dump leaves
 * the objects of information_schema out, and a restore would then lose
 * the topic, and with it the settings of every other topic
 */
void
topic_refuse_undumped_schema(Oid nspid)
{
	if (nspid == get_namespace_oid("information_schema", true))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("topics cannot be kept in schema \"information_schema\""),
				 errdetail("pg_dump does not dump the objects of information_schema, so a restore would lose the topic and the settings of every other topic."),
				 errhint("Use another schema.")));
}

/*
 * The schema a new topic goes to: permanent, and one the caller may
 * create in
 */
static Oid
topic_creation_namespace(RangeVar *rv)
{
	Oid			nspid = RangeVarGetCreationNamespace(rv);
	AclResult	aclresult;

	if (isTempNamespace(nspid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("topics cannot be temporary"),
				 errhint("Create the topic in a permanent schema.")));
	topic_refuse_undumped_schema(nspid);
	aclresult = pg_namespace_aclcheck(nspid, GetUserId(), ACL_CREATE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_SCHEMA, get_namespace_name(nspid));
	return nspid;
}

/*
 * Create topic name (parsed like a relation name) with partitions
 * partitions of key_type keys and value_type values, and retention
 * (NULL: none) and retention_bytes (if has_retention_bytes), as the
 * caller, who owns it: the Kafka listener's CreateTopics without configs.
 */
Oid
topic_create(text *name, int32 partitions, Oid key_type, Oid value_type,
			 Interval *retention, bool has_retention_bytes,
			 int64 retention_bytes)
{
	return topic_create_configured(name, partitions, key_type, value_type,
								   retention, has_retention_bytes,
								   retention_bytes, NULL, 0);
}

/*
 * Refuse a retention given both as an argument and as a config: which one
 * would win is anybody's guess
 */
static void
refuse_twice(const TopicConfigChange *changes, int nchanges,
			 const char *key, const char *argument)
{
	int			i;

	for (i = 0; i < nchanges; i++)
		if (changes[i].value != NULL && strcmp(changes[i].name, key) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s is given twice: as the argument %s and as the topic config \"%s\"",
							argument, argument, key),
					 errhint("Give one of them.")));
}

/*
 * topic_create with configs: changes (a NULL value leaves its key at its
 * default) are checked before anything is created (22023 or 0A000 naming
 * the key), and stored with the topic: topics.create_topic, and the Kafka
 * listener's CreateTopics with configs
 */
Oid
topic_create_configured(text *name, int32 partitions, Oid key_type,
						Oid value_type, Interval *retention,
						bool has_retention_bytes, int64 retention_bytes,
						const TopicConfigChange *changes, int nchanges)
{
	RangeVar   *rv;
	Oid			nspid;
	char	   *qualified;
	PartitionsToAdd add;
	Oid			relid;
	int			settings;
	char	   *kafka_name;
	TopicConfigRow row;

	PreventCommandIfReadOnly("create_topic");
	check_partition_count(partitions);
	check_topic_width(text_to_cstring(name), partitions, true);
	check_payload_type(key_type, "key");
	check_payload_type(value_type, "value");
	if (retention != NULL)
		check_retention(retention);
	if (has_retention_bytes && retention_bytes <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retention_bytes must be positive")));
	if (retention != NULL)
		refuse_twice(changes, nchanges, "retention.ms", "retention");
	if (has_retention_bytes)
		refuse_twice(changes, nchanges, "retention.bytes", "retention_bytes");
	topic_configs_merge(NULL, changes, nchanges, &row);
	if (retention != NULL)
		row.retention = retention;
	if (has_retention_bytes)
	{
		row.has_retention_bytes = true;
		row.retention_bytes = retention_bytes;
	}

	/* a name longer than a table's is mapped, never truncated */
	rv = topic_parse_creation_name(name, &kafka_name);
	nspid = topic_creation_namespace(rv);
	qualified = quote_qualified_identifier(get_namespace_name(nspid), rv->relname);

	/*
	 * The caller creates (and owns) the topic, but our DDL is read and
	 * stored as ours: none of the caller's settings decide its column
	 * types or its tablespace (the database's default; ALTER TABLE moves
	 * it).
	 */
	settings = topic_internal_settings_pin();
	topic_internal_sql_ddl(psprintf("CREATE TABLE %s ("
									"partition int NOT NULL, "
									"\"offset\" bigint NOT NULL DEFAULT -1, "
									"\"timestamp\" timestamptz NOT NULL DEFAULT '-infinity', "
									"key %s, value %s, headers jsonb) "
									"PARTITION BY LIST (partition)",
									qualified, format_type_be_qualified(key_type),
									format_type_be_qualified(value_type)),
						   false);
	relid = get_relname_relid(rv->relname, nspid);

	topic_record_extension_dependency(relid);
	if (kafka_name != NULL)
		topic_kafka_name_record(relid, kafka_name);

	add.nspid = nspid;
	add.topic_name = rv->relname;
	add.from = 0;
	add.to = partitions;
	add.spcid = get_rel_tablespace(relid);
	topic_ddl_run_internal(add_partitions_internal, &add);

	store_config(relid, &row);
	/* the first segments hold no more than their share of retention_bytes */
	topic_retention_size_segments(relid);
	topic_internal_settings_restore(settings);
	topic_groups_topic_appeared();
	return relid;
}

/*
 * topics.create_topic(topic text, partitions int, key_type regtype,
 *		value_type regtype, retention interval, retention_bytes bigint,
 *		configs jsonb) RETURNS regclass; the SQL of 0.1 and 0.2 has no
 *		configs
 */
Datum
topic_create_topic(PG_FUNCTION_ARGS)
{
	TopicConfigChange *changes = NULL;
	int			nchanges = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("topic, partitions, key_type and value_type must not be null")));
	if (PG_NARGS() > 6 && !PG_ARGISNULL(6))
		changes = topic_configs_from_jsonb(PG_GETARG_JSONB_P(6), NULL, &nchanges);
	PG_RETURN_OID(topic_create_configured(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(1),
										  PG_GETARG_OID(2), PG_GETARG_OID(3),
										  PG_ARGISNULL(4) ? NULL : PG_GETARG_INTERVAL_P(4),
										  !PG_ARGISNULL(5),
										  PG_ARGISNULL(5) ? 0 : PG_GETARG_INT64(5),
										  changes, nchanges));
}

/* topics.add_partitions(topic text, partitions int): the new total */
Datum
topic_add_partitions(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	int32		partitions = PG_GETARG_INT32(1);
	Relation	topic;
	Oid			topicid;
	int32		current;
	PartitionsToAdd add;

	PreventCommandIfReadOnly("add_partitions");
	check_partition_count(partitions);
	check_owner(name);
	topic = topic_open_by_name(name, ShareUpdateExclusiveLock, TOPIC_NO_ACL_CHECK);

	current = topic_partition_count(topic);
	if (partitions < current)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("topic \"%s\" has %d partitions, more than %d",
						RelationGetRelationName(topic), current, partitions),
				 errdetail("Partitions can only be added, as in Kafka.")));

	add.nspid = RelationGetNamespace(topic);
	add.topic_name = pstrdup(RelationGetRelationName(topic));
	add.from = current;
	add.to = partitions;
	add.spcid = topic->rd_rel->reltablespace;
	topicid = RelationGetRelid(topic);
	relation_close(topic, NoLock);

	if (add.from < add.to)
	{
		int			settings;

		check_topic_width(add.topic_name, add.to, false);
		settings = topic_internal_settings_pin();
		topic_ddl_run_internal(add_partitions_internal, &add);
		topic_internal_settings_restore(settings);
		topic_retention_size_segments(topicid);
	}
	PG_RETURN_VOID();
}

/* Drop topic name, which the caller must own: drop_topic and DeleteTopics */
void
topic_drop(text *name)
{
	Relation	topic;
	char	   *qualified;

	PreventCommandIfReadOnly("drop_topic");
	check_owner(name);
	topic = topic_open_by_name(name, AccessExclusiveLock, TOPIC_NO_ACL_CHECK);
	qualified = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(topic)),
										   RelationGetRelationName(topic));
	relation_close(topic, NoLock);

	topic_internal_sql_ddl(psprintf("DROP TABLE %s", qualified), false);
}

/* topics.drop_topic(topic text) */
Datum
topic_drop_topic(PG_FUNCTION_ARGS)
{
	topic_drop(PG_GETARG_TEXT_PP(0));
	PG_RETURN_VOID();
}
