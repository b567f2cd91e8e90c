/*-------------------------------------------------------------------------
 *
 * group_state.c
 *	  Consumer groups in shared memory: members, assignment, and the cache
 *	  of committed offsets.
 *
 * Two shared hash tables under one LWLock:
 *
 * - groups, keyed by (database, topic, group): the owner role, the
 *   generation, the members (session members carry their pid and leave
 *   when their backend exits; durable members expire after
 *   pg_topics.session_timeout without a poll);
 * - partitions, keyed by (database, topic, partition, group): the latest
 *   committed offset and the member the partition is assigned to.
 *
 * Both are fixed-size: pg_topics.max_groups and
 * pg_topics.max_group_partitions entries, allocated at server start.  A
 * shared dynahash without HASH_FIXED_SIZE takes more elements from the
 * server's spare shared memory when it is full, which PostgreSQL's own
 * lock tables need; so the tables never grow, and a full table is an
 * error (53400) for the one asking, not for every other session.  So
 * that one role cannot fill them for all others, a poll that creates a
 * group (or makes one hold more partitions) also counts what the group's
 * owner role already holds, against pg_topics.max_groups_per_role and
 * pg_topics.max_group_partitions_per_role.
 *
 * Committed offsets are durable as records of topics.consumer_offsets
 * (poll.c appends them in the committing transaction); this cache holds
 * the latest one per key, is updated when that transaction commits, and
 * is refilled from the log the first time a database uses groups after a
 * restart.  Membership is not durable, and need not be: after a restart
 * every member polls again.
 *
 * Assignment is deterministic, balanced and sticky: members sorted by id,
 * member i of m gets n/m partitions (the first n%m one more), keeps what
 * it owns up to that share, and only the surplus and orphaned partitions
 * move, lowest partition to the first member short of its share.  Every
 * change bumps the generation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid_d.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/shared/group_state.h"

typedef struct GroupKey
{
	Oid			dbid;
	Oid			topic;
	char		name[GROUP_NAME_LEN];
} GroupKey;

typedef struct GroupEntry
{
	GroupKey	key;
	Oid			owner;
	int32		generation;
	int32		nparts;			/* partitions charged to owner's quota */
	int			nmembers;
	TopicGroupMemberInfo members[GROUP_MAX_MEMBERS];
} GroupEntry;

typedef struct OffsetKey
{
	Oid			dbid;
	Oid			topic;
	int32		partition;
	char		name[GROUP_NAME_LEN];
} OffsetKey;

typedef struct OffsetEntry
{
	OffsetKey	key;
	bool		has_committed;
	int64		committed;
	int64		version;		/* of the record that set it; see below */
	Oid			group_owner;	/* role that owns the group */
	char		owner_member[GROUP_NAME_LEN];	/* "" while unassigned */
} OffsetEntry;

typedef struct LoadedDatabase
{
	Oid			dbid;
} LoadedDatabase;

static LWLock *groups_lock;
static HTAB *groups_hash;
static HTAB *offsets_hash;
static HTAB *loaded_hash;

#define MAX_LOADED_DATABASES 1024

void
topic_groups_shmem_request(void)
{
	RequestAddinShmemSpace(hash_estimate_size(pg_topics_max_groups, sizeof(GroupEntry)));
	RequestAddinShmemSpace(hash_estimate_size(pg_topics_max_group_partitions,
											  sizeof(OffsetEntry)));
	RequestAddinShmemSpace(hash_estimate_size(MAX_LOADED_DATABASES,
											  sizeof(LoadedDatabase)));
	RequestNamedLWLockTranche("pg_topics groups", 1);
}

