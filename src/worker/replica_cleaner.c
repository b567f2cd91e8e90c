/*-------------------------------------------------------------------------
 *
 * replica_cleaner.c
 *	  A logical replica removes the records its publisher's log cleaner
 *	  removed, so that it holds the publisher's log: the same offsets and
 *	  the same gaps.
 *
 * The publisher's cleaner logs the offsets it removed from each segment it
 * rewrote (XLOG_TOPIC_LOG_REMOVED, segment_rewrite.c); decoding makes them
 * a removal row (replication/decode.c); the subscription's apply records
 * them in topics.replica_removals, in the apply's transaction (am/insert.c).
 * The removal row comes after the records it names: they were settled on
 * the publisher before its cleaner read them, so their commits precede
 * the cleaner's, and a subscription applies in commit order.
 *
 * The publisher's rule is not replayed here: what the cleaner keeps
 * depends on the publisher's segments (the last record of a segment that
 * would otherwise have none, the last batch of each producer), which are
 * not the replica's, and a replica's segments may be out of offset order,
 * where the rule cannot run.  The replica removes exactly the offsets it
 * is given, wherever its segments hold them:
 *
 * - a LIVE segment holding one of them is rolled first (the rewrite takes
 *   sealed segments only);
 * - every sealed segment that may hold some (one out of offset order, or
 *   one whose offsets the set meets) is rewritten without them by
 *   segment_rewrite.c, each in a transaction of its own, swapped in at its
 *   commit as the cleaner's are (crash-safe, WAL-logged for standbys,
 *   their TOAST values deleted);
 * - a segment holding a batch that is not settled yet (a recent apply that
 *   some snapshot may not see), or that readers hold, waits for a later
 *   round, and so does the row.
 *
 * When every segment is done, what was removed leaves the row (the row
 * goes when nothing is left) and is logged again for this server's own
 * subscribers, if it publishes the topic.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/unless_locked.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/replication/markers.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_rewrite.h"
#include "pg_topics/worker/replica_cleaner.h"

typedef struct RemovalSet
{
	int64	   *ranges;			/* pairs [first, end), ascending */
	int			nranges;
} RemovalSet;

/* The partitions that have removals to apply (in CurrentMemoryContext) */
List *
topic_replica_removals_pending(void)
{
	MemoryContext context = CurrentMemoryContext;
	List	   *relids = NIL;
	TopicInternalSql state;

	topic_internal_sql_begin(&state);
	if (SPI_execute("SELECT \"partition\"::pg_catalog.oid FROM topics.replica_removals",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.replica_removals");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i],
									  SPI_tuptable->tupdesc, 1, &isnull);
		MemoryContext old = MemoryContextSwitchTo(context);

		if (!isnull)
			relids = lappend_oid(relids, DatumGetObjectId(d));
		MemoryContextSwitchTo(old);
	}
	topic_internal_sql_end(&state);
	return relids;
}

