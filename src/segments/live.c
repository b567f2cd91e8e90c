/*-------------------------------------------------------------------------
 *
 * live.c
 *	  The LIVE segment of a partition, for its writers: opening it, locking
 *	  its tail, starting it and rolling it.
 *
 * Appends go to one segment of a partition at a time, the LIVE one of its
 * directory (segment.c).  A writer opens it (rolling it first when it is
 * due by size, age or the DUE flag), prepares its records for it without
 * any buffer lock (their TOAST values go into that segment's TOAST table),
 * then locks the tail page, and learns there whether the segment is still
 * LIVE: another writer may have rolled it meanwhile, and then the records
 * are prepared again for the next one.  A segment that reaches its size
 * rolls at the end of the chunk that filled it; without a spare to roll to
 * it is flagged DUE and the call goes on in it, for a bounded slack.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "utils/timestamp.h"

#include "pg_topics/segments/live.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_ddl.h"
#include "pg_topics/shared/maintenance.h"

/*
 * How long a call that filled its segment waits for the worker's next
 * spare segment, each time: enough for a round that is not busy elsewhere
 */
#define SPARE_WAIT_MS	1000

/*
 * The segment's size in blocks up to its tail, as this backend last saw
 * it: the zero pages taken ahead of the tail do not count (a segment rolls
 * when its records fill it).  Not the file's size: an lseek per insert was
 * a tenth of a single-record produce, and the limit is soft (every writer
 * looks, each at its own last tail).
 */
BlockNumber
topic_live_nblocks(Relation seg)
{
	BlockNumber target = RelationGetTargetBlock(seg);

	return target != InvalidBlockNumber ? target + 1 :
		topic_storage_last_block(seg) + 1;
}

/*
 * Is the LIVE segment due to roll over to the next one: by pages, by age,
 * or because someone found it full by its whole size (the flag in the
 * directory, which every writer reads anyway)?
 */
static bool
live_due(Relation seg, const TopicSegmentEntry *live,
		 const TopicSegmentDir *dir)
{
	BlockNumber nblocks = topic_live_nblocks(seg);

	if (nblocks <= TOPIC_LOG_FIRST_DATA_BLKNO)
		return false;			/* empty: nothing to seal */
	if (live->flags & TOPIC_SEGENTRY_DUE)
		return true;
	if (nblocks >= topic_segdir_roll_blocks(dir))
		return true;
	return dir->segment_roll_usecs > 0 &&
		GetCurrentTimestamp() - live->activated_at >= dir->segment_roll_usecs;
}

/*
 * Open the LIVE segment of router for writing, rolled first if it is due.
 * live->limit is what a chunk may fill it to: its roll size, plus the
 * slack of a call that goes on in it without a spare; 0 when dense (a
 * writer whose records stay together, past the segment's size).
 */
static void
live_open(Relation router, const TopicLiveSlack *slack, bool dense,
		  TopicLiveSegment *live)
{
	int			stale = 0;

	for (;;)
	{
		TopicSegmentDir *dir = topic_segdir_read(router);
		TopicSegmentEntry *entry = topic_segdir_live(dir);
		Relation	seg;

		if (entry == NULL ||
			(seg = topic_segment_open(dir->router, entry, RowExclusiveLock)) == NULL)
		{
			/*
			 * Truncated in this transaction, by a TRUNCATE whose new segment
			 * is still to come (a subscription's worker's); or rolled and
			 * dropped since we read the directory: read it again
			 */
			pfree(dir);
			if (entry == NULL &&
				topic_segment_ddl_settle(RelationGetRelid(router)))
				continue;
			if (++stale < 3)
				continue;
			elog(ERROR, "partition \"%s\" has no segment to write to",
				 RelationGetRelationName(router));
		}
		if (live_due(seg, entry, dir) && topic_segment_roll(router, seg))
		{
			relation_close(seg, RowExclusiveLock);
			pfree(dir);
			continue;
		}
		live->seg = seg;
		live->entry = *entry;
		live->roll_blocks = topic_segdir_roll_blocks(dir);
		live->limit = live->roll_blocks;
		if (slack != NULL && entry->relid == slack->relid)
			live->limit += Min(slack->blocks, MaxBlockNumber - live->limit);
		if (dense)
			live->limit = 0;
		pfree(dir);
		return;
	}
}