void
topic_groups_shmem_startup(void)
{
	HASHCTL		info;

	groups_lock = &(GetNamedLWLockTranche("pg_topics groups"))->lock;

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(GroupKey);
	info.entrysize = sizeof(GroupEntry);
	/* HASH_FIXED_SIZE: see the header comment */
	groups_hash = ShmemInitHash("pg_topics groups", pg_topics_max_groups,
								pg_topics_max_groups, &info,
								HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	info.keysize = sizeof(OffsetKey);
	info.entrysize = sizeof(OffsetEntry);
	offsets_hash = ShmemInitHash("pg_topics group offsets",
								 pg_topics_max_group_partitions,
								 pg_topics_max_group_partitions, &info,
								 HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	info.keysize = sizeof(Oid);
	info.entrysize = sizeof(LoadedDatabase);
	loaded_hash = ShmemInitHash("pg_topics group databases", MAX_LOADED_DATABASES,
								MAX_LOADED_DATABASES, &info,
								HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
}

static void
group_key(GroupKey *key, Oid topic, const char *group)
{
	memset(key, 0, sizeof(*key));
	key->dbid = MyDatabaseId;
	key->topic = topic;
	strlcpy(key->name, group, GROUP_NAME_LEN);
}

static void
offset_key(OffsetKey *key, Oid topic, const char *group, int32 partition)
{
	memset(key, 0, sizeof(*key));
	key->dbid = MyDatabaseId;
	key->topic = topic;
	key->partition = partition;
	strlcpy(key->name, group, GROUP_NAME_LEN);
}

/* Does the topic still exist?  (Its entries stay until the table is full.) */
static bool
topic_exists(Oid topic)
{
	return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(topic));
}

/*
 * Make room: forget the groups and positions of this database's dropped
 * topics.  Only a committed DROP makes a topic disappear from the
 * catalog, so nothing a live topic needs is lost.  Caller holds the lock
 * exclusively.
 */
static void
sweep_dropped_topics(void)
{
	HASH_SEQ_STATUS status;
	GroupEntry *g;
	OffsetEntry *e;

	hash_seq_init(&status, groups_hash);
	while ((g = hash_seq_search(&status)) != NULL)
		if (g->key.dbid == MyDatabaseId && !topic_exists(g->key.topic))
			hash_search(groups_hash, &g->key, HASH_REMOVE, NULL);
	hash_seq_init(&status, offsets_hash);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->key.dbid == MyDatabaseId && !topic_exists(e->key.topic))
			hash_search(offsets_hash, &e->key, HASH_REMOVE, NULL);
}

/* The offset entry of a key, created (unassigned, uncommitted) if needed */
static OffsetEntry *
offset_entry(Oid topic, const char *group, int32 partition, bool create)
{
	OffsetKey	key;
	OffsetEntry *entry;
	bool		found;

	offset_key(&key, topic, group, partition);
	entry = hash_search(offsets_hash, &key, HASH_FIND, &found);
	if (entry == NULL && create)
	{
		if (hash_get_num_entries(offsets_hash) >= pg_topics_max_group_partitions)
			sweep_dropped_topics();
		if (hash_get_num_entries(offsets_hash) >= pg_topics_max_group_partitions)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("too many consumer group partitions"),
					 errdetail("The server keeps at most %d group partitions (%s).",
							   pg_topics_max_group_partitions,
							   "pg_topics.max_group_partitions"),
					 errhint("Delete unused groups with topics.delete_group(), or raise %s (this needs a restart).",
							 "pg_topics.max_group_partitions")));
		entry = hash_search(offsets_hash, &key, HASH_ENTER_NULL, &found);
		if (entry == NULL)
			elog(ERROR, "pg_topics group offsets table is full below its size");
	}
	if (entry == NULL)
		return NULL;
	if (!found)
	{
		entry->has_committed = false;
		entry->committed = 0;
		entry->version = -1;
		entry->group_owner = InvalidOid;
		entry->owner_member[0] = '\0';
	}
	return entry;
}

