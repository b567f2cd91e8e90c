/*-------------------------------------------------------------------------
 *
 * topic_config.c
 *	  Topic configuration: Kafka's topic config keys, checked, read and
 *	  described (topic_config.h).
 *
 * The keys are Kafka's, with Kafka's names, types and ranges; where
 * pg_topics does something other than Kafka, the key's entry in keys[]
 * says so and docs/topics.md ("Topic configuration") explains it.  Values
 * are stored as Kafka's text of them (an integer in decimal), so that what
 * a topic sets reads back the same from SQL and from Kafka.
 *
 * Reading what a topic sets takes a query of topics.topic_config, which
 * the produce path cannot afford per call: each backend keeps what it read
 * in a hash by topic, dropped when the topic's relation cache entry is
 * invalidated.  Every write of topics.topic_config invalidates it (the
 * table's trigger, topics.topic_config_changed()), and so does a DROP of
 * the topic.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>
#include <limits.h>

#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/postmaster.h"
#if PG_VERSION_NUM >= 180000
#include "storage/procnumber.h"	/* MAX_BACKENDS */
#endif
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/base/topic_config.h"

PG_FUNCTION_INFO_V1(topic_config_changed);

/* Kafka's Long.MAX_VALUE: "never" for segment.ms and max.compaction.lag.ms */
#define KAFKA_LONG_MAX	"9223372036854775807"

/* How a key's value is checked */
typedef enum KeyKind
{
	KIND_INT,					/* an integer in [min, max], or -1 if minus_one */
	KIND_RATIO,					/* a number in [0, 1] */
	KIND_CLEANUP_POLICY,
	KIND_COMPRESSION_TYPE,
	KIND_TIMESTAMP_TYPE
} KeyKind;

typedef struct KeyInfo
{
	const char *name;
	TopicConfigType type;
	KeyKind		kind;
	int64		min;
	int64		max;
	bool		minus_one;		/* -1 is taken too (forever, unlimited) */
	const char *default_value;	/* when neither topic nor server sets it */
} KeyInfo;

/* In TopicConfigKey's order */
static const KeyInfo keys[TOPIC_CONFIG_NKEYS] = {
	{"cleanup.policy", TOPIC_CONFIG_TYPE_LIST, KIND_CLEANUP_POLICY, 0, 0, false, "delete"},
	/* records are stored uncompressed, whatever producers send */
	{"compression.type", TOPIC_CONFIG_TYPE_STRING, KIND_COMPRESSION_TYPE, 0, 0, false, "uncompressed"},
	/* the log cleaner's keys (worker/log_cleaner.c) */
	{"delete.retention.ms", TOPIC_CONFIG_TYPE_LONG, KIND_INT, 0, PG_INT64_MAX, false, "86400000"},
	{"max.compaction.lag.ms", TOPIC_CONFIG_TYPE_LONG, KIND_INT, 1, PG_INT64_MAX, false, KAFKA_LONG_MAX},
	/* bounded by pg_topics.max_message_bytes, the "server" value */
	{"max.message.bytes", TOPIC_CONFIG_TYPE_INT, KIND_INT, 0, PG_INT32_MAX, false, NULL},
	/* records are stamped at log-append time */
	{"message.timestamp.type", TOPIC_CONFIG_TYPE_STRING, KIND_TIMESTAMP_TYPE, 0, 0, false, "LogAppendTime"},
	{"min.cleanable.dirty.ratio", TOPIC_CONFIG_TYPE_DOUBLE, KIND_RATIO, 0, 1, false, "0.5"},
	{"min.compaction.lag.ms", TOPIC_CONFIG_TYPE_LONG, KIND_INT, 0, PG_INT64_MAX, false, "0"},
	/* counts the leader, as Kafka: pg_topics.min_insync_replicas plus one */
	{"min.insync.replicas", TOPIC_CONFIG_TYPE_INT, KIND_INT, 1, MAX_BACKENDS + 1, false, NULL},
	{"retention.bytes", TOPIC_CONFIG_TYPE_LONG, KIND_INT, 1, PG_INT64_MAX, true, "-1"},
	{"retention.ms", TOPIC_CONFIG_TYPE_LONG, KIND_INT, 1, TOPIC_CONFIG_MAX_MS - 1, true, "-1"},
	/* whole pages, at least 4: see topic_config_segment_blocks */
	{"segment.bytes", TOPIC_CONFIG_TYPE_INT, KIND_INT, 14, PG_INT32_MAX, false, NULL},
	/*
	 * Kafka's range, so that the "never" described (9223372036854775807)
	 * may be set back, as tools that alter a topic's whole set do; from
	 * TOPIC_CONFIG_MAX_MS on it is never
	 */
	{"segment.ms", TOPIC_CONFIG_TYPE_LONG, KIND_INT, 1, PG_INT64_MAX, false, NULL},
};

