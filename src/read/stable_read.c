/*-------------------------------------------------------------------------
 *
 * stable_read.c
 *	  Reading a partition as a consumer, for fetch and poll.
 *
 *
 * The rule: never skip a record, never show one that can be taken back.
 * A consumer reads a partition in offset order from a position, and
 *
 * - returns a batch's records when its transaction committed before the
 *   reader's snapshot and the commit record is flushed: an asynchronous
 *   commit can still be lost in a crash, and then its offsets reused, so
 *   the reader flushes the WAL up to it first (outside the page lock);
 * - steps over a batch whose transaction aborted: those offsets are a gap
 *   forever;
 * - stops at the first batch of any other kind: a transaction still
 *   running, the reader's own, or one that committed after the snapshot.
 *   Its offset is the position where the next read starts.
 *
 * Because offsets are assigned in page order under the tail lock, a record
 * that commits later than one after it is still found: the reader stopped
 * before it.  That is Kafka's last stable offset, computed against the
 * reader's own snapshot, so it needs no shared state, holds in every
 * isolation level and on a hot standby, and cannot race with commits.
 * The high watermark is read before the snapshot is taken, so everything
 * below it is on the pages the reader walks.
 *
 * Seeks are binary searches over the pages' special space (scan.c).
 *
 * Long-poll: a reader that found nothing sleeps until a producer commits
 * or the wait ends (long_poll.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"

/* A sink: copy one record out of the page into read's tuplestore */
static void
topic_store_record(TopicStableRead *read, Relation seg, Buffer buffer,
				   int32 partition, TopicRecord *rec)
{
	topic_record_tuple_put(read->store, read->desc, partition, rec);
}

/*
 * Start the result of a function call as a tuplestore of records, and aim
 * a new read's sink at it
 */
void
topic_read_into_result(TopicStableRead *read, FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	topic_init_record_srf(fcinfo);
	memset(read, 0, sizeof(*read));
	read->sink = topic_store_record;
	read->store = rsinfo->setResult;
	read->desc = rsinfo->setDesc;
}

/* A stable read of one segment: what read_batch needs besides the batch */
typedef struct SegmentRead
{
	TopicStableRead *read;
	int32		partition;
	int64		hw;
	Snapshot	snapshot;
} SegmentRead;

/*
 * One batch of a stable read, by the rule at the top of this file, below
 * the high watermark: true when the read is over (a batch that is not
 * stable yet, max_records, or the watermark).
 */
static bool
read_batch(void *arg, Relation rel, BlockNumber blkno, Buffer buffer,
		   TopicBatchHeader hdr, TopicLogPosition resolved, XLogRecPtr *flush_to)
{
	SegmentRead *sr = (SegmentRead *) arg;
	TopicStableRead *read = sr->read;
	int64		last;
	Size		rpos = topic_batch_records_start(hdr);
	const char *bytes;
	Size		end;
	Buffer		records_buffer = buffer;
	int			i;

	if (TopicBatchIsMarker(hdr))
		return false;
	last = topic_batch_last_offset(rel, blkno, hdr);
	if (last < read->position)
		return false;
	if (hdr->base_offset >= sr->hw)
		return true;			/* written after we read the watermark */
	switch (topic_batch_fate(buffer, hdr, sr->snapshot, resolved, flush_to))
	{
		case TOPIC_BATCH_STOP:
			if (*flush_to != InvalidXLogRecPtr)
				return false;	/* flush, then read this page again */
			read->position = Max(read->position, hdr->base_offset);
			return true;
		case TOPIC_BATCH_SKIP:
			read->position = last + 1;
			return false;
		case TOPIC_BATCH_READ:
			break;
	}

	/*
	 * A sink may keep records that lie in their page by pinning it; the
	 * records of a compressed batch lie in no page, so it must copy them
	 */
	bytes = topic_batch_walk_records(rel, blkno, hdr, &end);
	if (hdr->flags & TB_COMPRESSED)
		records_buffer = InvalidBuffer;
	for (i = 0; i < hdr->nrecords; i++)
	{
		TopicRecord rec;

		topic_decode_batch_record(rel, blkno, hdr, bytes, end, &rpos, i, &rec);
		if (rec.offset < read->position)
			continue;
		if (read->returned >= read->max_records)
			return true;
		if (read->first_returned < 0)
			read->first_returned = rec.offset;
		if (read->sink)
			read->sink(read, rel, records_buffer, sr->partition, &rec);
		read->returned++;
		read->position = rec.offset + 1;
	}
	read->position = last + 1;
	return false;
}

/*
 * A read of partition rel (number partition) at position found that
 * retention moved the log start past it after the read checked it: the
 * error a read below the log start gets, so a consumer handles both alike.
 */
static void
report_passed_by_retention(Relation rel, int32 partition, int64 position)
{
	TopicLogEnd now;

	topic_log_end(rel, &now);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("offset %lld is out of range for partition %d of topic \"%s\"",
					(long long) position, partition,
					get_rel_name(topic_registry_topic_of(rel))),
			 errdetail("Retention removed it while it was being read. Valid offsets are now from %lld (log start) to %lld (high watermark).",
					   (long long) now.log_start_offset,
					   (long long) now.next_offset)));
}

/*
 * Read partition rel (number partition) from offset from, under snapshot,
 * up to the high watermark in *end, segment after segment.
 */