/* The group entry, created with owner if needed */
static GroupEntry *
group_entry(Oid topic, const char *group, bool create, Oid owner)
{
	GroupKey	key;
	GroupEntry *entry;
	bool		found;

	group_key(&key, topic, group);
	entry = hash_search(groups_hash, &key, HASH_FIND, &found);
	if (entry == NULL && create)
	{
		if (hash_get_num_entries(groups_hash) >= pg_topics_max_groups)
			sweep_dropped_topics();
		if (hash_get_num_entries(groups_hash) >= pg_topics_max_groups)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("too many consumer groups"),
					 errdetail("The server keeps at most %d groups (%s).",
							   pg_topics_max_groups, "pg_topics.max_groups"),
					 errhint("Delete unused groups with topics.delete_group(), or raise %s (this needs a restart).",
							 "pg_topics.max_groups")));
		entry = hash_search(groups_hash, &key, HASH_ENTER_NULL, &found);
		if (entry == NULL)
			elog(ERROR, "pg_topics groups table is full below its size");
	}
	if (entry == NULL)
		return NULL;
	if (!found)
	{
		entry->owner = owner;
		entry->generation = 0;
		entry->nparts = 0;
		entry->nmembers = 0;
	}
	return entry;
}

/* A group owner's name for messages: groups do not keep it from being dropped */
static const char *
role_name(Oid role)
{
	char	   *name = GetUserNameFromId(role, true);

	return name ? name : psprintf("%u", role);
}

/* What role's groups (in every database) hold: groups, and their partitions */
static void
role_usage(Oid role, int *ngroups, int64 *nparts)
{
	HASH_SEQ_STATUS status;
	GroupEntry *g;

	*ngroups = 0;
	*nparts = 0;
	hash_seq_init(&status, groups_hash);
	while ((g = hash_seq_search(&status)) != NULL)
		if (g->owner == role)
		{
			(*ngroups)++;
			*nparts += g->nparts;
		}
}

/*
 * Charge the group's owner for a group of nparts partitions: a new group
 * (g NULL) counts against pg_topics.max_groups_per_role, and the
 * partitions it holds beyond what it held against
 * pg_topics.max_group_partitions_per_role.  Groups of dropped topics are
 * swept before a refusal.  Caller holds the lock exclusively, and
 * releases it to report.  Returns false (with the numbers for the
 * message) if the role is over a limit.
 */
static bool
role_quota_allows(Oid role, GroupEntry *g, int32 nparts, int *ngroups,
				  int64 *held)
{
	bool		swept = false;

	for (;;)
	{
		role_usage(role, ngroups, held);
		if ((g != NULL || *ngroups < pg_topics_max_groups_per_role) &&
			*held - (g ? g->nparts : 0) + nparts <= pg_topics_max_group_partitions_per_role)
			return true;
		if (swept)
			return false;
		/* never g itself: the caller holds its topic open */
		sweep_dropped_topics();
		swept = true;
	}
}

/*
 * Fill the cache from topics.consumer_offsets once per database after a
 * start: read the log (as the bootstrap superuser, it is closed to
 * PUBLIC) without holding our lock, then merge unless someone was first.
 */
