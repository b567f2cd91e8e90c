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
 * A partition's log (a router) is read segment after segment, as its
 * directory listed them when the scan began; each segment is opened with
 * AccessShareLock, which keeps retention from dropping it under us.  TIDs
 * carry the segment number in the block number's high bits.  Records below
 * the log start (topics.delete_records) are not returned.
 *
 * A parallel scan is fixed in shape by the leader when it sets up the
 * shared state (topic_parallelscan_initialize): the segments, how many
 * blocks each had and the log start, read after the query's snapshot was
 * taken, so every record the snapshot sees lies inside.  Participants then
 * claim chunks of that block range from a shared counter, so each block is
 * read by exactly one of them whatever producers and retention do in the
 * meantime.  The leader locks the segments while fixing the shape; workers
 * lock them too, and being in the leader's lock group they get the lock
 * even if retention queued for the segment meanwhile.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "commands/vacuum.h"
#include "common/pg_prng.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/sampling.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/am/scan.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/segments/segment.h"

/* A record of the current page that the scan will return */
typedef struct VisibleRecord
{
	TopicRecord rec;
	int32		partition;
	uint16		index;			/* 1-based position on the page (TID) */
} VisibleRecord;

/* One segment of the log being scanned */
typedef struct ScanSegment
{
	Relation	rel;
	uint32		segno;
	BlockNumber nblocks;		/* blocks when the scan began */
	TopicLogPosition resolved;	/* its resolved mark then */
	bool		unordered;		/* batches out of offset order (directory) */
} ScanSegment;

typedef struct TopicScanDescData
{
	TableScanDescData base;
	bool		is_router;		/* a partition's log, else one segment */
	int			nsegs;
	ScanSegment *segs;
	int64		log_start;		/* records below it are gone */
	TopicScanPos start;			/* first position to read */
	TopicScanPos end;			/* and the one after the last */
	int			cseg;			/* current segment */
	BlockNumber cblock;			/* current block in it */
	Buffer		cbuf;			/* pinned current page, or InvalidBuffer */
	bool		inited;			/* false before the first and after the last */
	BufferAccessStrategy strategy;

	/* a parallel scan: the blocks of the chunk this participant claimed */
	int			pseg;			/* next block to read: segment */
	BlockNumber pblock;			/* and block in it */
	uint64		pleft;			/* blocks of the chunk not yet read */

	int			nvisible;
	int			current;
	double		pending_dead;	/* ANALYZE: dead records of the page */
	bool		sampling;		/* ANALYZE of a router: sampler is set */
	BlockSamplerData sampler;	/* its blocks, numbered across segments */
	double		sample_weight;	/* records each sampled record stands for */
	BufferAccessStrategy analyze_strategy;	/* ANALYZE's, not ours to free */
	MemoryContext inflated;		/* the current page's compressed batches'
								 * records, inflated; NULL before the first */
	VisibleRecord visible[TOPIC_LOG_MAX_RECORDS_PER_PAGE];
} TopicScanDescData;

typedef TopicScanDescData *TopicScanDesc;

/*
 * The shared state of a parallel scan: the scan's shape as the leader fixed
 * it, and how many of its data blocks participants have claimed.  Blocks
 * are numbered across the segments, one after the other, counting data
 * blocks only.
 */
typedef struct TopicParallelSegment
{
	Oid			relid;
	uint32		segno;
	BlockNumber nblocks;
	bool		unordered;
} TopicParallelSegment;

typedef struct TopicParallelScanData
{
	ParallelTableScanDescData base;
	pg_atomic_uint64 nclaimed;	/* data blocks handed out */
	uint64		ndata;			/* data blocks of all segments */
	uint32		chunk;			/* blocks per claim */
	bool		is_router;
	int64		log_start;
	int			nsegs;
	TopicParallelSegment segs[FLEXIBLE_ARRAY_MEMBER];
} TopicParallelScanData;

typedef TopicParallelScanData *TopicParallelScan;

