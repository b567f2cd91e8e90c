/*-------------------------------------------------------------------------
 *
 * fetch.c
 *	  Fetch (v4-11): records from topics as Kafka record batches.
 *
 * Each partition is read by the stable-read rule of topics.fetch (the
 * same reader: read/stable_read.c), so a consumer never gets a record of a
 * transaction that has not committed or whose commit is not durable, and
 * never skips one; read_committed and read_uncommitted alike.  The
 * records of a partition go out as one RecordBatch v2 encoded from the
 * log as the reader hands them over, starting at the fetch offset.
 * Offsets no record holds (rolled back) are stepped over the way Kafka
 * clients step over compacted records: the batch's base offset is the
 * fetch offset and its last offset delta reaches where the reader stopped,
 * whatever records lie in between; a read that found only rolled-back
 * offsets answers a batch without records spanning them.  Without that a
 * consumer below an aborted tail would never reach the end (kcat -e
 * would never exit).
 *
 * The last stable offset answered is the reader's (it is never below
 * where the reader stopped).  A read_uncommitted consumer is told the
 * same as its high watermark: it cannot read further either, and its end
 * of partition is where it stops.
 *
 * The answer keeps within the request's max_bytes and each partition's
 * partition_max_bytes, as Kafka's does: records stop before the first
 * that would go over either, except that the first record of the first
 * partition that has one is answered whatever its size, so that a
 * consumer always gets on.  A client sizes its receive buffer from its
 * max_bytes (librdkafka drops a larger answer and fetches it again, for
 * ever), so no other record may go over.
 *
 * A fetch that finds fewer than min_bytes parks until a partition it reads
 * sees a commit, or max_wait_ms passes (the long-poll of topics.fetch,
 * without holding the process).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "replication/syncrep.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/consumer_offsets_topic.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/record_batch.h"
#include "pg_topics/wire/requests.h"

/* the most one response carries, whatever the client asks (Kafka's default) */
#define FETCH_MAX_RESPONSE_BYTES	(55 * 1024 * 1024)

/* Where a partition's records go as the reader hands them over */
typedef struct FetchSink
{
	KafkaBatchWriter writer;
	bool		started;		/* the batch is begun */
	int64		base_offset;	/* the fetch offset */
	Oid			key_type;
	Oid			value_type;
	Size		budget;			/* bytes this partition may add */
	bool		min_one;		/* its first record may go over the budget */
	Size		used;
	bool		full;			/* a record did not fit: stop before it */
	int64		stopped_at;
	/* a record with TOASTed fields: added after the read lets go */
	bool		deferred;
	TopicRecord pending;
	MemoryContext record_context;	/* one record's bytes */
	MemoryContext pending_context;	/* the deferred record */
} FetchSink;

/* Add one record (fields inline, or fetched) to the partition's batch */
static void
add_record(FetchSink *fs, TopicStableRead *read, const TopicRecord *rec)
{
	MemoryContext oldcontext = MemoryContextSwitchTo(fs->record_context);
	KafkaBytes	key = {NULL, -1};
	KafkaBytes	value = {NULL, -1};
	KafkaHeader *headers = NULL;
	int			nheaders = 0;
	int64		ts = kafka_timestamp_ms(rec->timestamp);
	Size		size;

	MemoryContextReset(fs->record_context);
	if (rec->key)
		key = kafka_datum_bytes(fs->key_type, (struct varlena *) rec->key);
	if (rec->value)
		value = kafka_datum_bytes(fs->value_type, (struct varlena *) rec->value);
	if (rec->headers)
		nheaders = kafka_stored_headers((struct varlena *) rec->headers, &headers);
	MemoryContextSwitchTo(oldcontext);

	if (!fs->started)
	{
		kafka_batch_begin(&fs->writer, fs->writer.buf, fs->base_offset, ts);
		fs->started = true;
		fs->used = KAFKA_BATCH_HEADER_SIZE;
	}
	size = kafka_batch_record_size(&fs->writer, rec->offset, ts, key, value,
								   headers, nheaders);
	/* past the budget: not this one, unless it is the answer's first */
	if ((fs->writer.nrecords > 0 || !fs->min_one) &&
		fs->used + size > fs->budget)
	{
		fs->full = true;
		fs->stopped_at = rec->offset;
		return;
	}
	kafka_batch_add(&fs->writer, rec->offset, ts, key, value, headers, nheaders);
	fs->used += size;
	if (fs->used >= fs->budget)
		read->max_records = read->returned + 1;
}

/* A copy of a stored field (inline, or a TOAST pointer), or NULL */
static Pointer
copy_field(Pointer field)
{
	Pointer		copy;

	if (field == NULL)
		return NULL;
	copy = palloc(VARSIZE_ANY(field));
	memcpy(copy, field, VARSIZE_ANY(field));
	return copy;
}

/*
 * The reader's sink: encode the record at once, or keep a record whose
 * fields are TOASTed for after the read (fetching them needs other
 * buffers than the share-locked one it lies in), stopping the read there.
 */
