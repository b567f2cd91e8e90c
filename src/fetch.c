/*-------------------------------------------------------------------------
 *
 * fetch.c
 *	  Reading a partition as a consumer: topics.fetch(), next_offset(),
 *	  offsets(), offsets_for_times().
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
 * Long-poll: a reader that found nothing sleeps on the partition's
 * condition variable (registry.c) until a producer of that partition
 * commits or the wait ends, without holding any lock on the topic, so
 * drop_topic never waits for it; cancel and statement_timeout end the
 * sleep at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
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

#include "catalog.h"
#include "pg_topics.h"
#include "fetch.h"
#include "registry.h"
#include "scan.h"
#include "storage.h"
#include "topic_log.h"
#include "segment.h"
#include "subscription.h"
#include "sync_standby.h"
#include "visibility.h"

/* How often a long-poll on a hot standby looks again */
#define TOPIC_STANDBY_RECHECK_MS	20

PG_FUNCTION_INFO_V1(topic_fetch);
PG_FUNCTION_INFO_V1(topic_next_offset);
PG_FUNCTION_INFO_V1(topic_offsets);
PG_FUNCTION_INFO_V1(topic_offsets_for_times);


/*
 * How a consumer treats a batch: BATCH_READ, BATCH_SKIP, or BATCH_STOP
 * (with *flush_to set when it only needs its commit flushed).
 */
BatchFate
topic_batch_fate(Buffer buffer, TopicBatchHeader hdr, Snapshot snapshot,
				 TopicLogPosition resolved, XLogRecPtr *flush_to)
{
	TransactionId xid = hdr->xid;

	if (hdr->flags & TB_ABORTED)
		return BATCH_SKIP;
	/* resolved: finished, and durable, before any snapshot still running */
	if (topic_batch_is_resolved(buffer, hdr, resolved) ||
		xid == FrozenTransactionId)
		return BATCH_READ;
	if (hdr->hints & TB_HINT_ABORTED)
		return BATCH_SKIP;
	/* the hint is set only once the commit is durable */
	if ((hdr->hints & TB_HINT_COMMITTED) && !XidInMVCCSnapshot(xid, snapshot))
		return BATCH_READ;
	if (TransactionIdIsCurrentTransactionId(xid))
		return BATCH_STOP;
	if (XidInMVCCSnapshot(xid, snapshot))
	{
		/* running at snapshot time; an abort since then is final */
		if (!TransactionIdIsInProgress(xid) &&
			topic_batch_commit_status(hdr) == TOPIC_COMMIT_NO)
			return BATCH_SKIP;
		return BATCH_STOP;
	}
	if (!(hdr->hints & TB_HINT_COMMITTED))
	{
		TopicCommitStatus commit = topic_batch_commit_status(hdr);

		if (commit == TOPIC_COMMIT_NO)
		{
			topic_batch_set_hints(buffer, hdr, TB_HINT_ABORTED);
			return BATCH_SKIP;
		}
		/* resolved since we read the mark: durable, and no LSN to ask */
		if (commit == TOPIC_COMMIT_FORGOTTEN)
		{
			topic_batch_hint_commit_status(buffer, hdr, commit);
			return BATCH_READ;
		}
	}
	/*
	 * Committed: shown only once durable.  An asynchronous commit (or one
	 * sharing its commit-log LSN group with one) may not be flushed yet;
	 * the caller flushes it, without holding the page, and comes back.
	 */
	if (!RecoveryInProgress())
	{
		XLogRecPtr	commit_lsn = TransactionIdGetCommitLSN(xid);

		if (commit_lsn > GetFlushRecPtr(NULL))
		{
			*flush_to = commit_lsn;
			return BATCH_STOP;
		}
	}
	topic_batch_hint_committed(buffer, hdr);
	return BATCH_READ;
}