/*
 * Participants claim this many chunks over the whole scan, at least a block
 * and at most 64 MB each: few enough claims to keep the counter cold, and
 * small enough chunks that participants finish close together.
 */
#define TOPIC_PARALLEL_NCHUNKS		2048
#define TOPIC_PARALLEL_MAX_CHUNK	8192


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

	TopicLogPosition resolved = scan->segs[scan->cseg].resolved;

	if (scan->base.rs_snapshot != NULL)
		return topic_batch_visible(buffer, hdr, scan->base.rs_snapshot,
								   resolved);

	status = topic_batch_status(buffer, hdr, resolved);
	if (status == TOPIC_XID_ABORTED)
		scan->pending_dead += hdr->nrecords;
	return status == TOPIC_XID_COMMITTED || status == TOPIC_XID_CURRENT;
}

/*
 * The bytes the records of batch hdr of the current page decode from: the
 * page's, or for a compressed batch the records inflated into the scan's
 * memory for the page, which lives as long as the page stays current.
 */
static const char *
page_records(TopicScanDesc scan, TopicBatchHeader hdr, Size *end)
{
	MemoryContext old;
	const char *bytes;

	if (!(hdr->flags & TB_COMPRESSED))
	{
		*end = hdr->length;
		return (const char *) hdr;
	}
	if (scan->inflated == NULL)
		scan->inflated = AllocSetContextCreate(GetMemoryChunkContext(scan),
											   "topic_log scan page",
											   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(scan->inflated);
	bytes = topic_batch_records_copy(hdr, end);
	MemoryContextSwitchTo(old);
	return bytes;
}

/*
 * Make block blkno of segment seg the current page: pin it and collect its
 * wanted records.  The metapage and not-yet-initialized pages have none.
 */
static void
load_page(TopicScanDesc scan, int seg, BlockNumber blkno)
{
	Relation	rel = scan->segs[seg].rel;
	Page		page;
	Size		pos = 0;
	TopicBatchHeader hdr;
	int			index = 1;

	CHECK_FOR_INTERRUPTS();

	if (BufferIsValid(scan->cbuf))
		ReleaseBuffer(scan->cbuf);
	scan->cseg = seg;
	scan->cblock = blkno;
	scan->nvisible = 0;
	if (scan->inflated != NULL)
		MemoryContextReset(scan->inflated);

	if (blkno == TOPIC_LOG_METAPAGE_BLKNO)
	{
		scan->cbuf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
										scan->strategy);
		return;
	}
	/* the pin stays with the scan, locked or not */
	page = topic_page_read_data(rel, blkno, scan->strategy, &scan->cbuf);
	if (page == NULL)
		return;

	while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
	{
		if (batch_wanted(scan, scan->cbuf, hdr))
		{
			Size		end;
			const char *bytes = page_records(scan, hdr, &end);
			Size		rpos = topic_batch_records_start(hdr);
			int			i;

			for (i = 0; i < hdr->nrecords; i++)
			{
				VisibleRecord *v = &scan->visible[scan->nvisible];

				if (index > TOPIC_LOG_MAX_RECORDS_PER_PAGE ||
					!topic_record_decode(bytes, &rpos, end, hdr, i,
										 &v->rec))
					report_bad_record(rel, blkno, index);
				v->partition = hdr->partition;
				v->index = index++;
				/* gone: below the log start */
				if (v->rec.offset >= scan->log_start)
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

/* The TID block number of a block of a scanned segment */
static BlockNumber
tid_block(TopicScanDesc scan, int seg, BlockNumber blkno)
{
	return scan->is_router ? TopicTidBlock(scan->segs[seg].segno, blkno) : blkno;
}

/* Data blocks of a scanned segment of nblocks blocks */
static inline uint64
data_blocks(BlockNumber nblocks)
{
	return nblocks > TOPIC_LOG_FIRST_DATA_BLKNO ?
		nblocks - TOPIC_LOG_FIRST_DATA_BLKNO : 0;
}

/*
 * A parallel scan's next block: the next of the chunk this participant
 * claimed, or the first of a new chunk; false when every block is claimed.
 */
static bool
parallel_next_block(TopicScanDesc scan, TopicScanPos *next)
{
	TopicParallelScan pscan = (TopicParallelScan) scan->base.rs_parallel;

	if (scan->pleft == 0)
	{
		uint64		first = pg_atomic_fetch_add_u64(&pscan->nclaimed,
													pscan->chunk);

		if (first >= pscan->ndata)
			return false;
		scan->pleft = Min((uint64) pscan->chunk, pscan->ndata - first);

		/* find data block number first */
		scan->pseg = 0;
		while (first >= data_blocks(scan->segs[scan->pseg].nblocks))
			first -= data_blocks(scan->segs[scan->pseg++].nblocks);
		scan->pblock = TOPIC_LOG_FIRST_DATA_BLKNO + (BlockNumber) first;
	}

	*next = TopicScanPosMake(scan->pseg, scan->pblock);
	scan->pleft--;
	/* step to the following data block, over segments without any */
	scan->pblock++;
	while (scan->pleft > 0 && scan->pblock >= scan->segs[scan->pseg].nblocks)
	{
		scan->pseg++;
		scan->pblock = TOPIC_LOG_FIRST_DATA_BLKNO;
	}
	return true;
}

/*
 * Clamp a position into the scanned log: to a data block that exists, or
 * the end.  Segments without data pages (an empty LIVE one) are stepped
 * over.
 */
static TopicScanPos
clamp_pos(TopicScanDesc scan, TopicScanPos pos)
{
	int			seg;
	BlockNumber blkno = TopicScanPosBlock(pos);

	if ((pos >> 32) >= (uint64) scan->nsegs)
		return TopicScanPosMake(scan->nsegs, TOPIC_LOG_FIRST_DATA_BLKNO);
	seg = TopicScanPosSeg(pos);
	if (blkno < TOPIC_LOG_FIRST_DATA_BLKNO)
		blkno = TOPIC_LOG_FIRST_DATA_BLKNO;
	while (seg < scan->nsegs && blkno >= scan->segs[seg].nblocks)
	{
		seg++;
		blkno = TOPIC_LOG_FIRST_DATA_BLKNO;
	}
	return TopicScanPosMake(seg, blkno);
}

/*
 * The block after (or before) the current one, within [start, end), as a
 * position; false at the end.
 */
static bool
next_block(TopicScanDesc scan, ScanDirection direction, TopicScanPos *next)
{
	TopicScanPos start = clamp_pos(scan, scan->start);
	TopicScanPos end = clamp_pos(scan, scan->end);
	TopicScanPos pos;

	if (scan->base.rs_parallel != NULL)
	{
		/* the executor reads parallel scans forward only */
		if (!ScanDirectionIsForward(direction))
			elog(ERROR, "topic_log parallel scans cannot go backward");
		return parallel_next_block(scan, next);
	}

	if (ScanDirectionIsForward(direction))
	{
		pos = scan->inited ?
			clamp_pos(scan, TopicScanPosMake(scan->cseg, scan->cblock + 1)) : start;
		*next = pos;
		return pos < end;
	}

	/* backward: the block before end, or before the current one */
	pos = scan->inited ? TopicScanPosMake(scan->cseg, scan->cblock) : end;
	for (;;)
	{
		int			seg = TopicScanPosSeg(pos);
		BlockNumber blkno = TopicScanPosBlock(pos);

		if (pos <= start)
			return false;
		if (blkno > TOPIC_LOG_FIRST_DATA_BLKNO && seg < scan->nsegs)
			pos = TopicScanPosMake(seg, Min(blkno, scan->segs[seg].nblocks) - 1);
		else if (seg > 0)
			pos = TopicScanPosMake(seg - 1, scan->segs[seg - 1].nblocks);
		else
			return false;
		if (TopicScanPosBlock(pos) >= TOPIC_LOG_FIRST_DATA_BLKNO &&
			TopicScanPosBlock(pos) < scan->segs[TopicScanPosSeg(pos)].nblocks)
		{
			*next = pos;
			return pos >= start;
		}
	}
}

/*
 * Does the scan's log have batches out of offset order (a logical
 * subscriber's)?  Then a page summary bounds where records start, never
 * where they end.
 */
bool
topic_scan_is_unordered(TableScanDesc sscan)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	int			seg;

	for (seg = 0; seg < scan->nsegs; seg++)
		if (scan->segs[seg].unordered)
			return true;
	return false;
}

/*
 * The first position of a scan's log whose records may include offset
 * (by_time false) or a timestamp at or after ts (by_time true); the end of
 * the log if none.
 */
TopicScanPos
topic_scan_seek(TableScanDesc sscan, bool by_time, int64 offset, TimestampTz ts)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	int			seg;

	for (seg = 0; seg < scan->nsegs; seg++)
	{
		ScanSegment *s = &scan->segs[seg];
		BlockNumber blkno = topic_page_search(s->rel, s->nblocks, by_time,
											  offset, ts);

		if (blkno < s->nblocks)
			return TopicScanPosMake(seg, blkno);
	}
	return TopicScanPosMake(scan->nsegs, TOPIC_LOG_FIRST_DATA_BLKNO);
}

/*
 * Limit a scan to the positions [start, end): how seeks read only the part
 * of the log they need.  Call before the first tuple.
 */
void
topic_scan_set_limits(TableScanDesc sscan, TopicScanPos start, TopicScanPos end)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	Assert(!scan->inited);
	scan->start = Max(scan->start, start);
	scan->end = Min(scan->end, end);
}

/* Data blocks of the scanned log in positions [start, end) */
BlockNumber
topic_scan_count_blocks(TableScanDesc sscan, TopicScanPos start, TopicScanPos end)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	BlockNumber count = 0;

	start = clamp_pos(scan, start);
	end = clamp_pos(scan, end);
	for (int seg = TopicScanPosSeg(start); seg < scan->nsegs; seg++)
	{
		BlockNumber from = seg == TopicScanPosSeg(start) ?
			TopicScanPosBlock(start) : TOPIC_LOG_FIRST_DATA_BLKNO;
		BlockNumber to = scan->segs[seg].nblocks;

		if (seg > TopicScanPosSeg(end))
			break;
		if (seg == TopicScanPosSeg(end))
			to = Min(to, TopicScanPosBlock(end));
		if (to > from)
			count += to - from;
	}
	return count;
}

