/*-------------------------------------------------------------------------
 *
 * watch.c
 *	  What a parked Kafka request waits for: commits to its partitions.
 *
 * A parked Fetch notes each partition it reads before reading it; the
 * listener wakes it when any of them may have seen a commit since.  The
 * partitions are kept as the registry's wake-up buckets they fall in (a
 * bit each of a fixed set, whatever the number of partitions) with their
 * commit counts summed when noted: the sum moves once any of them sees a
 * commit, so a Fetch over thousands of partitions sleeps as one over a few
 * does (a fixed list of 64 partitions used to make a larger Fetch run
 * again at every turn of the loop until its max_wait_ms).  Partitions that
 * share a bucket wake each other, never lose a wake-up.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pg_topics/kafka/request.h"
#include "pg_topics/shared/registry.h"

/* A new request watches no partition yet */
void
kafka_watch_reset(KafkaWatch *watch)
{
	watch->partitions = false;
	memset(watch->buckets, 0, sizeof(watch->buckets));
	watch->seen = 0;
}

/*
 * A parked request waits for commits to relid too: noted before the
 * request reads it
 */
void
kafka_watch_partition(KafkaWatch *watch, Oid relid)
{
	watch->partitions = true;
	watch->seen += topic_registry_watch_note(watch->buckets, relid);
}