/* Forget the removals of partition relid, which is gone (dropped) */
void
topic_replica_removals_forget(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];

	args[0] = ObjectIdGetDatum(relid);
	if (topic_internal_sql_exec("DELETE FROM topics.replica_removals "
								"WHERE \"partition\"::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
								1, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not forget the removals of relation %u", relid);
}

/* Parse an int8multirange's text, "{[a,b),[c,d)}" */
static void
parse_ranges(const char *text, RemovalSet *set)
{
	const char *p = text;
	int			max = 16;

	set->ranges = palloc(sizeof(int64) * 2 * max);
	set->nranges = 0;
	while ((p = strchr(p, '[')) != NULL)
	{
		char	   *end;

		if (set->nranges == max)
		{
			max *= 2;
			set->ranges = repalloc(set->ranges, sizeof(int64) * 2 * max);
		}
		set->ranges[2 * set->nranges] = strtoll(p + 1, &end, 10);
		if (*end != ',')
			elog(ERROR, "unexpected removal range \"%s\"", text);
		set->ranges[2 * set->nranges + 1] = strtoll(end + 1, &end, 10);
		if (*end != ')')
			elog(ERROR, "unexpected removal range \"%s\"", text);
		set->nranges++;
		p = end;
	}
}

/* Is offset in the set? (a TopicRecordRemovable) */
static bool
in_set(void *arg, const TopicBatchHeaderData *hdr, const TopicRecord *rec)
{
	RemovalSet *set = (RemovalSet *) arg;
	int			lo = 0;
	int			hi = set->nranges;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (rec->offset < set->ranges[2 * mid])
			hi = mid;
		else if (rec->offset >= set->ranges[2 * mid + 1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/*
 * Does the set hold an offset in [lo, hi)?  The first range that ends
 * after lo (a binary search, as in_set's) tells.
 */
static bool
set_meets(RemovalSet *set, int64 lo, int64 hi)
{
	int			first = 0;
	int			last = set->nranges;

	while (first < last)
	{
		int			mid = (first + last) / 2;

		if (set->ranges[2 * mid + 1] <= lo)
			first = mid + 1;
		else
			last = mid;
	}
	return first < set->nranges && set->ranges[2 * first] < hi;
}

/* Does segment seg hold a record of the set? */
static bool
segment_holds(Relation seg, RemovalSet *set)
{
	TopicBatchIter it;
	TopicBatchHeader hdr;
	TopicBatchBuffer inflated = {NULL, 0};
	bool		holds = false;

	topic_batch_iter_begin(&it, seg, TOPIC_LOG_FIRST_DATA_BLKNO,
						   topic_storage_nblocks(seg), NULL,
						   TOPIC_BATCH_ITER_VACUUM);
	while (!holds && (hdr = topic_batch_iter_next(&it)) != NULL)
	{
		const char *bytes;
		Size		end;
		Size		pos = topic_batch_records_start(hdr);

		if ((hdr->flags & TB_ABORTED) || TopicBatchIsMarker(hdr))
			continue;
		bytes = topic_batch_records(hdr, &inflated, &end);
		for (int i = 0; i < hdr->nrecords; i++)
		{
			TopicRecord rec;

			if (!topic_record_decode(bytes, &pos, end, hdr, i, &rec))
				elog(ERROR, "a record of segment \"%s\" does not parse",
					 RelationGetRelationName(seg));
			if (in_set(set, hdr, &rec))
			{
				holds = true;
				break;
			}
		}
	}
	topic_batch_iter_end(&it);
	topic_batch_buffer_free(&inflated);
	return holds;
}

/* A segment to rewrite without a set (topic_call_unless_locked's arg) */
typedef struct RewriteOne
{
	Oid			router;
	const TopicSegmentEntry *entry;
	RemovalSet *set;
	TopicRewriteOutcome outcome;
} RewriteOne;

static void
rewrite_one_now(void *arg)
{
	RewriteOne *one = (RewriteOne *) arg;
	TopicRewriteResult result;

	one->outcome = topic_segment_rewrite_replica(one->router, one->entry,
												 in_set, one->set, false,
												 &result);
}

/*
 * Rewrite one sealed segment without the set, in a subtransaction: a
 * segment readers hold is left for a later round.  False if it was left.
 */
static bool
rewrite_one(Relation router, const TopicSegmentEntry *entry, RemovalSet *set)
{
	RewriteOne	one = {RelationGetRelid(router), entry, set, TOPIC_REWRITE_BUSY};

	if (!topic_call_unless_locked(rewrite_one_now, &one))
		return false;
	return one.outcome == TOPIC_REWRITE_DONE ||
		one.outcome == TOPIC_REWRITE_NOTHING ||
		one.outcome == TOPIC_REWRITE_GONE;
}

/*
 * A pass over one partition's pending removals: the set as the row held it
 * when the pass began, and the sealed segments that may hold some of it.
 * It lives in its own memory context under TopMemoryContext, so that the
 * worker may rewrite each segment in a transaction of its own: a swapped
 * segment is AccessExclusive-locked only until its own commit.
 *
 * The row is left as it is until every segment is done.  A crash (or an
 * error, or a segment left for later) between two segments' commits leaves
 * it whole, and the next round's pass takes every segment again: a segment
 * already rewritten holds none of the set any more and is left as it is
 * (TOPIC_REWRITE_NOTHING, after reading it).  Offsets are never reused, so
 * removing them again from a segment cannot take a record the publisher
 * kept.  Only the last transaction, once every segment is done, takes the
 * pass's set out of the row: removals the apply added meanwhile stay.
 */
struct TopicReplicaPass
{
	MemoryContext context;
	Oid			router;
	char	   *text;			/* the set, as the row's text */
	RemovalSet	set;
	TopicSegmentEntry *segments;	/* the sealed ones to rewrite */
	int			nsegments;
	int			next;			/* the next one to rewrite */
	bool		done;			/* none left so far */
};

/*
 * Begin a pass over router's pending removals, or NULL when it has none.
 * A LIVE segment holding some of them rolls first (the rewrite takes
 * sealed segments only): the pass then rewrites it with the others.
 */
TopicReplicaPass *
topic_replica_removals_begin(Relation router)
{
	Oid			argtypes[1] = {REGCLASSOID};
	Datum		args[1];
	RemovalSet	set;
	TopicSegmentDir *dir;
	TopicSegmentEntry *live;
	TopicSegmentEntry *segments;
	int			nsegments = 0;
	bool		done = true;
	char	   *text = NULL;
	MemoryContext context = CurrentMemoryContext;
	TopicInternalSql state;
	TopicReplicaPass *pass;

	args[0] = ObjectIdGetDatum(RelationGetRelid(router));
	topic_internal_sql_begin(&state);
	if (SPI_execute_with_args("SELECT removed::text FROM topics.replica_removals "
							  "WHERE \"partition\" = $1",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the removals of \"%s\"",
			 RelationGetRelationName(router));
	if (SPI_processed == 1)
	{
		char	   *value = SPI_getvalue(SPI_tuptable->vals[0],
										 SPI_tuptable->tupdesc, 1);

		if (value != NULL)
			text = MemoryContextStrdup(context, value);
	}
	topic_internal_sql_end(&state);
	if (text == NULL)
		return NULL;
	parse_ranges(text, &set);

	dir = topic_segdir_read(router);
	live = topic_segdir_live(dir);
	if (live != NULL)
	{
		Relation	seg = topic_segment_open(RelationGetRelid(router), live,
											 RowExclusiveLock);

		if (seg != NULL)
		{
			/* without a spare to roll to, it waits for a later round */
			if (segment_holds(seg, &set) && !topic_segment_roll(router, seg))
				done = false;
			relation_close(seg, RowExclusiveLock);
		}
	}
	pfree(dir);

	dir = topic_segdir_read(router);
	segments = palloc(sizeof(TopicSegmentEntry) * Max(dir->nentries, 1));
	for (int i = 0; i < dir->nentries; i++)
	{
		TopicSegmentEntry *entry = &dir->entries[i];
		int64		next_base = PG_INT64_MAX;

		if (entry->state != TOPIC_SEGMENT_SEALED)
			continue;

		/*
		 * A segment in offset order holds offsets from its base to the
		 * next segment's: it is read only when the set meets them
		 */
		for (int j = i + 1; j < dir->nentries; j++)
			if (topic_segment_readable(&dir->entries[j]))
			{
				next_base = dir->entries[j].base_offset;
				break;
			}
		if (!(entry->flags & TOPIC_SEGENTRY_UNORDERED) &&
			!set_meets(&set, entry->base_offset, next_base))
			continue;
		segments[nsegments++] = *entry;
	}
	pfree(dir);

	/* all planned: the pass outlives the transaction */
	context = AllocSetContextCreate(TopMemoryContext,
									"pg_topics replica removals",
									ALLOCSET_SMALL_SIZES);
	pass = MemoryContextAllocZero(context, sizeof(TopicReplicaPass));
	pass->context = context;
	pass->router = RelationGetRelid(router);
	pass->text = MemoryContextStrdup(context, text);
	pass->set.nranges = set.nranges;
	pass->set.ranges = MemoryContextAlloc(context,
										  sizeof(int64) * 2 * Max(set.nranges, 1));
	memcpy(pass->set.ranges, set.ranges, sizeof(int64) * 2 * set.nranges);
	pass->segments = MemoryContextAlloc(context,
										sizeof(TopicSegmentEntry) * Max(nsegments, 1));
	memcpy(pass->segments, segments, sizeof(TopicSegmentEntry) * nsegments);
	pass->nsegments = nsegments;
	pass->done = done;
	return pass;
}

/* Is there a segment left for topic_replica_removals_step? */
bool
topic_replica_removals_more(TopicReplicaPass *pass)
{
	return pass->next < pass->nsegments;
}

/*
 * Rewrite the pass's next segment without the set, in the caller's
 * transaction, which the worker commits next.  A segment readers hold, or
 * holding a batch not settled yet, is left for a later round.
 */
void
topic_replica_removals_step(Relation router, TopicReplicaPass *pass)
{
	Assert(topic_replica_removals_more(pass));
	Assert(RelationGetRelid(router) == pass->router);
	if (!rewrite_one(router, &pass->segments[pass->next++], &pass->set))
		pass->done = false;
}

/*
 * End the pass in the caller's transaction, after its last step: when
 * every segment is done, its set leaves the row (the row goes when nothing
 * is left) and is logged again for this server's own subscribers, if it
 * publishes the topic.
 */
void
topic_replica_removals_finish(Relation router, TopicReplicaPass *pass)
{
	Oid			argtypes[2] = {REGCLASSOID, TEXTOID};
	Datum		args[2];

	Assert(!topic_replica_removals_more(pass));
	if (!pass->done)
		return;
	args[0] = ObjectIdGetDatum(RelationGetRelid(router));
	args[1] = CStringGetTextDatum(pass->text);
	if (topic_internal_sql_exec("UPDATE topics.replica_removals "
								"SET removed = removed OPERATOR(pg_catalog.-) $2::pg_catalog.int8multirange "
								"WHERE \"partition\" = $1",
								2, argtypes, args, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update the removals of \"%s\"",
			 RelationGetRelationName(router));
	if (topic_internal_sql_exec("DELETE FROM topics.replica_removals "
								"WHERE \"partition\" = $1 "
								"AND pg_catalog.isempty(removed)",
								1, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not forget the removals of \"%s\"",
			 RelationGetRelationName(router));
	/* this server's own subscribers remove them too */
	topic_markers_log_removed(RelationGetRelid(router), pass->set.ranges,
							  pass->set.nranges);
}

void
topic_replica_removals_end(TopicReplicaPass *pass)
{
	MemoryContextDelete(pass->context);
}
