/*-------------------------------------------------------------------------
 *
 * markers.c
 *	  Stable-offset markers: what a publisher tells its subscribers.
 *
 * Logical replication ships a transaction's records at its commit, so a
 * subscriber receives a partition in commit order, not offset order, and
 * never sees the records of transactions still running on the publisher.
 * Its readers cannot find the last stable offset from their own pages;
 * the publisher sends it along, in the same stream:
 *
 * - Just before a transaction that produced commits, for each partition it
 *   wrote, it logs XLOG_TOPIC_LOG_STABLE with M = the lowest offset of any
 *   other unfinished writer, or the high watermark (read first, as
 *   registry.c requires).  Every record below M belongs to a transaction
 *   that has finished, and whose commit record therefore comes before
 *   ours, or to ours.  The record also carries the log start, which the
 *   subscriber takes as its own: its first record need not be the
 *   publisher's first (an earlier transaction rolled back, or commits
 *   later), and retention and delete_records drop no rows it could see.
 * - The background worker logs the same for every published partition
 *   each round (and when a producer rolled back or a log start moved), in
 *   a transaction of its own: rollbacks move the stable offset, and
 *   retention the log start, with nobody committing.  It logs only what
 *   changed since its last marker (remembered in shared memory): a
 *   partition's stable offset, log start or count, or the logical slots of
 *   the database (a new subscription, or a table sync, must get a marker
 *   after its copy).  An idle system writes no WAL for markers.
 * - Decoding turns the record into a marker row (decode.c); the
 *   subscriber's worker stores it as a marker batch (writer/batch_fill.c)
 *   in the same transaction as the records before it, and
 *   read/unordered_read.c bounds readers by the newest marker their
 *   snapshot sees.
 *
 * Only when wal_level is logical, and never in preserve mode: a
 * subscriber's own commits pass on the publisher's markers instead.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/partition.h"
#include "catalog/pg_publication.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "replication/slot.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/wal.h"
#include "pg_topics/replication/markers.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"

/*
 * The worker's last marker of each published log, so that a round logs
 * only what changed.  Entries past the table's size are not remembered:
 * those logs get a marker every round, as all did before.
 */
#define MARKER_MEMORY_ENTRIES	4096

typedef struct MarkerKey
{
	Oid			dboid;
	Oid			router;
} MarkerKey;

typedef struct MarkerSent
{
	MarkerKey	key;
	int64		stable_offset;
	int64		log_start;		/* subscribers follow it too */
	int32		npartitions;
	int32		partition;
	uint64		slots;			/* the database's logical slots then */
} MarkerSent;

static HTAB *sent_markers = NULL;
static LWLock *sent_lock = NULL;

/* What this round logged, remembered once its transaction commits */
static MarkerSent *round_sent = NULL;
static int	round_nsent = 0;
static int	round_max = 0;
static uint64 round_slots = 0;

void
topic_markers_shmem_request(void)
{
	RequestAddinShmemSpace(hash_estimate_size(MARKER_MEMORY_ENTRIES,
											  sizeof(MarkerSent)));
	RequestNamedLWLockTranche("pg_topics markers", 1);
}

