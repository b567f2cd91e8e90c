/*-------------------------------------------------------------------------
 *
 * kafka_groups.c
 *	  The Kafka group coordinator: consumer groups' members, rebalances,
 *	  assignments and session expiry, in shared memory.
 *
 * Kafka clients divide a group's partitions among themselves: the
 * coordinator only runs the rebalance protocol.  A rebalance gathers every
 * member's JoinGroup (PreparingRebalance), then answers them all at once
 * with a new generation, the leader getting every member's subscription
 * (CompletingRebalance); the leader computes the assignment and hands it
 * over in its SyncGroup, and every member's SyncGroup gets its part
 * (Stable).  Heartbeats keep members alive and tell them when to join
 * again; a member silent for its session timeout, or not back within the
 * rebalance timeout, is removed, and the others rebalance.  This is
 * Kafka's "classic" protocol with eager rebalancing.
 *
 * Members of one group may be served by different listener processes (the
 * kernel spreads connections), so the state lives here, under one LWLock,
 * and nothing in it waits: a JoinGroup or a follower's SyncGroup that must
 * wait is parked by its listener, which watches the group's change count
 * (each change sets the latches of the processes that serve the group's
 * members).  Every listener calls kafka_groups_tick() every 100 ms while
 * there are groups, for the timeouts: whichever runs first ends a
 * rebalance or expires a session, and the others find nothing to do.
 * DeleteGroups runs its group's timeouts itself (kafka_group_expire), so
 * that a session just timed out counts as over, as in Kafka.
 * Nothing here runs SQL: heartbeats are never held up by a
 * produce.
 *
 * Fixed-size: pg_topics.max_groups groups and four times as many members,
 * allocated at server start when pg_topics.kafka_port is set; subscriptions and assignments (opaque bytes,
 * the consumer protocol's) live in a dynamic shared area of 8 kB per
 * group, created in place so that it never asks for more memory.  A full
 * table, member pool or area is GROUP_MAX_SIZE_REACHED for the one
 * joining.  One role cannot take them all from the others: it may own at
 * most pg_topics.max_groups_per_role Kafka groups, and its members (in any
 * group) may hold at most a quarter of the member pool and a quarter of the
 * area (ROLE_SHARE_DIVISOR); superusers are not counted.  Members that
 * stop coming keep their share until their session times out, as in
 * Kafka, so the share is what one role's abandoned members can cost the
 * others.
 *
 * Committed positions are not kept here: a Kafka group G reading topic T
 * is the pg_topics group G of T, whose positions group_state.c keeps.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/dsa.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/wire/protocol.h"

/* Kafka's group.min.session.timeout.ms and group.max.session.timeout.ms */
#define MIN_SESSION_TIMEOUT		6000
#define MAX_SESSION_TIMEOUT		1800000
#define AREA_BYTES_PER_GROUP	8192
#define MEMBERS_PER_GROUP_SLOT	4
/* the part of the member pool, and of the area, one role's members may hold */
#define ROLE_SHARE_DIVISOR		4

typedef struct MemberSlot
{
	bool		in_use;
	char		id[KAFKA_MEMBER_ID_LEN];
	char		instance_id[KAFKA_MEMBER_ID_LEN];	/* "": dynamic */
	char		client_id[KAFKA_MEMBER_ID_LEN];
	char		client_host[KAFKA_MEMBER_ID_LEN];
	Oid			role;
	bool		unlimited;		/* a superuser's: no role share */
	int32		session_timeout;
	int32		rebalance_timeout;
	TimestampTz last_heartbeat;
	int			pgprocno;		/* the listener serving it, to wake */
	bool		joining;		/* sent JoinGroup for this rebalance */
	bool		join_answered;	/* its JoinGroup may be answered */
	int			nprotocols;
	char		protocols[KAFKA_MAX_PROTOCOLS][KAFKA_PROTOCOL_NAME_LEN];
	dsa_pointer metadata[KAFKA_MAX_PROTOCOLS];
	int32		metadata_len[KAFKA_MAX_PROTOCOLS];
	dsa_pointer assignment;
	int32		assignment_len;
	int			ntopics;		/* the topics it reads; -1: more than fit */
	Oid			topics[KAFKA_GROUP_MAX_TOPICS];
} MemberSlot;

typedef struct GroupSlot
{
	bool		in_use;
	Oid			dbid;
	char		name[KAFKA_GROUP_NAME_LEN];
	Oid			owner;			/* the role of its first member */
	KafkaGroupState state;
	int32		generation;
	char		protocol_type[KAFKA_PROTOCOL_NAME_LEN];
	char		protocol[KAFKA_PROTOCOL_NAME_LEN];
	char		leader[KAFKA_MEMBER_ID_LEN];
	TimestampTz rebalance_deadline; /* PreparingRebalance ends by then */
	TimestampTz delay_until;	/* the initial delay for more members */
	pg_atomic_uint64 version;	/* bumped by every change */
	int			ntopics;		/* -1: more than fit */
	Oid			topics[KAFKA_GROUP_MAX_TOPICS];
	int			nmembers;
	int			members[GROUP_MAX_MEMBERS]; /* member slots */
} GroupSlot;

typedef struct KafkaGroupsShared
{
	LWLock		lock;
	int			tranche;
	int			ngroups;
	int			nmembers;
	pg_atomic_uint32 groups_in_use; /* read without the lock by the tick */
	GroupSlot  *groups;
	MemberSlot *members;
	char	   *area_place;
	Size		area_size;
} KafkaGroupsShared;

static KafkaGroupsShared *shared = NULL;
static dsa_area *area = NULL;

/* processes to wake when the lock is released */
static int	wake[GROUP_MAX_MEMBERS + 1];
static int	nwake;

static Size
area_size(void)
{
	return Max(mul_size(pg_topics_max_groups, AREA_BYTES_PER_GROUP),
			   (Size) 1024 * 1024);
}

Size
kafka_groups_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(KafkaGroupsShared));

	size = add_size(size, MAXALIGN(mul_size(sizeof(GroupSlot), pg_topics_max_groups)));
	size = add_size(size, MAXALIGN(mul_size(sizeof(MemberSlot),
											mul_size(pg_topics_max_groups,
													 MEMBERS_PER_GROUP_SLOT))));
	return add_size(size, area_size());
}

/* Shared memory is taken only when the Kafka listener runs */
void
kafka_groups_shmem_request(void)
{
	if (pg_topics_kafka_port != 0)
		RequestAddinShmemSpace(kafka_groups_shmem_size());
}