/* The whole log: from the first data block of the first segment */
static void
reset_limits(TopicScanDesc scan)
{
	scan->start = TopicScanPosMake(0, TOPIC_LOG_FIRST_DATA_BLKNO);
	scan->end = TopicScanPosMake(scan->nsegs, TOPIC_LOG_FIRST_DATA_BLKNO);
}

/*
 * Open the segments of the log (or the segment) rel as they are now, with
 * their sizes, into a new array *segs of *nsegs (rel itself when it is a
 * segment); *log_start is the log's.  Segments retention dropped since the
 * directory was read are skipped: their records are below the log start.
 * Returns whether rel is a router, whose segments the caller closes.
 */
static bool
read_segments(Relation rel, ScanSegment **segs, int *nsegs, int64 *log_start)
{
	bool		is_router = topic_log_is_router(rel);

	if (is_router)
	{
		TopicSegmentDir *dir = topic_segdir_read(rel);

		*segs = palloc0(sizeof(ScanSegment) * Max(dir->nentries, 1));
		*nsegs = 0;
		*log_start = dir->log_start;
		for (int i = 0; i < dir->nentries; i++)
		{
			ScanSegment *seg = &(*segs)[*nsegs];

			if (!topic_segment_readable(&dir->entries[i]))
				continue;
			seg->rel = topic_segment_open(dir->router, &dir->entries[i],
										  AccessShareLock);
			if (seg->rel == NULL)
				continue;
			seg->segno = dir->entries[i].segno;
			seg->unordered =
				(dir->entries[i].flags & TOPIC_SEGENTRY_UNORDERED) != 0;
			(*nsegs)++;
		}
		pfree(dir);
	}
	else
	{
		*segs = palloc0(sizeof(ScanSegment));
		(*segs)[0].rel = rel;
		*nsegs = 1;
		*log_start = 0;
	}
	for (int i = 0; i < *nsegs; i++)
		(*segs)[i].nblocks = topic_storage_nblocks((*segs)[i].rel);
	return is_router;
}

