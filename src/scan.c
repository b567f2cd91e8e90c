/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Reading topic_log relations: sequential and parallel scans, fetch by
 *	  TID, and ANALYZE sampling.
 *
 * Scans work a page at a time, as heap's page mode does: under the page's
 * share lock, decide visibility once per batch and note where each visible
 * record is; then drop the lock but keep the pin, and hand out records
 * from the page without locking.  That is safe because bytes below
 * pd_lower never change once written (only hint bytes, which we do not
 * read then).  Slots are virtual and point into the pinned page; the pin is
 * released only when the scan moves on, which is exactly when the executor
 * stops using the previous record (heap's buffer slots have the same
 * lifetime).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/snapmgr.h"

#include "scan.h"
#include "storage.h"
#include "visibility.h"

/* A record of the current page that the scan will return */
typedef struct VisibleRecord
{
	TopicRecord rec;
	int32		partition;
	uint16		index;			/* 1-based position on the page (TID) */
} VisibleRecord;

typedef struct TopicScanDescData
{
	TableScanDescData base;
	BlockNumber nblocks;		/* blocks when the scan started (or its limit) */
	BlockNumber startblock;		/* first data block to read */
	BlockNumber cblock;			/* current block */
	Buffer		cbuf;			/* pinned current page, or InvalidBuffer */
	bool		inited;			/* false before the first and after the last */
	BufferAccessStrategy strategy;
	ParallelBlockTableScanWorkerData *pworker;

	int			nvisible;
	int			current;
	double		pending_dead;	/* ANALYZE: dead records of the page */
	TopicLogPosition resolved;	/* the resolved mark when the scan began */
	VisibleRecord visible[TOPIC_LOG_MAX_RECORDS_PER_PAGE];
} TopicScanDescData;

typedef TopicScanDescData *TopicScanDesc;

/* Raise the corruption error for an unreadable record */
static void
report_bad_record(Relation rel, BlockNumber blkno, int index)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("record (%u,%d) of topic_log relation \"%s\" is corrupted",
					blkno, index, RelationGetRelationName(rel)),
			 errhint("Run topics.verify() on the topic to list every problem.")));
}

/*
 * Which batches of a share-locked page to return: by snapshot, or for
 * ANALYZE (snapshot NULL) every batch of a finished-and-committed or our
 * own transaction, counting aborted records as dead.
 */
static bool
batch_wanted(TopicScanDesc scan, Buffer buffer, TopicBatchHeader hdr)
{
	TopicXidStatus status;

	if (scan->base.rs_snapshot != NULL)
		return topic_batch_visible(buffer, hdr, scan->base.rs_snapshot,
								   scan->resolved);

	status = topic_batch_status(buffer, hdr, scan->resolved);
	if (status == TOPIC_XID_ABORTED)
		scan->pending_dead += hdr->nrecords;
	return status == TOPIC_XID_COMMITTED || status == TOPIC_XID_CURRENT;
}

/*
 * Make blkno the current page: pin it and collect its wanted records.
 * The metapage and not-yet-initialized pages have none.
 */
static void
load_page(TopicScanDesc scan, BlockNumber blkno)
{
	Relation	rel = scan->base.rs_rd;
	Page		page;
	Size		pos = 0;
	TopicBatchHeader hdr;
	int			index = 1;

	CHECK_FOR_INTERRUPTS();

	if (BufferIsValid(scan->cbuf))
		ReleaseBuffer(scan->cbuf);
	scan->cbuf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
									scan->strategy);
	scan->cblock = blkno;
	scan->nvisible = 0;

	if (blkno == TOPIC_LOG_METAPAGE_BLKNO)
		return;

	LockBuffer(scan->cbuf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(scan->cbuf);
	if (PageIsNew(page))
	{
		LockBuffer(scan->cbuf, BUFFER_LOCK_UNLOCK);
		return;
	}
	topic_page_check(rel, blkno, page, TL_PAGE_DATA);

	while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
	{
		if (batch_wanted(scan, scan->cbuf, hdr))
		{
			const char *bytes = (const char *) hdr;
			Size		rpos = sizeof(TopicBatchHeaderData);
			int			i;

			for (i = 0; i < hdr->nrecords; i++)
			{
				VisibleRecord *v = &scan->visible[scan->nvisible];

				if (index > TOPIC_LOG_MAX_RECORDS_PER_PAGE ||
					!topic_record_decode(bytes, &rpos, hdr->length, hdr, i,
										 &v->rec))
					report_bad_record(rel, blkno, index);
				v->partition = hdr->partition;
				v->index = index++;
				scan->nvisible++;
			}
		}
		else
			index += hdr->nrecords;
	}

	LockBuffer(scan->cbuf, BUFFER_LOCK_UNLOCK);
}