void
kafka_groups_shmem_startup(void)
{
	bool		found;
	char	   *p;

	if (pg_topics_kafka_port == 0)
		return;
	shared = ShmemInitStruct("pg_topics kafka groups", kafka_groups_shmem_size(),
							 &found);
	if (found)
		return;
	memset(shared, 0, sizeof(KafkaGroupsShared));
	shared->tranche = LWLockNewTrancheId();
	LWLockInitialize(&shared->lock, shared->tranche);
	shared->ngroups = pg_topics_max_groups;
	shared->nmembers = pg_topics_max_groups * MEMBERS_PER_GROUP_SLOT;
	pg_atomic_init_u32(&shared->groups_in_use, 0);
	p = (char *) shared + MAXALIGN(sizeof(KafkaGroupsShared));
	shared->groups = (GroupSlot *) p;
	memset(p, 0, sizeof(GroupSlot) * shared->ngroups);
	for (int i = 0; i < shared->ngroups; i++)
		pg_atomic_init_u64(&shared->groups[i].version, 0);
	p += MAXALIGN(sizeof(GroupSlot) * shared->ngroups);
	shared->members = (MemberSlot *) p;
	memset(p, 0, sizeof(MemberSlot) * shared->nmembers);
	p += MAXALIGN(sizeof(MemberSlot) * shared->nmembers);
	shared->area_place = p;
	shared->area_size = area_size();
	/* the postmaster's handle stays unused: each process attaches its own */
	dsa_set_size_limit(dsa_create_in_place(p, shared->area_size,
										   shared->tranche, NULL),
					   shared->area_size);
}

/* Attach this process to the area (once) and name the lock's tranche */
static void
attach(void)
{
	MemoryContext oldcontext;

	if (area != NULL)
		return;
	LWLockRegisterTranche(shared->tranche, "pg_topics kafka groups");
	/* for the life of the process: it never detaches */
	oldcontext = MemoryContextSwitchTo(TopMemoryContext);
	area = dsa_attach_in_place(shared->area_place, NULL);
	MemoryContextSwitchTo(oldcontext);
}

/* Take the lock (exclusively); the wake list starts empty */
static void
lock_groups(void)
{
	attach();
	nwake = 0;
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
}

/* Release the lock, then wake the listeners a change concerns */
static void
unlock_groups(void)
{
	LWLockRelease(&shared->lock);
	for (int i = 0; i < nwake; i++)
		SetLatch(&ProcGlobal->allProcs[wake[i]].procLatch);
	nwake = 0;
}

static inline MemberSlot *
member_of(GroupSlot *g, int i)
{
	return &shared->members[g->members[i]];
}

/* The group changed: count it, and wake whoever serves its members */
static void
group_changed(GroupSlot *g)
{
	pg_atomic_fetch_add_u64(&g->version, 1);
	for (int i = 0; i < g->nmembers; i++)
	{
		int			pgprocno = member_of(g, i)->pgprocno;
		bool		seen = pgprocno == MyProcNumber;

		for (int j = 0; j < nwake && !seen; j++)
			seen = wake[j] == pgprocno;
		if (!seen && nwake < lengthof(wake))
			wake[nwake++] = pgprocno;
	}
}

/* Make free_slot this database's group name, Empty (lock held) */
static GroupSlot *
claim_slot(GroupSlot *free_slot, const char *name)
{
	free_slot->in_use = true;
	pg_atomic_fetch_add_u32(&shared->groups_in_use, 1);
	free_slot->dbid = MyDatabaseId;
	strlcpy(free_slot->name, name, KAFKA_GROUP_NAME_LEN);
	free_slot->state = KAFKA_GROUP_EMPTY;
	free_slot->generation = 0;
	free_slot->nmembers = 0;
	free_slot->ntopics = 0;
	free_slot->protocol_type[0] = free_slot->protocol[0] = free_slot->leader[0] = '\0';
	return free_slot;
}

/* This database's group name, or NULL; with create, a new one (or NULL if full) */
static GroupSlot *
find_group(const char *name, bool create)
{
	GroupSlot  *free_slot = NULL;
	uint32		in_use = pg_atomic_read_u32(&shared->groups_in_use);

	if (in_use == 0)
		return create && shared->ngroups > 0 ?
			claim_slot(&shared->groups[0], name) : NULL;
	for (int i = 0; i < shared->ngroups; i++)
	{
		GroupSlot  *g = &shared->groups[i];

		if (!g->in_use)
		{
			if (free_slot == NULL)
				free_slot = g;
			continue;
		}
		if (g->dbid == MyDatabaseId && strcmp(g->name, name) == 0)
			return g;

		/*
		 * Every group in use seen: only a free slot is left to find (a
		 * DescribeGroups naming millions of groups looks each up)
		 */
		if (--in_use == 0 && (!create || free_slot != NULL))
			return create ? claim_slot(free_slot, name) : NULL;
	}
	if (!create || free_slot == NULL)
		return NULL;
	return claim_slot(free_slot, name);
}

/* The member of g with id, as an index into g->members, or -1 */
static int
find_member(GroupSlot *g, const char *id)
{
	for (int i = 0; i < g->nmembers; i++)
		if (strcmp(member_of(g, i)->id, id) == 0)
			return i;
	return -1;
}

/* The static member of g with instance_id, as an index, or -1 */
static int
find_instance(GroupSlot *g, const char *instance_id)
{
	if (instance_id == NULL || instance_id[0] == '\0')
		return -1;
	for (int i = 0; i < g->nmembers; i++)
		if (strcmp(member_of(g, i)->instance_id, instance_id) == 0)
			return i;
	return -1;
}

/*
 * Is member_id of role fenced: is instance_id a static member of g that
 * now has another member id (the instance restarted and joined again)?
 */
static bool
instance_fenced(GroupSlot *g, const char *member_id, const char *instance_id,
				Oid role)
{
	int			k;

	if (g == NULL || (k = find_instance(g, instance_id)) < 0)
		return false;
	return member_of(g, k)->role == role &&
		strcmp(member_of(g, k)->id, member_id) != 0;
}

/* Free a member's bytes in the area */
static void
free_member_data(MemberSlot *m)
{
	for (int p = 0; p < m->nprotocols; p++)
		if (DsaPointerIsValid(m->metadata[p]))
			dsa_free(area, m->metadata[p]);
	m->nprotocols = 0;
	if (DsaPointerIsValid(m->assignment))
		dsa_free(area, m->assignment);
	m->assignment = InvalidDsaPointer;
	m->assignment_len = 0;
}