/* Offset of the last record of a batch */
static int64
batch_last_offset(Relation rel, BlockNumber blkno, TopicBatchHeader hdr)
{
	int64		last;
	TimestampTz min_ts;
	TimestampTz max_ts;

	if (!topic_batch_summary(hdr, &last, &min_ts, &max_ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of topic_log relation \"%s\" has a batch that does not decode",
						blkno, RelationGetRelationName(rel))));
	return last;
}

/* A sink: copy one record out of the page into read's tuplestore */
static void
topic_store_record(StableRead *read, Relation seg, Buffer buffer,
				   int32 partition, TopicRecord *rec)
{
	topic_record_tuple_put(read->store, read->desc, partition, rec);
}

/*
 * Start the result of a function call as a tuplestore of records, and aim
 * a new read's sink at it
 */
void
topic_read_into_result(StableRead *read, FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	topic_init_record_srf(fcinfo);
	memset(read, 0, sizeof(*read));
	read->sink = topic_store_record;
	read->store = rsinfo->setResult;
	read->desc = rsinfo->setDesc;
}

/*
 * Walk the data pages of segment seg from the one holding offset from on,
 * share-locking one page at a time, and hand each batch to visit, which
 * returns true when the walk is over.  A visitor that needs a commit made
 * durable first sets *flush_to and returns false: the walker flushes
 * outside the page lock, as a synchronous commit would have (rather than
 * wait for the WAL writer), and visits that page again from its start.
 * True when a visitor ended the walk.
 */
bool
topic_walk_batches(Relation seg, int64 from, TopicBatchVisitor visit,
				   void *arg)
{
	BlockNumber nblocks = topic_last_block(seg) + 1;
	TopicLogPosition resolved = topic_storage_resolved(seg);
	BlockNumber blkno;

	for (blkno = topic_seek_block(seg, nblocks, false, from, 0);
		 blkno < nblocks; blkno++)
	{
		Buffer		buffer = ReadBuffer(seg, blkno);
		Page		page;
		Size		pos = 0;
		TopicBatchHeader hdr;
		bool		done = false;
		XLogRecPtr	flush_to = InvalidXLogRecPtr;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		if (PageIsNew(page))
		{
			/* left by a crash; the log goes on after it */
			UnlockReleaseBuffer(buffer);
			continue;
		}
		topic_page_check(seg, blkno, page, TL_PAGE_DATA);

		while (!done && flush_to == InvalidXLogRecPtr &&
			   (hdr = topic_page_next_batch(page, &pos)) != NULL)
			done = visit(arg, seg, blkno, buffer, hdr, resolved, &flush_to);
		UnlockReleaseBuffer(buffer);
		if (flush_to != InvalidXLogRecPtr)
		{
			XLogFlush(flush_to);
			blkno--;
			continue;
		}
		if (done)
			return true;
	}
	return false;
}

/* Decode record i of batch hdr on page blkno of seg, or fail loudly */
void
topic_decode_batch_record(Relation seg, BlockNumber blkno, TopicBatchHeader hdr,
						  Size *rpos, int i, TopicRecord *rec)
{
	if (!topic_record_decode((const char *) hdr, rpos, hdr->length, hdr, i, rec))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of topic_log relation \"%s\" has a record that does not decode",
						blkno, RelationGetRelationName(seg))));
}