/* The scan's segments as they are now, with their resolved marks */
static void
open_segments(TopicScanDesc scan)
{
	scan->is_router = read_segments(scan->base.rs_rd, &scan->segs,
									&scan->nsegs, &scan->log_start);
	for (int i = 0; i < scan->nsegs; i++)
		scan->segs[i].resolved = topic_storage_resolved(scan->segs[i].rel);
	reset_limits(scan);
}

static void
close_segments(TopicScanDesc scan)
{
	if (scan->is_router)
		for (int i = 0; i < scan->nsegs; i++)
			relation_close(scan->segs[i].rel, NoLock);
	pfree(scan->segs);
	scan->segs = NULL;
	scan->nsegs = 0;
}

/*
 * Open the segments of a parallel scan, as the leader fixed them.  The
 * leader holds a lock on each, so none of them has gone.
 */
static void
open_shared_segments(TopicScanDesc scan)
{
	TopicParallelScan pscan = (TopicParallelScan) scan->base.rs_parallel;

	scan->is_router = pscan->is_router;
	scan->log_start = pscan->log_start;
	scan->nsegs = pscan->nsegs;
	scan->segs = palloc0(sizeof(ScanSegment) * Max(pscan->nsegs, 1));
	for (int i = 0; i < pscan->nsegs; i++)
	{
		ScanSegment *seg = &scan->segs[i];

		seg->rel = pscan->is_router ?
			relation_open(pscan->segs[i].relid, AccessShareLock) :
			scan->base.rs_rd;
		seg->segno = pscan->segs[i].segno;
		seg->nblocks = pscan->segs[i].nblocks;
		seg->unordered = pscan->segs[i].unordered;
		seg->resolved = topic_storage_resolved(seg->rel);
	}
	reset_limits(scan);
}