/* Copy len bytes into the area; InvalidDsaPointer if it is full */
static dsa_pointer
store_bytes(const char *data, int32 len)
{
	dsa_pointer p = dsa_allocate_extended(area, Max(len, 1), DSA_ALLOC_NO_OOM);

	if (DsaPointerIsValid(p) && len > 0)
		memcpy(dsa_get_address(area, p), data, len);
	return p;
}

/* A palloc'd copy of bytes in the area */
static char *
copy_bytes(dsa_pointer p, int32 len)
{
	char	   *copy = palloc(Max(len, 1));

	if (len > 0)
		memcpy(copy, dsa_get_address(area, p), len);
	return copy;
}

/* Forget the group if it has no members and no reason to stay */
static void
drop_if_empty(GroupSlot *g)
{
	if (g->nmembers == 0 && g->in_use)
	{
		g->in_use = false;
		pg_atomic_fetch_sub_u32(&shared->groups_in_use, 1);
	}
}

/* Add the topics a member reads to those g reads */
static void
add_group_topics(GroupSlot *g, const MemberSlot *m)
{
	if (m->ntopics < 0)
		g->ntopics = -1;
	for (int t = 0; t < m->ntopics && g->ntopics >= 0; t++)
	{
		bool		known = false;

		for (int u = 0; u < g->ntopics && !known; u++)
			known = g->topics[u] == m->topics[t];
		if (!known && g->ntopics == KAFKA_GROUP_MAX_TOPICS)
			g->ntopics = -1;
		else if (!known)
			g->topics[g->ntopics++] = m->topics[t];
	}
}

/* Remove member i of g: the group reads what the others read */
static void
remove_member(GroupSlot *g, int i)
{
	MemberSlot *m = member_of(g, i);

	free_member_data(m);
	m->in_use = false;
	g->members[i] = g->members[--g->nmembers];
	g->ntopics = 0;
	for (int j = 0; j < g->nmembers; j++)
		add_group_topics(g, member_of(g, j));
	if (g->nmembers == 0)
	{
		g->state = KAFKA_GROUP_EMPTY;
		g->leader[0] = '\0';
		g->protocol[0] = '\0';
	}
}

/* The longest rebalance timeout of g's members */
static int32
rebalance_timeout(GroupSlot *g)
{
	int32		t = 0;

	for (int i = 0; i < g->nmembers; i++)
		t = Max(t, member_of(g, i)->rebalance_timeout);
	return t;
}

/* Start a rebalance of g: every member must join again */
static void
prepare_rebalance(GroupSlot *g, TimestampTz now)
{
	if (g->state == KAFKA_GROUP_PREPARING)
		return;
	if (g->state == KAFKA_GROUP_EMPTY)
		g->delay_until = TimestampTzPlusMilliseconds(now,
													 pg_topics_kafka_group_initial_rebalance_delay);
	else
		g->delay_until = now;
	g->state = KAFKA_GROUP_PREPARING;
	g->rebalance_deadline = TimestampTzPlusMilliseconds(now, rebalance_timeout(g));
	for (int i = 0; i < g->nmembers; i++)
		member_of(g, i)->join_answered = false;
	group_changed(g);
}

/* Does every member of g offer protocol? */
static bool
all_offer(GroupSlot *g, const char *protocol)
{
	for (int i = 0; i < g->nmembers; i++)
	{
		MemberSlot *m = member_of(g, i);
		bool		found = false;

		for (int p = 0; p < m->nprotocols && !found; p++)
			found = strcmp(m->protocols[p], protocol) == 0;
		if (!found)
			return false;
	}
	return true;
}

/*
 * End a rebalance of g if it may end: every member has joined (and the
 * initial delay for more members is over), or the rebalance timeout has
 * passed (then those that did not join are removed).  A new generation,
 * leader and protocol; every JoinGroup may be answered.
 */
static void
maybe_complete_join(GroupSlot *g, TimestampTz now)
{
	bool		all_joined = true;
	MemberSlot *leader = NULL;

	if (g->state != KAFKA_GROUP_PREPARING)
		return;
	for (int i = 0; i < g->nmembers; i++)
		all_joined &= member_of(g, i)->joining;
	if (!(all_joined && now >= g->delay_until) && now < g->rebalance_deadline)
		return;
	for (int i = g->nmembers - 1; i >= 0; i--)
		if (!member_of(g, i)->joining)
			remove_member(g, i);
	if (g->nmembers == 0)
	{
		group_changed(g);
		return;
	}

	/* the leader stays if it is still here; else the first member */
	for (int i = 0; i < g->nmembers && leader == NULL; i++)
		if (strcmp(member_of(g, i)->id, g->leader) == 0)
			leader = member_of(g, i);
	if (leader == NULL)
		leader = member_of(g, 0);
	strlcpy(g->leader, leader->id, KAFKA_MEMBER_ID_LEN);
	/* the leader's first choice that every member offers */
	g->protocol[0] = '\0';
	for (int p = 0; p < leader->nprotocols && g->protocol[0] == '\0'; p++)
		if (all_offer(g, leader->protocols[p]))
			strlcpy(g->protocol, leader->protocols[p], KAFKA_PROTOCOL_NAME_LEN);

	g->generation++;
	g->state = KAFKA_GROUP_COMPLETING;
	for (int i = 0; i < g->nmembers; i++)
	{
		MemberSlot *m = member_of(g, i);

		m->joining = false;
		m->join_answered = true;
		m->last_heartbeat = now;
		if (DsaPointerIsValid(m->assignment))
			dsa_free(area, m->assignment);
		m->assignment = InvalidDsaPointer;
		m->assignment_len = 0;
	}
	group_changed(g);
}