/* A stable read of one segment: what read_batch needs besides the batch */
typedef struct SegmentRead
{
	StableRead *read;
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
	StableRead *read = sr->read;
	int64		last;
	Size		rpos = sizeof(TopicBatchHeaderData);
	int			i;

	if (TopicBatchIsMarker(hdr))
		return false;
	last = batch_last_offset(rel, blkno, hdr);
	if (last < read->position)
		return false;
	if (hdr->base_offset >= sr->hw)
		return true;			/* written after we read the watermark */
	switch (topic_batch_fate(buffer, hdr, sr->snapshot, resolved, flush_to))
	{
		case BATCH_STOP:
			if (*flush_to != InvalidXLogRecPtr)
				return false;	/* flush, then read this page again */
			read->position = Max(read->position, hdr->base_offset);
			return true;
		case BATCH_SKIP:
			read->position = last + 1;
			return false;
		case BATCH_READ:
			break;
	}

	for (i = 0; i < hdr->nrecords; i++)
	{
		TopicRecord rec;

		topic_decode_batch_record(rel, blkno, hdr, &rpos, i, &rec);
		if (rec.offset < read->position)
			continue;
		if (read->returned >= read->max_records)
			return true;
		if (read->first_returned < 0)
			read->first_returned = rec.offset;
		if (read->sink)
			read->sink(read, rel, buffer, sr->partition, &rec);
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

	topic_storage_log_end(rel, &now);
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
void
topic_read_stable(Relation rel, int32 partition, int64 from,
				  const TopicLogEnd *end, Snapshot snapshot, StableRead *read)
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

			topic_storage_log_end(rel, &now);
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
 * READ and SERIALIZABLE, else the latest.
 */
void
topic_read_partition(Relation leaf, int32 partition, int64 from,
					 const TopicLogEnd *end, StableRead *read)
{
	Snapshot	snapshot;

	snapshot = IsolationUsesXactSnapshot() ? GetTransactionSnapshot() :
		RegisterSnapshot(GetLatestSnapshot());
	topic_read_stable(leaf, partition, from, end, snapshot, read);
	if (!IsolationUsesXactSnapshot())
		UnregisterSnapshot(snapshot);
}

/*
 * Check the arguments every consumer read takes; fn names the function
 * in the error.
 */
void
topic_check_read_args(const char *fn, int32 max_records, int64 wait_us)
{
	if (max_records < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_records must be at least 1")));
	if (wait_us < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("wait must not be negative")));
	if (wait_us > 0 && IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot wait in a REPEATABLE READ or SERIALIZABLE transaction", fn),
				 errdetail("Its snapshot would never show records committed while it waits."),
				 errhint("Use READ COMMITTED to long-poll, or call %s with wait => '0'.", fn)));
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

/*
 * Check fetch's arguments after the row type (values and nulls of
 * partition, from_offset, max_records and wait) into *args, and open the
 * topic whose row type is rowtype, for SELECT.  Shared by the function and
 * the TopicFetch scan (fetch_scan.c), so both fail alike.
 */
Relation
topic_fetch_begin(Oid rowtype, Datum *values, bool *nulls, TopicFetchArgs *args)
{
	if (nulls[0] || nulls[1] || nulls[2])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition, from_offset and max_records must not be null")));
	args->partition = DatumGetInt32(values[0]);
	args->from = DatumGetInt64(values[1]);
	args->max_records = DatumGetInt32(values[2]);
	args->wait_us = nulls[3] ? 0 :
		topic_interval_usecs(DatumGetIntervalP(values[3]));
	topic_check_read_args("fetch", args->max_records, args->wait_us);

	/* the row type must be a topic's before anything else looks at it */
	return topic_open_by_rowtype(rowtype, ACL_SELECT);
}

/*
 * Read topic (opened by topic_fetch_begin, and closed here) as args say
 * into read (its sink set), long-polling up to args->wait_us for a first
 * record.
 */
void
topic_fetch_read(Relation topic, const TopicFetchArgs *args, StableRead *read)
{
	Oid			topicid = RelationGetRelid(topic);
	int32		partition = args->partition;
	int64		from = args->from;
	int64		wait_us = args->wait_us;
	TimestampTz deadline = GetCurrentTimestamp() + wait_us;

	read->max_records = args->max_records;

	for (;;)
	{
		Relation	leaf;
		Oid			leafid;
		TopicLogEnd end;
		long		remaining_ms;

		/* after a sleep, open the topic again: it may be gone */
		if (topic == NULL)
		{
			topic = topic_try_open(topicid, AccessShareLock, ACL_SELECT);
			if (topic == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_TABLE),
						 errmsg("topic was dropped while fetch was waiting")));
		}
		topic_check_partition(topic, partition);
		leafid = topic_partition_relid(topic, partition);
		leaf = table_open(leafid, AccessShareLock);

		/* a commit from here on wakes us (no lost wake-up) */
		if (wait_us > 0)
			topic_registry_prepare_wait(leafid);

		/* the watermark first, then the snapshot */
		topic_storage_log_end(leaf, &end);
		topic_check_position(topic, partition, from, &end);
		topic_read_partition(leaf, partition, from, &end, read);

		table_close(leaf, NoLock);
		relation_close(topic, NoLock);
		topic = NULL;

		remaining_ms = (long) ((deadline - GetCurrentTimestamp()) / 1000);
		if (read->returned > 0 || wait_us == 0 || remaining_ms <= 0)
			break;

		/* sleep without holding the topic, so drop_topic never waits */
		UnlockRelationOid(leafid, AccessShareLock);
		UnlockRelationOid(topicid, AccessShareLock);

		/*
		 * Replay wakes nobody on a hot standby: there the wait is a
		 * recheck every TOPIC_STANDBY_RECHECK_MS.
		 */
		if (RecoveryInProgress())
			remaining_ms = Min(remaining_ms, TOPIC_STANDBY_RECHECK_MS);
		topic_registry_wait(leafid, remaining_ms);
	}
	if (wait_us > 0)
		topic_registry_end_wait();
	if (read->returned > 0)
		topic_wait_for_sync_standby();
}

