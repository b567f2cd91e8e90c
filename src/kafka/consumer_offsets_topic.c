/*-------------------------------------------------------------------------
 *
 * consumer_offsets_topic.c
 *	  Kafka's __consumer_offsets topic, read-only, in Kafka's own record
 *	  format: what lag monitors (Burrow) read to follow every group.
 *
 * Group positions are records of the internal log topics.consumer_offsets
 * (group_state.c), one per commit, whoever commits (SQL poll, commit,
 * seek, a Kafka OffsetCommit).  __consumer_offsets is that log, as one
 * partition (0) whose offsets are the log's own: ListOffsets answers its
 * log start and last stable offset, Fetch reads it by the stable-read
 * rule of every topic, and each record is converted on the way out into
 * an offset commit record of Kafka's GroupMetadataManager:
 *
 *	key	  version 1: group (string), topic (string), partition (int32)
 *	value version 1: offset (int64), metadata (string),
 *					 commit_timestamp (int64), expire_timestamp (int64, -1)
 *
 * Version 1 of the value, not Kafka 2.1's version 3 (with a leader epoch),
 * since every reader takes it: Kafka's own, and Burrow (Debian's 1.2.1
 * decodes value versions 0 and 1 only).  A committed offset is written as
 * it was committed, a negative one too, as Kafka writes it.  A cleared
 * position (OffsetDelete, a deleted group, a dropped or renamed topic) is
 * a tombstone: a null value.
 * The commit timestamp is the record's log-append time.  No group
 * metadata records (key version 2) are written: a group's members are in
 * DescribeGroups.
 *
 * Offsets are stable.  Compaction (worker/compaction.c) copies the latest
 * record of each key forward to the end of the log, at new offsets, and
 * then moves the log start; so a reader sees positions only move forward,
 * never loops, and never misses a commit made after it started: what lay
 * below the new log start is also past it, as a copy.  A reader left
 * below the log start gets OFFSET_OUT_OF_RANGE and starts again from the
 * earliest offset, as with Kafka's compacted topic.
 *
 * Who sees what: a record is shown only if its topic is a topic of
 * pg_topics.kafka_schema with a Kafka name, and the role may see it in
 * topics.consumer_lag (SELECT on the topic, or pg_monitor); the others are
 * left out, as a compacted topic's records are (the batch spans their
 * offsets).  Every role may read the topic by name; it is listed among
 * all topics only to roles that see every group (superusers and pg_monitor
 * members), with is_internal set.  Producing to it is INVALID_TOPIC_EXCEPTION
 * ("cannot append to internal topic", as Kafka answers) and deleting it
 * TOPIC_AUTHORIZATION_FAILED.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/varlena.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/api/groups.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/consumer_offsets_topic.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/message_set.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/record_batch.h"

/* Kafka's versions of the offset commit records written */
#define OFFSET_KEY_VERSION		1
#define OFFSET_VALUE_VERSION	1

/* a read collects at most this many records of the log at a time */
#define MAX_COLLECTED			4096

/* Is name Kafka's __consumer_offsets? */
bool
kafka_is_offsets_topic(KafkaBytes name)
{
	return name.len == (int) strlen(TOPIC_KAFKA_OFFSETS_TOPIC) &&
		memcmp(name.data, TOPIC_KAFKA_OFFSETS_TOPIC, name.len) == 0;
}

/* Is the topic listed to this role among all topics (see above)? */
bool
kafka_offsets_topic_listed(void)
{
	return has_privs_of_role(GetUserId(), ROLE_PG_MONITOR);
}

/* A record of the log, copied out of its page */
typedef struct LogRecord
{
	int64		offset;
	TimestampTz timestamp;
	struct varlena *key;
	struct varlena *value;		/* NULL: a tombstone */
} LogRecord;

/* What one read collects */
typedef struct Collected
{
	LogRecord  *records;
	int			n;
	Size		bytes;
	Size		budget;
} Collected;

