/*-------------------------------------------------------------------------
 *
 * batch_iter.c
 *	  Walking the data pages of a topic_log relation one at a time, batch by
 *	  batch, and finding the page where a walk starts.
 *
 * Every reader of a log's batches (consumers, VACUUM, the time search, the
 * replicated bound) reads pages the same way: pin, share-lock, step over a
 * page a crash left all zeros (the log goes on after it), check that the
 * page is one of ours, then its batches in order.  This is that walk.  A
 * reader that needs a commit made durable before it may go on flushes it
 * outside the page lock and reads the page again
 * (topic_batch_iter_flush_retry), as a synchronous commit would have done.
 *
 * The table scan (scan.c) visits pages in its own order (backward,
 * parallel chunks, ANALYZE's samples) and keeps the pin after the lock:
 * it shares only topic_page_read_data.  topics.verify() reads copies of
 * every page, ours or not, and reports instead of raising: it reads the
 * buffers itself.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"

/*
 * Pin block blkno of rel and share-lock it.  Returns the page if it is an
 * initialized data page (checked: a page that is not ours is an error);
 * NULL for a page a crash left all zeros, which stays pinned but unlocked.
 */
Page
topic_page_read_data(Relation rel, BlockNumber blkno,
					 BufferAccessStrategy strategy, Buffer *buffer)
{
	Page		page;

	*buffer = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 strategy);
	LockBuffer(*buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(*buffer);
	if (PageIsNew(page))
	{
		LockBuffer(*buffer, BUFFER_LOCK_UNLOCK);
		return NULL;
	}
	topic_page_check(rel, blkno, page, TL_PAGE_DATA);
	return page;
}

/*
 * Start a walk over the data pages [first, end) of rel, read with strategy
 * (or none); flags are TOPIC_BATCH_ITER_*.  Nothing is read yet.
 */
void
topic_batch_iter_begin(TopicBatchIter *it, Relation rel, BlockNumber first,
					   BlockNumber end, BufferAccessStrategy strategy,
					   int flags)
{
	it->rel = rel;
	it->first = Max(first, TOPIC_LOG_FIRST_DATA_BLKNO);
	it->end = end;
	it->flags = flags;
	it->strategy = strategy;
	it->next = (flags & TOPIC_BATCH_ITER_BACKWARD) ?
		(int64) end - 1 : (int64) it->first;
	it->blkno = InvalidBlockNumber;
	it->buffer = InvalidBuffer;
	it->locked = false;
	it->page = NULL;
	it->pos = 0;
}

/* Let go of the current page, if any */
static void
release_page(TopicBatchIter *it)
{
	if (it->locked)
		LockBuffer(it->buffer, BUFFER_LOCK_UNLOCK);
	if (BufferIsValid(it->buffer))
		ReleaseBuffer(it->buffer);
	it->buffer = InvalidBuffer;
	it->locked = false;
	it->page = NULL;
}

/*
 * Move to the next initialized data page of the walk, share-locked, its
 * batches from the first; false when the walk is over.  Pages a crash left
 * all zeros are stepped over.  The previous page is let go first, so that
 * interrupts (and VACUUM's cost delay) are taken holding nothing.
 */
bool
topic_batch_iter_next_page(TopicBatchIter *it)
{
	bool		backward = (it->flags & TOPIC_BATCH_ITER_BACKWARD) != 0;

	release_page(it);
	while (backward ? it->next >= (int64) it->first : it->next < (int64) it->end)
	{
		BlockNumber blkno = (BlockNumber) it->next;
		Buffer		buffer;
		Page		page;

		if (it->flags & TOPIC_BATCH_ITER_VACUUM)
			VACUUM_DELAY_POINT(false);
		else
			CHECK_FOR_INTERRUPTS();
		it->next += backward ? -1 : 1;
		page = topic_page_read_data(it->rel, blkno, it->strategy, &buffer);
		if (page == NULL)
		{
			/* left by a crash; the log goes on after it */
			ReleaseBuffer(buffer);
			continue;
		}
		it->blkno = blkno;
		it->buffer = buffer;
		it->locked = true;
		it->page = page;
		it->pos = 0;
		return true;
	}
	return false;
}

/*
 * The next batch of the walk, from the current page or the ones after it;
 * NULL when the walk is over.  it->blkno and it->buffer are its page's.
 */
TopicBatchHeader
topic_batch_iter_next(TopicBatchIter *it)
{
	for (;;)
	{
		TopicBatchHeader hdr;

		if (it->locked &&
			(hdr = topic_page_next_batch(it->page, &it->pos)) != NULL)
			return hdr;
		if (!topic_batch_iter_next_page(it))
			return NULL;
	}
}

/*
 * A batch of the current page needs its commit durable first: let go of
 * the page, flush WAL up to flush_to (rather than wait for the WAL writer)
 * and have the walk read that page again from its first batch.
 */
void
topic_batch_iter_flush_retry(TopicBatchIter *it, XLogRecPtr flush_to)
{
	Assert(BufferIsValid(it->buffer));
	release_page(it);
	XLogFlush(flush_to);
	it->next = it->blkno;
}

/*
 * Drop the current page's share lock but keep its pin, for a caller that
 * locks it again itself (VACUUM marks rolled-back batches under an
 * exclusive lock).  The walk lets go of the pin on its next step.
 */