/* A fresh member id: the client id (shortened) and a random UUID */
static void
new_member_id(char *id, const char *client_id)
{
	uint8		r[16];
	char		prefix[27];

	if (!pg_strong_random(r, sizeof(r)))
		elog(ERROR, "could not generate a random member id");
	strlcpy(prefix, client_id && client_id[0] ? client_id : "member", sizeof(prefix));
	snprintf(id, KAFKA_MEMBER_ID_LEN,
			 "%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 prefix, r[0], r[1], r[2], r[3], r[4], r[5], (r[6] & 0x0f) | 0x40, r[7],
			 (r[8] & 0x3f) | 0x80, r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
}

/* Kafka groups role owns */
static int
groups_owned_by(Oid role)
{
	int			n = 0;

	for (int i = 0; i < shared->ngroups; i++)
		if (shared->groups[i].in_use && shared->groups[i].owner == role)
			n++;
	return n;
}

/* Bytes of the area a member holds */
static Size
member_bytes(const MemberSlot *m)
{
	Size		bytes = Max(m->assignment_len, 0);

	for (int p = 0; p < m->nprotocols; p++)
		bytes += m->metadata_len[p];
	return bytes;
}

/*
 * Would role's members, with more_members more members and more_bytes
 * more of the area, hold more than a role's share?  A superuser's
 * (unlimited, found at JoinGroup: SyncGroup runs without catalog access)
 * have no share.
 */
static bool
over_role_share(Oid role, bool unlimited, int more_members, Size more_bytes)
{
	int			members = more_members;
	Size		bytes = more_bytes;

	if (unlimited)
		return false;
	for (int i = 0; i < shared->nmembers; i++)
		if (shared->members[i].in_use && shared->members[i].role == role)
		{
			members++;
			bytes += member_bytes(&shared->members[i]);
		}
	return members > Max(shared->nmembers / ROLE_SHARE_DIVISOR, 1) ||
		bytes > shared->area_size / ROLE_SHARE_DIVISOR;
}

/* A free member slot, or NULL */
static MemberSlot *
new_member_slot(int *index)
{
	for (int i = 0; i < shared->nmembers; i++)
		if (!shared->members[i].in_use)
		{
			MemberSlot *m = &shared->members[i];

			memset(m, 0, sizeof(MemberSlot));
			m->in_use = true;
			m->assignment = InvalidDsaPointer;
			*index = i;
			return m;
		}
	return NULL;
}

/* Fill in what a JoinGroup answers, once the rebalance let it */
static void
join_reply(GroupSlot *g, MemberSlot *m, KafkaGroupReply *reply)
{
	reply->done = true;
	reply->generation = g->generation;
	strlcpy(reply->member_id, m->id, KAFKA_MEMBER_ID_LEN);
	strlcpy(reply->leader, g->leader, KAFKA_MEMBER_ID_LEN);
	strlcpy(reply->protocol_type, g->protocol_type, KAFKA_PROTOCOL_NAME_LEN);
	strlcpy(reply->protocol, g->protocol, KAFKA_PROTOCOL_NAME_LEN);
	reply->nmembers = 0;
	if (strcmp(g->leader, m->id) != 0)
		return;
	/* the leader gets every member's subscription, to assign */
	reply->members = palloc0(sizeof(KafkaMemberView) * g->nmembers);
	for (int i = 0; i < g->nmembers; i++)
	{
		MemberSlot *o = member_of(g, i);
		KafkaMemberView *v = &reply->members[reply->nmembers++];

		strlcpy(v->id, o->id, KAFKA_MEMBER_ID_LEN);
		strlcpy(v->instance_id, o->instance_id, KAFKA_MEMBER_ID_LEN);
		for (int p = 0; p < o->nprotocols; p++)
			if (strcmp(o->protocols[p], g->protocol) == 0)
			{
				v->metadata = copy_bytes(o->metadata[p], o->metadata_len[p]);
				v->metadata_len = o->metadata_len[p];
			}
	}
}

/* Set m's protocols from join; false if the area or the role's share is full */
static bool
set_protocols(MemberSlot *m, const KafkaJoin *join)
{
	Size		needed = 0;

	for (int p = 0; p < join->nprotocols; p++)
		needed += join->protocols[p].len;
	free_member_data(m);
	if (over_role_share(join->role, m->unlimited, 0, needed))
		return false;
	for (int p = 0; p < join->nprotocols; p++)
	{
		m->metadata[p] = store_bytes(join->protocols[p].metadata,
									 join->protocols[p].len);
		if (!DsaPointerIsValid(m->metadata[p]))
		{
			m->nprotocols = p;
			return false;
		}
		strlcpy(m->protocols[p], join->protocols[p].name, KAFKA_PROTOCOL_NAME_LEN);
		m->metadata_len[p] = join->protocols[p].len;
		m->nprotocols = p + 1;
	}
	return true;
}

/* Does join offer m the protocols and metadata m offered before? */
static bool
same_protocols(const MemberSlot *m, const KafkaJoin *join)
{
	if (m->nprotocols != join->nprotocols)
		return false;
	for (int p = 0; p < m->nprotocols; p++)
	{
		char	   *stored;
		bool		same;

		if (strcmp(m->protocols[p], join->protocols[p].name) != 0 ||
			m->metadata_len[p] != join->protocols[p].len)
			return false;
		stored = copy_bytes(m->metadata[p], m->metadata_len[p]);
		same = m->metadata_len[p] == 0 ||
			memcmp(stored, join->protocols[p].metadata, m->metadata_len[p]) == 0;
		pfree(stored);
		if (!same)
			return false;
	}
	return true;
}

/*
 * A static member (group.instance.id) of a Stable group comes back with
 * no member id: it restarted.  As Kafka's coordinator does, it gets a new
 * member id, which fences the old one (FENCED_INSTANCE_ID at the old
 * one's next request), and keeps its place and its assignment; if it
 * offers what it offered before, no rebalance: its JoinGroup is answered
 * at once, with the group's generation (the leader's with the members and
 * skip_assignment, KIP-814), and its SyncGroup gets its assignment back.
 * Otherwise the group rebalances, as for any member's new subscription.
 * True if answered here.
 */
static bool
static_rejoin(GroupSlot *g, MemberSlot *m, const KafkaJoin *join,
			  TimestampTz now, KafkaGroupReply *reply)
{
	bool		leader = strcmp(g->leader, m->id) == 0;

	new_member_id(m->id, join->client_id);
	if (leader)
		strlcpy(g->leader, m->id, KAFKA_MEMBER_ID_LEN);
	strlcpy(m->client_id, join->client_id, KAFKA_MEMBER_ID_LEN);
	strlcpy(m->client_host, join->client_host, KAFKA_MEMBER_ID_LEN);
	m->session_timeout = join->session_timeout;
	m->rebalance_timeout = join->rebalance_timeout;
	m->last_heartbeat = now;
	m->pgprocno = MyProcNumber;
	/* the old member's parked requests see the change */
	group_changed(g);
	if (g->state != KAFKA_GROUP_STABLE || !same_protocols(m, join))
		return false;
	join_reply(g, m, reply);
	reply->skip_assignment = leader;
	return true;
}

/*
 * JoinGroup.  The first try records the join (a new member, or one coming
 * back for a rebalance); a retry (the request was parked) only looks
 * whether the rebalance is over.  reply->done false: park, watching
 * reply->slot.
 */
int16
kafka_group_join(const KafkaJoin *join, bool retry, KafkaGroupReply *reply)
{
	TimestampTz now = GetCurrentTimestamp();
	GroupSlot  *g;
	MemberSlot *m;
	int			i;
	int16		error = KAFKA_NONE;
	bool		unlimited;

	memset(reply, 0, sizeof(*reply));
	reply->done = true;
	if (!retry && (join->session_timeout < MIN_SESSION_TIMEOUT ||
				   join->session_timeout > MAX_SESSION_TIMEOUT))
		return KAFKA_INVALID_SESSION_TIMEOUT;
	/* JoinGroup runs in a transaction: the catalog is read here */
	unlimited = superuser_arg(join->role);

	lock_groups();
	g = find_group(join->group, join->member_id[0] == '\0' && !retry);
	if (g == NULL)
	{
		unlock_groups();
		return join->member_id[0] == '\0' ? KAFKA_GROUP_MAX_SIZE_REACHED :
			KAFKA_UNKNOWN_MEMBER_ID;
	}
	i = join->member_id[0] ? find_member(g, join->member_id) : -1;
	/* another role's member id is no member of ours (check_member) */
	if (i >= 0 && member_of(g, i)->role != join->role)
		i = -1;
	if (!retry && join->instance_id[0] != '\0')
	{
		int			k = find_instance(g, join->instance_id);

		/*
		 * A static member: an instance id another role holds, or that
		 * another member id holds now, fences the one asking
		 */
		if (k >= 0 && (member_of(g, k)->role != join->role ||
					   (join->member_id[0] != '\0' && k != i)))
		{
			strlcpy(reply->member_id, join->member_id, KAFKA_MEMBER_ID_LEN);
			unlock_groups();
			return KAFKA_FENCED_INSTANCE_ID;
		}
		if (k >= 0 && join->member_id[0] == '\0')
		{
			i = k;
			if (static_rejoin(g, member_of(g, k), join, now, reply))
			{
				reply->slot = g - shared->groups;
				reply->version = pg_atomic_read_u64(&g->version);
				unlock_groups();
				return KAFKA_NONE;
			}
		}
	}

	if (retry)
	{
		/* parked: answer once the rebalance let this member in */
		if (i < 0)
			error = KAFKA_UNKNOWN_MEMBER_ID;
		else
		{
			m = member_of(g, i);
			m->pgprocno = MyProcNumber;
			maybe_complete_join(g, now);
			if (m->join_answered)
			{
				join_reply(g, m, reply);
				m->join_answered = false;
			}
			else
				reply->done = false;
		}
	}
	else if (join->member_id[0] != '\0' && i < 0)
		error = KAFKA_UNKNOWN_MEMBER_ID;
	else if (g->nmembers > 0 &&
			 strcmp(g->protocol_type, join->protocol_type) != 0)
		error = KAFKA_INCONSISTENT_GROUP_PROTOCOL;
	else
	{
		bool		common = false;

		/* some protocol must be one every other member offers too */
		for (int p = 0; p < join->nprotocols && !common; p++)
		{
			common = true;
			for (int j = 0; j < g->nmembers && common; j++)
			{
				MemberSlot *o = member_of(g, j);
				bool		found = false;

				/*
				 * Not itself, and not a member that has only been given its
				 * id (MEMBER_ID_REQUIRED) and offers nothing yet: Kafka keeps
				 * those apart, as pending members
				 */
				if (j == i || o->nprotocols == 0)
					continue;
				for (int q = 0; q < o->nprotocols && !found; q++)
					found = strcmp(o->protocols[q], join->protocols[p].name) == 0;
				common = found;
			}
		}
		if (!common)
			error = KAFKA_INCONSISTENT_GROUP_PROTOCOL;
	}

	if (!retry && error == KAFKA_NONE && i < 0)
	{
		int			index;

		/* a new member */
		if (g->nmembers >= GROUP_MAX_MEMBERS ||
			(g->nmembers == 0 && pg_topics_max_groups_per_role > 0 &&
			 groups_owned_by(join->role) >= pg_topics_max_groups_per_role &&
			 !unlimited) ||
			over_role_share(join->role, unlimited, 1, 0) ||
			(m = new_member_slot(&index)) == NULL)
			error = KAFKA_GROUP_MAX_SIZE_REACHED;
		else
		{
			new_member_id(m->id, join->client_id);
			strlcpy(m->instance_id, join->instance_id, KAFKA_MEMBER_ID_LEN);
			m->role = join->role;
			m->unlimited = unlimited;
			if (g->nmembers == 0)
			{
				g->owner = join->role;
				strlcpy(g->protocol_type, join->protocol_type, KAFKA_PROTOCOL_NAME_LEN);
			}
			g->members[g->nmembers++] = index;
			i = g->nmembers - 1;
			/* a static member is known by its instance id: no second join */
			if (join->id_required && join->instance_id[0] == '\0')
			{
				/* version 4 on: the client joins again with its id */
				m->last_heartbeat = now;
				m->session_timeout = join->session_timeout;
				m->rebalance_timeout = join->rebalance_timeout;
				strlcpy(reply->member_id, m->id, KAFKA_MEMBER_ID_LEN);
				unlock_groups();
				return KAFKA_MEMBER_ID_REQUIRED;
			}
		}
	}
	if (!retry && error == KAFKA_NONE)
	{
		m = member_of(g, i);
		strlcpy(m->client_id, join->client_id, KAFKA_MEMBER_ID_LEN);
		strlcpy(m->client_host, join->client_host, KAFKA_MEMBER_ID_LEN);
		m->role = join->role;
		m->unlimited = unlimited;
		m->session_timeout = join->session_timeout;
		m->rebalance_timeout = join->rebalance_timeout;
		m->last_heartbeat = now;
		m->pgprocno = MyProcNumber;
		if (!set_protocols(m, join))
		{
			remove_member(g, i);
			error = KAFKA_GROUP_MAX_SIZE_REACHED;
		}
		else
		{
			/*
			 * the topics the member reads, for judging its rights, and the
			 * group's, for the guard against SQL poll
			 */
			m->ntopics = join->ntopics;
			if (join->ntopics > 0)
				memcpy(m->topics, join->topics, sizeof(Oid) * join->ntopics);
			g->ntopics = 0;
			for (int j = 0; j < g->nmembers; j++)
				add_group_topics(g, member_of(g, j));
			m->joining = true;
			m->join_answered = false;
			strlcpy(reply->member_id, m->id, KAFKA_MEMBER_ID_LEN);
			if (g->state == KAFKA_GROUP_PREPARING &&
				now < g->rebalance_deadline)
			{
				/* more members during the initial delay: wait a little more */
				if (g->delay_until > now && g->generation == 0)
					g->delay_until = Min(TimestampTzPlusMilliseconds(now,
																	 pg_topics_kafka_group_initial_rebalance_delay),
										 g->rebalance_deadline);
			}
			prepare_rebalance(g, now);
			maybe_complete_join(g, now);
			if (m->join_answered)
			{
				join_reply(g, m, reply);
				m->join_answered = false;
			}
			else
				reply->done = false;
		}
	}
	reply->slot = g - shared->groups;
	reply->version = pg_atomic_read_u64(&g->version);
	if (error != KAFKA_NONE)
		drop_if_empty(g);
	unlock_groups();
	return error;
}

/*
 * The member of group name with id and generation, or an error.  A member
 * answers only to the role that joined as it: to any other, it does not
 * exist (its id is in topics.group_members for whoever may read the
 * topic, and must not let them act as it).
 */
static int16
check_member(GroupSlot *g, const char *member_id, const char *instance_id,
			 int32 generation, Oid role, int *index)
{
	if (instance_fenced(g, member_id, instance_id, role))
		return KAFKA_FENCED_INSTANCE_ID;
	if (g == NULL || (*index = find_member(g, member_id)) < 0 ||
		member_of(g, *index)->role != role)
		return KAFKA_UNKNOWN_MEMBER_ID;
	if (generation != g->generation)
		return KAFKA_ILLEGAL_GENERATION;
	return KAFKA_NONE;
}

/*
 * Order pointers to a request's assignments by member id, then by place in
 * the request (the pointers' order: they point into its array)
 */
static int
assignment_cmp(const void *a, const void *b)
{
	const KafkaAssignment *x = *(const KafkaAssignment *const *) a;
	const KafkaAssignment *y = *(const KafkaAssignment *const *) b;
	int			c = strcmp(x->member_id, y->member_id);

	if (c != 0)
		return c;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * A leader's n assignments (as many as the client says), sorted before the
 * lock is taken: pointers to them
 */
static const KafkaAssignment **
sort_assignments(const KafkaAssignment *assignments, int n)
{
	const KafkaAssignment **sorted;

	if (n <= 0)
		return NULL;
	sorted = palloc_extended(sizeof(KafkaAssignment *) * n, MCXT_ALLOC_HUGE);
	for (int i = 0; i < n; i++)
		sorted[i] = &assignments[i];
	qsort(sorted, n, sizeof(KafkaAssignment *), assignment_cmp);
	return sorted;
}

/* The last of the n sorted assignments for id, or NULL */
static const KafkaAssignment *
last_assignment(const KafkaAssignment **sorted, int n, const char *id)
{
	int			lo = 0;
	int			hi = n;

	/* the first entry whose id is greater than id */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (strcmp(sorted[mid]->member_id, id) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && strcmp(sorted[lo - 1]->member_id, id) == 0 ?
		sorted[lo - 1] : NULL;
}

/*
 * SyncGroup.  The leader's hands over every member's assignment; every
 * member's gets its own, a follower's once the leader's came (until then
 * reply->done is false: park).
 */
int16
kafka_group_sync(const char *group, const char *member_id,
				 const char *instance_id, int32 generation, Oid role, bool retry, const KafkaAssignment *assignments,
				 int n, KafkaGroupReply *reply)
{
	GroupSlot  *g;
	MemberSlot *m;
	int			i;
	int16		error;
	const KafkaAssignment **sorted;

	memset(reply, 0, sizeof(*reply));
	reply->done = true;
	sorted = sort_assignments(assignments, n);
	lock_groups();
	g = find_group(group, false);
	error = check_member(g, member_id, instance_id, generation, role, &i);
	if (error == KAFKA_NONE && g->state == KAFKA_GROUP_PREPARING)
		error = KAFKA_REBALANCE_IN_PROGRESS;
	if (error != KAFKA_NONE)
	{
		unlock_groups();
		return error;
	}
	m = member_of(g, i);
	m->pgprocno = MyProcNumber;
	m->last_heartbeat = GetCurrentTimestamp();
	if (g->state == KAFKA_GROUP_COMPLETING && strcmp(g->leader, member_id) == 0 &&
		!retry)
	{
		/*
		 * the leader: every member's part (the last one named, as Kafka
		 * reads the list into a map), then the group is stable.  Members
		 * look up their part in the sorted list: the work under the lock
		 * grows with the group, not with the request.
		 */
		for (int j = 0; j < g->nmembers; j++)
		{
			MemberSlot *o = member_of(g, j);
			const KafkaAssignment *a = last_assignment(sorted, n, o->id);

			if (a == NULL)
				continue;
			if (DsaPointerIsValid(o->assignment))
				dsa_free(area, o->assignment);
			o->assignment = InvalidDsaPointer;
			o->assignment_len = 0;
			if (over_role_share(o->role, o->unlimited, 0, a->len))
			{
				error = KAFKA_GROUP_MAX_SIZE_REACHED;
				continue;
			}
			o->assignment = store_bytes(a->data, a->len);
			o->assignment_len = DsaPointerIsValid(o->assignment) ? a->len : 0;
			if (!DsaPointerIsValid(o->assignment))
				error = KAFKA_GROUP_MAX_SIZE_REACHED;
		}
		if (error != KAFKA_NONE)
		{
			prepare_rebalance(g, GetCurrentTimestamp());
			unlock_groups();
			return error;
		}
		g->state = KAFKA_GROUP_STABLE;
		group_changed(g);
	}
	if (g->state == KAFKA_GROUP_STABLE)
	{
		reply->assignment = DsaPointerIsValid(m->assignment) ?
			copy_bytes(m->assignment, m->assignment_len) : palloc(1);
		reply->assignment_len = DsaPointerIsValid(m->assignment) ? m->assignment_len : 0;
		/* SyncGroup v5 answers them */
		strlcpy(reply->protocol_type, g->protocol_type, KAFKA_PROTOCOL_NAME_LEN);
		strlcpy(reply->protocol, g->protocol, KAFKA_PROTOCOL_NAME_LEN);
	}
	else
		reply->done = false;
	reply->slot = g - shared->groups;
	reply->version = pg_atomic_read_u64(&g->version);
	unlock_groups();
	return KAFKA_NONE;
}

/* Heartbeat: alive; REBALANCE_IN_PROGRESS tells the member to join again */
int16
kafka_group_heartbeat(const char *group, const char *member_id,
					  const char *instance_id, int32 generation, Oid role)
{
	GroupSlot  *g;
	int			i;
	int16		error;

	lock_groups();
	g = find_group(group, false);
	error = check_member(g, member_id, instance_id, generation, role, &i);
	if (error == KAFKA_NONE || error == KAFKA_ILLEGAL_GENERATION)
		member_of(g, i)->last_heartbeat = GetCurrentTimestamp();
	if (error == KAFKA_NONE && g->state == KAFKA_GROUP_PREPARING)
		error = KAFKA_REBALANCE_IN_PROGRESS;
	unlock_groups();
	return error;
}

/*
 * LeaveGroup: the member goes; the others rebalance.  A static member may
 * be named by its instance id alone (member_id ""), as LeaveGroup v3+
 * allows; an instance id whose member id is another is FENCED_INSTANCE_ID.
 */
int16
kafka_group_leave(const char *group, const char *member_id,
				  const char *instance_id, Oid role)
{
	GroupSlot  *g;
	int			i;

	lock_groups();
	g = find_group(group, false);
	if (g != NULL && instance_id != NULL && instance_id[0] != '\0')
	{
		i = find_instance(g, instance_id);
		if (i >= 0 && member_of(g, i)->role == role && member_id[0] != '\0' &&
			strcmp(member_of(g, i)->id, member_id) != 0)
		{
			unlock_groups();
			return KAFKA_FENCED_INSTANCE_ID;
		}
	}
	else
		i = g == NULL ? -1 : find_member(g, member_id);
	if (g == NULL || i < 0 || member_of(g, i)->role != role)
	{
		unlock_groups();
		return KAFKA_UNKNOWN_MEMBER_ID;
	}
	remove_member(g, i);
	if (g->nmembers > 0 && g->state != KAFKA_GROUP_PREPARING)
		prepare_rebalance(g, GetCurrentTimestamp());
	else
	{
		/* a rebalance under way may end without the member that left */
		group_changed(g);
		maybe_complete_join(g, GetCurrentTimestamp());
	}
	drop_if_empty(g);
	unlock_groups();
	return KAFKA_NONE;
}

/*
 * May member_id of generation commit positions for group?  Simple
 * consumers (generation -1, no member) may while the group has no members.
 */
int16
kafka_group_check_member(const char *group, const char *member_id,
						 const char *instance_id, int32 generation, Oid role)
{
	GroupSlot  *g;
	int			i;
	int16		error = KAFKA_NONE;

	lock_groups();
	g = find_group(group, false);
	if (generation < 0 && member_id[0] == '\0')
	{
		if (g != NULL && g->nmembers > 0)
			error = KAFKA_UNKNOWN_MEMBER_ID;
	}
	else
	{
		/*
		 * While a rebalance gathers members the generation is still theirs:
		 * a member revoking its partitions commits then, as Kafka allows.
		 * Between the new generation and the leader's assignment nobody may.
		 */
		error = check_member(g, member_id, instance_id, generation, role, &i);
		if (error == KAFKA_NONE && g->state == KAFKA_GROUP_COMPLETING)
			error = KAFKA_REBALANCE_IN_PROGRESS;
		if (error == KAFKA_NONE)
			member_of(g, i)->last_heartbeat = GetCurrentTimestamp();
	}
	unlock_groups();
	return error;
}

/* A view of every member of g (palloc'd), with their assignments */
static void
describe_members(GroupSlot *g, KafkaGroupReply *reply)
{
	reply->members = palloc0(sizeof(KafkaMemberView) * Max(g->nmembers, 1));
	reply->nmembers = g->nmembers;
	for (int i = 0; i < g->nmembers; i++)
	{
		MemberSlot *m = member_of(g, i);
		KafkaMemberView *v = &reply->members[i];

		strlcpy(v->id, m->id, KAFKA_MEMBER_ID_LEN);
		strlcpy(v->instance_id, m->instance_id, KAFKA_MEMBER_ID_LEN);
		strlcpy(v->client_id, m->client_id, KAFKA_MEMBER_ID_LEN);
		strlcpy(v->client_host, m->client_host, KAFKA_MEMBER_ID_LEN);
		v->role = m->role;
		v->last_heartbeat = m->last_heartbeat;
		for (int p = 0; p < m->nprotocols; p++)
			if (strcmp(m->protocols[p], g->protocol) == 0)
			{
				v->metadata = copy_bytes(m->metadata[p], m->metadata_len[p]);
				v->metadata_len = m->metadata_len[p];
			}
		if (DsaPointerIsValid(m->assignment))
		{
			v->assignment = copy_bytes(m->assignment, m->assignment_len);
			v->assignment_len = m->assignment_len;
		}
	}
}

/* DescribeGroups: the group's state and members; false if unknown */
bool
kafka_group_describe(const char *group, KafkaGroupReply *reply)
{
	GroupSlot  *g;

	memset(reply, 0, sizeof(*reply));
	lock_groups();
	g = find_group(group, false);
	if (g != NULL)
	{
		reply->state = g->state;
		reply->generation = g->generation;
		strlcpy(reply->protocol_type, g->protocol_type, KAFKA_PROTOCOL_NAME_LEN);
		strlcpy(reply->protocol, g->protocol, KAFKA_PROTOCOL_NAME_LEN);
		strlcpy(reply->leader, g->leader, KAFKA_MEMBER_ID_LEN);
		describe_members(g, reply);
	}
	unlock_groups();
	return g != NULL;
}

/* The names of this database's Kafka groups (palloc'd) */
List *
kafka_group_names(void)
{
	List	   *names = NIL;

	if (shared == NULL)
		return NIL;				/* no Kafka listener */
	lock_groups();
	for (int i = 0; i < shared->ngroups; i++)
		if (shared->groups[i].in_use && shared->groups[i].dbid == MyDatabaseId)
			names = lappend(names, pstrdup(shared->groups[i].name));
	unlock_groups();
	return names;
}

/* The role owning group (its first member's), or InvalidOid if none */
Oid
kafka_group_owner(const char *group)
{
	GroupSlot  *g;
	Oid			owner = InvalidOid;

	lock_groups();
	g = find_group(group, false);
	if (g != NULL && g->nmembers > 0)
		owner = g->owner;
	unlock_groups();
	return owner;
}

/*
 * What judging the rights of group's members needs, copied under the lock
 * (the judging reads the catalog, outside it): the group's owner, the
 * topics it reads, and each member's id, role and topics.  False if the
 * group has no members.
 */
bool
kafka_group_rights(const char *group, KafkaGroupRights *rights)
{
	GroupSlot  *g;

	memset(rights, 0, sizeof(*rights));
	if (shared == NULL)
		return false;			/* no Kafka listener */
	lock_groups();
	g = find_group(group, false);
	if (g != NULL && g->nmembers > 0)
	{
		rights->owner = g->owner;
		rights->ntopics = g->ntopics;
		if (g->ntopics > 0)
			memcpy(rights->topics, g->topics, sizeof(Oid) * g->ntopics);
		rights->nmembers = g->nmembers;
		for (int i = 0; i < g->nmembers; i++)
		{
			MemberSlot *m = member_of(g, i);
			KafkaMemberRights *r = &rights->members[i];

			strlcpy(r->id, m->id, KAFKA_MEMBER_ID_LEN);
			r->role = m->role;
			r->ntopics = m->ntopics;
			if (m->ntopics > 0)
				memcpy(r->topics, m->topics, sizeof(Oid) * m->ntopics);
		}
	}
	unlock_groups();
	return rights->nmembers > 0;
}

/*
 * Remove the members of group that evict names (by id and role: one that
 * left meanwhile is not there; a new one of the same id cannot be); the
 * others rebalance.  A group none of whose members is its owner's comes to
 * be owned by the role of its first member.
 */
void
kafka_group_evict(const char *group, const KafkaMemberRights *evict, int n)
{
	GroupSlot  *g;
	bool		removed = false;
	bool		owner_stays = false;

	lock_groups();
	g = find_group(group, false);
	for (int e = 0; g != NULL && e < n; e++)
	{
		int			i = find_member(g, evict[e].id);

		if (i >= 0 && member_of(g, i)->role == evict[e].role)
		{
			remove_member(g, i);
			removed = true;
		}
	}
	if (removed)
	{
		for (int i = 0; i < g->nmembers && !owner_stays; i++)
			owner_stays = member_of(g, i)->role == g->owner;
		if (g->nmembers > 0 && !owner_stays)
			g->owner = member_of(g, 0)->role;
		if (g->nmembers > 0 && g->state != KAFKA_GROUP_PREPARING)
			prepare_rebalance(g, GetCurrentTimestamp());
		else
		{
			group_changed(g);
			maybe_complete_join(g, GetCurrentTimestamp());
		}
		drop_if_empty(g);
	}
	unlock_groups();
}

/* Has the group in slot changed since a parked request saw version seen? */
bool
kafka_group_changed(int slot, uint64 seen)
{
	return pg_atomic_read_u64(&shared->groups[slot].version) != seen;
}

/*
 * g's timeouts at now: members silent for their session timeout go (the
 * others rebalance), a rebalance ends by its deadline or initial delay
 */
static void
group_timeouts(GroupSlot *g, TimestampTz now)
{
	bool		removed = false;

	for (int i = g->nmembers - 1; i >= 0; i--)
	{
		MemberSlot *m = member_of(g, i);

		/* a member waiting for its JoinGroup's answer is not silent */
		if (m->joining && g->state == KAFKA_GROUP_PREPARING)
			continue;
		if (now >= TimestampTzPlusMilliseconds(m->last_heartbeat,
											   m->session_timeout))
		{
			remove_member(g, i);
			removed = true;
		}
	}
	if (removed && g->nmembers > 0)
	{
		if (g->state != KAFKA_GROUP_PREPARING)
			prepare_rebalance(g, now);
	}
	else if (removed)
		group_changed(g);
	maybe_complete_join(g, now);
	drop_if_empty(g);
}

/*
 * The timeouts of every group.  Returns the milliseconds until the next
 * thing that may be due (-1: nothing).
 */
long
kafka_groups_tick(void)
{
	TimestampTz now;
	bool		any = false;

	/* no groups (the usual case of a server without Kafka consumers) */
	if (shared == NULL || pg_atomic_read_u32(&shared->groups_in_use) == 0)
		return -1;
	now = GetCurrentTimestamp();
	lock_groups();
	for (int gi = 0; gi < shared->ngroups; gi++)
	{
		GroupSlot  *g = &shared->groups[gi];

		if (!g->in_use)
			continue;
		any = true;
		group_timeouts(g, now);
	}
	unlock_groups();
	return any ? 100 : -1;
}

/*
 * The timeouts of group (of this database), now rather than at the next
 * tick: a request that decides on the group's members (DeleteGroups) sees
 * a member whose session timeout has just passed gone, as with Kafka's
 * exact timers.  Clients count on it: librdkafka's tests delete a group of
 * static members (which send no LeaveGroup) as soon as their session
 * timeout has passed.
 */
void
kafka_group_expire(const char *group)
{
	GroupSlot  *g;

	if (shared == NULL)
		return;					/* no Kafka listener */
	lock_groups();
	g = find_group(group, false);
	if (g != NULL)
		group_timeouts(g, GetCurrentTimestamp());
	unlock_groups();
}

/*
 * Does group (of this database) have Kafka members reading topic?  A group
 * subscribing to more topics than it records may read any: then
 * *unlisted_owner is its owner, whose privileges its members have.
 */
bool
kafka_group_reads_topic(const char *group, Oid topic, Oid *unlisted_owner)
{
	GroupSlot  *g;
	bool		result = false;

	*unlisted_owner = InvalidOid;
	if (shared == NULL)
		return false;			/* no Kafka listener */
	lock_groups();
	g = find_group(group, false);
	if (g != NULL && g->nmembers > 0)
	{
		for (int t = 0; t < g->ntopics && !result; t++)
			result = g->topics[t] == topic;
		if (g->ntopics < 0)
		{
			result = true;
			*unlisted_owner = g->owner;
		}
	}
	unlock_groups();
	return result;
}

/* Every member of this database's Kafka groups, for the views */
void
kafka_groups_visit_members(KafkaMemberVisitor visit, void *arg)
{
	List	   *names = kafka_group_names();
	ListCell   *lc;

	foreach(lc, names)
	{
		KafkaGroupReply reply;

		if (!kafka_group_describe((char *) lfirst(lc), &reply))
			continue;
		for (int i = 0; i < reply.nmembers; i++)
			visit(arg, (char *) lfirst(lc), reply.generation, &reply.members[i]);
	}
}