/*
 * topics.fetch(topic anyelement, partition int, from_offset bigint,
 *		max_records int, wait interval) RETURNS SETOF anyelement
 *
 * In a query's FROM the TopicFetch scan runs instead (fetch_scan.c); this
 * is the function for every other place.
 */
Datum
topic_fetch(PG_FUNCTION_ARGS)
{
	Datum		values[TOPIC_READ_NARGS];
	bool		nulls[TOPIC_READ_NARGS];
	TopicFetchArgs args;
	Relation	topic;
	StableRead	read;

	topic_read_fn_args(fcinfo, values, nulls);
	topic = topic_fetch_begin(get_fn_expr_argtype(fcinfo->flinfo, 0), values,
							  nulls, &args);
	topic_read_into_result(&read, fcinfo);
	topic_fetch_read(topic, &args, &read);
	return (Datum) 0;
}

/* Open partition number partition of the topic named by name */
static Relation
open_partition_for_read(text *name, int32 partition, Relation *topic)
{
	*topic = topic_open_by_name(name, AccessShareLock, ACL_SELECT);
	topic_check_partition(*topic, partition);
	return table_open(topic_partition_relid(*topic, partition), AccessShareLock);
}

/*
 * topics.next_offset(topic text, partition int, from_offset bigint)
 * RETURNS bigint: the first record at or after from_offset a reader would
 * get, or else where its next read would start (stepping over aborted
 * records).
 */
Datum
topic_next_offset(PG_FUNCTION_ARGS)
{
	Relation	topic;
	Relation	leaf;
	int32		partition = PG_GETARG_INT32(1);
	int64		from = PG_GETARG_INT64(2);
	TopicLogEnd end;
	StableRead	read;

	leaf = open_partition_for_read(PG_GETARG_TEXT_PP(0), partition, &topic);
	topic_storage_log_end(leaf, &end);
	topic_check_position(topic, partition, from, &end);

	memset(&read, 0, sizeof(read));
	read.max_records = 1;
	topic_read_partition(leaf, partition, from, &end, &read);

	table_close(leaf, NoLock);
	relation_close(topic, NoLock);
	PG_RETURN_INT64(read.returned > 0 ? read.first_returned : read.position);
}