static const char *const source_names[] = {"default", "topic", "server"};

/* The backend's cache of what topics set, by topic OID */
typedef struct CachedConfig
{
	Oid			topic;
	TopicConfig config;
} CachedConfig;

static HTAB *config_cache = NULL;

const char *
topic_config_key_name(TopicConfigKey key)
{
	Assert(key >= 0 && key < TOPIC_CONFIG_NKEYS);
	return keys[key].name;
}

/* The key named name, or -1 if there is none */
int
topic_config_key_lookup(const char *name)
{
	int			k;

	for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
		if (strcmp(keys[k].name, name) == 0)
			return k;
	return -1;
}

const char *
topic_config_source_name(TopicConfigSource source)
{
	return source_names[source];
}

/* Parse a whole decimal integer (Kafka's Long.parseLong); false if not one */
static bool
parse_int64(const char *s, int64 *result)
{
	char	   *end;
	long long	v;

	/* no sign but a leading '-', no spaces, no "0x" */
	if (*s == '\0' || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s)
		return false;
	*result = (int64) v;
	return true;
}

/* The range of an integer key, for messages */
static char *
describe_range(const KeyInfo *info)
{
	if (info->minus_one)
		return psprintf("-1, or from " INT64_FORMAT " to " INT64_FORMAT,
						info->min, info->max);
	return psprintf("from " INT64_FORMAT " to " INT64_FORMAT, info->min, info->max);
}