Size
topic_parallelscan_estimate(Relation rel)
{
	return MAXALIGN(offsetof(TopicParallelScanData, segs) +
					sizeof(TopicParallelSegment) * TOPIC_LOG_MAX_SEGMENTS);
}

/*
 * The leader fixes the shape of a parallel scan: the segments and their
 * sizes now, which is after the query's snapshot was taken.  Returns where
 * the snapshot goes, after the largest directory there can be.
 */
Size
topic_parallelscan_initialize(Relation rel, ParallelTableScanDesc ppscan)
{
	TopicParallelScan pscan = (TopicParallelScan) ppscan;
	int			nsegs;
	ScanSegment *segs;

#if PG_VERSION_NUM >= 180000
	pscan->base.phs_locator = RelationGetLocator(rel);
#else
	pscan->base.phs_relid = RelationGetRelid(rel);
#endif
	pscan->base.phs_syncscan = false;
	/* the segments stay locked until the transaction ends */
	pscan->is_router = read_segments(rel, &segs, &nsegs, &pscan->log_start);
	/* a directory holds no more */
	Assert(nsegs <= TOPIC_LOG_MAX_SEGMENTS);
	pscan->ndata = 0;
	for (int i = 0; i < nsegs; i++)
	{
		pscan->segs[i].relid = RelationGetRelid(segs[i].rel);
		pscan->segs[i].segno = segs[i].segno;
		pscan->segs[i].nblocks = segs[i].nblocks;
		pscan->segs[i].unordered = segs[i].unordered;
		pscan->ndata += data_blocks(segs[i].nblocks);
		if (pscan->is_router)
			relation_close(segs[i].rel, NoLock);
	}
	pfree(segs);
	pscan->nsegs = nsegs;
	pscan->chunk = (uint32) Min(pg_nextpower2_64(Max(pscan->ndata / TOPIC_PARALLEL_NCHUNKS, 1)),
								TOPIC_PARALLEL_MAX_CHUNK);
	pg_atomic_init_u64(&pscan->nclaimed, 0);

	return topic_parallelscan_estimate(rel);
}

