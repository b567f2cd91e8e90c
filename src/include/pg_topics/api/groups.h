/*-------------------------------------------------------------------------
 *
 * groups.h
 *	  Consumer groups: poll (poll.c), shared by the function and the
 *	  TopicPoll scan, and the group functions of group_admin.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_GROUPS_H
#define TOPIC_GROUPS_H

#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"

/* poll's arguments, checked */
typedef struct TopicPollArgs
{
	char	   *group;
	char	   *member;			/* the consumer, or the session's own name */
	bool		durable;		/* a named consumer, kept across sessions */
	int32		max_records;
	int64		wait_us;
} TopicPollArgs;

extern Relation topic_poll_begin(Oid rowtype, Datum *values, bool *nulls,
								 TopicPollArgs *args);
extern void topic_poll_read(Relation topic, const TopicPollArgs *args,
							const TopicStableRead *sink);
extern Datum topic_poll(PG_FUNCTION_ARGS);

extern void topic_groups_init(void);
extern void topic_groups_topic_appeared(void);

/* poll.c, for group_admin.c: checks and the transaction's positions */
extern char *topic_groups_group_arg(text *arg);
extern bool topic_role_controls_group(Oid role, Oid topic_owner, Oid owner);
extern void topic_groups_check_control(Relation topic, const char *group,
									   Oid owner);
extern void topic_groups_evict_unauthorized(Relation topic, const char *group,
											Oid owner);
extern void topic_groups_yield_to_topic_owner(Relation topic,
											  const char *group, Oid owner);
extern bool topic_role_may_use_kafka_group(Oid role, const char *group,
										   const Oid *topics, int ntopics,
										   Oid kafka_owner);
extern bool topic_groups_lock_partition(Oid topic, const char *group,
										int32 partition, bool wait);
extern bool topic_groups_partition_busy(Oid topic, const char *group,
										int32 partition);
extern bool topic_groups_positions_replicated(void);
extern void topic_groups_check_writable(void);
extern void topic_groups_commit_position(Relation topic, const char *group,
										 int32 partition, int64 offset,
										 Oid owner, const bytea *metadata);
extern bytea *topic_groups_record_metadata(Jsonb *value);
extern void topic_groups_clear_position(Relation topic, const char *group,
										int32 partition);
extern void topic_groups_delete_group_position(Relation topic,
											   const char *group,
											   int32 partition);
extern void topic_groups_tombstone_name(const char *old_name);
extern List *topic_groups_renamed_positions(Oid topic);

/* group_admin.c */
extern void topic_groups_topic_renamed(Oid topicid, const char *old_name);
extern void topic_groups_take_partition(Relation topic, const char *group,
										int32 partition, bool wait);
extern void topic_groups_set_position(Relation topic, const char *group,
									  int32 partition, int64 offset,
									  const bytea *metadata, bool kafka_commit,
									  bool wait);
extern void topic_groups_delete_offset(Relation topic, const char *group,
									   int32 partition, bool wait);
extern bool topic_groups_committed_position(Relation topic, const char *group,
											int32 partition, int64 *offset,
											bytea **metadata);

#endif							/* TOPIC_GROUPS_H */