/* Put a record into a virtual slot; the data stays where rec points */
static void
store_record(Relation rel, TupleTableSlot *slot, const TopicRecord *rec,
			 int32 partition, BlockNumber blkno, int index)
{
	Datum	   *values = slot->tts_values;
	bool	   *isnull = slot->tts_isnull;

	ExecClearTuple(slot);
	values[Anum_topic_partition - 1] = Int32GetDatum(partition);
	isnull[Anum_topic_partition - 1] = false;
	values[Anum_topic_offset - 1] = Int64GetDatum(rec->offset);
	isnull[Anum_topic_offset - 1] = false;
	values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(rec->timestamp);
	isnull[Anum_topic_timestamp - 1] = false;
	values[Anum_topic_key - 1] = PointerGetDatum(rec->key);
	isnull[Anum_topic_key - 1] = (rec->key == NULL);
	values[Anum_topic_value - 1] = PointerGetDatum(rec->value);
	isnull[Anum_topic_value - 1] = (rec->value == NULL);
	values[Anum_topic_headers - 1] = PointerGetDatum(rec->headers);
	isnull[Anum_topic_headers - 1] = (rec->headers == NULL);
	ExecStoreVirtualTuple(slot);
	ItemPointerSet(&slot->tts_tid, blkno, index);
	slot->tts_tableOid = RelationGetRelid(rel);
}

/* The block after (or before) the current one; InvalidBlockNumber at the end */
static BlockNumber
next_block(TopicScanDesc scan, ScanDirection direction)
{
	Relation	rel = scan->base.rs_rd;

	if (scan->base.rs_parallel != NULL)
	{
		ParallelBlockTableScanDesc pbscan =
			(ParallelBlockTableScanDesc) scan->base.rs_parallel;

		if (!scan->inited)
			table_block_parallelscan_startblock_init(rel, scan->pworker, pbscan);
		return table_block_parallelscan_nextpage(rel, scan->pworker, pbscan);
	}

	if (ScanDirectionIsForward(direction))
	{
		BlockNumber b = scan->inited ? scan->cblock + 1 : scan->startblock;

		return b < scan->nblocks ? b : InvalidBlockNumber;
	}
	if (!scan->inited)
		return scan->nblocks > scan->startblock ?
			scan->nblocks - 1 : InvalidBlockNumber;
	return scan->cblock > scan->startblock ?
		scan->cblock - 1 : InvalidBlockNumber;
}

/*
 * Is the first initialized page at or after blkno (and before end) wholly
 * before the position sought?  All-zero pages, which a crash can leave
 * anywhere, are skipped; none left means "no".
 */
static bool
page_before(Relation rel, BlockNumber blkno, BlockNumber end, bool by_time,
			int64 offset, TimestampTz ts)
{
	for (; blkno < end; blkno++)
	{
		Buffer		buffer = ReadBuffer(rel, blkno);
		Page		page;
		bool		before = false;
		bool		is_new;

		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		is_new = PageIsNew(page);
		if (!is_new)
		{
			TopicLogPageOpaque opaque;

			topic_page_check(rel, blkno, page, TL_PAGE_DATA);
			opaque = TopicLogPageGetOpaque(page);
			before = by_time ? opaque->max_timestamp < ts :
				opaque->next_offset <= offset;
		}
		UnlockReleaseBuffer(buffer);
		if (!is_new)
			return before;
	}
	return false;
}

/*
 * First data block whose records may include offset (by_time false) or a
 * timestamp at or after ts (by_time true): binary search over the pages'
 * summaries, which increase along the log.  Returns nblocks if none.
 */
