/*-------------------------------------------------------------------------
 *
 * long_poll.h
 *	  The long-poll loop of fetch and poll: read now, or sleep until a
 *	  producer commits and read again.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_LONG_POLL_H
#define TOPIC_LONG_POLL_H

#include "utils/rel.h"

#include "pg_topics/read/read.h"

/* One long-poll in progress, as its try callback sees it */
typedef struct TopicLongPoll
{
	int64		wait_us;		/* 0: read once, never sleep */
	Oid			watch;			/* whose commits wake the sleeper (set by
								 * topic_long_poll_watch) */
	long		recheck_ms;		/* > 0: sleep at most this long, as something
								 * may change that wakes nobody */
} TopicLongPoll;

/*
 * Try to read from topic (opened with AccessShareLock) now; return how
 * many records were delivered.  Before reading, call
 * topic_long_poll_watch() with the relation whose commits bring new
 * records.  Close what was opened with NoLock: the loop closes the topic.
 */
typedef int64 (*TopicPollTry) (TopicLongPoll *lp, Relation topic, void *arg);

/*
 * After each try: when sleeping, release the locks on the partitions the
 * try read (the loop releases the topic's), so that a drop never waits.
 */
typedef void (*TopicPollRelease) (void *arg, bool sleeping);

extern void topic_long_poll(TopicReader reader, Relation topic, int64 wait_us,
							TopicPollTry try_read, TopicPollRelease release,
							void *arg);
extern void topic_long_poll_watch(TopicLongPoll *lp, Oid relid);

#endif							/* TOPIC_LONG_POLL_H */
