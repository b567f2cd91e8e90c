/*-------------------------------------------------------------------------
 *
 * writer.c
 *	  The partition writer: slots in, batches on the LIVE segment's tail
 *	  page out (docs/architecture.md, "The partition writer").
 *
 * A writer is opened for a partition's router, takes the caller's slots
 * in one or more appends, and is closed.  Each append becomes one batch
 * per page it touches, in the LIVE segment (segments/live.c opens and
 * locks it); an append that makes the segment reach its size (TOAST
 * included) goes on in the next one, so that no write makes a segment
 * much larger than its share of the topic's retention_bytes.  All
 * per-record work that can fail or allocate happens first, without any
 * buffer lock: the producer rules (record_check.c), reading the slots and
 * TOAST (record_prepare.c).  Then the tail page is locked, offsets and
 * the timestamp are assigned from it, the records are encoded into a
 * page-sized scratch batch (batch_fill.c), and storage.c appends each
 * batch in a critical section.
 *
 * Offsets come from the tail page, so they are dense and in page order no
 * matter how concurrent producers interleave.  The timestamp is the
 * log-append time of the write, never lower than the newest timestamp
 * already in the log.
 *
 * A dense writer's appends get dense offsets, one after the other with
 * nobody else's in between, as a Kafka batch must (its answer gives the
 * first offset, and the client numbers the rest from it).  The LIVE
 * segment's tail stays locked from the first append to the close, so the
 * partition's other writers wait for it, and the segment does not roll in
 * between: it may grow past its size by the writer's records, as a Kafka
 * segment does by a batch.  The caller builds each append's slots while
 * the tail is locked, so it appends in chunks of bounded size and does
 * nothing there that waits for another writer of the partition.  An
 * error in between releases the lock with the (sub)transaction; the
 * writer is then not closed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "commands/trigger.h"
#include "pgstat.h"
#include "replication/logicalworker.h"
#include "storage/predicate.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/segments/live.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/writer/batch_fill.h"
#include "pg_topics/writer/record.h"
#include "pg_topics/writer/writer.h"

TopicPositionsArrivedHook topic_positions_arrived_hook = NULL;

/*
 * How the topic's records are stored (its compression.type): a compressed
 * topic's batches are compressed, an uncompressed one's (and a topic's of
 * no topic, a segment written directly) are not.  "producer" is stored
 * uncompressed: records arrive here as rows, whatever a producer sent.
 */
static int
storage_codec(Oid topic)
{
	const char *type;

	if (!OidIsValid(topic))
		return TOPIC_CODEC_NONE;
	type = topic_config_of(topic)->values[TOPIC_CONFIG_COMPRESSION_TYPE];
	if (type != NULL && strcmp(type, "zstd") == 0)
		return TOPIC_CODEC_ZSTD;
	if (type != NULL && strcmp(type, "lz4") == 0)
		return TOPIC_CODEC_LZ4;
	return TOPIC_CODEC_NONE;
}

struct TopicWriter
{
	Relation	rel;			/* the partition's router */
	MemoryContext context;		/* everything of the writer but the slots */
	TopicBatchFill fill;		/* the records and the batch being built */
	int			capacity;		/* of the per-record arrays in fill */
	bool		preserve;		/* keep supplied offsets and timestamps */
	bool		checked;		/* the caller checked the rows */
	bool		dense;			/* all appends' records together */
	TopicLiveSlack slack;		/* a full segment we go on in */
	Oid			topic;
	int			slot;			/* our writer slot in the registry */
	BufferAccessStrategy strategy;
	TopicBatchProducerData producer;	/* fill.producer points here */
	int64		nrecords;		/* appended so far */
	/* a dense writer, from its first append: the tail is locked */
	bool		locked;
	TopicLiveSegment live;
	TopicTail	tail;
};

/* A chunk of an append being prepared for the segment it goes to */
typedef struct ChunkPrepare
{
	TopicWriter *writer;
	TupleTableSlot **slots;
	int			first;
	int			nslots;
	int			end;			/* out: where the chunk ends */
	bool		due;			/* out: the segment reaches its size */
} ChunkPrepare;

/* Does any record of the call carry a supplied offset or timestamp? */
static bool
any_supplied(PreparedRecord *recs, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (recs[i].offset != TOPIC_OFFSET_PLACEHOLDER ||
			recs[i].timestamp != TOPIC_TIMESTAMP_PLACEHOLDER)
			return true;
	return false;
}