static void
read_stable(Relation rel, int32 partition, int64 from,
			const TopicLogEnd *end, Snapshot snapshot, TopicStableRead *read)
{
	int64		hw = end->next_offset;
	TopicSegmentDir *dir;
	SegmentRead sr;
	int			i;

	read->returned = 0;
	read->first_returned = -1;
	read->position = from;
	read->passed = false;

	/* a replica's records are stable up to its publisher's marker */
	if (topic_partition_is_replica(RelationGetRelid(rel),
								   topic_registry_topic_of(rel)))
		hw = Min(hw, topic_replicated_bound(rel, snapshot, end));
	if (from >= hw)
		return;

	sr.read = read;
	sr.partition = partition;
	sr.hw = hw;
	sr.snapshot = snapshot;
	dir = topic_segdir_read(rel);
	/*
	 * The caller checked from against the log start, but retention may have
	 * moved it since, retiring the segments below: read on from the next
	 * segment and the records in between would be skipped without a word.
	 */
	if (from < dir->log_start)
	{
		if (!read->passed_ok)
			report_passed_by_retention(rel, partition, from);
		read->passed = true;
		pfree(dir);
		return;
	}
	if (topic_segdir_unordered_from(dir, from))
	{
		topic_read_unordered(rel, dir, partition, hw, snapshot, read);
		pfree(dir);
		return;
	}
	for (i = 0; i < dir->nentries; i++)
	{
		TopicSegmentEntry *e = &dir->entries[i];
		Relation	seg;
		bool		done;

		if (topic_segdir_reader_skips(dir, i, read->position))
			continue;

		seg = topic_segment_open(dir->router, e, AccessShareLock);
		if (seg == NULL)
		{
			/* dropped by retention since we looked: say so if we needed it */
			TopicLogEnd now;

			topic_log_end(rel, &now);
			if (read->position < now.log_start_offset)
			{
				if (!read->passed_ok)
					report_passed_by_retention(rel, partition, read->position);
				read->passed = true;
				pfree(dir);
				return;
			}
			continue;
		}
		done = topic_walk_batches(seg, read->position, read_batch, &sr);
		/* the records are copied out; a long-poll must not hold it asleep */
		relation_close(seg, AccessShareLock);
		if (done)
		{
			pfree(dir);
			return;
		}
	}
	pfree(dir);
	/* reached the end: everything below the watermark was stable */
	read->position = Max(read->position, hw);
}

/*
 * Read a partition from from, knowing its end (read before the snapshot,
 * which is taken here): the snapshot is the transaction's in REPEATABLE
 * READ and SERIALIZABLE, unless read->latest asks otherwise, else the
 * latest.
 */
void
topic_read_partition(Relation router, int32 partition, int64 from,
					 const TopicLogEnd *end, TopicStableRead *read)
{
	bool		xact_snapshot = IsolationUsesXactSnapshot() && !read->latest;
	Snapshot	snapshot;

	snapshot = xact_snapshot ? GetTransactionSnapshot() :
		RegisterSnapshot(GetLatestSnapshot());
	read_stable(router, partition, from, end, snapshot, read);
	if (!xact_snapshot)
		UnregisterSnapshot(snapshot);
}

/*
 * Check the arguments every consumer read takes; reader names the
 * function in the errors.
 */
void
topic_check_read_args(TopicReader reader, int32 max_records, int64 wait_us)
{
	if (max_records < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_records must be at least 1")));
	if (wait_us < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("wait must not be negative")));
	if (wait_us == 0 || !IsolationUsesXactSnapshot())
		return;
	switch (reader)
	{
		case TOPIC_READER_FETCH:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("fetch cannot wait in a REPEATABLE READ or SERIALIZABLE transaction"),
					 errdetail("Its snapshot would never show records committed while it waits."),
					 errhint("Use READ COMMITTED to long-poll, or call fetch with wait => '0'.")));
			break;
		case TOPIC_READER_POLL:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("poll cannot wait in a REPEATABLE READ or SERIALIZABLE transaction"),
					 errdetail("Its snapshot would never show records committed while it waits."),
					 errhint("Use READ COMMITTED to long-poll, or call poll with wait => '0'.")));
			break;
	}
}

/* Refuse a position outside [log start, high watermark] (22023) */
void
topic_check_position(Relation topic, int32 partition, int64 from,
			   const TopicLogEnd *end)
{
	if (from < end->log_start_offset || from > end->next_offset)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("offset %lld is out of range for partition %d of topic \"%s\"",
						(long long) from, partition, RelationGetRelationName(topic)),
				 errdetail("Valid offsets are from %lld (log start) to %lld (high watermark).",
						   (long long) end->log_start_offset,
						   (long long) end->next_offset)));
}

/* Microseconds in an interval, for waits */
int64
topic_interval_usecs(Interval *span)
{
	return span->time + (int64) span->day * USECS_PER_DAY +
		(int64) span->month * DAYS_PER_MONTH * USECS_PER_DAY;
}

/* Open the topic whose row type is rowtype (42809 otherwise) */
Relation
topic_open_by_rowtype(Oid rowtype, AclMode privilege)
{
	Oid			relid = get_typ_typrelid(rowtype);

	if (!OidIsValid(relid) || !topic_is_topic_parent_oid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not the row type of a topic", format_type_be(rowtype)),
				 errhint("Pass the topic's own row type, as in NULL::mytopic.")));
	return topic_open(relid, AccessShareLock, privilege);
}

/* The arguments of fetch or poll after the row type, as values and nulls */
void
topic_read_fn_args(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	int			i;

	for (i = 0; i < TOPIC_READ_NARGS; i++)
	{
		nulls[i] = PG_ARGISNULL(i + 1);
		values[i] = nulls[i] ? (Datum) 0 : PG_GETARG_DATUM(i + 1);
	}
}