/* A rescan: the same shape, every block unclaimed again */
void
topic_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc ppscan)
{
	TopicParallelScan pscan = (TopicParallelScan) ppscan;

	pg_atomic_write_u64(&pscan->nclaimed, 0);
}

TableScanDesc
topic_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
				 struct ScanKeyData *key, ParallelTableScanDesc pscan,
				 uint32 flags)
{
	TopicScanDesc scan;
	BlockNumber total = 0;

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

	if (pscan != NULL)
		open_shared_segments(scan);
	else
		open_segments(scan);
	for (int i = 0; i < scan->nsegs; i++)
		total += scan->segs[i].nblocks;

	/* large scans should not push everything else out of shared buffers */
	if ((flags & SO_ALLOW_STRAT) && total > (BlockNumber) NBuffers / 4)
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
#if PG_VERSION_NUM >= 170000
	/* ANALYZE's own strategy is not ours until 17's read streams */
	if (scan->analyze_strategy != NULL)
		FreeAccessStrategy(scan->analyze_strategy);
#endif
	if (scan->base.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs_snapshot);
	close_segments(scan);
	RelationDecrementReferenceCount(scan->base.rs_rd);
	if (scan->inflated != NULL)
		MemoryContextDelete(scan->inflated);
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
	scan->pleft = 0;
	/* a parallel scan keeps the shape the leader fixed */
	if (scan->base.rs_parallel == NULL)
	{
		close_segments(scan);
		open_segments(scan);
	}
}

bool
topic_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					   TupleTableSlot *slot)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	bool		forward = ScanDirectionIsForward(direction);

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
							 tid_block(scan, scan->cseg, scan->cblock), v->index);
				pgstat_count_heap_getnext(scan->base.rs_rd);
				return true;
			}
		}

		{
			TopicScanPos next;

			if (!next_block(scan, direction, &next))
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
			load_page(scan, TopicScanPosSeg(next), TopicScanPosBlock(next));
			scan->inited = true;
			scan->current = forward ? -1 : scan->nvisible;
		}
	}
}

/*
 * The segment a TID of rel names, open (rel itself when rel is a segment),
 * with the block in it and the log start; NULL if there is no such segment.
 */
static Relation
tid_segment(Relation rel, ItemPointer tid, BlockNumber *blkno, int64 *log_start)
{
	BlockNumber b = ItemPointerGetBlockNumber(tid);
	TopicSegmentDir *dir;
	TopicSegmentEntry *e;
	Relation	seg;

	if (!topic_log_is_router(rel))
	{
		*blkno = b;
		*log_start = 0;
		return rel;
	}
	dir = topic_segdir_read(rel);
	e = topic_segdir_by_tid_segno(dir, TopicTidSegno(b));
	seg = e ? topic_segment_open(dir->router, e, AccessShareLock) : NULL;
	*log_start = dir->log_start;
	pfree(dir);
	*blkno = TopicTidSegBlock(b);
	return seg;
}

/*
 * Find record number want of block blkno of segment seg, pin and
 * share-lock its page, and return its batch (NULL if there is no such
 * record).  On success the caller unlocks and releases *buffer.
 */