/* Show the log-assigned values and the TID in the caller's slot */
static void
fill_slot(Relation rel, TupleTableSlot *slot, int64 offset, TimestampTz ts,
		  BlockNumber blkno, int index)
{
	if (slot->tts_ops == &TTSOpsVirtual)
	{
		slot->tts_values[Anum_topic_offset - 1] = Int64GetDatum(offset);
		slot->tts_isnull[Anum_topic_offset - 1] = false;
		slot->tts_values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(ts);
		slot->tts_isnull[Anum_topic_timestamp - 1] = false;
	}
	ItemPointerSet(&slot->tts_tid, blkno, index);
	slot->tts_tableOid = RelationGetRelid(rel);
}

/*
 * Prepare the records of a chunk (arg: a ChunkPrepare) from first on for
 * segment seg, TOASTing their large fields into it, as many as the
 * segment's size leaves room for (limit blocks; 0: no limit), and at least
 * one.  Sets where the chunk ends and whether the segment reaches its size
 * with it (due).  The size is the segment's whole size on disk up to its
 * tail, TOAST included (topic_segment_used_blocks: measured after each
 * record that moved values there, the only ones that grow it), plus the
 * encoded size of the chunk's records: a write of any size, and records of
 * any size, never make one segment much larger than its share of
 * retention_bytes.  Called by topic_live_acquire, again for the next
 * segment if this one rolled meanwhile.
 */
static void
prepare_chunk(Relation seg, BlockNumber limit, void *arg)
{
	ChunkPrepare *chunk = (ChunkPrepare *) arg;
	TopicWriter *writer = chunk->writer;
	PreparedRecord *recs = writer->fill.recs;
	BlockNumber main_blocks = topic_live_nblocks(seg);
	BlockNumber disk_blocks = 0;
	Size		inline_bytes = 0;
	int			i;

	chunk->due = false;
	chunk->end = chunk->nslots;
	for (i = chunk->first; i < chunk->nslots; i++)
	{
		topic_record_prepare(writer->rel, chunk->slots[i],
							 writer->fill.any_order, &recs[i]);
		topic_record_toast(seg, &recs[i]);
		if (limit == 0)
			continue;
		inline_bytes += topic_record_inline_size(&recs[i]);
		if (topic_record_moved_to_toast(&recs[i]))
			disk_blocks = topic_segment_used_blocks(seg, false);
		if (Max(main_blocks, disk_blocks) + inline_bytes / TOPIC_LOG_PAGE_CAPACITY >= limit)
		{
			chunk->due = true;
			chunk->end = i + 1;
			return;
		}
	}
}

/*
 * Take the LIVE segment for the records of slots from first on (as many as
 * it takes: *end) and lock its tail (segments/live.c)
 */
static void
lock_live_segment(TopicWriter *writer, TupleTableSlot **slots, int first,
				  int nslots, int *end, bool *due)
{
	ChunkPrepare chunk;
	TopicLiveWrite how;

	chunk.writer = writer;
	chunk.slots = slots;
	chunk.first = first;
	chunk.nslots = nslots;
	how.slack = writer->dense ? NULL : &writer->slack;
	how.dense = writer->dense;
	how.strategy = writer->strategy;
	how.prepare = prepare_chunk;
	how.prepare_arg = &chunk;
	topic_live_acquire(writer->rel, &how, &writer->live, &writer->tail);
	*end = chunk.end;
	*due = chunk.due;
}

/*
 * Move the log start of replica rel to its publisher's, as the markers
 * among recs carry it: the records below it are gone on the publisher
 * (retention, delete_records, or never committed there), so a consumer
 * that moves between the two finds the same range of offsets.  Like
 * delete_records, not transactional: the publisher's log start never moves
 * back, so a retried apply moves it to the same place.  The segments below
 * go at the worker's next round.
 */
static void
follow_log_start(Relation rel, PreparedRecord *recs, int nslots)
{
	int64		start = -1;
	TopicLogEnd end;
	int			i;

	for (i = 0; i < nslots; i++)
		if (recs[i].marker)
			start = Max(start, recs[i].log_start);
	if (start < 0)
		return;
	topic_log_end(rel, &end);
	if (start < end.log_start_offset || start == 0)
		return;
	/* never past the end, which the marker's stable offset moved */
	if (start > end.log_start_offset)
		topic_segdir_advance_start(rel, start, end.next_offset);

	/*
	 * Record it for pg_dump also when the metapage is there already: an
	 * earlier attempt of this apply may have moved it and then failed,
	 * taking its record along (an unchanged start writes nothing)
	 */
	topic_log_start_record(rel);
}