static void
fetch_sink(TopicStableRead *read, Relation seg, Buffer buffer, int32 partition,
		   TopicRecord *rec)
{
	FetchSink  *fs = (FetchSink *) read->sink_arg;

	if (fs->full)
		return;
	if ((rec->key && VARATT_IS_EXTERNAL_ONDISK(rec->key)) ||
		(rec->value && VARATT_IS_EXTERNAL_ONDISK(rec->value)) ||
		(rec->headers && VARATT_IS_EXTERNAL_ONDISK(rec->headers)))
	{
		MemoryContext oldcontext;

		MemoryContextReset(fs->pending_context);
		oldcontext = MemoryContextSwitchTo(fs->pending_context);
		fs->pending.offset = rec->offset;
		fs->pending.timestamp = rec->timestamp;
		fs->pending.key = copy_field(rec->key);
		fs->pending.value = copy_field(rec->value);
		fs->pending.headers = copy_field(rec->headers);
		MemoryContextSwitchTo(oldcontext);
		fs->deferred = true;
		read->max_records = read->returned + 1;
		return;
	}
	add_record(fs, read, rec);
	if (fs->full)
		read->max_records = read->returned + 1;
}

/* Overwrite the int64 written at out->data + at */
static void
patch_int64(StringInfo out, int at, int64 v)
{
	uint64		n = pg_hton64((uint64) v);

	memcpy(out->data + at, &n, 8);
}

/* Write a partition's entry with no records */
static void
write_empty_partition(StringInfo out, int16 api_version, int32 partition,
					  int16 error, int64 hw, int64 lso, int64 log_start)
{
	kafka_write_int32(out, partition);
	kafka_write_int16(out, error);
	kafka_write_int64(out, hw);
	kafka_write_int64(out, lso);
	if (api_version >= 5)
		kafka_write_int64(out, log_start);
	kafka_write_array_len(out, 0);	/* aborted_transactions: never shown */
	if (api_version >= 11)
		kafka_write_int32(out, -1); /* preferred_read_replica */
	kafka_write_bytes(out, NULL, 0);
}

/*
 * Read one partition from fetch_offset into its response entry, within
 * budget bytes (unless min_one: its first record whatever its size);
 * returns the bytes of records added
 */
static Size
fetch_partition(KafkaRequest *req, Relation topic, int32 partition,
				int64 fetch_offset, Size budget, bool min_one, int isolation)
{
	StringInfo	out = req->response;
	Relation	router;
	Oid			routerid;
	TopicPartitionBounds bounds;
	TopicLogEnd end;
	FetchSink	fs;
	TopicStableRead read;
	int64		position = fetch_offset;
	int64		last;
	int			records_at;
	int			bounds_at;
	MemoryContext oldcontext;
	int64		lso;
	int64		hw;
	int16		error;

	router = kafka_open_partition(topic, partition, &error);
	if (router == NULL)
	{
		write_empty_partition(out, req->api_version, partition, error,
							  -1, -1, -1);
		return 0;
	}
	routerid = RelationGetRelid(router);
	/* what a parked request waits for: noted before the read */
	kafka_watch_partition(req->watch, routerid);

	/* the watermark first, then the snapshot (the reader's) */
	topic_log_end(router, &end);
	if (fetch_offset < end.log_start_offset || fetch_offset > end.next_offset)
	{
		topic_partition_bounds(router, RelationGetRelid(topic), &bounds);
		write_empty_partition(out, req->api_version, partition,
							  KAFKA_OFFSET_OUT_OF_RANGE, bounds.high_watermark,
							  bounds.last_stable, bounds.log_start);
		table_close(router, NoLock);
		return 0;
	}

	memset(&fs, 0, sizeof(fs));
	fs.writer.buf = out;
	fs.base_offset = fetch_offset;
	fs.key_type = topic_column_type(topic, Anum_topic_key);
	fs.value_type = topic_column_type(topic, Anum_topic_value);
	fs.budget = budget;
	fs.min_one = min_one;
	fs.record_context = AllocSetContextCreate(CurrentMemoryContext,
											  "Kafka fetch record",
											  ALLOCSET_SMALL_SIZES);
	fs.pending_context = AllocSetContextCreate(CurrentMemoryContext,
											   "Kafka fetch TOASTed record",
											   ALLOCSET_SMALL_SIZES);

	/* the entry up to the records, whose size is patched in below */
	kafka_write_int32(out, partition);
	kafka_write_int16(out, KAFKA_NONE);
	bounds_at = out->len;
	kafka_write_int64(out, 0);	/* high watermark, patched */
	kafka_write_int64(out, 0);	/* last stable offset, patched */
	if (req->api_version >= 5)
		kafka_write_int64(out, end.log_start_offset);
	kafka_write_array_len(out, 0);
	if (req->api_version >= 11)
		kafka_write_int32(out, -1);
	records_at = out->len;
	kafka_write_int32(out, 0);	/* records' size, patched */

	/*
	 * Read; a TOASTed record ends a read, is added, and the read goes on.
	 * A budget too small for a batch reads nothing.
	 */
	while ((min_one || budget >= KAFKA_BATCH_HEADER_SIZE) && !fs.full)
	{
		memset(&read, 0, sizeof(read));
		read.sink = fetch_sink;
		read.sink_arg = &fs;
		read.max_records = PG_INT64_MAX;
		fs.deferred = false;
		topic_read_partition(router, partition, position, &end, &read);
		position = read.position;
		if (!fs.deferred)
			break;
		/* the record is copied out: fetch its TOASTed fields, add it */
		oldcontext = MemoryContextSwitchTo(fs.pending_context);
		if (fs.pending.key)
			fs.pending.key = (Pointer) detoast_attr((struct varlena *) fs.pending.key);
		if (fs.pending.value)
			fs.pending.value = (Pointer) detoast_attr((struct varlena *) fs.pending.value);
		if (fs.pending.headers)
			fs.pending.headers = (Pointer) detoast_attr((struct varlena *) fs.pending.headers);
		MemoryContextSwitchTo(oldcontext);
		add_record(&fs, &read, &fs.pending);
		if (!fs.full)
			position = fs.pending.offset + 1;
	}
	/*
	 * With pg_topics.wait_for_sync_standby, the answer goes out once the
	 * synchronous standbys have every commit the read could see (as fetch
	 * waits, but the listener holds the answer instead of waiting)
	 */
	if (fs.started && fs.writer.nrecords > 0 && pg_topics_wait_for_sync_standby)
		kafka_hold_for_standbys(req, SYNC_REP_WAIT_FLUSH);

	/* where the consumer goes on: before a record that did not fit, or
	 * where the reader stopped (past rolled-back offsets) */
	last = (fs.full ? fs.stopped_at : position) - 1;
	if (fs.started && fs.writer.nrecords > 0)
	{
		fs.writer.last_offset = Max(fs.writer.last_offset, last);
		kafka_batch_finish(&fs.writer);
	}
	else
	{
		/* a batch without records is a batch too: it keeps to the budget */
		out->len = records_at + 4;
		if (last >= fetch_offset &&
			(min_one || budget >= KAFKA_BATCH_HEADER_SIZE))
			kafka_write_gap_batch(out, fetch_offset, last,
								  kafka_timestamp_ms(end.max_timestamp));
	}
	kafka_patch_int32(out, records_at, out->len - records_at - 4);

	/* the bounds, as of now, never behind where the reader stopped */
	topic_partition_bounds(router, RelationGetRelid(topic), &bounds);
	lso = Max(bounds.last_stable, last + 1);
	hw = Max(bounds.high_watermark, lso);
	if (isolation == KAFKA_READ_UNCOMMITTED)
		hw = lso;
	patch_int64(out, bounds_at, hw);
	patch_int64(out, bounds_at + 8, lso);

	MemoryContextDelete(fs.record_context);
	MemoryContextDelete(fs.pending_context);
	table_close(router, NoLock);
	return out->len - records_at - 4;
}