void
topic_groups_ensure_loaded(void)
{
	Oid			dbid = MyDatabaseId;
	bool		loaded;
	TopicInternalSql internal;
	int			rc;
	uint64		i;

	LWLockAcquire(groups_lock, LW_SHARED);
	loaded = hash_search(loaded_hash, &dbid, HASH_FIND, NULL) != NULL;
	LWLockRelease(groups_lock);
	if (loaded)
		return;

	topic_internal_sql_begin(&internal);
	rc = SPI_execute("SELECT to_regclass(key->>'topic')::oid, key->>'group', "
					 "(key->>'partition')::int, (value->>'offset')::bigint, "
					 "(SELECT oid FROM pg_catalog.pg_roles WHERE rolname = value->>'owner'), "
					 "coalesce((value->>'v')::bigint, \"offset\") AS version "
					 "FROM topics.consumer_offsets "
					 "ORDER BY version, \"offset\"",
					 true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.consumer_offsets: %s",
			 SPI_result_code_string(rc));

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	if (hash_search(loaded_hash, &dbid, HASH_FIND, NULL) == NULL)
	{
		HASH_SEQ_STATUS status;
		OffsetEntry *e;

		/*
		 * Replay the log: the latest record per key wins, NULL forgets.
		 * Latest by version: compaction's copies keep their original's.
		 */
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[i];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			bool		isnull;
			Oid			topic = DatumGetObjectId(SPI_getbinval(tuple, desc, 1, &isnull));
			char	   *group;
			int32		partition;
			Datum		offset;
			bool		offset_null;
			Datum		owner;
			bool		owner_null;
			Datum		version;
			bool		version_null;

			if (isnull)
				continue;		/* the topic is gone */
			group = SPI_getvalue(tuple, desc, 2);
			partition = DatumGetInt32(SPI_getbinval(tuple, desc, 3, &isnull));
			offset = SPI_getbinval(tuple, desc, 4, &offset_null);
			owner = SPI_getbinval(tuple, desc, 5, &owner_null);
			version = SPI_getbinval(tuple, desc, 6, &version_null);
			if (group == NULL || isnull)
				continue;
			e = offset_entry(topic, group, partition, !offset_null);
			/* an entry committed since our snapshot is newer than the log */
			if (e == NULL ||
				e->version > (version_null ? -1 : DatumGetInt64(version)))
				continue;
			e->has_committed = !offset_null;
			e->version = version_null ? -1 : DatumGetInt64(version);
			if (!offset_null)
			{
				e->committed = DatumGetInt64(offset);
				e->group_owner = owner_null ? BOOTSTRAP_SUPERUSERID :
					DatumGetObjectId(owner);
			}
		}

		/*
		 * The groups are those with positions; they hold the partitions
		 * they have positions in.  Loading never refuses a group for its
		 * role's quota: it exists already.
		 */
		hash_seq_init(&status, offsets_hash);
		while ((e = hash_seq_search(&status)) != NULL)
			if (e->key.dbid == dbid && e->has_committed)
			{
				GroupEntry *g = group_entry(e->key.topic, e->key.name, true,
											e->group_owner);

				g->nparts = Max(g->nparts, e->key.partition + 1);
			}

		if (hash_search(loaded_hash, &dbid, HASH_ENTER_NULL, NULL) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("too many databases use consumer groups"),
					 errdetail("The server keeps the groups of at most %d databases.",
							   MAX_LOADED_DATABASES)));
	}
	LWLockRelease(groups_lock);
	topic_internal_sql_end(&internal);
}

/* Index of member id in group, or -1 */
static int
member_index(GroupEntry *g, const char *id)
{
	int			i;

	for (i = 0; i < g->nmembers; i++)
		if (strcmp(g->members[i].id, id) == 0)
			return i;
	return -1;
}

static void
remove_member(GroupEntry *g, int i)
{
	g->members[i] = g->members[g->nmembers - 1];
	g->nmembers--;
}

static int
member_cmp(const void *a, const void *b)
{
	return strcmp(((const TopicGroupMemberInfo *) a)->id, ((const TopicGroupMemberInfo *) b)->id);
}

/*
 * Rebalance group g over nparts partitions; bumps the generation if any
 * partition changes owner.  Caller holds the lock exclusively.
 */
static void
rebalance(GroupEntry *g, int32 nparts)
{
	int			m = g->nmembers;
	int		   *owned = palloc0(sizeof(int) * Max(m, 1));
	int		   *quota = palloc0(sizeof(int) * Max(m, 1));
	OffsetEntry **entries = palloc(sizeof(OffsetEntry *) * nparts);
	bool		changed = false;
	int32		p;
	int			i;

	/* sorted members make the result independent of join order */
	qsort(g->members, m, sizeof(TopicGroupMemberInfo), member_cmp);
	for (i = 0; i < m; i++)
		quota[i] = nparts / m + (i < nparts % m ? 1 : 0);

	for (p = 0; p < nparts; p++)
	{
		OffsetEntry *e = offset_entry(g->key.topic, g->key.name, p, true);
		int			who = e->owner_member[0] ? member_index(g, e->owner_member) : -1;

		entries[p] = e;
		if (who >= 0 && owned[who] < quota[who])
			owned[who]++;
		else if (e->owner_member[0])
		{
			/* a member that left, or more than a member's share */
			e->owner_member[0] = '\0';
			changed = true;
		}
	}
	for (p = 0; p < nparts && m > 0; p++)
	{
		if (entries[p]->owner_member[0])
			continue;
		for (i = 0; i < m; i++)
			if (owned[i] < quota[i])
			{
				strlcpy(entries[p]->owner_member, g->members[i].id, GROUP_NAME_LEN);
				owned[i]++;
				changed = true;
				break;
			}
	}
	if (changed)
		g->generation++;
	pfree(owned);
	pfree(quota);
	pfree(entries);
}