/*
 * The options of a plain write as command cid: in preserve mode when the
 * session is in it (session_replication_role = replica, as logical
 * replication's workers and a restore run), rows to check, not dense
 */
void
topic_writer_options_init(TopicWriterOptions *options, CommandId cid)
{
	options->cid = cid;
	options->preserve = (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA);
	options->checked = false;
	options->dense = false;
	options->producer = NULL;
	options->strategy = NULL;
}

/*
 * Open a writer for rel (a partition's log): refuse segments and logical
 * replicas (but in preserve mode), set up the writer's memory and register
 * as a writer of the partition.  options->producer, if not NULL, describes
 * the idempotent Kafka batch the records are (only of a dense writer: its
 * first_offset is filled in).
 */
TopicWriter *
topic_writer_open(Relation rel, const TopicWriterOptions *options)
{
	TopicWriter *writer;
	MemoryContext context;
	MemoryContext oldcontext;

	if (!topic_log_is_router(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("segment \"%s\" is written through its partition",
						RelationGetRelationName(rel)),
				 errhint("Insert into the topic or its partition.")));

	/*
	 * Records need their copies on synchronous standbys; a group's position
	 * (the offsets log) is the consumer's and is not held to that
	 */
	if (RelationGetRelid(rel) != topic_offsets_log_relid())
	{
		Oid			topic = topic_registry_topic_of(rel);
		bool		from_topic;
		int			required = topic_config_insync_standbys(topic, &from_topic);

		if (required > 0)
			topic_check_insync_replicas(required,
										from_topic ? get_rel_name(topic) : NULL);
	}

	/* conflicts with serializable readers of the whole relation */
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);

	context = AllocSetContextCreate(CurrentMemoryContext,
									"topic_log writer",
									ALLOCSET_DEFAULT_SIZES);
	oldcontext = MemoryContextSwitchTo(context);
	writer = palloc0(sizeof(TopicWriter));
	writer->rel = rel;
	writer->context = context;

	writer->fill.rel = rel;
	writer->fill.xid = GetCurrentTransactionId();
	writer->fill.cid = options->cid;
	writer->preserve = options->preserve;
	writer->checked = options->checked;
	writer->dense = options->dense;
	/* only a subscription's workers bring records in commit order */
	writer->fill.any_order = writer->preserve && IsLogicalWorker();
	writer->slack.relid = InvalidOid;
	writer->slack.blocks = 0;
	writer->strategy = options->strategy;
	writer->fill.producer = NULL;
	if (options->producer != NULL)
	{
		Assert(writer->dense);
		writer->producer = *options->producer;
		writer->producer.first_offset = -1;
		writer->fill.producer = &writer->producer;
	}
	writer->fill.batch = palloc(TOPIC_LOG_PAGE_CAPACITY);

	/* catalog lookups and the registry's lock before the tail lock */
	writer->topic = topic_registry_topic_of(rel);
	if (!writer->preserve &&
		topic_partition_is_replica(RelationGetRelid(rel), writer->topic))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot write to partition \"%s\": it is a logical replica",
						RelationGetRelationName(rel)),
				 errdetail("A subscription of this database replicates its records from a publisher, which gives out its offsets."),
				 errhint("To write here, drop the subscription, or stop publishing the topic and refresh the subscription.")));
	writer->fill.codec = storage_codec(writer->topic);
	writer->fill.ratio = 4.0;
	writer->slot = topic_registry_add_writer(rel, writer->topic);
	writer->fill.now = GetCurrentTimestamp();
	MemoryContextSwitchTo(oldcontext);
	return writer;
}


/*
 * Where a restored log starts, for topic_live_start: its first supplied
 * offset.  Not a replicated one: it receives records in commit order, so
 * its first record need not be the publisher's first, and it takes its log
 * start from the publisher's markers instead (follow_log_start).
 */
static int64
restored_start(PreparedRecord *rec, bool keep_supplied, bool any_order)
{
	return keep_supplied && !any_order ? rec->offset : TOPIC_OFFSET_PLACEHOLDER;
}
/*
 * Append records first..end-1 to the LIVE segment, whose tail the writer
 * holds, in batches, a page at a time, and point their slots at them.
 * True if a batch went in below the log's next offset (records out of
 * offset order).
 */