/*
 * topics.offsets(topic text) RETURNS TABLE(partition int,
 *		log_start_offset bigint, high_watermark bigint,
 *		last_stable_offset bigint)
 */
Datum
topic_offsets(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
										   TOPIC_NO_ACL_CHECK);
	int32		nparts;
	int32		p;

	/* numbers about the topic, not its records: pg_monitor sees them too */
	topic_check_describe(topic);
	nparts = topic_partition_count(topic);
	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Oid			leafid = topic_partition_relid(topic, p);
		Relation	leaf = table_open(leafid, AccessShareLock);
		TopicLogEnd end;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		int64		lso;

		topic_storage_log_end(leaf, &end);
		lso = topic_registry_stable_offset(leafid, end.next_offset, NULL);
		/* a replica's records are stable up to its publisher's marker */
		if (topic_partition_is_replica(leafid, RelationGetRelid(topic)))
			lso = Min(lso, topic_replicated_bound(leaf, GetActiveSnapshot(),
												  &end));
		values[0] = Int32GetDatum(p);
		values[1] = Int64GetDatum(end.log_start_offset);
		values[2] = Int64GetDatum(end.next_offset);
		values[3] = Int64GetDatum(lso);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		table_close(leaf, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}

/*
 * The earliest offset of segment seg (at or after log_start) whose
 * timestamp is at or after ts, into *value (*isnull false), if any.
 */
static void
offset_for_time(Relation seg, TimestampTz ts, int64 log_start, Datum *value,
				bool *isnull)
{
	BlockNumber nblocks = topic_nblocks(seg);
	BlockNumber blkno;

	for (blkno = topic_seek_block(seg, nblocks, true, 0, ts);
		 blkno < nblocks && *isnull; blkno++)
	{
		Buffer		buffer = ReadBuffer(seg, blkno);
		Page		page;
		Size		pos = 0;
		TopicBatchHeader hdr;

		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		if (!PageIsNew(page))
		{
			topic_page_check(seg, blkno, page, TL_PAGE_DATA);
			while (*isnull && (hdr = topic_page_next_batch(page, &pos)) != NULL)
			{
				const char *bytes = (const char *) hdr;
				Size		rpos = sizeof(TopicBatchHeaderData);
				int			i;

				for (i = 0; i < hdr->nrecords; i++)
				{
					TopicRecord rec;

					if (!topic_record_decode(bytes, &rpos, hdr->length, hdr, i, &rec))
						break;
					if (rec.timestamp >= ts && rec.offset >= log_start)
					{
						*value = Int64GetDatum(rec.offset);
						*isnull = false;
						break;
					}
				}
			}
		}
		UnlockReleaseBuffer(buffer);
	}
}

/*
 * topics.offsets_for_times(topic text, ts timestamptz) RETURNS
 * TABLE(partition int, "offset" bigint): per partition, the earliest
 * offset whose timestamp is at or after ts (Kafka's ListOffsets by time);
 * NULL when there is none yet.
 */
Datum
topic_offsets_for_times(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
										   ACL_SELECT);
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(1);
	int32		nparts = topic_partition_count(topic);
	int32		p;

	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Relation	leaf = table_open(topic_partition_relid(topic, p), AccessShareLock);
		TopicSegmentDir *dir = topic_segdir_read(leaf);
		Datum		values[2] = {Int32GetDatum(p), (Datum) 0};
		bool		nulls[2] = {false, true};

		for (int i = 0; i < dir->nentries && nulls[1]; i++)
		{
			Relation	seg;

			if (!topic_segment_readable(&dir->entries[i]) ||
				(seg = topic_segment_open(dir->router, &dir->entries[i],
										  AccessShareLock)) == NULL)
				continue;
			offset_for_time(seg, ts, dir->log_start, &values[1], &nulls[1]);
			relation_close(seg, AccessShareLock);
		}
		pfree(dir);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		table_close(leaf, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}