bool
topic_config_check(const char *name, const char *value, char **normalized,
				   int *sqlstate, char **message)
{
	int			k = topic_config_key_lookup(name);
	const KeyInfo *info;

	*sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
	if (k < 0)
	{
		*message = psprintf("unknown topic config \"%s\"", name);
		return false;
	}
	info = &keys[k];
	if (value == NULL)
	{
		*message = psprintf("topic config \"%s\" needs a value", name);
		return false;
	}

	switch (info->kind)
	{
		case KIND_INT:
			{
				int64		v;

				if (!parse_int64(value, &v))
				{
					*message = psprintf("invalid value \"%s\" for topic config \"%s\": not an integer",
										value, name);
					return false;
				}
				if (!((info->minus_one && v == -1) ||
					  (v >= info->min && v <= info->max)))
				{
					*message = psprintf("invalid value \"%s\" for topic config \"%s\": it takes %s",
										value, name, describe_range(info));
					return false;
				}
				*normalized = psprintf(INT64_FORMAT, v);
				return true;
			}
		case KIND_RATIO:
			{
				char	   *end;
				double		v;

				errno = 0;
				v = strtod(value, &end);
				if (end == value || *end != '\0' || errno != 0 ||
					!(v >= 0 && v <= 1))
				{
					*message = psprintf("invalid value \"%s\" for topic config \"%s\": it takes a number from 0 to 1",
										value, name);
					return false;
				}
				*normalized = psprintf("%g", v);
				return true;
			}
		case KIND_CLEANUP_POLICY:
			/* Kafka's list, in either order; stored as Kafka describes it */
			if (strcmp(value, "delete") == 0 || strcmp(value, "compact") == 0)
			{
				*normalized = pstrdup(value);
				return true;
			}
			if (strcmp(value, "compact,delete") == 0 ||
				strcmp(value, "delete,compact") == 0)
			{
				*normalized = pstrdup("compact,delete");
				return true;
			}
			*message = psprintf("invalid value \"%s\" for topic config \"%s\": it takes delete, compact or compact,delete",
								value, name);
			return false;
		case KIND_COMPRESSION_TYPE:

			/*
			 * zstd and lz4 store each batch's records compressed.
			 * "producer", Kafka's default, which tools send back as they
			 * found it, keeps what the producer sent in Kafka; here records
			 * arrive as rows (the listener inflates a producer's batches),
			 * so it is stored as what it means here: uncompressed
			 */
			if (strcmp(value, "uncompressed") == 0 ||
				strcmp(value, "producer") == 0)
			{
				*normalized = pstrdup("uncompressed");
				return true;
			}
			if (strcmp(value, "zstd") == 0 || strcmp(value, "lz4") == 0)
			{
				*normalized = pstrdup(value);
				return true;
			}
			if (strcmp(value, "gzip") == 0 || strcmp(value, "snappy") == 0)
			{
				*sqlstate = ERRCODE_FEATURE_NOT_SUPPORTED;
				*message = psprintf("topic config \"%s\" cannot be \"%s\": records are stored compressed with zstd or lz4 only",
									name, value);
				return false;
			}
			*message = psprintf("invalid value \"%s\" for topic config \"%s\": it takes uncompressed, producer, gzip, snappy, lz4 or zstd",
								value, name);
			return false;
		case KIND_TIMESTAMP_TYPE:

			/*
			 * The log stamps every record with its append time.  Kafka
			 * Streams asks for CreateTime on the topics it creates; refusing
			 * it would stop Streams, so it is taken, as what the log does
			 */
			if (strcmp(value, "LogAppendTime") == 0 ||
				strcmp(value, "CreateTime") == 0)
			{
				*normalized = pstrdup("LogAppendTime");
				return true;
			}
			*message = psprintf("invalid value \"%s\" for topic config \"%s\": it takes LogAppendTime or CreateTime",
								value, name);
			return false;
	}
	*message = psprintf("unknown topic config \"%s\"", name);
	return false;
}

bool
topic_config_check_changes(const TopicConfigChange *changes, int nchanges,
						   int *bad, int *sqlstate, char **message)
{
	int			i;

	for (i = 0; i < nchanges; i++)
	{
		int			j;

		if (changes[i].value != NULL)
		{
			char	   *normalized;

			if (!topic_config_check(changes[i].name, changes[i].value,
									&normalized, sqlstate, message))
			{
				*bad = i;
				return false;
			}
		}
		else if (topic_config_key_lookup(changes[i].name) < 0)
		{
			*bad = i;
			*sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
			*message = psprintf("unknown topic config \"%s\"", changes[i].name);
			return false;
		}
		for (j = 0; j < i; j++)
			if (strcmp(changes[j].name, changes[i].name) == 0)
			{
				*bad = i;
				*sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
				*message = psprintf("topic config \"%s\" is given more than once",
									changes[i].name);
				return false;
			}
	}
	return true;
}

