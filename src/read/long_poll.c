/*-------------------------------------------------------------------------
 *
 * long_poll.c
 *	  The long-poll of a consumer read, one loop for fetch and poll: try to
 *	  read now; when that delivered nothing and the wait is not over, sleep
 *	  until a producer commits and try again.
 *
 * A try first names the relation whose commits bring it new records
 * (fetch: its partition; poll: the topic, as every partition of it may
 * be assigned), and the reader starts listening on that relation's
 * condition variable (registry.c) before it reads the high watermark, so
 * a commit after the read always wakes it.
 *
 * The sleeper holds no lock on the topic or on any of its partitions, so
 * drop_topic never waits for it; a drop wakes every sleeper, and opening
 * the topic again the reader gets 42P01 at once.  Cancel and
 * statement_timeout end the sleep at once (the condition variable's sleep
 * checks for interrupts).  Replay wakes nobody on a hot standby: there the
 * sleep is a recheck every TOPIC_STANDBY_RECHECK_MS.  A read that returns
 * records waits for the synchronous standby first
 * (pg_topics.wait_for_sync_standby).
 *
 * Whether wait may be used at all (not in REPEATABLE READ or SERIALIZABLE,
 * whose snapshot would never show a new record) is checked with the
 * read's other arguments, by topic_check_read_args.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xlog.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/read/long_poll.h"
#include "pg_topics/shared/registry.h"

/* How often a long-poll on a hot standby looks again */
#define TOPIC_STANDBY_RECHECK_MS	20

/*
 * Open topic topicid again after a sleep, for reader; 42P01 when it was
 * dropped meanwhile.
 */
static Relation
reopen_topic(TopicReader reader, Oid topicid)
{
	Relation	topic = topic_try_open(topicid, AccessShareLock, ACL_SELECT);

	if (topic != NULL)
		return topic;
	switch (reader)
	{
		case TOPIC_READER_FETCH:
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("topic was dropped while fetch was waiting")));
			break;
		case TOPIC_READER_POLL:
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("topic was dropped while poll was waiting")));
			break;
	}
	return NULL;				/* keep compiler quiet */
}

/*
 * A try's relation whose commits bring it new records: with a wait,
 * listen for them from here on (no lost wake-up).
 */
void
topic_long_poll_watch(TopicLongPoll *lp, Oid relid)
{
	lp->watch = relid;
	if (lp->wait_us > 0)
		topic_registry_prepare_wait(relid);
}

/*
 * Read topic (opened for reader with AccessShareLock, and closed here) by
 * try_read until it delivers records or wait_us is over; release() after
 * each try.  See the top of this file.
 */
void
topic_long_poll(TopicReader reader, Relation topic, int64 wait_us,
				TopicPollTry try_read, TopicPollRelease release, void *arg)
{
	Oid			topicid = RelationGetRelid(topic);
	TimestampTz deadline = GetCurrentTimestamp() + wait_us;
	TopicLongPoll lp;
	int64		returned;

	lp.wait_us = wait_us;
	for (;;)
	{
		long		remaining_ms;
		bool		sleeping;

		/* after a sleep, open the topic again: it may be gone */
		if (topic == NULL)
			topic = reopen_topic(reader, topicid);
		lp.watch = InvalidOid;
		lp.recheck_ms = 0;
		returned = try_read(&lp, topic, arg);
		relation_close(topic, NoLock);
		topic = NULL;

		remaining_ms = (long) ((deadline - GetCurrentTimestamp()) / 1000);
		sleeping = !(returned > 0 || wait_us == 0 || remaining_ms <= 0);
		release(arg, sleeping);
		if (!sleeping)
			break;

		/* sleep without holding the topic, so drop_topic never waits */
		UnlockRelationOid(topicid, AccessShareLock);
		if (RecoveryInProgress())
			remaining_ms = Min(remaining_ms, TOPIC_STANDBY_RECHECK_MS);
		if (lp.recheck_ms > 0)
			remaining_ms = Min(remaining_ms, lp.recheck_ms);
		Assert(OidIsValid(lp.watch));
		topic_registry_wait(lp.watch, remaining_ms);
	}
	if (wait_us > 0)
		topic_registry_end_wait();
	if (returned > 0)
		topic_wait_for_sync_standby();
}