static struct varlena *
copy_varlena(Pointer field)
{
	struct varlena *copy;

	if (field == NULL)
		return NULL;
	copy = palloc(VARSIZE_ANY(field));
	memcpy(copy, field, VARSIZE_ANY(field));
	return copy;
}

/*
 * The read's sink: copy the record out (its fields may be TOAST pointers,
 * fetched after the read lets its buffer go)
 */
static void
collect_sink(TopicStableRead *read, Relation seg, Buffer buffer,
			 int32 partition, TopicRecord *rec)
{
	Collected  *c = (Collected *) read->sink_arg;
	LogRecord  *r = &c->records[c->n++];

	r->offset = rec->offset;
	r->timestamp = rec->timestamp;
	r->key = copy_varlena(rec->key);
	r->value = copy_varlena(rec->value);
	c->bytes += (r->key ? VARSIZE_ANY(r->key) : 0) +
		(r->value ? VARSIZE_ANY(r->value) : 0);
	if (c->n >= MAX_COLLECTED || c->bytes >= c->budget)
		read->max_records = read->returned + 1;
}

/* A string field of a jsonb object, or NULL */
static char *
jsonb_string(Jsonb *j, const char *field)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&j->root, field,
												 strlen(field), NULL);

	if (v == NULL || v->type != jbvString)
		return NULL;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* A numeric field of a jsonb object as an int64; false if it has none */
static bool
jsonb_int64(Jsonb *j, const char *field, int64 *result)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&j->root, field,
												 strlen(field), NULL);

	if (v == NULL || v->type != jbvNumeric)
		return false;
	*result = DatumGetInt64(DirectFunctionCall1(numeric_int8,
												NumericGetDatum(v->val.numeric)));
	return true;
}

/* Resolved topics: a key's schema-qualified name, and its Kafka name */
typedef struct TopicNameEntry
{
	char		qualified[2 * (2 * NAMEDATALEN + 2) + 2];
	char	   *kafka_name;		/* NULL: not shown to this role */
} TopicNameEntry;

/*
 * The Kafka name of the topic a position's key names (schema-qualified,
 * quoted), if this role may see its positions; else NULL
 */
static char *
shown_topic(HTAB *names, const char *qualified)
{
	TopicNameEntry *e;
	bool		found;
	Oid			relid;
	Oid			nspid;

	if (strlen(qualified) >= sizeof(e->qualified))
		return NULL;
	e = hash_search(names, qualified, HASH_ENTER, &found);
	if (found)
		return e->kafka_name;
	e->kafka_name = NULL;
	relid = RangeVarGetRelid(makeRangeVarFromNameList(textToQualifiedNameList(cstring_to_text(qualified))),
							 NoLock, true);
	nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	if (OidIsValid(relid) && OidIsValid(nspid) &&
		get_rel_namespace(relid) == nspid &&
		topic_is_topic_parent_oid(relid) && topic_may_describe(relid))
		e->kafka_name = topic_kafka_name(relid);
	return e->kafka_name;
}

/* Append a Kafka string (int16 length, bytes) */
static void
put_string_len(StringInfo buf, const char *s, int len)
{
	uint16		n = pg_hton16((uint16) (s ? len : -1));

	appendBinaryStringInfo(buf, (char *) &n, 2);
	if (s)
		appendBinaryStringInfo(buf, s, len);
}

static void
put_string(StringInfo buf, const char *s)
{
	put_string_len(buf, s, s ? strlen(s) : 0);
}

static void
put_int16(StringInfo buf, int16 v)
{
	uint16		n = pg_hton16((uint16) v);

	appendBinaryStringInfo(buf, (char *) &n, 2);
}

static void
put_int32(StringInfo buf, int32 v)
{
	uint32		n = pg_hton32((uint32) v);

	appendBinaryStringInfo(buf, (char *) &n, 4);
}