/* Parse the integer keys of config from its values, and its policy */
static void
parse_values(TopicConfig *config)
{
	int64		v;

	config->retention_ms = -1;
	config->retention_bytes = -1;
	config->segment_bytes = -1;
	config->segment_ms = -1;
	config->max_message_bytes = -1;
	config->min_insync_replicas = -1;
	config->delete = true;
	config->compact = false;
	if (config->values[TOPIC_CONFIG_CLEANUP_POLICY] != NULL)
	{
		const char *policy = config->values[TOPIC_CONFIG_CLEANUP_POLICY];

		config->compact = strstr(policy, "compact") != NULL;
		config->delete = strstr(policy, "delete") != NULL;
	}
	config->delete_retention_ms = 86400000;
	config->min_compaction_lag_ms = 0;
	config->max_compaction_lag_ms = PG_INT64_MAX;
	config->min_cleanable_dirty_ratio = 0.5;
	if (config->values[TOPIC_CONFIG_MIN_CLEANABLE_DIRTY_RATIO] != NULL)
		config->min_cleanable_dirty_ratio =
			strtod(config->values[TOPIC_CONFIG_MIN_CLEANABLE_DIRTY_RATIO], NULL);
#define PARSE(key, field) \
	if (config->values[key] != NULL && parse_int64(config->values[key], &v)) \
		config->field = v
	PARSE(TOPIC_CONFIG_RETENTION_MS, retention_ms);
	PARSE(TOPIC_CONFIG_RETENTION_BYTES, retention_bytes);
	PARSE(TOPIC_CONFIG_SEGMENT_BYTES, segment_bytes);
	PARSE(TOPIC_CONFIG_SEGMENT_MS, segment_ms);
	PARSE(TOPIC_CONFIG_MAX_MESSAGE_BYTES, max_message_bytes);
	PARSE(TOPIC_CONFIG_MIN_INSYNC_REPLICAS, min_insync_replicas);
	PARSE(TOPIC_CONFIG_DELETE_RETENTION_MS, delete_retention_ms);
	PARSE(TOPIC_CONFIG_MIN_COMPACTION_LAG_MS, min_compaction_lag_ms);
	PARSE(TOPIC_CONFIG_MAX_COMPACTION_LAG_MS, max_compaction_lag_ms);
#undef PARSE
}

/*
 * Read what topic sets into config, its strings in the current memory
 * context.  Not read-only: create_topic reads the settings it has just
 * stored, which a new snapshot sees.  The configs column came with 0.3: to_jsonb of the row reads
 * it where it is, and nothing where a database's SQL is still older.
 */
void
topic_config_read(Oid topic, TopicConfig *config)
{
	TopicInternalSql internal;
	Oid			argtype = OIDOID;
	Datum		arg = ObjectIdGetDatum(topic);
	MemoryContext outer = CurrentMemoryContext;
	uint64		i;

	memset(config, 0, sizeof(TopicConfig));
	topic_internal_sql_begin(&internal);
	if (SPI_execute_with_args("SELECT (EXTRACT(epoch FROM c.retention) * 1000)::pg_catalog.int8::pg_catalog.text, "
							  "c.retention_bytes::pg_catalog.text, e.key, e.value "
							  "FROM topics.topic_config c "
							  "LEFT JOIN LATERAL pg_catalog.jsonb_each_text(pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->) 'configs') e ON true "
							  "WHERE c.topic OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, &argtype, &arg, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.topic_config");
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *retention = SPI_getvalue(tuple, desc, 1);
		char	   *retention_bytes = SPI_getvalue(tuple, desc, 2);
		char	   *key = SPI_getvalue(tuple, desc, 3);
		char	   *value = SPI_getvalue(tuple, desc, 4);
		MemoryContext old = MemoryContextSwitchTo(outer);
		int			k;

		config->found = true;
		if (retention != NULL)
			config->values[TOPIC_CONFIG_RETENTION_MS] = pstrdup(retention);
		if (retention_bytes != NULL)
			config->values[TOPIC_CONFIG_RETENTION_BYTES] = pstrdup(retention_bytes);
		/* retention.ms and retention.bytes live in their columns only */
		if (key != NULL && value != NULL &&
			(k = topic_config_key_lookup(key)) >= 0 &&
			k != TOPIC_CONFIG_RETENTION_MS && k != TOPIC_CONFIG_RETENTION_BYTES)
			config->values[k] = pstrdup(value);
		MemoryContextSwitchTo(old);
	}
	topic_internal_sql_end(&internal);
	parse_values(config);
}

