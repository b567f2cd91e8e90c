/*-------------------------------------------------------------------------
 *
 * registry.h
 *	  In-flight producers per partition, and long-poll wake-ups.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_REGISTRY_H
#define TOPIC_REGISTRY_H

#include "utils/rel.h"
#include "utils/timestamp.h"

/* The transaction holding a partition's stable offset back */
typedef struct TopicHolder
{
	int			pid;			/* 0: nobody */
	TransactionId xid;
	TimestampTz since;
} TopicHolder;

extern void topic_registry_init(void);
extern bool topic_registry_wrote_in_xact(void);
extern void topic_registry_shmem_request(void);
extern void topic_registry_shmem_startup(void);
extern Oid	topic_registry_topic_of(Relation rel);
extern int	topic_registry_add_writer(Relation rel, Oid topic);
extern void topic_registry_set_first_offset(int slot, int64 first_offset);
extern void topic_registry_set_partition(int slot, int32 partition);
extern int	topic_registry_my_partitions(Oid *relids, Oid *topics,
										 int32 *partitions, int max);
extern int64 topic_registry_stable_offset(Oid relid, int64 high_watermark,
										  TopicHolder *holder);
extern int64 topic_registry_stable_offset_of_others(Oid relid,
													int64 high_watermark);
extern void topic_registry_prepare_wait(Oid relid);
extern bool topic_registry_wait(Oid relid, long timeout_ms);
extern void topic_registry_end_wait(void);
extern void topic_registry_wake_all(void);
extern long topic_registry_end_old_producers(void);

/* long-poll for many readers at once: a watcher's set of buckets */
#define TOPIC_WATCH_WORDS	(1024 / 64)
extern int	topic_registry_watcher_attach(void);
extern uint64 topic_registry_watch_note(uint64 *set, Oid relid);
extern uint64 topic_registry_watch_count(const uint64 *set);
extern void topic_registry_watch_set(int watcher, const uint64 *set);

#endif							/* TOPIC_REGISTRY_H */
