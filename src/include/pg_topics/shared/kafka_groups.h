/*-------------------------------------------------------------------------
 *
 * kafka_groups.h
 *	  Kafka consumer groups' membership in shared memory: the group
 *	  coordinator's join, sync, heartbeat and leave, and session expiry.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_GROUPS_H
#define TOPIC_KAFKA_GROUPS_H

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

#include "pg_topics/shared/group_state.h"

#define KAFKA_GROUP_NAME_LEN		NAMEDATALEN
#define KAFKA_MEMBER_ID_LEN			NAMEDATALEN
#define KAFKA_PROTOCOL_NAME_LEN		32
#define KAFKA_MAX_PROTOCOLS			4
/* the topics a group's members subscribe to, remembered for the SQL guard */
#define KAFKA_GROUP_MAX_TOPICS		32

/* Kafka's group states, as DescribeGroups names them */
typedef enum KafkaGroupState
{
	KAFKA_GROUP_EMPTY,
	KAFKA_GROUP_PREPARING,		/* PreparingRebalance: waiting for joins */
	KAFKA_GROUP_COMPLETING,		/* CompletingRebalance: waiting for the leader's sync */
	KAFKA_GROUP_STABLE
} KafkaGroupState;

/* One protocol a member offers: its name and metadata (the subscription) */
typedef struct KafkaProtocol
{
	const char *name;
	const char *metadata;
	int32		len;
} KafkaProtocol;

/* A JoinGroup, as the coordinator needs it */
typedef struct KafkaJoin
{
	const char *group;
	const char *member_id;		/* "" for a new member */
	const char *instance_id;	/* a static member's group.instance.id, or "" */
	const char *client_id;
	const char *client_host;
	int32		session_timeout;	/* ms */
	int32		rebalance_timeout;	/* ms */
	const char *protocol_type;
	int			nprotocols;
	KafkaProtocol protocols[KAFKA_MAX_PROTOCOLS];
	bool		id_required;	/* v4+: a new member gets its id first */
	Oid			role;
	int			ntopics;		/* the topics subscribed, resolved */
	Oid			topics[KAFKA_GROUP_MAX_TOPICS];
} KafkaJoin;

/* A member as a response shows it */
typedef struct KafkaMemberView
{
	char		id[KAFKA_MEMBER_ID_LEN];
	char		instance_id[KAFKA_MEMBER_ID_LEN];	/* "": a dynamic member */
	char		client_id[KAFKA_MEMBER_ID_LEN];
	char		client_host[KAFKA_MEMBER_ID_LEN];
	Oid			role;
	TimestampTz last_heartbeat;
	char	   *metadata;		/* of the group's protocol; palloc'd */
	int32		metadata_len;
	char	   *assignment;		/* palloc'd */
	int32		assignment_len;
} KafkaMemberView;

/* What a coordinator call answers (besides an error code) */
typedef struct KafkaGroupReply
{
	bool		done;			/* false: park until the group changes */
	int			slot;			/* the group's, to watch while parked */
	uint64		version;		/* the group's change count seen */
	int32		generation;
	KafkaGroupState state;
	char		member_id[KAFKA_MEMBER_ID_LEN];
	char		leader[KAFKA_MEMBER_ID_LEN];
	char		protocol_type[KAFKA_PROTOCOL_NAME_LEN];
	char		protocol[KAFKA_PROTOCOL_NAME_LEN];
	bool		skip_assignment;	/* JoinGroup: a static leader's rejoin */
	int			nmembers;		/* JoinGroup: for the leader; Describe: all */
	KafkaMemberView *members;
	char	   *assignment;		/* SyncGroup: the member's */
	int32		assignment_len;
} KafkaGroupReply;

/* One member's assignment, as the leader's SyncGroup hands it over */
typedef struct KafkaAssignment
{
	const char *member_id;
	const char *data;
	int32		len;
} KafkaAssignment;

extern Size kafka_groups_shmem_size(void);
extern void kafka_groups_shmem_request(void);
extern void kafka_groups_shmem_startup(void);

/* A member's rights, as judged outside the groups' lock */
typedef struct KafkaMemberRights
{
	char		id[KAFKA_MEMBER_ID_LEN];
	Oid			role;
	int			ntopics;		/* the topics it reads; -1: more than fit */
	Oid			topics[KAFKA_GROUP_MAX_TOPICS];
} KafkaMemberRights;

/* A group's, and its members' */
typedef struct KafkaGroupRights
{
	Oid			owner;			/* the role of its first member */
	int			ntopics;		/* the topics its members read; -1: more */
	Oid			topics[KAFKA_GROUP_MAX_TOPICS];
	int			nmembers;
	KafkaMemberRights members[GROUP_MAX_MEMBERS];
} KafkaGroupRights;

extern int16 kafka_group_join(const KafkaJoin *join, bool retry,
							  KafkaGroupReply *reply);
extern int16 kafka_group_sync(const char *group, const char *member_id,
							  const char *instance_id,
							  int32 generation, Oid role, bool retry,
							  const KafkaAssignment *assignments, int n,
							  KafkaGroupReply *reply);
extern int16 kafka_group_heartbeat(const char *group, const char *member_id,
								   const char *instance_id, int32 generation,
								   Oid role);
extern int16 kafka_group_leave(const char *group, const char *member_id,
							   const char *instance_id, Oid role);
extern int16 kafka_group_check_member(const char *group, const char *member_id,
									  const char *instance_id,
									  int32 generation, Oid role);
extern bool kafka_group_describe(const char *group, KafkaGroupReply *reply);
extern List *kafka_group_names(void);
extern Oid	kafka_group_owner(const char *group);
extern bool kafka_group_changed(int slot, uint64 seen);
extern bool kafka_group_rights(const char *group, KafkaGroupRights *rights);
extern void kafka_group_evict(const char *group, const KafkaMemberRights *evict,
							  int n);
extern long kafka_groups_tick(void);
extern void kafka_group_expire(const char *group);

/*
 * for SQL: does group have live Kafka members reading topic?  When the
 * group subscribes to more topics than it records, *unlisted_owner is its
 * owner (for the caller to judge), else InvalidOid.
 */
extern bool kafka_group_reads_topic(const char *group, Oid topic,
									Oid *unlisted_owner);

/* for the views: every Kafka member, with its assignment */
typedef void (*KafkaMemberVisitor) (void *arg, const char *group,
									int32 generation,
									const KafkaMemberView *member);
extern void kafka_groups_visit_members(KafkaMemberVisitor visit, void *arg);

#endif							/* TOPIC_KAFKA_GROUPS_H */