/* Forget a cached config (a relation cache callback) */
static void
config_cache_callback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	CachedConfig *entry;

	if (config_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		entry = hash_search(config_cache, &relid, HASH_FIND, NULL);
		if (entry != NULL)
		{
			int			k;

			for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
				if (entry->config.values[k] != NULL)
					pfree(entry->config.values[k]);
			(void) hash_search(config_cache, &relid, HASH_REMOVE, NULL);
		}
		return;
	}
	hash_seq_init(&status, config_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		int			k;

		for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
			if (entry->config.values[k] != NULL)
				pfree(entry->config.values[k]);
		(void) hash_search(config_cache, &entry->topic, HASH_REMOVE, NULL);
	}
}

void
topic_config_init(void)
{
	CacheRegisterRelcacheCallback(config_cache_callback, (Datum) 0);
}

const TopicConfig *
topic_config_of(Oid topic)
{
	static TopicConfig none;
	CachedConfig *entry;
	TopicConfig config;
	bool		found;

	if (config_cache == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(Oid);
		info.entrysize = sizeof(CachedConfig);
		info.hcxt = CacheMemoryContext;
		config_cache = hash_create("pg_topics topic configs", 64, &info,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(config_cache, &topic, HASH_FIND, NULL);
	if (entry != NULL)
		return &entry->config;

	{
		MemoryContext old = MemoryContextSwitchTo(CacheMemoryContext);

		topic_config_read(topic, &config);
		MemoryContextSwitchTo(old);
	}
	if (!config.found)
	{
		/* not a topic yet, or any more, or its row not restored yet */
		memset(&none, 0, sizeof(none));
		parse_values(&none);
		return &none;
	}
	entry = hash_search(config_cache, &topic, HASH_ENTER, &found);
	entry->config = config;
	return &entry->config;
}

void
topic_config_invalidate(Oid topic)
{
	CacheInvalidateRelcacheByRelid(topic);
}

/*
 * Trigger on topics.topic_config, also in preserve mode (pg_restore): a
 * row written or deleted by any means invalidates its topic's cached
 * configs in every backend
 */
Datum
topic_config_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	bool		isnull;
	Datum		topic;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("topics.topic_config_changed() must run as an AFTER ROW trigger")));
	desc = RelationGetDescr(trigdata->tg_relation);
	topic = heap_getattr(trigdata->tg_trigtuple, 1, desc, &isnull);
	if (!isnull && SearchSysCacheExists1(RELOID, topic))
		CacheInvalidateRelcacheByRelid(DatumGetObjectId(topic));
	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		topic = heap_getattr(trigdata->tg_newtuple, 1, desc, &isnull);
		if (!isnull && SearchSysCacheExists1(RELOID, topic))
			CacheInvalidateRelcacheByRelid(DatumGetObjectId(topic));
	}
	return PointerGetDatum(NULL);
}

int64
topic_config_max_message_bytes(Oid topic, bool *from_topic)
{
	TopicProducerRules rules;

	topic_config_producer_rules(topic, &rules);
	*from_topic = rules.limit_from_topic;
	return rules.max_message_bytes;
}

void
topic_config_producer_rules(Oid topic, TopicProducerRules *rules)
{
	rules->max_message_bytes = pg_topics_max_message_bytes;
	rules->limit_from_topic = false;
	rules->needs_key = false;
	if (OidIsValid(topic))
	{
		const TopicConfig *config = topic_config_of(topic);

		if (config->max_message_bytes >= 0 &&
			config->max_message_bytes < rules->max_message_bytes)
		{
			rules->max_message_bytes = config->max_message_bytes;
			rules->limit_from_topic = true;
		}
		rules->needs_key = config->compact;
	}
}