static bool
insert_batches(TopicWriter *writer, TupleTableSlot **slots, int first,
			   int end)
{
	Relation	rel = writer->rel;
	Relation	seg = writer->live.seg;
	TopicTail  *tail = &writer->tail;
	TopicBatchFill *fill = &writer->fill;
	bool		unordered = false;
	int			done = first;

	while (done < end)
	{
		int			count;
		int			first_index;
		TopicBatchHeader hdr;

		count = topic_batch_fill(fill, tail, done, end);
		if (count == 0)
		{
			if (tail->init_page)
				elog(ERROR, "topic record does not fit an empty page");
			if (tail->blkno + 1 >= TOPIC_SEGMENT_MAX_BLOCKS)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("segment of partition \"%s\" is full, and there is no next segment",
								RelationGetRelationName(rel)),
						 errhint("Check that the pg_topics background worker is running (topics.maintenance); it creates segments ahead of need.")));
			topic_tail_extend(seg, tail);
			continue;
		}

		first_index = TOPIC_LOG_MAX_RECORDS_PER_PAGE - tail->free_records + 1;
		hdr = (TopicBatchHeader) fill->batch;
		if (!TopicBatchIsMarker(hdr))
		{
			/* readers must learn of us before our offsets are in the log */
			topic_registry_set_first_offset(writer->slot, hdr->base_offset);
			if (hdr->base_offset < tail->next_offset)
				unordered = true;
		}
		topic_tail_append(seg, tail, fill->batch, fill->len, done + count == end,
						  rel);
		if (!TopicBatchIsMarker(hdr))
			topic_registry_set_partition(writer->slot, hdr->partition);
		for (int i = 0; i < count; i++)
			fill_slot(rel, slots[done + i], fill->offsets[done + i],
					  fill->timestamps[done + i],
					  TopicTidBlock(writer->live.entry.segno, tail->blkno),
					  first_index + i);
		done += count;
	}
	return unordered;
}

/*
 * Write the records of slots from first on, as many as the LIVE segment
 * takes (one chunk), and roll the segment if it reached its size.  Returns
 * where the chunk ended.
 */
static int
insert_chunk(TopicWriter *writer, TupleTableSlot **slots, int first,
			 int nslots)
{
	Relation	rel = writer->rel;
	TopicLiveSegment *live = &writer->live;
	TopicBatchFill *fill = &writer->fill;
	bool		due;
	bool		unordered;
	int			end;

	lock_live_segment(writer, slots, first, nslots, &end, &due);
	fill->keep_supplied = writer->preserve &&
		any_supplied(fill->recs + first, end - first);

	if (writer->tail.blkno == TOPIC_LOG_METAPAGE_BLKNO)
		topic_live_start(rel, live, &writer->tail,
						 restored_start(&fill->recs[first], fill->keep_supplied,
										fill->any_order));
	unordered = insert_batches(writer, slots, first, end);
	topic_tail_release(&writer->tail);

	/* before anyone can see those batches: readers must not trust order */
	if (unordered && !(live->entry.flags & TOPIC_SEGENTRY_UNORDERED))
		topic_segdir_mark_unordered(rel, live->entry.relid, live->entry.segno);

	if (due)
		topic_live_roll(rel, live, end < nslots, &writer->slack);

	/* the segment for autovacuum's freezing */
	pgstat_count_heap_insert(live->seg, end - first);
	relation_close(live->seg, NoLock);
	return end;
}

/*
 * An append of a writer that is not dense: the records go in chunks, each
 * to the segment that is LIVE when it starts: a chunk ends where the
 * segment reaches its size, which then rolls.  Without a spare the segment
 * is flagged and takes as much again before the next try, where a write
 * that filled even that waits briefly for the worker's spare.
 */
static void
append_chunked(TopicWriter *writer, TupleTableSlot **slots, int nslots)
{
	Relation	rel = writer->rel;
	PreparedRecord *recs = writer->fill.recs;
	int			first;

	for (first = 0; first < nslots;)
		first = insert_chunk(writer, slots, first, nslots);

	/* a replica of a topic's partition starts where its publisher does */
	if (writer->fill.any_order && OidIsValid(writer->topic))
		follow_log_start(rel, recs, nslots);

	/* group positions committed elsewhere reach the cache at our commit */
	if (writer->preserve && !OidIsValid(writer->topic) &&
		topic_positions_arrived_hook != NULL &&
		RelationGetRelid(rel) == topic_offsets_log_relid())
	{
		bool	   *skip = palloc(sizeof(bool) * nslots);

		for (int i = 0; i < nslots; i++)
			skip[i] = recs[i].marker;
		topic_positions_arrived_hook(slots, writer->fill.offsets, skip, nslots);
	}
}

