/*-------------------------------------------------------------------------
 *
 * freeze.c
 *	  VACUUM of a topic_log relation: freezing without rewriting pages, so
 *	  that topics outlive transaction ID wraparound.
 *
 * A log never has dead records to reclaim (old records leave a whole
 * segment at a time), so what VACUUM owes it is freezing.  Heap freezes by
 * rewriting tuple headers; a log would pay one more write for every page
 * it ever wrote.  Instead the metapage keeps a resolved mark: a position in
 * the log before which every batch is decided without looking at its xid
 * (visibility.c).  VACUUM walks the log from the mark, batch by batch:
 *
 * - committed, durably, and older than OldestXmin: every snapshot that can
 *   still exist sees it, and always will, so it is resolved as is;
 * - rolled back (a crash counts): flagged TB_ABORTED, one WAL record per
 *   page that has any (rollbacks are rare), and resolved;
 * - anything else (running, or committed too recently): the mark stops.
 *
 * The mark then moves in one small metapage WAL record, which on a hot
 * standby cancels the queries whose snapshots might not see the newest
 * transaction it passed, like heap's freeze records.  relfrozenxid becomes
 * the oldest xid a batch at or after the mark still carries, or OldestXmin
 * when there is none: every batch written later belongs to a transaction
 * at or after OldestXmin.  Nothing before the mark is ever rewritten.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "commands/vacuum.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/am/freeze.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/segments/segment.h"

typedef enum ResolveOutcome
{
	RESOLVE_COMMITTED,
	RESOLVE_ABORTED,
	RESOLVE_NOT_YET
} ResolveOutcome;

/* Can the batch (on a share-locked page) be resolved, and how? */
static ResolveOutcome
resolve_batch(Buffer buffer, TopicBatchHeader hdr, TransactionId oldest_xmin)
{
	TransactionId xid = hdr->xid;

	if (hdr->flags & TB_ABORTED)
		return RESOLVE_ABORTED;
	if (xid == FrozenTransactionId)
		return RESOLVE_COMMITTED;
	/* a snapshot may still see it as running */
	if (!TransactionIdPrecedes(xid, oldest_xmin))
		return RESOLVE_NOT_YET;
	if (hdr->hints & TB_HINT_ABORTED)
		return RESOLVE_ABORTED;
	if (hdr->hints & TB_HINT_COMMITTED)
		return RESOLVE_COMMITTED;
	if (TransactionIdDidCommit(xid))
	{
		/* an asynchronous commit not flushed yet might still be lost */
		if (XLogNeedsFlush(TransactionIdGetCommitLSN(xid)))
			return RESOLVE_NOT_YET;
		topic_batch_hint_committed(buffer, hdr);
		return RESOLVE_COMMITTED;
	}
	/* older than every running transaction, so over without committing */
	topic_batch_set_hints(buffer, hdr, TB_HINT_ABORTED);
	return RESOLVE_ABORTED;
}

/*
 * The horizon batches are resolved against, and the multixact one for
 * relminmxid.  Not the horizon old_snapshot_threshold may have moved past
 * old snapshots: those would see what the mark passes.  Heap raises
 * "snapshot too old" for them instead; the mark has no page LSN to test.
 */
static void
freeze_horizons(Relation rel, struct VacuumParams *params,
				TransactionId *oldest_xmin, MultiXactId *oldest_mxact)
{
#if PG_VERSION_NUM >= 160000
	struct VacuumCutoffs cutoffs;

	vacuum_get_cutoffs(rel, params, &cutoffs);
	*oldest_mxact = cutoffs.OldestMxact;
#else
	TransactionId freeze_limit;
	MultiXactId multi_cutoff;

	vacuum_set_xid_limits(rel, params->freeze_min_age,
						  params->freeze_table_age,
						  params->multixact_freeze_min_age,
						  params->multixact_freeze_table_age,
						  oldest_xmin, oldest_mxact,
						  &freeze_limit, &multi_cutoff);
#endif
	*oldest_xmin = GetOldestNonRemovableTransactionId(rel);
}

/* when the running VACUUM of a relation began: 18's statistics time it */
static TimestampTz vacuum_started;

/*
 * Record what VACUUM found in pg_class and pgstat: pages, the records of
 * the log (aborted ones are not dead: nothing for autovacuum to chase) and
 * the new relfrozenxid.  True if relfrozenxid moved.
 */
