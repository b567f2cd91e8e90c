/*-------------------------------------------------------------------------
 *
 * group_state.h
 *	  Consumer groups in shared memory: members, assignment, and the cache
 *	  of committed offsets.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_GROUP_STATE_H
#define TOPIC_GROUP_STATE_H

#include "executor/tuptable.h"
#include "nodes/pg_list.h"
#include "utils/timestamp.h"

#define GROUP_NAME_LEN		NAMEDATALEN
#define GROUP_MAX_MEMBERS	64

/* A member as the views show it */
typedef struct TopicGroupMemberInfo
{
	char		id[GROUP_NAME_LEN];
	Oid			role;			/* the role it polled as, last time */
	bool		durable;
	int			pid;
	TimestampTz last_seen;
} TopicGroupMemberInfo;

/* What a poll needs to know about its group */
typedef struct TopicGroupView
{
	int32		generation;
	Oid			owner;
	int			nassigned;
	int32	   *assigned;		/* palloc'd, the caller's partitions */
} TopicGroupView;

/* A committed position, copied out of shared memory */
typedef struct TopicGroupPosition
{
	char		group[GROUP_NAME_LEN];
	int32		partition;
	int64		offset;
	Oid			owner;
	int64		version;		/* its record in consumer_offsets, -1: not yet
								 * committed */
	bytea	   *metadata;		/* a Kafka commit's metadata, when version is
								 * -1 */
} TopicGroupPosition;

extern void topic_groups_shmem_request(void);
extern void topic_groups_shmem_startup(void);

extern void topic_groups_ensure_loaded(void);
extern void topic_group_join(Oid topic, const char *group, const char *member,
							 bool durable, int32 nparts, TopicGroupView *view);
extern void topic_group_leave_session(void);
extern int	topic_group_member_roles(Oid topic, const char *group,
									 TopicGroupMemberInfo **members);
extern void topic_group_evict(Oid topic, const char *group,
							  const TopicGroupMemberInfo *members, int nmembers);
extern bool topic_group_owns(Oid topic, const char *group, const char *member,
							 int32 partition);
extern bool topic_group_exists(Oid topic, const char *group, Oid *owner);
extern bool topic_group_committed(Oid topic, const char *group,
								  int32 partition, int64 *offset);
extern bool topic_group_committed_version(Oid topic, const char *group,
										  int32 partition, int64 *offset,
										  int64 *version);
extern void topic_group_set_committed(Oid topic, const char *group,
									  int32 partition, int64 offset,
									  Oid owner, int64 version);
extern void topic_group_reserve(Oid topic, const char *group, int32 partition,
								Oid owner, bool with_group);
extern void topic_groups_reload_later(void);
extern void topic_group_apply_record(Oid topic, const char *group,
									 int32 partition, bool has_offset,
									 int64 offset, Oid owner, int64 version);
extern void topic_group_forget(Oid topic, const char *group);
extern void topic_groups_forget_dropped(Oid dbid, Oid topic);

extern bool topic_group_has_members(Oid topic, const char *group);
extern List *topic_group_positions(Oid topic);

/* for the views: one call per group, member or partition */
typedef void (*TopicGroupVisitor) (void *arg, Oid topic, const char *group,
							  Oid owner, int32 generation, int nmembers);
typedef void (*TopicMemberVisitor) (void *arg, Oid topic, const char *group,
							   int32 generation, const TopicGroupMemberInfo *member,
							   int32 *partitions, int npartitions);
typedef void (*TopicOffsetVisitor) (void *arg, Oid topic, const char *group,
							   int32 partition, int64 committed);
extern void topic_groups_visit(TopicGroupVisitor gv, TopicMemberVisitor mv,
							   TopicOffsetVisitor ov, void *arg);

#endif							/* TOPIC_GROUP_STATE_H */