void
topic_markers_shmem_startup(void)
{
	HASHCTL		info;

	info.keysize = sizeof(MarkerKey);
	info.entrysize = sizeof(MarkerSent);
	sent_markers = ShmemInitHash("pg_topics markers sent",
								 MARKER_MEMORY_ENTRIES, MARKER_MEMORY_ENTRIES,
								 &info, HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	sent_lock = &(GetNamedLWLockTranche("pg_topics markers"))->lock;
}

/*
 * The logical slots of this database, as one number that changes when one
 * is created or dropped (slot names are unique, so the sum of their hashes)
 */
static uint64
logical_slots_fingerprint(void)
{
	uint64		sum = 0;
	int			i;

	if (ReplicationSlotCtl == NULL)
		return 0;
	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	for (i = 0; i < max_replication_slots; i++)
	{
		ReplicationSlot *s = &ReplicationSlotCtl->replication_slots[i];

		if (s->in_use && SlotIsLogical(s) && s->data.database == MyDatabaseId)
			sum += hash_bytes_extended((const unsigned char *) NameStr(s->data.name),
									   strlen(NameStr(s->data.name)), 1) + 1;
	}
	LWLockRelease(ReplicationSlotControlLock);
	return sum;
}

/* A worker's round of markers begins (in its transaction) */
void
topic_markers_round_begin(int nlogs)
{
	round_max = Max(nlogs, 1);
	round_sent = MemoryContextAlloc(TopMemoryContext, sizeof(MarkerSent) * round_max);
	round_nsent = 0;
	round_slots = logical_slots_fingerprint();
}

/*
 * The round's transaction committed: its markers are what was sent.  The
 * entries of this database's logs that are gone (not in logs) go, so that
 * dropped topics do not fill the table.
 */
void
topic_markers_round_committed(List *logs)
{
	HASH_SEQ_STATUS scan;
	MarkerSent *entry;
	int			i;

	if (sent_markers == NULL || round_sent == NULL)
		return;
	LWLockAcquire(sent_lock, LW_EXCLUSIVE);
	hash_seq_init(&scan, sent_markers);
	while ((entry = hash_seq_search(&scan)) != NULL)
		if (entry->key.dboid == MyDatabaseId &&
			!list_member_oid(logs, entry->key.router))
			(void) hash_search(sent_markers, &entry->key, HASH_REMOVE, NULL);
	for (i = 0; i < round_nsent; i++)
	{
		MarkerSent *sent = hash_search(sent_markers, &round_sent[i].key,
									   HASH_ENTER_NULL, NULL);

		if (sent != NULL)
			*sent = round_sent[i];
	}
	LWLockRelease(sent_lock);
	pfree(round_sent);
	round_sent = NULL;
}

/* Did the worker already send exactly this marker? */
static bool
already_sent(const MarkerSent *marker)
{
	MarkerSent *entry;
	bool		same = false;

	if (sent_markers == NULL)
		return false;
	LWLockAcquire(sent_lock, LW_SHARED);
	entry = hash_search(sent_markers, &marker->key, HASH_FIND, NULL);
	if (entry != NULL)
		same = entry->stable_offset == marker->stable_offset &&
			entry->log_start == marker->log_start &&
			entry->npartitions == marker->npartitions &&
			entry->partition == marker->partition &&
			entry->slots == marker->slots;
	LWLockRelease(sent_lock);
	return same;
}

/*
 * Log the stable offset of partition number partition (relation router) of
 * a topic of npartitions; a log outside any topic is partition 0 of 1.  The
 * worker's round (not at_commit) skips a marker it already sent.
 */
static void
log_marker(Relation router, int32 partition, int32 npartitions, bool at_commit)
{
	xl_topic_log_stable xlrec;
	TopicLogEnd end;

	/* the high watermark before the writers: see registry.c */
	topic_log_end(router, &end);
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.router = RelationGetLocator(router);
	xlrec.partition = partition;
	xlrec.npartitions = npartitions;
	xlrec.log_start = end.log_start_offset;
	xlrec.stable_offset = at_commit ?
		topic_registry_stable_offset_of_others(RelationGetRelid(router),
											   end.next_offset) :
		topic_registry_stable_offset(RelationGetRelid(router),
									 end.next_offset, NULL);
	if (!at_commit)
	{
		MarkerSent	marker;

		memset(&marker, 0, sizeof(marker));
		marker.key.dboid = MyDatabaseId;
		marker.key.router = RelationGetRelid(router);
		marker.stable_offset = xlrec.stable_offset;
		marker.log_start = xlrec.log_start;
		marker.npartitions = npartitions;
		marker.partition = partition;
		marker.slots = round_slots;
		if (already_sent(&marker))
			return;
		if (round_sent != NULL && round_nsent < round_max)
			round_sent[round_nsent++] = marker;
	}

	/* the record must carry our xid, to be decoded with our transaction */
	(void) GetCurrentTransactionId();
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, sizeof(xlrec));
	XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
	(void) XLogInsert(TOPIC_LOG_RMGR_ID, XLOG_TOPIC_LOG_STABLE);
}
/* Is relid, or a topic it belongs to, in a publication? */
static bool
is_published(Oid relid, Oid topic)
{
	return GetRelationPublications(relid) != NIL ||
		(OidIsValid(topic) && GetRelationPublications(topic) != NIL) ||
		GetAllTablesPublications() != NIL;
}

/*
 * Open relid if nobody holds a lock that would make us wait: the round
 * sends all its markers in one transaction, and one busy table (say, an
 * open TRUNCATE) must not hold back the others.  It gets its marker next
 * round.
 */
static Relation
open_if_free(Oid relid)
{
	if (!ConditionalLockRelationOid(relid, AccessShareLock))
		return NULL;
	return try_relation_open(relid, NoLock);
}

/*
 * The worker's round: log the stable offset of log router_relid (a
 * partition, or a log outside any topic) if it is published (the caller
 * commits).
 */