static void
put_int64(StringInfo buf, int64 v)
{
	uint64		n = pg_hton64((uint64) v);

	appendBinaryStringInfo(buf, (char *) &n, 8);
}

/*
 * A log record as an offset commit record: key and value (value->len -1
 * for a tombstone); false if it is not shown
 */
static bool
convert_record(HTAB *names, LogRecord *r, StringInfo key, StringInfo value,
			   KafkaBytes *kb, KafkaBytes *vb)
{
	Jsonb	   *k;
	char	   *group;
	char	   *qualified;
	char	   *topic;
	int64		partition;

	if (r->key == NULL)
		return false;
	k = (Jsonb *) detoast_attr(r->key);
	group = jsonb_string(k, "group");
	qualified = jsonb_string(k, "topic");
	if (group == NULL || qualified == NULL ||
		!jsonb_int64(k, "partition", &partition) ||
		(topic = shown_topic(names, qualified)) == NULL)
		return false;

	resetStringInfo(key);
	put_int16(key, OFFSET_KEY_VERSION);
	put_string(key, group);
	put_string(key, topic);
	put_int32(key, (int32) partition);
	kb->data = key->data;
	kb->len = key->len;

	resetStringInfo(value);
	vb->data = NULL;
	vb->len = -1;
	if (r->value != NULL)
	{
		Jsonb	   *v = (Jsonb *) detoast_attr(r->value);
		int64		offset;
		bytea	   *metadata = topic_groups_record_metadata(v);

		if (!jsonb_int64(v, "offset", &offset))
			return false;
		put_int16(value, OFFSET_VALUE_VERSION);
		put_int64(value, offset);
		if (metadata != NULL)
			put_string_len(value, VARDATA_ANY(metadata),
						   VARSIZE_ANY_EXHDR(metadata));
		else
			put_string(value, "");
		put_int64(value, kafka_timestamp_ms(r->timestamp));
		put_int64(value, -1);	/* expire_timestamp: none */
		vb->data = value->data;
		vb->len = value->len;
	}
	return true;
}

/*
 * Where __consumer_offsets' one partition starts and how far it can be
 * read: false, and those bounds, if fetch_offset is outside them.  A
 * parked request is woken by the log's commits.
 */
bool
kafka_offsets_topic_check_offset(KafkaRequest *req, int64 fetch_offset,
								 int64 *log_start, int64 *last_stable)
{
	Oid			logid = topic_offsets_log_relid();
	Relation	log = table_open(logid, AccessShareLock);
	TopicLogEnd end;
	TopicPartitionBounds bounds;
	bool		in_range;

	kafka_watch_partition(req->watch, logid);
	topic_log_end(log, &end);
	in_range = fetch_offset >= end.log_start_offset &&
		fetch_offset <= end.next_offset;
	topic_partition_bounds(log, logid, &bounds);
	*log_start = in_range ? end.log_start_offset : bounds.log_start;
	*last_stable = bounds.last_stable;
	table_close(log, AccessShareLock);
	return in_range;
}

/*
 * Append __consumer_offsets' records from fetch_offset to out, as one
 * record batch (magic 2) or as messages of magic 0 or 1 (Fetch v0-3),
 * within budget bytes (unless min_one: its first record whatever its
 * size), as fetch.c reads a topic's partition, with the records converted;
 * *last_stable is the offset the consumer may read up to.  An offset
 * outside the log (compacted since kafka_offsets_topic_check_offset)
 * appends nothing.
 */
