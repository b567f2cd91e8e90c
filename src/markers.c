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
 *   retention the log start, with nobody committing.
 * - Decoding turns the record into a marker row (decode.c); the
 *   subscriber's worker stores it as a marker batch (insert.c) in the same
 *   transaction as the records before it, and fetch.c bounds readers by
 *   the newest marker their snapshot sees.
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
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "catalog.h"
#include "markers.h"
#include "pg_topics.h"
#include "registry.h"
#include "segment.h"
#include "storage.h"
#include "subscription.h"
#include "wal.h"

/*
 * Log the stable offset of partition number partition (relation router) of
 * a topic of npartitions; a log outside any topic is partition 0 of 1.
 */
static void
log_marker(Relation router, int32 partition, int32 npartitions, bool at_commit)
{
	xl_topic_log_stable xlrec;
	TopicLogEnd end;

	/* the high watermark before the writers: see registry.c */
	topic_storage_log_end(router, &end);
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.router = router->rd_node;
	xlrec.partition = partition;
	xlrec.npartitions = npartitions;
	xlrec.log_start = end.log_start_offset;
	xlrec.stable_offset = at_commit ?
		topic_registry_stable_offset_of_others(RelationGetRelid(router),
											   end.next_offset) :
		topic_registry_stable_offset(RelationGetRelid(router),
									 end.next_offset, NULL);

	/* the record must carry our xid, to be decoded with our transaction */
	(void) GetCurrentTransactionId();
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, sizeof(xlrec));
	XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
	(void) XLogInsert(TOPIC_LOG_RMGR_ID, XLOG_TOPIC_LOG_STABLE);
}

/* At pre-commit of a transaction that produced (registry.c) */
void
topic_markers_at_commit(void)
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