BlockNumber
topic_seek_block(Relation rel, BlockNumber nblocks, bool by_time, int64 offset,
		   TimestampTz ts)
{
	BlockNumber lo = TOPIC_LOG_FIRST_DATA_BLKNO;
	BlockNumber hi = nblocks;	/* answer in [lo, hi] */

	while (lo < hi)
	{
		BlockNumber mid = lo + (hi - lo) / 2;

		if (page_before(rel, mid, hi, by_time, offset, ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Limit a (non-parallel) scan to blocks [start, end): how seeks read only
 * the part of the log they need.  Call before the first tuple.
 */
void
topic_scan_set_limits(TableScanDesc sscan, BlockNumber start, BlockNumber end)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	Assert(scan->base.rs_parallel == NULL && !scan->inited);
	scan->startblock = Max(start, TOPIC_LOG_FIRST_DATA_BLKNO);
	scan->nblocks = Min(end, scan->nblocks);
}

TableScanDesc
topic_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
				 struct ScanKeyData *key, ParallelTableScanDesc pscan,
				 uint32 flags)
{
	TopicScanDesc scan;

	RelationIncrementReferenceCount(rel);

	scan = palloc0(sizeof(TopicScanDescData));
	scan->base.rs_rd = rel;
	scan->base.rs_snapshot = snapshot;
	scan->base.rs_nkeys = nkeys;
	scan->base.rs_key = key;
	scan->base.rs_flags = flags;
	scan->base.rs_parallel = pscan;
	scan->cbuf = InvalidBuffer;
	scan->cblock = InvalidBlockNumber;
	scan->startblock = TOPIC_LOG_FIRST_DATA_BLKNO;

	if (pscan != NULL)
	{
		scan->nblocks = ((ParallelBlockTableScanDesc) pscan)->phs_nblocks;
		scan->pworker = palloc0(sizeof(ParallelBlockTableScanWorkerData));
	}
	else
		scan->nblocks = RelationGetNumberOfBlocks(rel);
	scan->resolved = topic_storage_resolved(rel);

	/* large scans should not push everything else out of shared buffers */
	if ((flags & SO_ALLOW_STRAT) && scan->nblocks > (BlockNumber) NBuffers / 4)
		scan->strategy = GetAccessStrategy(BAS_BULKREAD);

	if (flags & SO_TYPE_SEQSCAN)
	{
		if (snapshot != NULL && IsMVCCSnapshot(snapshot))
			PredicateLockRelation(rel, snapshot);
		pgstat_count_heap_scan(rel);
	}

	return (TableScanDesc) scan;
}

void
topic_scan_end(TableScanDesc sscan)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	if (BufferIsValid(scan->cbuf))
		ReleaseBuffer(scan->cbuf);
	if (scan->strategy != NULL)
		FreeAccessStrategy(scan->strategy);
	if (scan->base.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs_snapshot);
	RelationDecrementReferenceCount(scan->base.rs_rd);
	pfree(scan);
}

void
topic_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key,
				  bool set_params, bool allow_strat, bool allow_sync,
				  bool allow_pagemode)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	if (BufferIsValid(scan->cbuf))
		ReleaseBuffer(scan->cbuf);
	scan->cbuf = InvalidBuffer;
	scan->cblock = InvalidBlockNumber;
	scan->inited = false;
	scan->nvisible = 0;
	scan->startblock = TOPIC_LOG_FIRST_DATA_BLKNO;
	if (scan->base.rs_parallel == NULL)
		scan->nblocks = RelationGetNumberOfBlocks(scan->base.rs_rd);
	else
		scan->nblocks =
			((ParallelBlockTableScanDesc) scan->base.rs_parallel)->phs_nblocks;
	scan->resolved = topic_storage_resolved(scan->base.rs_rd);
}

bool
topic_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					   TupleTableSlot *slot)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	bool		forward = ScanDirectionIsForward(direction);

	if (scan->base.rs_parallel != NULL && !forward)
		elog(ERROR, "parallel scans of topic_log relations run forward only");

	for (;;)
	{
		if (scan->inited)
		{
			int			next = scan->current + (forward ? 1 : -1);

			if (next >= 0 && next < scan->nvisible)
			{
				VisibleRecord *v = &scan->visible[next];

				scan->current = next;
				store_record(scan->base.rs_rd, slot, &v->rec, v->partition,
							 scan->cblock, v->index);
				pgstat_count_heap_getnext(scan->base.rs_rd);
				return true;
			}
		}

		{
			BlockNumber blkno = next_block(scan, direction);

			if (blkno == InvalidBlockNumber)
			{
				if (BufferIsValid(scan->cbuf))
					ReleaseBuffer(scan->cbuf);
				scan->cbuf = InvalidBuffer;
				scan->inited = false;
				scan->nvisible = 0;
				ExecClearTuple(slot);
				return false;
			}
			/* the slot may point into the page we are about to release */
			ExecClearTuple(slot);
			load_page(scan, blkno);
			scan->inited = true;
			scan->current = forward ? -1 : scan->nvisible;
		}
	}
}

