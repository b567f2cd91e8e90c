/*-------------------------------------------------------------------------
 *
 * topic_configs.c
 *	  Setting a topic's configs (topic_configs.h): topics.alter_topic_configs,
 *	  the configs of create_topic, and topics.topic_config_info, which the
 *	  view topics.topic_configs shows.
 *
 * One model: retention.ms and retention.bytes are the retention and
 * retention_bytes columns of topics.topic_config, which create_topic's
 * arguments of those names set and topics.topics shows; every other key
 * the topic sets is in its configs column.  -1 (forever, unlimited) is
 * their default, so setting it is resetting them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/api/topic_configs.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/worker/retention.h"

PG_FUNCTION_INFO_V1(topic_alter_topic_configs);
PG_FUNCTION_INFO_V1(topic_config_info);

/* Throw the problem topic_config_check found */
static void
throw_config_error(int sqlstate, const char *message)
{
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("%s", message),
			 sqlstate == ERRCODE_FEATURE_NOT_SUPPORTED ?
			 errhint("See \"Topic configuration\" in docs/topics.md for what each key takes.") : 0));
}

void
topic_configs_merge(const TopicConfig *current, const TopicConfigChange *changes,
					int nchanges, TopicConfigRow *row)
{
	char	   *values[TOPIC_CONFIG_NKEYS];
	int			bad;
	int			sqlstate;
	char	   *message;
	int			i;
	int			k;
	int64		v;
	StringInfoData json;
	bool		first = true;

	if (!topic_config_check_changes(changes, nchanges, &bad, &sqlstate, &message))
		throw_config_error(sqlstate, message);

	for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
		values[k] = current != NULL ? current->values[k] : NULL;
	for (i = 0; i < nchanges; i++)
	{
		k = topic_config_key_lookup(changes[i].name);
		values[k] = NULL;
		if (changes[i].value != NULL &&
			!topic_config_check(changes[i].name, changes[i].value, &values[k],
								&sqlstate, &message))
			throw_config_error(sqlstate, message);
	}

	/*
	 * -1 is no retention: the columns are NULL.  Whole days are days, as
	 * the Kafka listener's CreateTopics stores them: 604800000 is '7 days'
	 */
	row->retention = NULL;
	if (values[TOPIC_CONFIG_RETENTION_MS] != NULL &&
		(v = pg_strtoint64(values[TOPIC_CONFIG_RETENTION_MS])) > 0)
	{
		row->retention = palloc0(sizeof(Interval));
		row->retention->day = (int32) (v / (SECS_PER_DAY * INT64CONST(1000)));
		row->retention->time = (v % (SECS_PER_DAY * INT64CONST(1000))) * 1000;
	}
	row->has_retention_bytes = false;
	row->retention_bytes = 0;
	if (values[TOPIC_CONFIG_RETENTION_BYTES] != NULL &&
		(v = pg_strtoint64(values[TOPIC_CONFIG_RETENTION_BYTES])) > 0)
	{
		row->has_retention_bytes = true;
		row->retention_bytes = v;
	}

	initStringInfo(&json);
	appendStringInfoChar(&json, '{');
	for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
	{
		if (values[k] == NULL || k == TOPIC_CONFIG_RETENTION_MS ||
			k == TOPIC_CONFIG_RETENTION_BYTES)
			continue;
		if (!first)
			appendStringInfoString(&json, ", ");
		first = false;
		escape_json(&json, topic_config_key_name(k));
		appendStringInfoString(&json, ": ");
		escape_json(&json, values[k]);
	}
	appendStringInfoChar(&json, '}');
	row->configs_json = json.data;
}

/*
 * Refuse to store configs other than retention in a database whose SQL
 * predates them (before ALTER EXTENSION pg_topics UPDATE to 0.3)
 */
static bool
configs_column_exists(void)
{
	Oid			relid = get_relname_relid("topic_config",
										  get_namespace_oid("topics", false));

	return OidIsValid(relid) && get_attnum(relid, "configs") != InvalidAttrNumber;
}

