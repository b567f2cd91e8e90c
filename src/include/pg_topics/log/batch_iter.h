/*-------------------------------------------------------------------------
 *
 * batch_iter.h
 *	  Walking the data pages of a topic_log relation one at a time, batch by
 *	  batch, and finding the page where a walk starts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_BATCH_ITER_H
#define TOPIC_BATCH_ITER_H

#include "access/xlogdefs.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_topics/log/storage.h"

/*
 * A walk over the data pages [first, end) of rel.  The current page
 * (blkno, buffer, page) is pinned and share-locked from the
 * topic_batch_iter_next_page() (or topic_batch_iter_next()) that reached
 * it until the next call, or topic_batch_iter_end(); an error on the way
 * leaves the buffer to the transaction's abort, which releases it.
 */
typedef struct TopicBatchIter
{
	Relation	rel;
	BlockNumber first;			/* the walk covers pages [first, end) */
	BlockNumber end;
	int64		next;			/* the page to read next */
	int			flags;
	BufferAccessStrategy strategy;
	BlockNumber blkno;			/* the current page */
	Buffer		buffer;			/* pinned, or InvalidBuffer */
	bool		locked;			/* and share-locked */
	Page		page;
	Size		pos;			/* the next batch on it (0: the first) */
} TopicBatchIter;

/* topic_batch_iter_begin's flags */
#define TOPIC_BATCH_ITER_BACKWARD	0x01	/* from end - 1 down to first */
#define TOPIC_BATCH_ITER_VACUUM		0x02	/* vacuum_delay_point between
											 * pages */

extern void topic_batch_iter_begin(TopicBatchIter *it, Relation rel,
								   BlockNumber first, BlockNumber end,
								   BufferAccessStrategy strategy, int flags);
extern bool topic_batch_iter_next_page(TopicBatchIter *it);
extern TopicBatchHeader topic_batch_iter_next(TopicBatchIter *it);
extern void topic_batch_iter_flush_retry(TopicBatchIter *it,
										 XLogRecPtr flush_to);
extern void topic_batch_iter_unlock(TopicBatchIter *it);
extern void topic_batch_iter_end(TopicBatchIter *it);

/* The next batch of the current page, NULL at its end */
static inline TopicBatchHeader
topic_batch_iter_page_next(TopicBatchIter *it)
{
	return topic_page_next_batch(it->page, &it->pos);
}

extern Page topic_page_read_data(Relation rel, BlockNumber blkno,
								 BufferAccessStrategy strategy,
								 Buffer *buffer);
extern BlockNumber topic_page_search(Relation rel, BlockNumber nblocks,
									 bool by_time, int64 offset,
									 TimestampTz ts);

#endif							/* TOPIC_BATCH_ITER_H */
