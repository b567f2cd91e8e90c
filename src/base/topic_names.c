/*-------------------------------------------------------------------------
 *
 * topic_names.c
 *	  Kafka topic names and the tables they name: the one place where a
 *	  name a Kafka client sends becomes a topic, and a topic a name.
 *
 * A Kafka topic is a topic table of pg_topics.kafka_schema.  A Kafka name
 * has up to 249 characters of [A-Za-z0-9._-], a table name at most
 * NAMEDATALEN - 1 (63) bytes.  A name that fits is the table's own name,
 * exactly as written (case and dots kept, as a quoted identifier).  A
 * longer name is mapped: its table is named by the first 46 bytes of the
 * Kafka name, '_' and 16 hex digits of the SHA-256 of the whole name (63
 * bytes, so unique in practice and still readable), and the Kafka name is
 * kept in topics.kafka_topic_names (topic regclass, kafka_name text),
 * which pg_dump carries and the sql_drop event trigger
 * topics.forget_dropped_kafka_names empties of dropped topics.
 *
 * A row holds while its table keeps the name derived from its Kafka name.
 * Renaming the table ends it: the topic's Kafka name is then its new table
 * name, as for every other topic (renaming it back brings the long name
 * back); creating the long name again replaces the stale row.  A mapped
 * table's own 63-byte name is not a Kafka name, so that no topic answers
 * to two names (and two sets of group positions).
 *
 * Kafka's internal topics' names are no table's: __consumer_offsets is
 * served from topics.consumer_offsets, __transaction_state is not served.
 *
 * The catalog is read (by index, not SQL) only for names that can be mapped (longer than 63
 * bytes) or tables whose name has exactly 63 bytes, so other topics cost
 * nothing more than before.  A database whose extension SQL predates the
 * catalog (0.2, until ALTER EXTENSION UPDATE) has no mapped names.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "common/cryptohash.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/varlena.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"

/* how many bytes of a long Kafka name its table name keeps */
#define MAPPED_PREFIX_LEN	(NAMEDATALEN - 1 - 1 - 16)

/*
 * Is name a legal Kafka topic name: 1 to 249 of [A-Za-z0-9._-], not "."
 * or ".." (Kafka's Topic.validate)
 */