void
topic_configs_alter(Oid topic, const TopicConfigChange *changes, int nchanges)
{
	Relation	rel;
	TopicConfig current;
	TopicConfigRow row;
	Oid			argtypes[5] = {REGCLASSOID, INTERVALOID, BOOLOID, INT8OID, TEXTOID};
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	TopicInternalSql internal;
	int			rc;

	PreventCommandIfReadOnly("alter_topic_configs");
	/*
	 * before any lock is queued on it, as add_partitions; an OID no
	 * relation has fails as PostgreSQL 15's ownership check fails for it
	 * (16's and later find no cache entry: an internal error)
	 */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(topic)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", topic)));
	if (!pg_class_ownercheck(topic, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(topic));
	/* one writer of a topic's settings at a time */
	rel = topic_open(topic, ShareUpdateExclusiveLock, TOPIC_NO_ACL_CHECK);
	if (!configs_column_exists())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("topic configs need the SQL of pg_topics 0.3 in this database"),
				 errhint("Run ALTER EXTENSION pg_topics UPDATE.")));

	topic_config_read(topic, &current);
	topic_configs_merge(&current, changes, nchanges, &row);

	values[0] = ObjectIdGetDatum(topic);
	values[1] = PointerGetDatum(row.retention);
	nulls[1] = row.retention == NULL ? 'n' : ' ';
	values[2] = BoolGetDatum(row.has_retention_bytes);
	values[3] = Int64GetDatum(row.retention_bytes);
	values[4] = CStringGetTextDatum(row.configs_json);

	/*
	 * A retention left as it was keeps the interval it was given (a
	 * retention of '7 days' stays that, rather than '168:00:00')
	 */
	topic_internal_sql_begin(&internal);
	rc = SPI_execute_with_args("UPDATE topics.topic_config SET "
								 "retention = CASE WHEN $2 IS NOT DISTINCT FROM retention "
								 "OR (EXTRACT(epoch FROM retention) * 1000)::pg_catalog.int8 OPERATOR(pg_catalog.=) (EXTRACT(epoch FROM $2) * 1000)::pg_catalog.int8 "
								 "THEN retention ELSE $2 END, "
								 "retention_bytes = CASE WHEN $3 THEN $4 END, "
								 "configs = $5::pg_catalog.jsonb "
								 "WHERE topic OPERATOR(pg_catalog.=) $1",
								 5, argtypes, values, nulls, false, 0);
	if (rc != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "could not update the settings of topic \"%s\"",
			 RelationGetRelationName(rel));
	topic_internal_sql_end(&internal);
	relation_close(rel, NoLock);

	topic_config_invalidate(topic);
	/* segment.bytes, segment.ms and retention size the segments now */
	topic_retention_size_segments(topic);
}

/* The text of a JSON scalar value of key, or throw */
static const char *
jsonb_value_text(const char *key, JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out,
													   NumericGetDatum(v->val.numeric)));
		case jbvNull:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("topic config \"%s\" is null", key),
					 errhint("Reset a key to its default with the reset argument of topics.alter_topic_configs.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("topic config \"%s\" must be a JSON string or number", key)));
	}
	return NULL;
}

TopicConfigChange *
topic_configs_from_jsonb(Jsonb *set, ArrayType *reset, int *nchanges)
{
	int			nset = set != NULL ? JB_ROOT_COUNT(set) : 0;
	Datum	   *elems = NULL;
	bool	   *elemnulls = NULL;
	int			nreset = 0;
	TopicConfigChange *changes;
	int			n = 0;
	int			i;

	if (set != NULL && !JB_ROOT_IS_OBJECT(set))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("topic configs must be a JSON object of keys and values"),
				 errhint("For example '{\"retention.ms\": \"604800000\"}'.")));
	if (reset != NULL)
		deconstruct_array(reset, TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &elemnulls, &nreset);
	changes = palloc0(sizeof(TopicConfigChange) * Max(nset + nreset, 1));

	if (nset > 0)
	{
		JsonbIterator *it = JsonbIteratorInit(&set->root);
		JsonbValue	v;
		JsonbIteratorToken tok;
		char	   *key = NULL;

		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				key = pnstrdup(v.val.string.val, v.val.string.len);
			else if (tok == WJB_VALUE)
			{
				changes[n].name = key;
				changes[n].value = jsonb_value_text(key, &v);
				n++;
			}
		}
	}
	for (i = 0; i < nreset; i++)
	{
		if (elemnulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the keys to reset must not be null")));
		changes[n].name = TextDatumGetCString(elems[i]);
		changes[n].value = NULL;
		n++;
	}
	*nchanges = n;
	return changes;
}

/*
 * topics.alter_topic_configs(topic regclass, set jsonb DEFAULT NULL,
 * reset text[] DEFAULT NULL): set and reset keys, all or none
 */
Datum
topic_alter_topic_configs(PG_FUNCTION_ARGS)
{
	TopicConfigChange *changes;
	int			nchanges;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("topic must not be null")));
	changes = topic_configs_from_jsonb(PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1),
									   PG_ARGISNULL(2) ? NULL : PG_GETARG_ARRAYTYPE_P(2),
									   &nchanges);
	topic_configs_alter(PG_GETARG_OID(0), changes, nchanges);
	PG_RETURN_VOID();
}

/*
 * topics.topic_config_info(topic regclass) RETURNS TABLE(name text, value
 * text, source text, read_only boolean): every known key's effective value,
 * for those who may SELECT the topic, superusers and pg_monitor members
 * (others get 42501, as from topics.partition_info)
 */
Datum
topic_config_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open(PG_GETARG_OID(0), AccessShareLock, TOPIC_NO_ACL_CHECK);
	TopicConfigEntry entries[TOPIC_CONFIG_NKEYS];
	int			k;

	topic_check_describe(topic);
	topic_config_describe(RelationGetRelid(topic), entries);
	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(entries[k].name);
		values[1] = CStringGetTextDatum(entries[k].value);
		values[2] = CStringGetTextDatum(topic_config_source_name(entries[k].source));
		values[3] = BoolGetDatum(entries[k].read_only);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(topic, AccessShareLock);
	return (Datum) 0;
}