static TopicBatchHeader
locate(Relation seg, BlockNumber blkno, int want, Buffer *buffer,
	   TopicBatchBuffer *inflated, TopicRecord *rec)
{
	Page		page;
	Size		pos = 0;
	TopicBatchHeader hdr;
	int			index = 1;

	if (blkno == TOPIC_LOG_METAPAGE_BLKNO ||
		blkno >= topic_storage_nblocks(seg) || want < 1)
		return NULL;

	page = topic_page_read_data(seg, blkno, NULL, buffer);
	if (page == NULL)
	{
		ReleaseBuffer(*buffer);
		return NULL;
	}
	while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
	{
		if (want < index + hdr->nrecords)
		{
			Size		end;
			const char *bytes = topic_batch_records(hdr, inflated, &end);
			Size		rpos = topic_batch_records_start(hdr);
			int			i;

			for (i = 0; i <= want - index; i++)
				if (!topic_record_decode(bytes, &rpos, end, hdr, i, rec))
					report_bad_record(seg, blkno, index + i);
			return hdr;
		}
		index += hdr->nrecords;
	}
	UnlockReleaseBuffer(*buffer);
	return NULL;
}

/* Is the record with TID tid visible to snapshot?  Stores it if slot */
static bool
fetch_tid(Relation rel, ItemPointer tid, Snapshot snapshot,
		  TupleTableSlot *slot)
{
	BlockNumber blkno;
	int64		log_start;
	Relation	seg = tid_segment(rel, tid, &blkno, &log_start);
	TopicLogPosition resolved;
	Buffer		buffer;
	TopicRecord rec;
	TopicBatchHeader hdr;
	TopicBatchBuffer inflated = {NULL, 0};
	bool		found = false;

	if (seg == NULL)
		return false;
	/* read before the data page is locked: the metapage is a lower block */
	resolved = topic_storage_resolved(seg);
	hdr = locate(seg, blkno, ItemPointerGetOffsetNumber(tid), &buffer,
				 &inflated, &rec);
	if (hdr != NULL)
	{
		found = rec.offset >= log_start &&
			topic_batch_visible(buffer, hdr, snapshot, resolved);
		if (found && slot != NULL)
		{
			store_record(rel, slot, &rec, hdr->partition,
						 ItemPointerGetBlockNumber(tid),
						 ItemPointerGetOffsetNumber(tid));
			/* copy the data out of the page before letting it go */
			ExecMaterializeSlot(slot);
		}
		UnlockReleaseBuffer(buffer);
		topic_batch_buffer_free(&inflated);
	}
	if (seg != rel)
		relation_close(seg, NoLock);
	return found;
}

bool
topic_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
						TupleTableSlot *slot)
{
	return fetch_tid(rel, tid, snapshot, slot);
}

bool
topic_tid_valid(TableScanDesc sscan, ItemPointer tid)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	BlockNumber b;

	if (!ItemPointerIsValid(tid))
		return false;
	b = ItemPointerGetBlockNumber(tid);
	for (int i = 0; i < scan->nsegs; i++)
	{
		BlockNumber blkno = scan->is_router ? TopicTidSegBlock(b) : b;

		if ((!scan->is_router || (scan->segs[i].segno & 0x7FFF) == TopicTidSegno(b)) &&
			blkno != TOPIC_LOG_METAPAGE_BLKNO && blkno < scan->segs[i].nblocks)
			return true;
	}
	return false;
}

bool
topic_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							   Snapshot snapshot)
{
	return fetch_tid(rel, &slot->tts_tid, snapshot, NULL);
}

/*
 * ANALYZE of a partition.  A router's own file holds only its metapage,
 * which is all ANALYZE itself reads of it (the table AM's relation_size is
 * the file's), so ANALYZE asks for that one block and the records come
 * from a sample of the segments' blocks that we draw here, as ANALYZE draws
 * blocks: as many as the rows it wants by default_statistics_target.  Each
 * sampled record then counts for the blocks not sampled (sample_weight), so
 * that ANALYZE's row count -- its live rows per block it read, times the
 * one block -- is the estimate for the whole log.  A segment relation is
 * sampled block by block as ANALYZE chooses, as a heap is.
 */