void
kafka_offsets_topic_read(StringInfo out, int magic, int64 fetch_offset,
						 Size budget, bool min_one, int64 *last_stable)
{
	Oid			logid = topic_offsets_log_relid();
	Relation	log;
	TopicLogEnd end;
	TopicPartitionBounds bounds;
	TopicStableRead read;
	Collected	c;
	KafkaBatchWriter writer;
	StringInfoData key;
	StringInfoData value;
	HASHCTL		ctl;
	HTAB	   *names;
	bool		started = false;
	bool		full = false;
	int64		stopped_at = -1;
	int64		last;
	Size		used = 0;
	int			records_at = out->len;
	Size		smallest = magic == 2 ? KAFKA_BATCH_HEADER_SIZE :
		KAFKA_MESSAGE_LOG_OVERHEAD + KAFKA_MESSAGE_V0_OVERHEAD;

	log = table_open(logid, AccessShareLock);
	topic_log_end(log, &end);
	if (fetch_offset < end.log_start_offset || fetch_offset > end.next_offset)
	{
		topic_partition_bounds(log, logid, &bounds);
		*last_stable = bounds.last_stable;
		table_close(log, AccessShareLock);
		return;
	}

	/* collect, then convert: resolving topics must not hold a page locked */
	memset(&c, 0, sizeof(c));
	c.records = palloc(sizeof(LogRecord) * MAX_COLLECTED);
	c.budget = Max(budget, 1024);
	memset(&read, 0, sizeof(read));
	read.sink = collect_sink;
	read.sink_arg = &c;
	read.max_records = MAX_COLLECTED;
	if (min_one || budget >= smallest)
		topic_read_partition(log, 0, fetch_offset, &end, &read);
	else
		read.position = fetch_offset;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(((TopicNameEntry *) NULL)->qualified);
	ctl.entrysize = sizeof(TopicNameEntry);
	ctl.hcxt = CurrentMemoryContext;
	names = hash_create("__consumer_offsets topics", 64, &ctl,
						HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	initStringInfo(&key);
	initStringInfo(&value);
	memset(&writer, 0, sizeof(writer));
	writer.buf = out;
	for (int i = 0; i < c.n && !full; i++)
	{
		LogRecord  *r = &c.records[i];
		KafkaBytes	kb;
		KafkaBytes	vb;
		int64		ts = kafka_timestamp_ms(r->timestamp);
		Size		size;

		if (!convert_record(names, r, &key, &value, &kb, &vb))
			continue;
		if (magic < 2)
			size = kafka_message_size(magic, kb, vb);
		else
		{
			if (!started)
			{
				kafka_batch_begin(&writer, out, fetch_offset, ts);
				started = true;
				used = KAFKA_BATCH_HEADER_SIZE;
			}
			size = kafka_batch_record_size(&writer, r->offset, ts, kb, vb,
										   NULL, 0);
		}
		/* past the budget: not this one, unless it is the answer's first */
		if ((writer.nrecords > 0 || !min_one) && used + size > budget)
		{
			full = true;
			stopped_at = r->offset;
			break;
		}
		if (magic < 2)
		{
			kafka_message_append(out, magic, r->offset, ts, kb, vb);
			writer.nrecords++;
		}
		else
			kafka_batch_add(&writer, r->offset, ts, kb, vb, NULL, 0);
		used += size;
	}
	hash_destroy(names);

	/*
	 * where the consumer goes on: before a record that did not fit, or
	 * where the reader stopped (past records not shown and gaps); the old
	 * formats cannot step over offsets
	 */
	last = (full ? stopped_at : read.position) - 1;
	if (magic < 2)
	{
		/* the messages are written */
	}
	else if (started && writer.nrecords > 0)
	{
		writer.last_offset = Max(writer.last_offset, last);
		kafka_batch_finish(&writer);
	}
	else
	{
		out->len = records_at;
		if (last >= fetch_offset &&
			(min_one || budget >= KAFKA_BATCH_HEADER_SIZE))
			kafka_write_gap_batch(out, fetch_offset, last,
								  kafka_timestamp_ms(end.max_timestamp));
	}

	/*
	 * The log is read committed whatever the isolation asked: its last
	 * stable offset is its high watermark too (what can be read)
	 */
	topic_partition_bounds(log, logid, &bounds);
	*last_stable = Max(bounds.last_stable, last + 1);
	table_close(log, AccessShareLock);
}