void
topic_markers_refresh(Oid router_relid)
{
	Oid			topic_relid = InvalidOid;
	Relation	router;
	Relation	topic = NULL;
	int32		nparts = 1;
	int32		partition = 0;

	if (!XLogLogicalInfoActive())
		return;
	if (get_rel_relispartition(router_relid))
	{
		topic_relid = get_partition_parent(router_relid, true);
		if (!OidIsValid(topic_relid))
			return;
	}
	if (!is_published(router_relid, topic_relid))
		return;
	/* a subscriber passes its publisher's markers on instead */
	if (topic_partition_is_replica(router_relid, topic_relid))
		return;
	if (OidIsValid(topic_relid))
	{
		topic = open_if_free(topic_relid);
		if (topic == NULL)
			return;
		nparts = topic_partition_count(topic);
		for (partition = 0; partition < nparts; partition++)
			if (topic_partition_relid(topic, partition) == router_relid)
				break;
	}
	router = open_if_free(router_relid);
	if (router != NULL)
	{
		if (partition < nparts && topic_log_is_router(router))
			log_marker(router, partition, nparts, false);
		relation_close(router, AccessShareLock);
	}
	if (topic != NULL)
		relation_close(topic, AccessShareLock);
}

/*
 * The log cleaner removed the records of log router_relid at the offsets
 * of nranges half-open ranges (pairs in ranges, ascending): tell the
 * subscribers, in the cleaner's transaction, which they then remove too
 * (docs/replication.md).  Only when wal_level is logical and the log is
 * published; a replica's own removals are passed on as well, to
 * subscribers of the subscriber.
 */
void
topic_markers_log_removed(Oid router_relid, const int64 *ranges, int nranges)
{
	Oid			topic_relid = InvalidOid;
	Relation	router;
	int32		nparts = 1;
	int32		partition = 0;

	if (!XLogLogicalInfoActive() || nranges == 0)
		return;
	if (get_rel_relispartition(router_relid))
		topic_relid = get_partition_parent(router_relid, true);
	if (!is_published(router_relid, topic_relid))
		return;
	if (OidIsValid(topic_relid))
	{
		Relation	topic = relation_open(topic_relid, AccessShareLock);

		nparts = topic_partition_count(topic);
		for (partition = 0; partition < nparts; partition++)
			if (topic_partition_relid(topic, partition) == router_relid)
				break;
		relation_close(topic, AccessShareLock);
		if (partition >= nparts)
			return;
	}
	router = relation_open(router_relid, AccessShareLock);

	/* the record must carry our xid, to be decoded with our transaction */
	(void) GetCurrentTransactionId();
	for (int first = 0; first < nranges; first += TOPIC_REMOVED_MAX_RANGES)
	{
		xl_topic_log_removed xlrec;

		memset(&xlrec, 0, SizeOfTopicLogRemoved);
		xlrec.router = RelationGetLocator(router);
		xlrec.partition = partition;
		xlrec.npartitions = nparts;
		xlrec.nranges = Min(nranges - first, TOPIC_REMOVED_MAX_RANGES);
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfTopicLogRemoved);
		XLogRegisterData((char *) &ranges[2 * first],
						 sizeof(int64) * 2 * xlrec.nranges);
		XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
		(void) XLogInsert(TOPIC_LOG_RMGR_ID, XLOG_TOPIC_LOG_REMOVED);
	}
	relation_close(router, AccessShareLock);
}

/* At pre-commit of a transaction that produced (registry.c) */
static void
markers_at_commit(void)
{
	int			max = pg_topics_max_partitions_per_transaction;
	Oid		   *relids;
	Oid		   *topics;
	int32	   *partitions;
	int			n;
	int			i;

	if (!XLogLogicalInfoActive() ||
		SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
		return;

	relids = palloc(sizeof(Oid) * max);
	topics = palloc(sizeof(Oid) * max);
	partitions = palloc(sizeof(int32) * max);
	n = topic_registry_my_partitions(relids, topics, partitions, max);
	for (i = 0; i < n; i++)
	{
		Relation	router;
		Relation	topic;

		router = try_relation_open(relids[i], AccessShareLock);
		if (router == NULL)
			continue;			/* dropped by this very transaction */
		if (topic_log_is_router(router))
		{
			if (!OidIsValid(topics[i]))
				log_marker(router, 0, 1, true); /* e.g. topics.consumer_offsets */
			else if ((topic = try_relation_open(topics[i], AccessShareLock)) != NULL)
			{
				log_marker(router, partitions[i], topic_partition_count(topic),
						   true);
				relation_close(topic, AccessShareLock);
			}
		}
		relation_close(router, AccessShareLock);
	}
	pfree(relids);
	pfree(topics);
	pfree(partitions);
}

static void
markers_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_COMMIT && topic_registry_wrote_in_xact())
		markers_at_commit();
}

/*
 * Early registration, from _PG_init, right after the registry's: callbacks
 * run newest first, so the markers are written after every other
 * pre-commit step that may still produce (group positions, for one).
 */
void
topic_markers_init(void)
{
	RegisterXactCallback(markers_xact_callback, NULL);
}