int
topic_config_insync_standbys(Oid topic, bool *from_topic)
{
	*from_topic = false;
	if (OidIsValid(topic))
	{
		const TopicConfig *config = topic_config_of(topic);

		if (config->min_insync_replicas >= 1)
		{
			*from_topic = true;
			return (int) (config->min_insync_replicas - 1);
		}
	}
	return pg_topics_min_insync_replicas;
}

bool
topic_config_needs_key(Oid topic)
{
	return OidIsValid(topic) && topic_config_of(topic)->compact;
}

/*
 * segment.bytes in whole pages, at least 4 (a segment's metapage and
 * first pages) and at most what a segment can address; without it, a
 * quarter of retention.bytes, at most pg_topics.segment_size (0 here)
 */
uint32
topic_config_segment_blocks(const TopicConfig *config)
{
	if (config->segment_bytes > 0)
		return (uint32) Max(Min(config->segment_bytes / BLCKSZ,
								(int64) TOPIC_SEGMENT_MAX_ROLL_BLOCKS), 4);
	if (config->retention_bytes > 0)
		return (uint32) Max(Min(config->retention_bytes / 4 / BLCKSZ,
								(int64) pg_topics_segment_size), 4);
	return 0;
}

/*
 * segment.ms (none from TOPIC_CONFIG_MAX_MS on, longer than any
 * retention); without it, a quarter of retention.ms, or none
 */
int64
topic_config_segment_roll_usecs(const TopicConfig *config)
{
	if (config->segment_ms > 0)
		return config->segment_ms < TOPIC_CONFIG_MAX_MS ?
			config->segment_ms * 1000 : 0;
	if (config->retention_ms > 0)
		return config->retention_ms * 1000 / 4;
	return 0;
}

void
topic_config_describe(Oid topic, TopicConfigEntry *entries)
{
	const TopicConfig *config = topic_config_of(topic);
	int			k;

	for (k = 0; k < TOPIC_CONFIG_NKEYS; k++)
	{
		TopicConfigEntry *e = &entries[k];

		e->key = k;
		e->name = keys[k].name;
		e->type = keys[k].type;
		e->read_only = false;
		e->sensitive = false;
		if (config->values[k] != NULL)
		{
			e->value = pstrdup(config->values[k]);
			e->source = TOPIC_CONFIG_SOURCE_TOPIC;
			continue;
		}
		e->source = TOPIC_CONFIG_SOURCE_DEFAULT;
		switch ((TopicConfigKey) k)
		{
			case TOPIC_CONFIG_MAX_MESSAGE_BYTES:
				e->value = psprintf("%d", pg_topics_max_message_bytes);
				e->source = TOPIC_CONFIG_SOURCE_SERVER;
				break;
			case TOPIC_CONFIG_MIN_INSYNC_REPLICAS:
				e->value = psprintf("%d", pg_topics_min_insync_replicas + 1);
				e->source = TOPIC_CONFIG_SOURCE_SERVER;
				break;
			case TOPIC_CONFIG_SEGMENT_BYTES:
				{
					uint32		blocks = topic_config_segment_blocks(config);

					/* from retention.bytes, or pg_topics.segment_size */
					if (blocks == 0)
					{
						blocks = (uint32) pg_topics_segment_size;
						e->source = TOPIC_CONFIG_SOURCE_SERVER;
					}
					e->value = psprintf(INT64_FORMAT, (int64) blocks * BLCKSZ);
					break;
				}
			case TOPIC_CONFIG_SEGMENT_MS:
				{
					int64		usecs = topic_config_segment_roll_usecs(config);

					e->value = usecs > 0 ? psprintf(INT64_FORMAT, usecs / 1000) :
						pstrdup(KAFKA_LONG_MAX);
					break;
				}
			default:
				e->value = pstrdup(keys[k].default_value);
				break;
		}
	}
}