/*
 * Find the record with TID tid, pin and share-lock its page, and return
 * its batch (NULL if there is no such record).  On success the caller
 * unlocks and releases *buffer.
 */
static TopicBatchHeader
locate(Relation rel, ItemPointer tid, Buffer *buffer, TopicRecord *rec)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	int			want = ItemPointerGetOffsetNumber(tid);
	Page		page;
	Size		pos = 0;
	TopicBatchHeader hdr;
	int			index = 1;

	if (blkno == TOPIC_LOG_METAPAGE_BLKNO ||
		blkno >= RelationGetNumberOfBlocks(rel) || want < 1)
		return NULL;

	*buffer = ReadBuffer(rel, blkno);
	LockBuffer(*buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(*buffer);
	if (!PageIsNew(page))
	{
		topic_page_check(rel, blkno, page, TL_PAGE_DATA);
		while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
		{
			if (want < index + hdr->nrecords)
			{
				const char *bytes = (const char *) hdr;
				Size		rpos = sizeof(TopicBatchHeaderData);
				int			i;

				for (i = 0; i <= want - index; i++)
					if (!topic_record_decode(bytes, &rpos, hdr->length, hdr, i,
											 rec))
						report_bad_record(rel, blkno, index + i);
				return hdr;
			}
			index += hdr->nrecords;
		}
	}
	UnlockReleaseBuffer(*buffer);
	return NULL;
}

bool
topic_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
						TupleTableSlot *slot)
{
	/* read before the data page is locked: the metapage is a lower block */
	TopicLogPosition resolved = topic_storage_resolved(rel);
	Buffer		buffer;
	TopicRecord rec;
	TopicBatchHeader hdr = locate(rel, tid, &buffer, &rec);
	bool		found = false;

	if (hdr == NULL)
		return false;
	if (topic_batch_visible(buffer, hdr, snapshot, resolved))
	{
		store_record(rel, slot, &rec, hdr->partition,
					 ItemPointerGetBlockNumber(tid),
					 ItemPointerGetOffsetNumber(tid));
		/* copy the data out of the page before letting it go */
		ExecMaterializeSlot(slot);
		found = true;
	}
	UnlockReleaseBuffer(buffer);
	return found;
}

bool
topic_tid_valid(TableScanDesc sscan, ItemPointer tid)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	return ItemPointerIsValid(tid) &&
		ItemPointerGetBlockNumber(tid) != TOPIC_LOG_METAPAGE_BLKNO &&
		ItemPointerGetBlockNumber(tid) < scan->nblocks;
}

bool
topic_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							   Snapshot snapshot)
{
	TopicLogPosition resolved = topic_storage_resolved(rel);
	Buffer		buffer;
	TopicRecord rec;
	TopicBatchHeader hdr = locate(rel, &slot->tts_tid, &buffer, &rec);
	bool		visible;

	if (hdr == NULL)
		return false;
	visible = topic_batch_visible(buffer, hdr, snapshot, resolved);
	UnlockReleaseBuffer(buffer);
	return visible;
}

bool
topic_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
							  BufferAccessStrategy bstrategy)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	/* read with ANALYZE's strategy, which is not ours to free */
	scan->strategy = bstrategy;
	scan->pending_dead = 0;
	load_page(scan, blockno);
	scan->strategy = NULL;
	scan->current = -1;
	return true;
}

bool
topic_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							  double *liverows, double *deadrows,
							  TupleTableSlot *slot)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	VisibleRecord *v;

	*deadrows += scan->pending_dead;
	scan->pending_dead = 0;

	if (scan->current + 1 >= scan->nvisible)
	{
		ExecClearTuple(slot);
		return false;
	}
	v = &scan->visible[++scan->current];
	store_record(scan->base.rs_rd, slot, &v->rec, v->partition, scan->cblock,
				 v->index);
	*liverows += 1;
	return true;
}