bool
topic_kafka_name_legal(const char *name, int len)
{
	if (name == NULL || len <= 0 || len > TOPIC_KAFKA_NAME_MAX)
		return false;
	if ((len == 1 && name[0] == '.') ||
		(len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	for (int i = 0; i < len; i++)
	{
		char		c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* Is name one of Kafka's internal topics, which no table can be? */
bool
topic_kafka_name_reserved(const char *name, int len)
{
	return (len == strlen(TOPIC_KAFKA_OFFSETS_TOPIC) &&
			memcmp(name, TOPIC_KAFKA_OFFSETS_TOPIC, len) == 0) ||
		(len == strlen("__transaction_state") &&
		 memcmp(name, "__transaction_state", len) == 0);
}

/*
 * The name of the table of Kafka topic name (len bytes, legal): the name
 * itself if it fits a table name, else its mapped form (see above)
 */
char *
topic_kafka_table_name(const char *name, int len)
{
	pg_cryptohash_ctx *ctx;
	uint8		digest[PG_SHA256_DIGEST_LENGTH];
	char	   *result;

	if (len < NAMEDATALEN)
		return pnstrdup(name, len);
	ctx = pg_cryptohash_create(PG_SHA256);
	if (pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) name, len) < 0 ||
		pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		elog(ERROR, "could not compute the SHA-256 of a topic name");
	pg_cryptohash_free(ctx);
	result = palloc(NAMEDATALEN);
	memcpy(result, name, MAPPED_PREFIX_LEN);
	result[MAPPED_PREFIX_LEN] = '_';
	for (int i = 0; i < 8; i++)
		snprintf(result + MAPPED_PREFIX_LEN + 1 + 2 * i, 3, "%02x", digest[i]);
	Assert(strlen(result) == NAMEDATALEN - 1);
	return result;
}

/*
 * The OID of relation relname of schema topics (the catalog of mapped
 * names and its indexes), or InvalidOid if the extension's SQL predates it
 */
static Oid
catalog_relid(const char *relname)
{
	Oid			nspid = get_namespace_oid("topics", true);

	return OidIsValid(nspid) ? get_relname_relid(relname, nspid) : InvalidOid;
}

/* Does this database have the catalog of mapped names? */
static bool
have_name_catalog(void)
{
	return OidIsValid(catalog_relid("kafka_topic_names"));
}

/*
 * The row of topics.kafka_topic_names whose column attnum (of the table,
 * as systable_beginscan takes it) equals value
 * (by the unique index named index, with equality procedure eqproc): its
 * topic and (palloc'd) Kafka name; false if there is none.  An index scan
 * rather than SQL: Kafka requests resolve names all the time.
 */
static bool
read_name_row(const char *index, AttrNumber attnum, RegProcedure eqproc,
			  Datum value, Oid *topic, char **kafka_name)
{
	Oid			relid = catalog_relid("kafka_topic_names");
	Oid			indexid = catalog_relid(index);
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tuple;
	Snapshot	snapshot;
	bool		found = false;

	if (!OidIsValid(relid) || !OidIsValid(indexid))
		return false;
	rel = table_open(relid, AccessShareLock);
	/* the latest committed names, as the catalogs they go with */
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&key, attnum, BTEqualStrategyNumber, eqproc, value);
	scan = systable_beginscan(rel, indexid, true, snapshot, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		d;

		d = heap_getattr(tuple, 1, RelationGetDescr(rel), &isnull);
		*topic = isnull ? InvalidOid : DatumGetObjectId(d);
		d = heap_getattr(tuple, 2, RelationGetDescr(rel), &isnull);
		*kafka_name = isnull ? NULL : TextDatumGetCString(d);
		found = !isnull;
	}
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * The long Kafka name recorded for relid whose row still holds (its table
 * has the name derived from it), or NULL
 */
static char *
mapped_name(Oid relid)
{
	char	   *relname = get_rel_name(relid);
	char	   *name;
	Oid			topic;

	if (relname == NULL || strlen(relname) != NAMEDATALEN - 1 ||
		!read_name_row("kafka_topic_names_pkey", 1, F_OIDEQ,
					   ObjectIdGetDatum(relid), &topic, &name))
		return NULL;
	return strcmp(topic_kafka_table_name(name, strlen(name)), relname) == 0 ?
		name : NULL;
}

/*
 * The topic of pg_topics.kafka_schema that Kafka name (len bytes) names,
 * or InvalidOid: the table of that name, unless it is a mapped topic's, or
 * the mapped topic a longer name is recorded for.  It takes no lock: the
 * caller locks what it uses and looks again, as RangeVarGetRelidExtended
 * does.  Every Kafka API and the views of Kafka members resolve names
 * here.
 */
Oid
topic_kafka_lookup(const char *name, int len)
{
	char	   *table;
	char	   *recorded;
	Oid			relid;

	if (!topic_kafka_name_legal(name, len) ||
		topic_kafka_name_reserved(name, len))
		return InvalidOid;
	table = topic_kafka_table_name(name, len);
	if (len < NAMEDATALEN)
	{
		relid = topic_lookup_in_schema(pg_topics_kafka_schema, table);
		/* a mapped topic answers to its long name only */
		if (OidIsValid(relid) && len == NAMEDATALEN - 1 &&
			mapped_name(relid) != NULL)
			return InvalidOid;
		return relid;
	}
	if (!read_name_row("kafka_topic_names_kafka_name_key", 2, F_TEXTEQ,
					   PointerGetDatum(cstring_to_text_with_len(name, len)),
					   &relid, &recorded))
		return InvalidOid;
	/* the row holds while the table has the name derived from it */
	return topic_lookup_in_schema(pg_topics_kafka_schema, table) == relid ?
		relid : InvalidOid;
}

/*
 * Does open relation rel, found by topic_kafka_lookup(name, len) and
 * locked since, still answer to that Kafka name (not dropped, renamed,
 * moved or remapped meanwhile)?  Cheaper than looking it up again: the
 * catalog of mapped names is read only where lookup read it.  Whether
 * rel is a topic is the caller's to check.
 */
bool
topic_kafka_name_still(Relation rel, const char *name, int len)
{
	char	   *table = topic_kafka_table_name(name, len);
	char	   *mapped;

	if (strcmp(RelationGetRelationName(rel), table) != 0 ||
		RelationGetNamespace(rel) != get_namespace_oid(pg_topics_kafka_schema, true))
		return false;
	if (len < NAMEDATALEN - 1)
		return true;
	mapped = mapped_name(RelationGetRelid(rel));
	if (len == NAMEDATALEN - 1)
		return mapped == NULL;
	return mapped != NULL && (int) strlen(mapped) == len &&
		memcmp(mapped, name, len) == 0;
}

/*
 * The Kafka name of topic relid (palloc'd): its long name if it is a
 * mapped topic, else its table name if that is a legal Kafka name that
 * is not reserved, else NULL (no Kafka client can name it).  Whether it is in
 * pg_topics.kafka_schema is the caller's to check.
 */
char *
topic_kafka_name(Oid relid)
{
	char	   *relname = get_rel_name(relid);
	char	   *name;

	if (relname == NULL)
		return NULL;
	name = mapped_name(relid);
	if (name != NULL)
		return name;
	return topic_kafka_name_legal(relname, strlen(relname)) &&
		!topic_kafka_name_reserved(relname, strlen(relname)) ? relname : NULL;
}

/*
 * The last component of a qualified name that textToQualifiedNameList has
 * accepted, downcased unless quoted, and not truncated
 */
static char *
last_component(const char *s)
{
	char	   *last = NULL;

	for (;;)
	{
		StringInfoData part;

		while (scanner_isspace(*s))
			s++;
		initStringInfo(&part);
		if (*s == '"')
		{
			for (s++; *s != '\0'; s++)
			{
				if (*s == '"')
				{
					if (s[1] != '"')
						break;
					s++;
				}
				appendStringInfoChar(&part, *s);
			}
			if (*s == '"')
				s++;
		}
		else
		{
			const char *start = s;

			while (*s != '\0' && *s != '.' && !scanner_isspace(*s))
				s++;
			appendStringInfoString(&part,
								   downcase_identifier(start, s - start,
													   false, false));
		}
		last = part.data;
		while (scanner_isspace(*s))
			s++;
		if (*s != '.')
			return last;
		s++;
	}
}

/*
 * The relation a new topic named name (text, parsed like a relation name)
 * is, and in *kafka_name the long Kafka name it is mapped from, or NULL.
 * A name longer than a table name is never truncated, as PostgreSQL does
 * with identifiers: it is mapped if it is a legal Kafka name, and refused
 * otherwise.
 */
RangeVar *
topic_parse_creation_name(text *name, char **kafka_name)
{
	RangeVar   *rv = makeRangeVarFromNameList(textToQualifiedNameList(name));
	char	   *last = last_component(text_to_cstring(name));
	int			len = strlen(last);

	*kafka_name = NULL;
	if (len < NAMEDATALEN)
		return rv;
	if (!topic_kafka_name_legal(last, len))
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("topic name \"%s\" is too long", last),
				 errdetail("A table name has at most %d bytes. A longer topic name is kept as a Kafka topic name, which has at most %d characters of [A-Za-z0-9._-], and its table gets a shortened name.",
						   NAMEDATALEN - 1, TOPIC_KAFKA_NAME_MAX)));
	if (!have_name_catalog())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("topic names over %d bytes need release 0.3 of the extension's SQL",
						NAMEDATALEN - 1),
				 errhint("Run ALTER EXTENSION pg_topics UPDATE.")));
	rv->relname = topic_kafka_table_name(last, len);
	*kafka_name = last;
	return rv;
}

/*
 * Record the long Kafka name of topic relid, just created with the table
 * name derived from it; a stale row of the same name (its topic renamed)
 * goes
 */
void
topic_kafka_name_record(Oid relid, const char *kafka_name)
{
	Oid			argtypes[2] = {TEXTOID, REGCLASSOID};
	Datum		args[2] = {CStringGetTextDatum(kafka_name), ObjectIdGetDatum(relid)};
	int			rc;

	rc = topic_internal_sql_exec("DELETE FROM topics.kafka_topic_names "
								 "WHERE kafka_name OPERATOR(pg_catalog.=) $1",
								 1, argtypes, args, NULL, false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "could not update topics.kafka_topic_names: %s",
			 SPI_result_code_string(rc));
	rc = topic_internal_sql_exec("INSERT INTO topics.kafka_topic_names (kafka_name, topic) "
								 "VALUES ($1, $2)",
								 2, argtypes, args, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not record a Kafka topic name: %s",
			 SPI_result_code_string(rc));
}