/*
 * Lock the tail of the segment live_open opened.  False if it is no
 * longer LIVE (another writer rolled it): the segment is then closed, and
 * the caller opens the next one.
 */
static bool
live_lock(Relation router, TopicLiveSegment *live, TopicTail *tail,
		  BufferAccessStrategy strategy)
{
	TopicSegmentDir *dir;
	TopicSegmentEntry *entry;
	bool		still;

	topic_tail_lock(live->seg, tail, strategy);
	/* space taken ahead of the tail stays within the segment's size */
	tail->ahead_limit = live->roll_blocks;

	/*
	 * A roll seals the segment's tail page while holding it, so under the
	 * tail lock an unsealed tail means the segment is still LIVE.  A sealed
	 * one usually means it rolled; but the seal is a hint that can reach
	 * disk when the directory change did not (a crash), so the directory
	 * has the last word.
	 */
	if (!tail->sealed && !tail->init_page &&
		tail->blkno != TOPIC_LOG_METAPAGE_BLKNO)
		return true;
	dir = topic_segdir_read(router);
	entry = topic_segdir_live(dir);
	still = entry != NULL && entry->relid == live->entry.relid &&
		entry->segno == live->entry.segno;
	pfree(dir);
	if (still)
		return true;
	topic_tail_release(tail);
	/* TOAST values may have been written there: keep the lock, as any write */
	relation_close(live->seg, NoLock);
	live->seg = NULL;
	return false;
}

/*
 * Open the LIVE segment of router for a writer (how), have the writer
 * prepare its records for it (how->prepare: they are TOASTed into that
 * segment, up to live->limit), and lock its tail in *tail.  The records
 * are prepared without any buffer lock; if the segment stopped being LIVE
 * meanwhile (another writer rolled it), they are prepared again for the
 * next one.
 */
void
topic_live_acquire(Relation router, const TopicLiveWrite *how,
				   TopicLiveSegment *live, TopicTail *tail)
{
	do
	{
		live_open(router, how->slack, how->dense, live);
		how->prepare(live->seg, live->limit, how->prepare_arg);
	} while (!live_lock(router, live, tail, how->strategy));
}

/*
 * A segment's first record continues the log where it stood: move the
 * start of the empty LIVE segment (its tail locked) to its base offset,
 * or, for a restored log whose first record comes with its offset
 * (restored_start; else TOPIC_OFFSET_PLACEHOLDER), to that offset when the
 * log holds nothing yet.
 */
void
topic_live_start(Relation router, TopicLiveSegment *live, TopicTail *tail,
				 int64 restored_start)
{
	int64		start = live->entry.base_offset;

	if (restored_start != TOPIC_OFFSET_PLACEHOLDER &&
		restored_start > tail->next_offset &&
		topic_segdir_log_is_empty(router, &live->entry))
	{
		start = restored_start;
		topic_segdir_advance_start(router, start, start);
	}
	topic_tail_move_start(live->seg, tail, start, live->entry.base_timestamp);
}

/*
 * The segment reached its size: roll it now, so that the rest of the call
 * and the next calls write to a fresh one.  Without a spare, flag it for
 * every writer and the worker, and go on in it for as much again as it
 * holds (slack); when the call fills even that (and has more records to
 * write: more), it waits a little for the worker's spare (if the worker
 * runs and can see this partition).  A call smaller than a segment never
 * waits.
 */
void
topic_live_roll(Relation router, TopicLiveSegment *live, bool more,
				TopicLiveSlack *slack)
{
	TopicSegmentEntry *entry = &live->entry;
	bool		rolled;

	if (!(rolled = topic_segment_roll(router, live->seg)) && more &&
		slack->relid == entry->relid &&
		router->rd_createSubid == InvalidSubTransactionId &&
		topic_maintenance_problem() == NULL &&
		topic_segment_wait_for_spare(router, SPARE_WAIT_MS))
		rolled = topic_segment_roll(router, live->seg);
	if (rolled)
		return;
	if (!(entry->flags & TOPIC_SEGENTRY_DUE))
		topic_segdir_mark_due(router, entry->relid, entry->segno);
	if (slack->relid != entry->relid)
		slack->blocks = 0;
	slack->relid = entry->relid;
	/* doubling: a few tries, however large the call */
	slack->blocks = Min((uint64) slack->blocks * 2 + live->roll_blocks,
						MaxBlockNumber);
}
