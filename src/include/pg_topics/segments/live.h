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
extern void topic_live_open(Relation router, const TopicLiveSlack *slack,
							bool dense, TopicLiveSegment *live);
extern bool topic_live_lock(Relation router, TopicLiveSegment *live,
							TopicTail *tail, BufferAccessStrategy strategy);
extern void topic_live_start(Relation router, TopicLiveSegment *live,
							 TopicTail *tail, int64 restored_start);
extern void topic_live_roll(Relation router, TopicLiveSegment *live,
							bool more, TopicLiveSlack *slack);

#endif							/* TOPIC_LIVE_H */