static bool
analyze_block(TopicScanDesc scan, BlockNumber blockno)
{
	scan->pending_dead = 0;
	scan->nvisible = 0;
	scan->current = -1;

	if (scan->is_router)
	{
		uint64		total = 0;

		/* the segments' sample is drawn once, at the metapage */
		if (scan->sampling)
			return true;
		for (int seg = 0; seg < scan->nsegs; seg++)
			total += scan->segs[seg].nblocks;
		total = Min(total, (uint64) MaxBlockNumber);
		scan->sample_weight = 1.0;
		if (total > 0)
		{
			BlockNumber n = BlockSampler_Init(&scan->sampler,
											  (BlockNumber) total,
											  300 * Max(default_statistics_target, 1),
											  pg_prng_uint32(&pg_global_prng_state));

			if (n > 0)
				scan->sample_weight = (double) total / n;
			scan->sampling = true;
		}
		return true;
	}

	scan->sample_weight = 1.0;
	if (blockno < scan->segs[0].nblocks)
	{
		scan->strategy = scan->analyze_strategy;
		load_page(scan, 0, blockno);
		scan->strategy = NULL;
	}
	scan->current = -1;
	return true;
}

/* Make the next sampled block of a router's segments the current page */
static bool
analyze_next_sampled(TopicScanDesc scan)
{
	BlockNumber blockno;
	int			seg = 0;

	if (!scan->sampling || !BlockSampler_HasMore(&scan->sampler))
		return false;
	VACUUM_DELAY_POINT(true);
	blockno = BlockSampler_Next(&scan->sampler);
	while (seg < scan->nsegs && blockno >= scan->segs[seg].nblocks)
		blockno -= scan->segs[seg++].nblocks;
	scan->pending_dead = 0;
	scan->nvisible = 0;
	if (seg < scan->nsegs)
	{
		scan->strategy = scan->analyze_strategy;
		load_page(scan, seg, blockno);
		scan->strategy = NULL;
	}
	scan->current = -1;
	return true;
}

#if PG_VERSION_NUM >= 170000
/*
 * ANALYZE reads the blocks it chose through a read stream: the buffer tells
 * which block, and we read its records ourselves (the pin is kept by
 * load_page's own read).
 */
bool
topic_scan_analyze_next_block(TableScanDesc sscan, ReadStream *stream)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	Buffer		buffer = read_stream_next_buffer(stream, NULL);
	BlockNumber blockno;

	if (!BufferIsValid(buffer))
		return false;
	blockno = BufferGetBlockNumber(buffer);
	ReleaseBuffer(buffer);
	if (scan->analyze_strategy == NULL)
		scan->analyze_strategy = GetAccessStrategy(BAS_VACUUM);
	return analyze_block(scan, blockno);
}
#else
bool
topic_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
							  BufferAccessStrategy bstrategy)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;

	scan->analyze_strategy = bstrategy;
	return analyze_block(scan, blockno);
}
#endif

bool
topic_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							  double *liverows, double *deadrows,
							  TupleTableSlot *slot)
{
	TopicScanDesc scan = (TopicScanDesc) sscan;
	VisibleRecord *v;

	for (;;)
	{
		*deadrows += scan->pending_dead * scan->sample_weight;
		scan->pending_dead = 0;
		if (scan->current + 1 < scan->nvisible)
			break;
		if (!analyze_next_sampled(scan))
		{
			ExecClearTuple(slot);
			return false;
		}
	}
	v = &scan->visible[++scan->current];
	store_record(scan->base.rs_rd, slot, &v->rec, v->partition,
				 tid_block(scan, scan->cseg, scan->cblock), v->index);
	*liverows += scan->sample_weight;
	return true;
}