/* Durable members that stopped polling leave (not member, which is polling) */
static void
expire_members(GroupEntry *g, const char *member)
{
	TimestampTz now = GetCurrentTimestamp();
	int			i;

	for (i = g->nmembers - 1; i >= 0; i--)
		if (g->members[i].durable &&
			(member == NULL || strcmp(g->members[i].id, member) != 0) &&
			TimestampDifferenceExceeds(g->members[i].last_seen, now,
									   pg_topics_session_timeout))
		{
			remove_member(g, i);
			g->generation++;
		}
}

/*
 * Join (or refresh membership in) a group for a poll: create the group on
 * first use, expire durable members, rebalance, and report the member's
 * partitions.
 */
void
topic_group_join(Oid topic, const char *group, const char *member,
				 bool durable, int32 nparts, TopicGroupView *view)
{
	GroupEntry *g;
	TimestampTz now = GetCurrentTimestamp();
	int			me;
	int32		p;
	Oid			role;
	int			ngroups;
	int64		held;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	g = group_entry(topic, group, false, InvalidOid);
	role = g ? g->owner : GetUserId();
	if ((g == NULL || nparts > g->nparts) &&
		!role_quota_allows(role, g, nparts, &ngroups, &held))
	{
		bool		new_group = (g == NULL);
		int32		old_nparts = g ? g->nparts : 0;

		LWLockRelease(groups_lock);
		if (new_group && ngroups >= pg_topics_max_groups_per_role)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("role \"%s\" already owns %d consumer groups",
							role_name(role), ngroups),
					 errdetail("pg_topics.max_groups_per_role is %d, counting the groups of every database.",
							   pg_topics_max_groups_per_role),
					 errhint("Delete unused groups with topics.delete_group(), or ask a superuser to raise pg_topics.max_groups_per_role.")));
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("the consumer groups of role \"%s\" would hold more than %d partitions",
						role_name(role),
						pg_topics_max_group_partitions_per_role),
				 errdetail("They hold %lld, and group \"%s\" needs %d more.",
						   (long long) held, group, nparts - old_nparts),
				 errhint("Delete unused groups with topics.delete_group(), or ask a superuser to raise pg_topics.max_group_partitions_per_role.")));
	}
	if (g == NULL)
		g = group_entry(topic, group, true, role);
	g->nparts = Max(g->nparts, nparts);

	expire_members(g, member);

	me = member_index(g, member);
	if (me < 0)
	{
		if (g->nmembers >= GROUP_MAX_MEMBERS)
		{
			LWLockRelease(groups_lock);
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("consumer group \"%s\" already has %d members",
							group, GROUP_MAX_MEMBERS)));
		}
		me = g->nmembers++;
		strlcpy(g->members[me].id, member, GROUP_NAME_LEN);
		g->members[me].durable = durable;
	}
	g->members[me].role = GetUserId();
	g->members[me].pid = MyProcPid;
	g->members[me].last_seen = now;

	rebalance(g, nparts);

	view->generation = g->generation;
	view->owner = g->owner;
	view->assigned = palloc(sizeof(int32) * Max(nparts, 1));
	view->nassigned = 0;
	for (p = 0; p < nparts; p++)
	{
		OffsetEntry *e = offset_entry(topic, group, p, true);

		if (strcmp(e->owner_member, member) == 0)
			view->assigned[view->nassigned++] = p;
	}
	LWLockRelease(groups_lock);
}