static bool
report_vacuum(Relation rel, BlockNumber pages, const TopicLogEnd *end,
			  TransactionId frozen_xid, MultiXactId oldest_mxact)
{
	int64		records = end->next_offset - end->log_start_offset;
	bool		frozenxid_updated;
	bool		minmulti_updated;

#if PG_VERSION_NUM >= 180000
	/* no page is all-visible or all-frozen in the visibility map's sense */
	vac_update_relstats(rel, pages, (double) records, 0, 0, false, frozen_xid,
						oldest_mxact, &frozenxid_updated, &minmulti_updated,
						false);
	pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
						 records, 0, vacuum_started);
#else
	vac_update_relstats(rel, pages, (double) records, 0, false, frozen_xid,
						oldest_mxact, &frozenxid_updated, &minmulti_updated,
						false);
	pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
						 records, 0);
#endif
	return frozenxid_updated;
}

/* How far vacuum_segment's walk has resolved the segment's batches */
typedef struct VacuumWalk
{
	TopicLogPosition start;		/* the resolved mark before this VACUUM */
	TopicLogPosition resolved;	/* end of the batches resolved so far */
	bool		resolving;		/* every batch so far was resolved */
	TransactionId oldest_xmin;
	TransactionId latest_committed;
	TransactionId oldest_unresolved;	/* oldest xid at or after the mark */
	int64		nresolved;
} VacuumWalk;

/*
 * Walk the batches of data page blkno (share-locked in buffer) that the
 * resolved mark has not passed: resolve them while every one so far could
 * be, then note the oldest xid left.  Returns how many aborted batches, at
 * positions aborted[], still need their flag.
 */
static int
vacuum_page(Buffer buffer, Page page, BlockNumber blkno, VacuumWalk *walk,
			uint16 *aborted)
{
	Size		pos = 0;
	TopicBatchHeader hdr;
	int			naborted = 0;

	while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
	{
		Size		start = (char *) hdr - (char *) page;

		if (TopicLogPositionMake(blkno, start) < walk->start)
			continue;
		if (walk->resolving)
		{
			ResolveOutcome outcome = resolve_batch(buffer, hdr, walk->oldest_xmin);

			if (outcome != RESOLVE_NOT_YET)
			{
				if (outcome == RESOLVE_ABORTED && !(hdr->flags & TB_ABORTED))
					aborted[naborted++] = start;
				else if (outcome == RESOLVE_COMMITTED &&
						 TransactionIdIsNormal(hdr->xid) &&
						 (!TransactionIdIsValid(walk->latest_committed) ||
						  TransactionIdFollows(hdr->xid, walk->latest_committed)))
					walk->latest_committed = hdr->xid;
				walk->resolved = TopicLogPositionMake(blkno, pos);
				walk->nresolved++;
				continue;
			}
			walk->resolving = false;
		}
		/* at or after the mark: the xid must stay answerable */
		if (!(hdr->flags & TB_ABORTED) && TransactionIdIsNormal(hdr->xid) &&
			(!TransactionIdIsValid(walk->oldest_unresolved) ||
			 TransactionIdPrecedes(hdr->xid, walk->oldest_unresolved)))
			walk->oldest_unresolved = hdr->xid;
	}
	/* bytes that are not a batch: resolve nothing past them */
	if (pos != 0 && pos != ((PageHeader) page)->pd_lower)
		walk->resolving = false;
	return naborted;
}

/*
 * VACUUM of one segment.  Runs under ShareUpdateExclusiveLock, so inserts
 * and reads go on; batches appended meanwhile start after every position
 * this walk sees.
 */
