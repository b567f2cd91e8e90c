/*-------------------------------------------------------------------------
 *
 * partitioner.c
 *	  Which partition a record goes to: Kafka's default partitioner.
 *
 * Same key, same partition, on every produce path and byte-exact with
 * Kafka's Java client: murmur2 with seed 0x9747b28c over the key's bytes,
 * then (h & 0x7fffffff) % partitions.  The key's bytes are its raw bytes
 * for bytea, its UTF-8 encoding for text (whatever the database encoding,
 * so that a Java producer's String key lands in the same place), and its
 * canonical text for jsonb.  An empty key is a key; only NULL is keyless.
 *
 * Keyless records stick to one partition per call and rotate between
 * calls, like Kafka's sticky partitioner: one call fills one batch.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "pg_topics/base/partitioner.h"

PG_FUNCTION_INFO_V1(topic_murmur2_sql);

/* Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2) */
static uint32
topic_murmur2(const unsigned char *data, int length)
{
	const uint32 m = 0x5bd1e995;
	const int	r = 24;
	uint32		h = 0x9747b28c ^ (uint32) length;
	int			length4 = length / 4;
	int			i;

	for (i = 0; i < length4; i++)
	{
		const unsigned char *p = data + i * 4;
		uint32		k = (uint32) p[0] | ((uint32) p[1] << 8) |
			((uint32) p[2] << 16) | ((uint32) p[3] << 24);

		k *= m;
		k ^= k >> r;
		k *= m;
		h *= m;
		h ^= k;
	}

	switch (length % 4)
	{
		case 3:
			h ^= (uint32) data[(length & ~3) + 2] << 16;
			/* FALLTHROUGH */
		case 2:
			h ^= (uint32) data[(length & ~3) + 1] << 8;
			/* FALLTHROUGH */
		case 1:
			h ^= (uint32) data[length & ~3];
			h *= m;
	}

	h ^= h >> 13;
	h *= m;
	h ^= h >> 15;
	return h;
}

/* The bytes Kafka would hash for key, of type typid */
static void
key_bytes(Datum key, Oid typid, const unsigned char **data, int *len)
{
	switch (typid)
	{
		case BYTEAOID:
			{
				bytea	   *b = DatumGetByteaPP(key);

				*data = (const unsigned char *) VARDATA_ANY(b);
				*len = VARSIZE_ANY_EXHDR(b);
				break;
			}
		case TEXTOID:
			{
				text	   *t = DatumGetTextPP(key);
				const char *s = VARDATA_ANY(t);
				int			n = VARSIZE_ANY_EXHDR(t);
				char	   *utf8 = pg_server_to_any(s, n, PG_UTF8);

				*data = (const unsigned char *) utf8;
				*len = (utf8 == s) ? n : strlen(utf8);
				break;
			}
		case JSONBOID:
			{
				Jsonb	   *j = DatumGetJsonbP(key);
				char	   *s = JsonbToCString(NULL, &j->root, VARSIZE(j));
				int			n = strlen(s);
				char	   *utf8 = pg_server_to_any(s, n, PG_UTF8);

				*data = (const unsigned char *) utf8;
				*len = (utf8 == s) ? n : strlen(utf8);
				break;
			}
		default:
			elog(ERROR, "unsupported topic key type %u", typid);
	}
}

/* Partition of a non-NULL key among nparts partitions */
static int32
partition_for_key(Datum key, Oid typid, int32 nparts)
{
	const unsigned char *data;
	int			len;

	key_bytes(key, typid, &data, &len);
	return (int32) ((topic_murmur2(data, len) & 0x7fffffff) % (uint32) nparts);
}

/*
 * Partition for the keyless records of the current statement to topic
 * relid: the same for every record of one statement, the next one for the
 * next statement that produces keyless records to the same topic.
 */
static int32
partition_sticky(Oid relid, int32 nparts)
{
	static Oid	last_relid = InvalidOid;
	static TimestampTz last_statement = 0;
	static CommandId last_command = InvalidCommandId;
	static uint32 counter = 0;
	static int32 current = 0;
	TimestampTz statement = GetCurrentStatementStartTimestamp();
	CommandId	command = GetCurrentCommandId(false);

	if (relid != last_relid || statement != last_statement ||
		command != last_command)
	{
		/* start each backend somewhere else, then rotate */
		if (counter == 0)
			counter = (uint32) MyProcPid;
		counter++;
		current = (int32) (counter % (uint32) nparts);
		last_relid = relid;
		last_statement = statement;
		last_command = command;
	}
	return current % nparts;
}

/*
 * Start a call that routes records to topic relid, whose key is of type
 * key_type and which has nparts partitions.  One call (a produce, a
 * produce_batch, a COPY, one row of partition_for_insert) puts all its
 * keyless records in one partition.
 */
void
topic_partitioner_init(TopicPartitioner *part, Oid relid, Oid key_type,
					   int32 nparts)
{
	part->relid = relid;
	part->key_type = key_type;
	part->nparts = nparts;
	part->sticky = -1;
}

/*
 * The partition of a record with this key (key_null: keyless) in the call
 * part was started for: murmur2 of the key's bytes, or the call's sticky
 * partition.
 */
int32
topic_partition_choose(TopicPartitioner *part, Datum key, bool key_null)
{
	if (!key_null)
		return partition_for_key(key, part->key_type, part->nparts);
	if (part->sticky < 0)
		part->sticky = partition_sticky(part->relid, part->nparts);
	return part->sticky;
}

/* topics.murmur2(bytea) RETURNS int: Kafka's hash, for checking keys */
Datum
topic_murmur2_sql(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_INT32((int32) topic_murmur2((const unsigned char *) VARDATA_ANY(b),
										  VARSIZE_ANY_EXHDR(b)));
}
