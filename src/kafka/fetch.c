/*-------------------------------------------------------------------------
 *
 * fetch.c
 *	  Fetch (v0-17): records from topics as Kafka record batches, or for
 *	  v0-3 as messages of the old formats.
 *
 * Each partition is read by the stable-read rule of topics.fetch (the
 * same reader: read/stable_read.c), so a consumer never gets a record of a
 * transaction that has not committed or whose commit is not durable, and
 * never skips one; read_committed and read_uncommitted alike.  The
 * records of a partition go out as one RecordBatch v2 encoded from the
 * log as the reader hands them over, starting at the fetch offset.
 * Offsets no record holds (rolled back, or holes a restore or compaction
 * left) are stepped over the way Kafka clients step over compacted
 * records: the batch's base offset is the fetch offset, its records carry
 * their offsets as deltas from it, and its last offset delta reaches where
 * the reader stopped, whatever records lie in between; a read that found
 * only such offsets answers a batch without records spanning them.
 * Without that a consumer below an aborted tail would never reach the end
 * (kcat -e would never exit).  The deltas are 32 bits: after a wider hole
 * the batch starts at its first record (add_record).
 *
 * Fetch v0-3 answer the old message formats instead (magic 0 for v0-1,
 * magic 1 for v2-3, wire/message_set.c), one message per record, at its
 * offset, without its headers (as Kafka's down-conversion drops them).
 * Those formats cannot step over offsets after the last record: a
 * consumer of them below only offsets no record holds gets nothing until
 * a record follows them.
 *
 * The records are read as the codec reaches a partition's records in the
 * response (write_partition_records, a KafkaRecordsWriter): they are
 * written where they go, and the partition's bounds, written before them,
 * are patched once the read has found them.
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
#include "pg_topics/kafka/topic_by_id.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/record_batch.h"
#include "pg_topics/wire/message_set.h"
#include "pg_topics/wire/msg_fetch.h"

/* the most one response carries, whatever the client asks (Kafka's default) */
#define FETCH_MAX_RESPONSE_BYTES	(55 * 1024 * 1024)

