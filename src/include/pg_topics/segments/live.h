/*-------------------------------------------------------------------------
 *
 * live.h
 *	  The LIVE segment of a partition, for its writers: opening it, locking
 *	  its tail, starting it and rolling it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_LIVE_H
#define TOPIC_LIVE_H

#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"

/* The LIVE segment, as a writer opened it */
typedef struct TopicLiveSegment
{
	Relation	seg;			/* open with RowExclusiveLock */
	TopicSegmentEntry entry;	/* its directory entry, as read */
	BlockNumber roll_blocks;	/* the size it rolls at */
	BlockNumber limit;			/* what a chunk may fill it to; 0: no limit */
} TopicLiveSegment;

/*
 * A full segment that a call goes on in, without a spare to roll to: how
 * much more it may take (topic_live_roll doubles it)
 */
typedef struct TopicLiveSlack
{
	Oid			relid;
	BlockNumber blocks;
} TopicLiveSlack;

extern BlockNumber topic_live_nblocks(Relation seg);
/*
 * Prepares a writer's records for the segment seg it is about to write:
 * what the chunk may fill it to is limit blocks (0: no limit)
 */
typedef void (*TopicLivePrepare) (Relation seg, BlockNumber limit, void *arg);

/* How a writer takes the LIVE segment (topic_live_acquire) */
typedef struct TopicLiveWrite
{
	const TopicLiveSlack *slack;	/* a full segment it goes on in, or NULL */
	bool		dense;			/* its records stay together, past the size */
	BufferAccessStrategy strategy;	/* for the tail page, or NULL */
	TopicLivePrepare prepare;	/* called for each segment it tries */
	void	   *prepare_arg;
} TopicLiveWrite;

extern void topic_live_acquire(Relation router, const TopicLiveWrite *how,
							   TopicLiveSegment *live, TopicTail *tail);
extern void topic_live_start(Relation router, TopicLiveSegment *live,
							 TopicTail *tail, int64 restored_start);
extern void topic_live_roll(Relation router, TopicLiveSegment *live,
							bool more, TopicLiveSlack *slack);

#endif							/* TOPIC_LIVE_H */
