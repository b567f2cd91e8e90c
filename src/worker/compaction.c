/*-------------------------------------------------------------------------
 *
 * compaction.c
 *	  Keeping topics.consumer_offsets small: the latest position of every
 *	  group and partition is copied forward, and the segments before it go.
 *
 * Every commit of a group position appends a record to the log
 * topics.consumer_offsets (group_state.c); the latest record per key is
 * the position, earlier ones are dead weight.  Kafka compacts its
 * __consumer_offsets topic; we do the same a segment at a time, in two
 * transactions of the background worker:
 *
 * 1. Choose a cut: the start of the LIVE segment, but never past the
 *    log's last stable offset, so that no position still being written
 *    below the cut is missed.  Copy the latest record of every key below
 *    the cut (unless it is a tombstone, or a newer record exists past the
 *    cut) into the log again, and commit.
 * 2. Move the log start to the cut; the SEALED segments below it are
 *    retired and dropped like retention's.
 *
 * A copy carries its original's version ("v": the offset it was first
 * written at), and loading replays records by version, not by offset: a
 * copy of an older position that lands after a newer commit does not win.
 * A crash between the two steps leaves duplicates, which are harmless.
 *
 * A subscriber that replicates the log from a publisher must not write
 * into it, and need not: the publisher's copies arrive as inserts.  There
 * step 1 only chooses a segment boundary below which every position has a
 * record at least as new past it; the cut never passes the publisher's
 * stable offset (the replicated marker), so no late record can still land
 * below it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/worker/compaction.h"

/* The latest record (by version) of every key in [$1, $2), as "latest" */
#define LATEST_BELOW_CUT \
"(SELECT DISTINCT ON (key) key, value, " \
"         coalesce((value->>'v')::bigint, \"offset\") AS version " \
"  FROM topics.consumer_offsets " \
"  WHERE \"offset\" >= $1 AND \"offset\" < $2 " \
"  ORDER BY key, version DESC) latest "

/*
 * The latest position of every key in [$1, $2), unless a record past $2
 * supersedes it: the copy keeps its original's version.
 */
static const char *copy_forward_sql =
"INSERT INTO topics.consumer_offsets (key, value) "
"SELECT key, value || jsonb_build_object('v', version) FROM "
LATEST_BELOW_CUT
"WHERE value IS NOT NULL AND NOT EXISTS ("
"  SELECT 1 FROM topics.consumer_offsets newer "
"  WHERE newer.\"offset\" >= $2 AND newer.key = latest.key)";

/*
 * On a replica: a key whose latest record in [$1, $2) is not superseded
 * past $2 -- a position without a record as new past $2, or a tombstone
 * with an older record past $2 that dropping it would bring back.
 */
static const char *superseded_check_sql =
"SELECT 1 FROM "
LATEST_BELOW_CUT
"WHERE NOT EXISTS ("
"    SELECT 1 FROM topics.consumer_offsets newer "
"    WHERE newer.\"offset\" >= $2 AND newer.key = latest.key "
"      AND coalesce((newer.value->>'v')::bigint, newer.\"offset\") >= latest.version) "
"  AND (latest.value IS NOT NULL OR EXISTS ("
"    SELECT 1 FROM topics.consumer_offsets older "
"    WHERE older.\"offset\" >= $2 AND older.key = latest.key)) "
"LIMIT 1";

/* Roll consumer_offsets at 1 MB: compaction then keeps it at a few MB */
#define COMPACTION_SEGMENT_BLOCKS	128

/* Size consumer_offsets' segments for compaction */
uint32
topic_offsets_segment_blocks(void)
{
	return COMPACTION_SEGMENT_BLOCKS;
}

/*
 * Step 1 on a replica: the highest segment boundary, not past the
 * publisher's stable offset, below which every position is superseded by
 * a record past it, or -1.  Boundaries are tried from the top: the
 * publisher's latest copies may sit in one of our sealed segments.
 */
static int64
replica_cut(Relation router, TopicSegmentDir *dir, const TopicLogEnd *end)
{
	int64		bound = topic_replicated_bound(router, GetActiveSnapshot(), end);
	Oid			argtypes[2] = {INT8OID, INT8OID};
	Datum		args[2];
	int64		cut = -1;
	int			i;

	args[0] = Int64GetDatum(end->log_start_offset);
	for (i = dir->nentries - 1; i >= 0 && cut < 0; i--)
	{
		int64		candidate = dir->entries[i].base_offset;

		if (!topic_segment_readable(&dir->entries[i]) ||
			candidate > bound || candidate <= end->log_start_offset)
			continue;
		args[1] = Int64GetDatum(candidate);
		if (SPI_execute_with_args(superseded_check_sql, 2, argtypes, args, NULL,
								  true, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not check topics.consumer_offsets for compaction");
		if (SPI_processed == 0)
			cut = candidate;
	}
	return cut;
}

/*
 * Step 1: copy the latest positions below the cut forward (on a replica,
 * only choose the cut).  Returns the cut, or -1 when there is nothing to
 * compact.  Runs in a transaction the caller commits before
 * topic_offsets_compact_finish().
 */
int64
topic_offsets_compact_copy(Relation router)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	TopicSegmentEntry *live = topic_segdir_live(dir);
	int			readable = 0;
	TopicLogEnd end;
	TopicHolder holder;
	int64		cut;
	Datum		args[2];
	Oid			argtypes[2] = {INT8OID, INT8OID};
	TopicInternalSql internal;

	for (int i = 0; i < dir->nentries; i++)
		if (topic_segment_readable(&dir->entries[i]))
			readable++;
	if (live == NULL || readable < 2)
	{
		pfree(dir);
		return -1;
	}
	topic_log_end(router, &end);
	topic_internal_sql_begin(&internal);
	if (topic_partition_is_replica(RelationGetRelid(router), InvalidOid))
		cut = replica_cut(router, dir, &end);
	else
	{
		cut = Min(live->base_offset,
				  topic_registry_stable_offset(RelationGetRelid(router),
											   end.next_offset, &holder));
		if (cut <= end.log_start_offset)
			cut = -1;
		else
		{
			args[0] = Int64GetDatum(end.log_start_offset);
			args[1] = Int64GetDatum(cut);
			if (SPI_execute_with_args(copy_forward_sql, 2, argtypes, args, NULL,
									  false, 0) != SPI_OK_INSERT)
				elog(ERROR, "could not compact topics.consumer_offsets");
		}
	}
	topic_internal_sql_end(&internal);
	pfree(dir);
	return cut;
}

/*
 * Step 2, once the copies committed: the log starts at the cut, and the
 * segments wholly below it go.
 */
void
topic_offsets_compact_finish(Relation router, int64 cut)
{
	TopicLogEnd end;

	topic_log_end(router, &end);
	topic_segdir_advance_start(router, cut, end.next_offset);
	topic_segments_drop_retired(router, false);
}