/* Where a partition's records go as the reader hands them over */
typedef struct FetchSink
{
	int			magic;			/* 2: a record batch; 0, 1: messages */
	KafkaBatchWriter writer;	/* nrecords counts messages too */
	bool		started;		/* the batch is begun */
	int64		base_offset;	/* the fetch offset, or the first record's */
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
	/* the old message formats have no headers: dropped, as Kafka does */
	if (rec->headers && fs->magic == 2)
		nheaders = kafka_stored_headers((struct varlena *) rec->headers, &headers);
	MemoryContextSwitchTo(oldcontext);

	if (fs->magic < 2)
	{
		size = kafka_message_size(fs->magic, key, value);
		if ((fs->writer.nrecords > 0 || !fs->min_one) &&
			fs->used + size > fs->budget)
		{
			fs->full = true;
			fs->stopped_at = rec->offset;
			return;
		}
		kafka_message_append(fs->writer.buf, fs->magic, rec->offset, ts,
							 key, value);
		fs->writer.nrecords++;
		fs->used += size;
		if (fs->used >= fs->budget)
			read->max_records = read->returned + 1;
		return;
	}

	/*
	 * An offset delta is 32 bits.  After a hole of more than 2^31 offsets
	 * (compaction or a restore can leave one) the batch starts at its
	 * first record instead of the fetch offset, as a Kafka broker's
	 * batch after a compacted range does; a record further past the
	 * batch's base waits for the next fetch.
	 */
	if (unlikely(rec->offset - fs->base_offset > KAFKA_BATCH_MAX_OFFSET_DELTA))
	{
		if (fs->started)
		{
			fs->full = true;
			fs->stopped_at = rec->offset;
			return;
		}
		fs->base_offset = rec->offset;
	}
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

/* what the bounds are written as until the read has found them */
#define BOUND_NOT_YET		INT64CONST(-0x5A5A5A5A5A5A5A5B)

/* The request's, shared by its partitions' record writers */
typedef struct FetchState
{
	KafkaRequest *req;
	Size		max_bytes;		/* the response's records, at most */
	Size		total;			/* record bytes answered so far */
	int			isolation;
} FetchState;

/* One partition to read, once the response reaches its records */
typedef struct PartitionFetch
{
	FetchState *state;
	Relation	topic;
	Relation	router;			/* open until its records are written */
	int32		partition;
	int64		fetch_offset;
	int32		partition_max_bytes;
	TopicLogEnd end;
} PartitionFetch;

/*
 * Bytes from a partition's high watermark in the response to its records
 * (past their length), at version v: what comes between them in
 * FetchResponse's PartitionData (msg_fetch.c)
 */
static int
bounds_to_records(int16 v)
{
	bool		flex = v >= KAFKA_FETCH_FIRST_FLEXIBLE;
	int			d = 8;			/* high_watermark */

	if (v < 4)
		return d + 4;			/* the records' length */
	if (v >= 4)
		d += 8;					/* last_stable_offset */
	if (v >= 5)
		d += 8;					/* log_start_offset */
	if (v >= 4)
		d += flex ? 1 : 4;		/* aborted_transactions: empty */
	if (v >= 11)
		d += 4;					/* preferred_read_replica */
	return d + (flex ? 5 : 4);	/* records' length, a callback's width */
}

/*
 * Read one partition from its fetch offset into the response (a
 * KafkaRecordsWriter: the codec has written the partition's entry up to
 * its records), within partition_max_bytes and what the response has left
 * of max_bytes (unless it is the first partition with records: its first
 * record whatever its size); then the bounds in the entry are patched
 */
static bool
write_partition_records(StringInfo out, void *arg)
{
	PartitionFetch *pf = (PartitionFetch *) arg;
	FetchState *state = pf->state;
	KafkaRequest *req = state->req;
	Relation	router = pf->router;
	TopicPartitionBounds bounds;
	FetchSink	fs;
	TopicStableRead read;
	int64		fetch_offset = pf->fetch_offset;
	int64		position = fetch_offset;
	int64		last;
	int			records_at = out->len;
	int			bounds_at = records_at - bounds_to_records(req->api_version);
	MemoryContext oldcontext;
	Size		budget;
	Size		smallest;		/* a batch's header, or a message */
	bool		min_one = state->total == 0;
	int64		lso;
	int64		hw;

	Assert(bounds_at >= 0 &&
		   pg_ntoh64(*(uint64 *) (out->data + bounds_at)) == (uint64) BOUND_NOT_YET);
	Assert(req->api_version < 4 ||
		   pg_ntoh64(*(uint64 *) (out->data + bounds_at + 8)) == (uint64) BOUND_NOT_YET);
	budget = Min((Size) Max(pf->partition_max_bytes, 0),
				 state->total >= state->max_bytes ? 0 :
				 state->max_bytes - state->total);

	memset(&fs, 0, sizeof(fs));
	/* Fetch v0-1 answer messages of magic 0, v2-3 of magic 1 */
	fs.magic = req->api_version >= 4 ? 2 : req->api_version >= 2 ? 1 : 0;
	smallest = fs.magic == 2 ? KAFKA_BATCH_HEADER_SIZE :
		KAFKA_MESSAGE_LOG_OVERHEAD + KAFKA_MESSAGE_V0_OVERHEAD;
	fs.writer.buf = out;
	fs.base_offset = fetch_offset;
	fs.key_type = topic_column_type(pf->topic, Anum_topic_key);
	fs.value_type = topic_column_type(pf->topic, Anum_topic_value);
	fs.budget = budget;
	fs.min_one = min_one;
	fs.record_context = AllocSetContextCreate(CurrentMemoryContext,
											  "Kafka fetch record",
											  ALLOCSET_SMALL_SIZES);
	fs.pending_context = AllocSetContextCreate(CurrentMemoryContext,
											   "Kafka fetch TOASTed record",
											   ALLOCSET_SMALL_SIZES);

	/*
	 * Read; a TOASTed record ends a read, is added, and the read goes on.
	 * A budget too small for a batch reads nothing.
	 */
	while ((min_one || budget >= smallest) && !fs.full)
	{
		memset(&read, 0, sizeof(read));
		read.sink = fetch_sink;
		read.sink_arg = &fs;
		read.max_records = PG_INT64_MAX;
		fs.deferred = false;
		topic_read_partition(router, pf->partition, position, &pf->end, &read);
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
	if (fs.writer.nrecords > 0 && pg_topics_wait_for_sync_standby)
		kafka_hold_for_standbys(req, SYNC_REP_WAIT_FLUSH);

	/* where the consumer goes on: before a record that did not fit, or
	 * where the reader stopped (past rolled-back offsets) */
	last = (fs.full ? fs.stopped_at : position) - 1;
	if (fs.magic < 2)
	{
		/*
		 * the messages are written; the old formats cannot step over
		 * rolled-back offsets: a consumer below only such offsets fetches
		 * nothing until a record follows them
		 */
	}
	else if (fs.started && fs.writer.nrecords > 0)
	{
		/* as far as the batch reaches; the next fetch goes on from there */
		fs.writer.last_offset = Max(fs.writer.last_offset,
									Min(last, fs.writer.base_offset +
										KAFKA_BATCH_MAX_OFFSET_DELTA));
		kafka_batch_finish(&fs.writer);
	}
	else
	{
		/* a batch without records is a batch too: it keeps to the budget */
		out->len = records_at;
		last = Min(last, fetch_offset + KAFKA_BATCH_MAX_OFFSET_DELTA);
		if (last >= fetch_offset &&
			(min_one || budget >= KAFKA_BATCH_HEADER_SIZE))
			kafka_write_gap_batch(out, fetch_offset, last,
								  kafka_timestamp_ms(pf->end.max_timestamp));
	}
	state->total += out->len - records_at;

	/* the bounds, as of now, never behind where the reader stopped */
	topic_partition_bounds(router, RelationGetRelid(pf->topic), &bounds);
	lso = Max(bounds.last_stable, last + 1);
	hw = Max(bounds.high_watermark, lso);
	if (state->isolation == KAFKA_READ_UNCOMMITTED)
		hw = lso;
	patch_int64(out, bounds_at, hw);
	if (req->api_version >= 4)
		patch_int64(out, bounds_at + 8, lso);

	MemoryContextDelete(fs.record_context);
	MemoryContextDelete(fs.pending_context);
	table_close(router, NoLock);
	pf->router = NULL;
	return true;
}

/* A partition's entry without records */
static void
empty_partition(KafkaFetchPartitionData *pd, int16 error, int64 hw,
				int64 lso, int64 log_start)
{
	pd->error_code = error;
	pd->high_watermark = hw;
	pd->last_stable_offset = lso;
	pd->log_start_offset = log_start;
	pd->records.bytes.data = NULL;
	pd->records.bytes.len = 0;
}

/*
 * Fill one partition's entry: an error, or what its records are to be
 * read from (the router stays open until they are)
 */
static void
fill_partition(FetchState *state, Relation topic, int16 topic_error,
			   const KafkaFetchPartition *part, KafkaFetchPartitionData *pd,
			   PartitionFetch *pf)
{
	TopicPartitionBounds bounds;
	int16		error;

	pd->partition_index = part->partition;
	pd->diverging_epoch.epoch = -1;
	pd->diverging_epoch.end_offset = -1;
	pd->current_leader.leader_id = -1;
	pd->current_leader.leader_epoch = -1;
	pd->snapshot_id.end_offset = -1;
	pd->snapshot_id.epoch = -1;
	pd->preferred_read_replica = -1;
	/* aborted transactions: never shown (the reader skips their records) */
	pd->naborted_transactions = 0;
	if (topic == NULL)
	{
		empty_partition(pd, topic_error, -1, -1, -1);
		return;
	}
	pf->router = kafka_open_partition(topic, part->partition, &error);
	if (pf->router == NULL)
	{
		empty_partition(pd, error, -1, -1, -1);
		return;
	}
	/* what a parked request waits for: noted before the read */
	kafka_watch_partition(state->req->watch, RelationGetRelid(pf->router));

	/* the watermark first, then the snapshot (the reader's) */
	topic_log_end(pf->router, &pf->end);
	if (part->fetch_offset < pf->end.log_start_offset ||
		part->fetch_offset > pf->end.next_offset)
	{
		topic_partition_bounds(pf->router, RelationGetRelid(topic), &bounds);
		empty_partition(pd, KAFKA_OFFSET_OUT_OF_RANGE, bounds.high_watermark,
						bounds.last_stable, bounds.log_start);
		table_close(pf->router, NoLock);
		pf->router = NULL;
		return;
	}
	pf->state = state;
	pf->topic = topic;
	pf->partition = part->partition;
	pf->fetch_offset = part->fetch_offset;
	pf->partition_max_bytes = part->partition_max_bytes;
	pd->error_code = KAFKA_NONE;
	pd->high_watermark = BOUND_NOT_YET;
	pd->last_stable_offset = BOUND_NOT_YET;
	pd->log_start_offset = pf->end.log_start_offset;
	pd->records.write = write_partition_records;
	pd->records.arg = pf;
}

/*
 * Read __consumer_offsets' partition into the response (a
 * KafkaRecordsWriter, as write_partition_records): its records converted
 * to Kafka's offset commit records (consumer_offsets_topic.c)
 */
static bool
write_offsets_topic_records(StringInfo out, void *arg)
{
	PartitionFetch *pf = (PartitionFetch *) arg;
	FetchState *state = pf->state;
	KafkaRequest *req = state->req;
	int			records_at = out->len;
	int			bounds_at = records_at - bounds_to_records(req->api_version);
	int			magic = req->api_version >= 4 ? 2 : req->api_version >= 2 ? 1 : 0;
	Size		budget;
	int64		lso;

	budget = Min((Size) Max(pf->partition_max_bytes, 0),
				 state->total >= state->max_bytes ? 0 :
				 state->max_bytes - state->total);
	kafka_offsets_topic_read(out, magic, pf->fetch_offset, budget,
							 state->total == 0, &lso);
	state->total += out->len - records_at;
	patch_int64(out, bounds_at, lso);
	if (req->api_version >= 4)
		patch_int64(out, bounds_at + 8, lso);
	return true;
}

/* Fill the entry of a partition of __consumer_offsets (it has one, 0) */
static void
fill_offsets_topic_partition(FetchState *state,
							 const KafkaFetchPartition *part,
							 KafkaFetchPartitionData *pd, PartitionFetch *pf)
{
	int64		log_start;
	int64		lso;

	fill_partition(state, NULL, KAFKA_UNKNOWN_TOPIC_OR_PARTITION, part, pd,
				   pf);
	if (part->partition != 0)
		return;
	if (!kafka_offsets_topic_check_offset(state->req, part->fetch_offset,
										  &log_start, &lso))
	{
		empty_partition(pd, KAFKA_OFFSET_OUT_OF_RANGE, lso, lso, log_start);
		return;
	}
	pf->state = state;
	pf->fetch_offset = part->fetch_offset;
	pf->partition_max_bytes = part->partition_max_bytes;
	pd->error_code = KAFKA_NONE;
	pd->high_watermark = BOUND_NOT_YET;
	pd->last_stable_offset = BOUND_NOT_YET;
	pd->log_start_offset = log_start;
	pd->records.write = write_offsets_topic_records;
	pd->records.arg = pf;
}

/* Fetch v0-17 */
KafkaOutcome
kafka_fetch(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaFetchRequest fr;
	KafkaFetchResponse resp = {0};
	FetchState state;
	Relation   *topics;
	KafkaTopicIds *ids = NULL;
	bool		by_id = req->api_version >= KAFKA_FETCH_FIRST_TOPIC_ID;

	/* sessions are not offered: session_id, epoch and forgotten are unused */
	if (!kafka_decode(&req->body, &kafka_fetch_request, req->api_version, &fr))
		return KAFKA_CLOSE;
	memset(&state, 0, sizeof(state));
	state.req = req;
	state.isolation = fr.isolation_level;
	state.max_bytes = Min((uint32) fr.max_bytes, FETCH_MAX_RESPONSE_BYTES);
	/* and what the listener's memory and answer bounds allow (budget.c) */
	state.max_bytes = Min(state.max_bytes, kafka_budget_answer_room());

	kafka_watch_reset(req->watch);
	resp.nresponses = fr.ntopics;
	resp.responses = palloc0(sizeof(KafkaFetchableTopicResponse) *
							 Max(fr.ntopics, 1));
	topics = palloc0(sizeof(Relation) * Max(fr.ntopics, 1));
	for (int32 t = 0; t < fr.ntopics; t++)
	{
		KafkaFetchTopic *ft = &fr.topics[t];
		KafkaFetchableTopicResponse *tr = &resp.responses[t];
		PartitionFetch *pfs;
		KafkaBytes	name = ft->topic;
		int16		error = KAFKA_NONE;
		bool		offsets_topic;

		tr->topic = ft->topic;
		tr->topic_id = ft->topic_id;
		if (by_id)
		{
			if (ids == NULL)
				ids = kafka_topic_ids();
			name = kafka_topic_name_of_id(ids, &ft->topic_id);
		}
		/* __consumer_offsets: topics.consumer_offsets, each role its groups */
		offsets_topic = name.len >= 0 && kafka_is_offsets_topic(name);
		if (name.len < 0)
			error = KAFKA_UNKNOWN_TOPIC_ID;
		else if (!offsets_topic)
			topics[t] = kafka_open_topic(name, AccessShareLock, ACL_SELECT,
										 &error);
		tr->npartitions = ft->npartitions;
		tr->partitions = palloc0(sizeof(KafkaFetchPartitionData) *
								 Max(ft->npartitions, 1));
		pfs = palloc0(sizeof(PartitionFetch) * Max(ft->npartitions, 1));
		for (int32 p = 0; p < ft->npartitions; p++)
		{
			if (offsets_topic)
				fill_offsets_topic_partition(&state, &ft->partitions[p],
											 &tr->partitions[p], &pfs[p]);
			else
				fill_partition(&state, topics[t], error, &ft->partitions[p],
							   &tr->partitions[p], &pfs[p]);
		}
	}

	/* the records are read as the response reaches them */
	kafka_encode(req->response, &kafka_fetch_response, req->api_version, &resp);
	for (int32 t = 0; t < fr.ntopics; t++)
		if (topics[t] != NULL)
			relation_close(topics[t], NoLock);

	if (state.total < (Size) Max(fr.min_bytes, 1) && fr.max_wait_ms > 0 &&
		!req->last_try)
	{
		*deadline = TimestampTzPlusMilliseconds(req->received, fr.max_wait_ms);
		return KAFKA_PARK;
	}
	return KAFKA_ANSWER;
}