/* At backend exit: this session's memberships end */
void
topic_group_leave_session(void)
{
	HASH_SEQ_STATUS status;
	GroupEntry *g;

	if (groups_hash == NULL)
		return;
	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	hash_seq_init(&status, groups_hash);
	while ((g = hash_seq_search(&status)) != NULL)
	{
		int			i;

		for (i = g->nmembers - 1; i >= 0; i--)
			if (!g->members[i].durable && g->members[i].pid == MyProcPid)
			{
				remove_member(g, i);
				g->generation++;
			}
	}
	LWLockRelease(groups_lock);
}

/*
 * Copy the group's members (with the roles they polled as), so that the
 * caller can check their privileges without holding our lock.  Returns
 * how many; *members is palloc'd.
 */
int
topic_group_member_roles(Oid topic, const char *group,
						 TopicGroupMemberInfo **members)
{
	GroupEntry *g;
	int			n = 0;

	*members = palloc(sizeof(TopicGroupMemberInfo) * GROUP_MAX_MEMBERS);
	LWLockAcquire(groups_lock, LW_SHARED);
	g = group_entry(topic, group, false, InvalidOid);
	if (g != NULL)
	{
		n = g->nmembers;
		memcpy(*members, g->members, sizeof(TopicGroupMemberInfo) * n);
	}
	LWLockRelease(groups_lock);
	return n;
}

/*
 * Remove members from the group (those that may no longer use it), if
 * they are still members as the same role.  Their partitions become
 * unassigned at once, so that a transaction of theirs that processes one
 * fails at commit (40001); the next poll gives them to the others.
 */
void
topic_group_evict(Oid topic, const char *group,
				  const TopicGroupMemberInfo *members, int nmembers)
{
	GroupEntry *g;
	int			i;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	g = group_entry(topic, group, false, InvalidOid);
	for (i = 0; g != NULL && i < nmembers; i++)
	{
		int			m = member_index(g, members[i].id);
		HASH_SEQ_STATUS status;
		OffsetEntry *e;

		if (m < 0 || g->members[m].role != members[i].role)
			continue;
		remove_member(g, m);
		g->generation++;
		hash_seq_init(&status, offsets_hash);
		while ((e = hash_seq_search(&status)) != NULL)
			if (e->key.dbid == MyDatabaseId && e->key.topic == topic &&
				strcmp(e->key.name, group) == 0 &&
				strcmp(e->owner_member, members[i].id) == 0)
				e->owner_member[0] = '\0';
	}
	LWLockRelease(groups_lock);
}

/* Is partition still assigned to member (fencing at commit)? */
bool
topic_group_owns(Oid topic, const char *group, const char *member,
				 int32 partition)
{
	OffsetEntry *e;
	bool		owns;

	LWLockAcquire(groups_lock, LW_SHARED);
	e = offset_entry(topic, group, partition, false);
	owns = e != NULL && strcmp(e->owner_member, member) == 0;
	LWLockRelease(groups_lock);
	return owns;
}

/* Does the group exist (members or committed offsets)? */
bool
topic_group_exists(Oid topic, const char *group, Oid *owner)
{
	GroupEntry *g;

	LWLockAcquire(groups_lock, LW_SHARED);
	g = group_entry(topic, group, false, InvalidOid);
	if (g && owner)
		*owner = g->owner;
	LWLockRelease(groups_lock);
	return g != NULL;
}

bool
topic_group_has_members(Oid topic, const char *group)
{
	GroupEntry *g;
	bool		result;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	g = group_entry(topic, group, false, InvalidOid);
	if (g)
		expire_members(g, NULL);
	result = g != NULL && g->nmembers > 0;
	LWLockRelease(groups_lock);
	return result;
}

/*
 * The group's committed offset of a partition, if any, and its version
 * (the offset of its record in topics.consumer_offsets)
 */
bool
topic_group_committed_version(Oid topic, const char *group, int32 partition,
							  int64 *offset, int64 *version)
{
	OffsetEntry *e;
	bool		found = false;

	LWLockAcquire(groups_lock, LW_SHARED);
	e = offset_entry(topic, group, partition, false);
	if (e && e->has_committed)
	{
		*offset = e->committed;
		*version = e->version;
		found = true;
	}
	LWLockRelease(groups_lock);
	return found;
}