/*
 * An append of a dense writer: the first takes the LIVE segment and keeps
 * its tail locked until the writer is closed; the others prepare their
 * records for that segment, locked, since it is the writer's until then
 */
static void
append_dense(TopicWriter *writer, TupleTableSlot **slots, int nslots)
{
	Relation	rel = writer->rel;
	TopicBatchFill *fill = &writer->fill;

	if (!writer->locked)
	{
		int			end;
		bool		due;

		lock_live_segment(writer, slots, 0, nslots, &end, &due);
		Assert(end == nslots);
		writer->locked = true;
		if (writer->tail.blkno == TOPIC_LOG_METAPAGE_BLKNO)
			topic_live_start(rel, &writer->live, &writer->tail,
							 TOPIC_OFFSET_PLACEHOLDER);
	}
	else
	{
		for (int i = 0; i < nslots; i++)
		{
			topic_record_prepare(rel, slots[i], false, &fill->recs[i]);
			topic_record_toast(writer->live.seg, &fill->recs[i]);
		}
	}
	fill->keep_supplied = false;
	(void) insert_batches(writer, slots, 0, nslots);
	pgstat_count_heap_insert(writer->live.seg, nslots);
}

/*
 * Append nslots records, after the writer's earlier ones, in order; their
 * slots show their offsets and timestamps.  The rows are checked here
 * unless the writer was opened for checked rows.
 */
void
topic_writer_append(TopicWriter *writer, TupleTableSlot **slots, int nslots)
{
	TopicBatchFill *fill = &writer->fill;
	MemoryContext oldcontext;

	if (nslots <= 0)
		return;
	if (!writer->checked)
		topic_record_check_rows(writer->rel, slots, nslots, writer->preserve);
	oldcontext = MemoryContextSwitchTo(writer->context);
	if (nslots > writer->capacity)
	{
		if (writer->capacity == 0)
		{
			fill->recs = palloc(sizeof(PreparedRecord) * nslots);
			fill->offsets = palloc(sizeof(int64) * nslots);
			fill->timestamps = palloc(sizeof(TimestampTz) * nslots);
		}
		else
		{
			fill->recs = repalloc(fill->recs, sizeof(PreparedRecord) * nslots);
			fill->offsets = repalloc(fill->offsets, sizeof(int64) * nslots);
			fill->timestamps = repalloc(fill->timestamps,
										sizeof(TimestampTz) * nslots);
		}
		writer->capacity = nslots;
	}
	if (writer->dense)
		append_dense(writer, slots, nslots);
	else
		append_chunked(writer, slots, nslots);
	writer->nrecords += nslots;
	MemoryContextSwitchTo(oldcontext);
}

/*
 * Close the writer: a dense one unlocks the tail and rolls the segment if
 * it is due.  Not called after an error, which releases all of it with the
 * (sub)transaction.
 */
void
topic_writer_close(TopicWriter *writer)
{
	if (writer->locked)
	{
		topic_tail_release(&writer->tail);
		if (topic_live_nblocks(writer->live.seg) >= writer->live.roll_blocks)
			topic_live_roll(writer->rel, &writer->live, false, &writer->slack);
		relation_close(writer->live.seg, NoLock);
		writer->locked = false;
	}
	/* the partition for people */
	pgstat_count_heap_insert(writer->rel, writer->nrecords);
	MemoryContextDelete(writer->context);
}

/*
 * Write nslots rows to rel with a writer of their own, in one append: the
 * rows are checked first (unless options->checked), before the writer is
 * opened, so that a row breaking the producer rules is refused before the
 * partition is.  What a table AM multi_insert into a partition does, and
 * the way produce, produce_batch and COPY write.
 */
void
topic_writer_write(Relation rel, TupleTableSlot **slots, int nslots,
				   const TopicWriterOptions *options)
{
	TopicWriterOptions checked = *options;
	TopicWriter *writer;

	if (!options->checked)
		topic_record_check_rows(rel, slots, nslots, options->preserve);
	if (nslots <= 0)
		return;
	checked.checked = true;
	writer = topic_writer_open(rel, &checked);
	topic_writer_append(writer, slots, nslots);
	topic_writer_close(writer);
}