void
topic_batch_iter_unlock(TopicBatchIter *it)
{
	Assert(it->locked);
	LockBuffer(it->buffer, BUFFER_LOCK_UNLOCK);
	it->locked = false;
}

/* End a walk, letting go of the current page */
void
topic_batch_iter_end(TopicBatchIter *it)
{
	release_page(it);
}

/*
 * What probing a block of a search found: the first initialized page at or
 * after it (blkno; InvalidBlockNumber when there is none before the end),
 * whether that page is wholly before the position sought, and where its
 * records start and end in the search's terms (offsets, or timestamps).
 */
typedef struct SeekProbe
{
	BlockNumber blkno;
	bool		before;
	int64		first;
	int64		last;
} SeekProbe;

/*
 * Probe block blkno (below end) of rel.  All-zero pages, which a crash can
 * leave anywhere, are skipped; none left counts as "not before".
 */
static SeekProbe
seek_probe(Relation rel, BlockNumber blkno, BlockNumber end, bool by_time,
		   int64 offset, TimestampTz ts)
{
	SeekProbe	probe = {InvalidBlockNumber, false, 0, 0};

	for (; blkno < end; blkno++)
	{
		Buffer		buffer;
		Page		page = topic_page_read_data(rel, blkno, NULL, &buffer);

		if (page != NULL)
		{
			TopicLogPageOpaque opaque;

			opaque = TopicLogPageGetOpaque(page);
			probe.blkno = blkno;
			if (by_time)
			{
				probe.before = opaque->max_timestamp < ts;
				probe.first = opaque->min_timestamp;
				probe.last = opaque->max_timestamp;
			}
			else
			{
				probe.before = opaque->next_offset <= offset;
				probe.first = opaque->min_offset;
				probe.last = opaque->next_offset - 1;
			}
			UnlockReleaseBuffer(buffer);
			return probe;
		}
		ReleaseBuffer(buffer);
	}
	return probe;
}

/*
 * Where the records before the first data page of rel end, in the search's
 * terms: the metapage says where the first data page starts.
 */
static int64
seek_start_key(Relation rel, bool by_time)
{
	Buffer		buffer = ReadBuffer(rel, TOPIC_LOG_METAPAGE_BLKNO);
	TopicLogPageOpaque opaque;
	int64		key;

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	topic_page_check(rel, TOPIC_LOG_METAPAGE_BLKNO, BufferGetPage(buffer),
					 TL_PAGE_META);
	opaque = TopicLogPageGetOpaque(BufferGetPage(buffer));
	key = by_time ? opaque->max_timestamp : opaque->next_offset - 1;
	UnlockReleaseBuffer(buffer);
	return key;
}

/*
 * First data block whose records may include offset (by_time false) or a
 * timestamp at or after ts (by_time true).  Returns nblocks if none.
 *
 * The pages' summaries increase along the log, so this is a search for
 * the first page not wholly before the target.  A binary search takes
 * log2(pages) page reads, 14 for a million records, and they were half of
 * a one-record fetch.  Records are usually about the same size, so the
 * offset (or time) grows about linearly with the block number: the search
 * looks at the last page first (where a consumer that keeps up reads),
 * then guesses the block by interpolating between the pages it knows
 * (the metapage says where the first one starts), which usually takes two
 * to four reads in all.  After SEEK_GUESSES guesses it halves, so an
 * uneven log costs at most that many reads more than a binary search.
 * Which block is read never decides the answer, only how soon it is found.
 */
#define SEEK_GUESSES 4

BlockNumber
topic_page_search(Relation rel, BlockNumber nblocks, bool by_time,
				  int64 offset, TimestampTz ts)
{
	BlockNumber lo = TOPIC_LOG_FIRST_DATA_BLKNO;
	BlockNumber hi = nblocks;	/* answer in [lo, hi] */
	int64		target = by_time ? (int64) ts : offset;
	bool		lo_known = false;	/* the pages before lo end at lo_key */
	bool		hi_known = false;	/* the page at hi starts at hi_key */
	int64		lo_key = 0;
	int64		hi_key = 0;
	int			guesses = 0;

	while (lo < hi)
	{
		BlockNumber mid;
		SeekProbe	probe;

		if (guesses >= SEEK_GUESSES || hi - lo <= 2)
			mid = lo + (hi - lo) / 2;
		else
		{
			guesses++;
			if (!hi_known || target >= hi_key)
				mid = hi - 1;
			else
			{
				if (!lo_known)
				{
					lo_key = seek_start_key(rel, by_time);
					lo_known = true;
				}
				if (target <= lo_key || hi_key <= lo_key)
					mid = lo;
				else
				{
					double		frac = ((double) target - (double) lo_key) /
						((double) hi_key - (double) lo_key);

					/* keys beyond double precision can round to nonsense */
					if (frac > 0.0 && frac < 1.0)
						mid = lo + (BlockNumber) (frac * (hi - lo));
					else
						mid = lo + (hi - lo) / 2;
					mid = Min(Max(mid, lo), hi - 1);
				}
			}
		}

		probe = seek_probe(rel, mid, hi, by_time, offset, ts);
		if (probe.blkno != InvalidBlockNumber && probe.before)
		{
			lo = probe.blkno + 1;
			lo_key = probe.last;
			lo_known = true;
		}
		else
		{
			hi = mid;
			if (probe.blkno == mid)
			{
				hi_key = probe.first;
				hi_known = true;
			}
		}
	}
	return lo;
}