/* The group's committed offset of a partition, if any */
bool
topic_group_committed(Oid topic, const char *group, int32 partition,
					  int64 *offset)
{
	int64		version;

	return topic_group_committed_version(topic, group, partition, offset,
										 &version);
}

/*
 * Make room for a position this transaction is about to commit, before
 * it commits: at commit nothing may fail any more (the commit record is
 * written), so a full table must be reported here, while the transaction
 * can still roll back.  with_group: the position creates its group too.
 */
void
topic_group_reserve(Oid topic, const char *group, int32 partition, Oid owner,
					bool with_group)
{
	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	if (with_group)
		(void) group_entry(topic, group, true, owner);
	(void) offset_entry(topic, group, partition, true);
	LWLockRelease(groups_lock);
}

/*
 * A committed offset became durable: remember it (at transaction commit,
 * in the entry topic_group_reserve made).  version is the offset of its
 * record in topics.consumer_offsets.
 */
void
topic_group_set_committed(Oid topic, const char *group, int32 partition,
						  int64 offset, Oid owner, int64 version)
{
	OffsetEntry *e;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	e = offset_entry(topic, group, partition, false);
	if (e != NULL)
	{
		e->has_committed = true;
		e->committed = offset;
		e->group_owner = owner;
		e->version = Max(e->version, version);
	}
	LWLockRelease(groups_lock);
}

/*
 * A position record that logical replication (or a restore) brought into
 * topics.consumer_offsets committed: apply it as loading after a restart
 * would, by version, so that the cache always equals what the log says.
 * Replicated records arrive in their publisher's commit order, and a
 * compaction copy of an older position may arrive after a newer one.  A
 * NULL position (has_offset false) clears the key but keeps its version;
 * the group goes with its last position unless it has members.  Runs at
 * commit, in the entry topic_group_reserve made: must not fail.
 */
void
topic_group_apply_record(Oid topic, const char *group, int32 partition,
						 bool has_offset, int64 offset, Oid owner,
						 int64 version)
{
	OffsetEntry *e;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	e = offset_entry(topic, group, partition, false);
	if (e != NULL && e->version <= version)
	{
		e->version = version;
		e->has_committed = has_offset;
		if (has_offset)
		{
			e->committed = offset;
			e->group_owner = owner;
		}
		else
		{
			HASH_SEQ_STATUS status;
			OffsetEntry *other;
			bool		positions_left = false;
			GroupEntry *g;

			hash_seq_init(&status, offsets_hash);
			while ((other = hash_seq_search(&status)) != NULL)
				if (other->key.dbid == MyDatabaseId && other->key.topic == topic &&
					strcmp(other->key.name, group) == 0 && other->has_committed)
					positions_left = true;
			g = group_entry(topic, group, false, InvalidOid);
			if (g != NULL && !positions_left && g->nmembers == 0)
				hash_search(groups_hash, &g->key, HASH_REMOVE, NULL);
		}
	}
	LWLockRelease(groups_lock);
}

/*
 * Load the log again at the next use: positions that arrived for a topic
 * this database did not have (yet) are in the log but not in the cache.
 * Runs at commit: removing never fails.
 */
void
topic_groups_reload_later(void)
{
	Oid			dbid = MyDatabaseId;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	hash_search(loaded_hash, &dbid, HASH_REMOVE, NULL);
	LWLockRelease(groups_lock);
}

/* delete_group: forget the group and its offsets */
void
topic_group_forget(Oid topic, const char *group)
{
	HASH_SEQ_STATUS status;
	OffsetEntry *e;
	GroupKey	key;

	group_key(&key, topic, group);
	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	hash_search(groups_hash, &key, HASH_REMOVE, NULL);
	hash_seq_init(&status, offsets_hash);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->key.dbid == MyDatabaseId && e->key.topic == topic &&
			strcmp(e->key.name, group) == 0)
			hash_search(offsets_hash, &e->key, HASH_REMOVE, NULL);
	LWLockRelease(groups_lock);
}

/*
 * A drop committed: forget the groups and positions of topic in database
 * dbid, or of every topic of dbid when topic is InvalidOid (and load that
 * database's log afresh should its OID come back).  Runs at commit:
 * removing never fails.
 */