static void
vacuum_segment(Relation rel, struct VacuumParams *params,
			   BufferAccessStrategy bstrategy)
{
	int			elevel = (params->options & VACOPT_VERBOSE) ? INFO : DEBUG2;
	MultiXactId oldest_mxact;
	TopicLogEnd end;
	VacuumWalk	walk;
	TopicBatchIter it;
	BlockNumber nblocks;
	TransactionId new_frozen_xid;
	int64		nmarked = 0;
	bool		frozenxid_updated;

	freeze_horizons(rel, params, &walk.oldest_xmin, &oldest_mxact);
	topic_log_end(rel, &end);
	walk.start = end.resolved;
	walk.resolved = end.resolved;
	walk.resolving = true;
	walk.latest_committed = InvalidTransactionId;
	walk.oldest_unresolved = InvalidTransactionId;
	walk.nresolved = 0;
	nblocks = topic_storage_nblocks(rel);

	topic_batch_iter_begin(&it, rel, TopicLogPositionGetBlock(end.resolved),
						   nblocks, bstrategy, TOPIC_BATCH_ITER_VACUUM);
	while (topic_batch_iter_next_page(&it))
	{
		uint16		aborted[TOPIC_LOG_MAX_RECORDS_PER_PAGE];
		int			naborted;

		naborted = vacuum_page(it.buffer, it.page, it.blkno, &walk, aborted);
		topic_batch_iter_unlock(&it);

		/* batches never move, so their positions hold across the relock */
		if (naborted > 0)
		{
			LockBuffer(it.buffer, BUFFER_LOCK_EXCLUSIVE);
			topic_page_mark_aborted(rel, it.buffer, aborted, naborted);
			LockBuffer(it.buffer, BUFFER_LOCK_UNLOCK);
			nmarked += naborted;
		}
	}
	topic_batch_iter_end(&it);

	/* the flags are logged before the mark that relies on them */
	if (walk.resolved > end.resolved)
		topic_storage_advance_resolved(rel, walk.resolved, walk.latest_committed);

	new_frozen_xid = walk.oldest_xmin;
	if (TransactionIdIsValid(walk.oldest_unresolved) &&
		TransactionIdPrecedes(walk.oldest_unresolved, new_frozen_xid))
		new_frozen_xid = walk.oldest_unresolved;

	frozenxid_updated = report_vacuum(rel, nblocks, &end, new_frozen_xid,
									  oldest_mxact);

	if (message_level_is_interesting(elevel))
	{
		/* named as users know it: the partition, and the segment's number */
		TopicLogMetaData meta;
		char	   *partition;

		topic_storage_read_meta(rel, &meta);
		partition = (meta.flags & TL_META_SEGMENT) ? get_rel_name(meta.owner) : NULL;
		if (partition == NULL && frozenxid_updated)
			ereport(elevel,
					(errmsg("topic_log \"%s\": resolved %lld batches (%lld rolled back), relfrozenxid %u",
							RelationGetRelationName(rel), (long long) walk.nresolved,
							(long long) nmarked, new_frozen_xid)));
		else if (partition == NULL)
			ereport(elevel,
					(errmsg("topic_log \"%s\": resolved %lld batches (%lld rolled back), relfrozenxid %u (unchanged)",
							RelationGetRelationName(rel), (long long) walk.nresolved,
							(long long) nmarked, new_frozen_xid)));
		else if (frozenxid_updated)
			ereport(elevel,
					(errmsg("partition \"%s\", segment %u: resolved %lld batches (%lld rolled back), relfrozenxid %u",
							partition, meta.segno, (long long) walk.nresolved,
							(long long) nmarked, new_frozen_xid)));
		else
			ereport(elevel,
					(errmsg("partition \"%s\", segment %u: resolved %lld batches (%lld rolled back), relfrozenxid %u (unchanged)",
							partition, meta.segno, (long long) walk.nresolved,
							(long long) nmarked, new_frozen_xid)));
	}
}

/* VACUUM of a partition's log, segment after segment */
typedef struct RouterVacuum
{
	struct VacuumParams *params;
	BufferAccessStrategy bstrategy;
	BlockNumber pages;			/* of the segments vacuumed */
} RouterVacuum;

/* VACUUM one segment of a partition (a topic_segdir_foreach visitor) */
static bool
vacuum_router_segment(void *arg, Relation seg, const TopicSegmentEntry *entry,
					  int i)
{
	RouterVacuum *rv = (RouterVacuum *) arg;

	vacuum_segment(seg, rv->params, rv->bstrategy);
	rv->pages += topic_storage_nblocks(seg);
	return false;
}

/*
 * VACUUM of a partition's log: its segments, which autovacuum also visits
 * one by one, then the partition itself, which holds no records.
 */
static void
vacuum_router(Relation rel, struct VacuumParams *params,
			  BufferAccessStrategy bstrategy)
{
	TopicSegmentDir *dir = topic_segdir_read(rel);
	RouterVacuum rv = {params, bstrategy, 0};
	TransactionId oldest_xmin;
	MultiXactId oldest_mxact;
	TopicLogEnd end;

	(void) topic_segdir_foreach(dir, -1, 0, ShareUpdateExclusiveLock,
								vacuum_router_segment, &rv);
	pfree(dir);

	/* the partition itself holds no records: nothing older than the horizon */
	freeze_horizons(rel, params, &oldest_xmin, &oldest_mxact);
	topic_log_end(rel, &end);
	(void) report_vacuum(rel, rv.pages, &end, oldest_xmin, oldest_mxact);
}

/* The relation_vacuum callback */
void
topic_vacuum(Relation rel, struct VacuumParams *params,
			 BufferAccessStrategy bstrategy)
{
	vacuum_started = GetCurrentTimestamp();
	if (topic_log_is_router(rel))
		vacuum_router(rel, params, bstrategy);
	else
		vacuum_segment(rel, params, bstrategy);
}