/* Fetch v4-11 */
KafkaOutcome
kafka_fetch(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaFetchRequest fr;
	int32		max_bytes;
	Size		total = 0;

	/* sessions are not offered: session_id, epoch and forgotten are unused */
	if (!kafka_parse_fetch_request(&req->body, req->api_version, &fr))
		return KAFKA_CLOSE;
	max_bytes = Min((uint32) fr.max_bytes, FETCH_MAX_RESPONSE_BYTES);
	/* and what the listener's memory and answer bounds allow (budget.c) */
	max_bytes = Min((Size) max_bytes, kafka_budget_answer_room());

	kafka_watch_reset(req->watch);
	kafka_write_int32(out, 0);	/* throttle_time_ms */
	if (req->api_version >= 7)
	{
		kafka_write_int16(out, KAFKA_NONE);
		kafka_write_int32(out, 0);	/* session_id: none */
	}
	kafka_write_array_len(out, fr.ntopics);
	for (int32 t = 0; t < fr.ntopics; t++)
	{
		KafkaTopicRequest *tr = &fr.topics[t];
		int16		error;
		Relation	topic;

		if (kafka_is_offsets_topic(tr->name))
		{
			total += kafka_offsets_topic_fetch(req, tr, total, max_bytes);
			continue;
		}
		topic = kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT, &error);
		kafka_write_string_len(out, tr->name.data, Max(tr->name.len, 0));
		kafka_write_array_len(out, tr->npartitions);
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			KafkaPartitionRequest *part = &tr->partitions[p];
			Size		budget;

			if (topic == NULL)
			{
				write_empty_partition(out, req->api_version, part->partition,
									  error, -1, -1, -1);
				continue;
			}
			/*
			 * The limits; until a partition has answered records, the
			 * next one's first record goes whatever its size
			 */
			budget = Min((Size) Max(part->max_bytes, 0),
						 total >= (Size) max_bytes ? 0 : (Size) max_bytes - total);
			total += fetch_partition(req, topic, part->partition, part->offset,
									 budget, total == 0, fr.isolation_level);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}

	if (total < (Size) Max(fr.min_bytes, 1) && fr.max_wait_ms > 0 &&
		!req->last_try)
	{
		*deadline = TimestampTzPlusMilliseconds(req->received, fr.max_wait_ms);
		return KAFKA_PARK;
	}
	return KAFKA_ANSWER;
}