void
topic_groups_forget_dropped(Oid dbid, Oid topic)
{
	HASH_SEQ_STATUS status;
	GroupEntry *g;
	OffsetEntry *e;

	LWLockAcquire(groups_lock, LW_EXCLUSIVE);
	hash_seq_init(&status, groups_hash);
	while ((g = hash_seq_search(&status)) != NULL)
		if (g->key.dbid == dbid && (!OidIsValid(topic) || g->key.topic == topic))
			hash_search(groups_hash, &g->key, HASH_REMOVE, NULL);
	hash_seq_init(&status, offsets_hash);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->key.dbid == dbid && (!OidIsValid(topic) || e->key.topic == topic))
			hash_search(offsets_hash, &e->key, HASH_REMOVE, NULL);
	if (!OidIsValid(topic))
		hash_search(loaded_hash, &dbid, HASH_REMOVE, NULL);
	LWLockRelease(groups_lock);
}

static int
int32_cmp(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/* Copy the committed positions of a topic (for re-recording after a rename) */
List *
topic_group_positions(Oid topic)
{
	HASH_SEQ_STATUS status;
	OffsetEntry *e;
	List	   *result = NIL;

	LWLockAcquire(groups_lock, LW_SHARED);
	hash_seq_init(&status, offsets_hash);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->key.dbid == MyDatabaseId && e->key.topic == topic && e->has_committed)
		{
			TopicGroupPosition *p = palloc(sizeof(TopicGroupPosition));

			strlcpy(p->group, e->key.name, GROUP_NAME_LEN);
			p->partition = e->key.partition;
			p->offset = e->committed;
			p->owner = e->group_owner;
			p->version = e->version;
			p->metadata = NULL;
			result = lappend(result, p);
		}
	LWLockRelease(groups_lock);
	return result;
}

/*
 * Walk this database's groups for the views.  Visitors run under the
 * lock: they must only copy.
 */
void
topic_groups_visit(TopicGroupVisitor gv, TopicMemberVisitor mv, TopicOffsetVisitor ov,
				   void *arg)
{
	HASH_SEQ_STATUS status;

	LWLockAcquire(groups_lock, LW_SHARED);
	if (gv || mv)
	{
		GroupEntry *g;

		hash_seq_init(&status, groups_hash);
		while ((g = hash_seq_search(&status)) != NULL)
		{
			int			i;

			if (g->key.dbid != MyDatabaseId || !topic_exists(g->key.topic))
				continue;
			if (gv)
				gv(arg, g->key.topic, g->key.name, g->owner, g->generation,
				   g->nmembers);
			for (i = 0; mv && i < g->nmembers; i++)
			{
				HASH_SEQ_STATUS pstatus;
				OffsetEntry *e;
				int32	   *parts = palloc(sizeof(int32) * 64);
				int			nparts = 0;
				int			cap = 64;

				hash_seq_init(&pstatus, offsets_hash);
				while ((e = hash_seq_search(&pstatus)) != NULL)
					if (e->key.dbid == MyDatabaseId && e->key.topic == g->key.topic &&
						strcmp(e->key.name, g->key.name) == 0 &&
						strcmp(e->owner_member, g->members[i].id) == 0)
					{
						if (nparts == cap)
							parts = repalloc(parts, sizeof(int32) * (cap *= 2));
						parts[nparts++] = e->key.partition;
					}
				qsort(parts, nparts, sizeof(int32), int32_cmp);
				mv(arg, g->key.topic, g->key.name, g->generation, &g->members[i],
				   parts, nparts);
			}
		}
	}
	if (ov)
	{
		OffsetEntry *e;

		hash_seq_init(&status, offsets_hash);
		while ((e = hash_seq_search(&status)) != NULL)
			if (e->key.dbid == MyDatabaseId && e->has_committed &&
				topic_exists(e->key.topic))
				ov(arg, e->key.topic, e->key.name, e->key.partition, e->committed);
	}
	LWLockRelease(groups_lock);
}
