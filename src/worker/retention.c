/*-------------------------------------------------------------------------
 *
 * retention.c
 *	  Retention: old records leave a whole segment at a time.
 *
 * A topic's retention (an age) and retention_bytes (a size per
 * partition) decide which SEALED segments go, oldest first, as Kafka does:
 * a segment goes when its newest record is older than the retention, or
 * while the partition stays at or above retention_bytes without it.  The
 * log start moves to the first segment kept and the ones before it are
 * retired, then dropped (a relation drop, so their files, TOAST included,
 * go back to the filesystem at commit).  A segment someone is reading is
 * dropped later: retention never waits for readers.
 *
 * Sizes are whole sizes on disk (segment.c, topic_segment_disk_blocks):
 * TOAST table, its index and the maps included, as topics.partitions shows.
 *
 * Segments are sized from the same settings: a quarter of retention_bytes
 * (so a partition keeps little more than retention_bytes plus one
 * segment; set from create_topic on), and rolled over after a quarter of
 * retention, so that an idle topic's old records still leave on time.
 * Each pass rolls the LIVE segment when it is due, since only sealed
 * segments go.
 *
 * topics.delete_records() moves the log start by hand (Kafka's
 * DeleteRecords); topics.enforce_retention() applies the policy now
 * rather than at the worker's next round, or fails saying why it cannot.
 *
 * A logical replica of a topic's partition starts where its publisher's
 * log does (writer/writer.c follows the publisher's markers), so that a consumer
 * can move between the two with its offsets: its own retention settings
 * only size its segments, and delete_records is refused there.  Whenever
 * a publisher's log start moves, the worker sends markers at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/base/wakeup.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/maintenance.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/worker/compaction.h"
#include "pg_topics/worker/retention.h"

PG_FUNCTION_INFO_V1(topic_delete_records);
PG_FUNCTION_INFO_V1(topic_enforce_retention);
PG_FUNCTION_INFO_V1(topic_restore_log_start);

/*
 * Trigger on topics.log_starts, also in preserve mode: a partition without
 * records (as pg_restore leaves one whose records were all gone, or before
 * its records are restored) starts where the row says.
 */
Datum
topic_restore_log_start(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	HeapTuple	tuple;
	TupleDesc	desc;
	bool		isnull;
	Oid			relid;
	int64		start;
	Relation	router;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("topics.restore_log_start() must run as an AFTER ROW trigger")));
	/* only topics.log_starts may move a log start this way */
	if (strcmp(RelationGetRelationName(trigdata->tg_relation), "log_starts") != 0 ||
		RelationGetNamespace(trigdata->tg_relation) != get_namespace_oid("topics", false))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("topics.restore_log_start() only works on topics.log_starts")));
	tuple = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ?
		trigdata->tg_newtuple : trigdata->tg_trigtuple;
	desc = RelationGetDescr(trigdata->tg_relation);
	relid = DatumGetObjectId(heap_getattr(tuple, 1, desc, &isnull));
	if (isnull)
		return PointerGetDatum(NULL);
	start = DatumGetInt64(heap_getattr(tuple, 2, desc, &isnull));
	if (isnull)
		return PointerGetDatum(NULL);

	router = try_relation_open(relid, ShareUpdateExclusiveLock);
	if (router == NULL)
		return PointerGetDatum(NULL);
	if (topic_is_log_relation(relid) && topic_log_is_router(router))
		topic_segdir_restart_empty(router, start);
	relation_close(router, ShareUpdateExclusiveLock);
	return PointerGetDatum(NULL);
}

/* A topic's retention settings; none are 0 */
typedef struct RetentionPolicy
{
	int64		retention_usecs;
	int64		retention_bytes;
	uint32		segment_blocks; /* 0: pg_topics.segment_size */
	int64		segment_roll_usecs; /* 0: no roll by age */
} RetentionPolicy;

/*
 * Read the settings of the topic whose partition router is: retention.ms,
 * retention.bytes, segment.bytes and segment.ms (topic_config.h)
 */
static RetentionPolicy
read_policy(Relation router)
{
	RetentionPolicy policy = {0, 0, 0, 0};
	const TopicConfig *config;

	/* a log that is not a topic's partition has no retention */
	if (!router->rd_rel->relispartition)
	{
		if (RelationGetRelid(router) == topic_offsets_log_relid())
			policy.segment_blocks = topic_offsets_segment_blocks();
		return policy;
	}
	config = topic_config_of(get_partition_parent(RelationGetRelid(router), true));
	/* cleanup.policy compact alone keeps records by key, not by age or size */
	if (config->retention_ms > 0 && config->delete)
		policy.retention_usecs = config->retention_ms * 1000;
	if (config->retention_bytes > 0 && config->delete)
		policy.retention_bytes = config->retention_bytes;
	policy.segment_blocks = topic_config_segment_blocks(config);
	policy.segment_roll_usecs = topic_config_segment_roll_usecs(config);
	return policy;
}

/*
 * Bytes of a segment on disk: every fork of it and of its TOAST table and
 * index (topic_segment_disk_blocks), what topics.partitions.bytes counts
 */
static int64
segment_bytes(Relation seg)
{
	return (int64) topic_segment_disk_blocks(seg, true) * BLCKSZ;
}

/* The readable segments retention weighs, oldest first */
typedef struct RetentionSegments
{
	int			n;
	int		   *idx;			/* directory entry */
	int64	   *bytes;			/* disk bytes */
	TimestampTz *newest;		/* newest timestamp */
	int64		total;			/* bytes of them all */
} RetentionSegments;

/* Note one readable segment (a topic_segdir_foreach visitor) */
static bool
weigh_segment(void *arg, Relation seg, const TopicSegmentEntry *entry, int i)
{
	RetentionSegments *segs = (RetentionSegments *) arg;
	TopicLogEnd end;

	topic_log_end(seg, &end);
	segs->idx[segs->n] = i;
	segs->bytes[segs->n] = segment_bytes(seg);
	segs->newest[segs->n] = end.max_timestamp;
	segs->total += segs->bytes[segs->n];
	segs->n++;
	return false;
}

/*
 * Where router's log should start under its topic's retention: the base
 * offset of the oldest segment to keep (or the current start).
 */
static int64
retention_start(Relation router, const RetentionPolicy *policy,
				TopicSegmentDir *dir)
{
	RetentionSegments segs;
	int			keep = 0;
	int64		start = dir->log_start;
	TimestampTz cutoff = GetCurrentTimestamp() - policy->retention_usecs;

	segs.n = 0;
	segs.idx = palloc(sizeof(int) * Max(dir->nentries, 1));
	segs.bytes = palloc(sizeof(int64) * Max(dir->nentries, 1));
	segs.newest = palloc(sizeof(TimestampTz) * Max(dir->nentries, 1));
	segs.total = 0;
	(void) topic_segdir_foreach(dir, -1, 0, AccessShareLock, weigh_segment,
								&segs);

	/* never the LIVE segment, which is the last one */
	while (keep < segs.n - 1 &&
		   dir->entries[segs.idx[keep]].state == TOPIC_SEGMENT_SEALED)
	{
		bool		by_time = policy->retention_usecs > 0 &&
			segs.newest[keep] < cutoff;
		bool		by_bytes = policy->retention_bytes > 0 &&
			segs.total - segs.bytes[keep] >= policy->retention_bytes;

		if (!by_time && !by_bytes)
			break;
		segs.total -= segs.bytes[keep];
		keep++;
	}
	if (keep > 0)
		start = Max(start, dir->entries[segs.idx[keep]].base_offset);
	pfree(segs.idx);
	pfree(segs.bytes);
	pfree(segs.newest);
	return start;
}

/*
 * The log start of a partition moved: if subscribers may be following it,
 * have the worker send markers now rather than at its next round (the
 * worker's own round sends them after its retention anyway).
 */
static void
log_start_moved(void)
{
	if (XLogLogicalInfoActive() && !AmBackgroundWorkerProcess())
		topic_worker_wake();
}

/* Set router's segment size and roll age from policy */
static void
set_segment_policy(Relation router, const RetentionPolicy *policy)
{
	topic_segdir_set_policy(router, policy->segment_blocks,
							policy->segment_roll_usecs);
}

/*
 * Size the segments of every partition of topic from its settings, which
 * the caller has just stored: a new partition's first segment holds no
 * more than its share of retention_bytes (create_topic, add_partitions).
 */
void
topic_retention_size_segments(Oid topicid)
{
	Relation	topic;
	int32		nparts;
	int32		p;

	CommandCounterIncrement();	/* the settings just stored */
	topic = relation_open(topicid, AccessShareLock);
	nparts = topic_partition_count(topic);
	for (p = 0; p < nparts; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p),
										ShareUpdateExclusiveLock);
		RetentionPolicy policy = read_policy(router);

		set_segment_policy(router, &policy);
		table_close(router, NoLock);
	}
	relation_close(topic, NoLock);
}

/*
 * Apply router's retention now: size its segments, roll its LIVE segment
 * if it is due (by size on disk or by age: retention only drops sealed
 * segments), move its log start past the segments retention lets go, and
 * drop those (waiting for readers if wait).  Returns the log start; *roll
 * (if not NULL) says whether the LIVE segment was due and could not roll
 * for want of a spare.  The caller holds ShareUpdateExclusiveLock on
 * router, which keeps two of these apart.
 */
int64
topic_retention_apply(Relation router, bool wait, TopicRollResult *roll)
{
	RetentionPolicy policy = read_policy(router);
	TopicSegmentDir *dir;
	TopicRollResult rolled;
	int64		start;
	Oid			topic;
	TopicLogEnd end;

	set_segment_policy(router, &policy);
	rolled = topic_segment_roll_if_due(router);
	if (roll != NULL)
		*roll = rolled;

	dir = topic_segdir_read(router);
	/* a replica's log starts where its publisher's does, and nowhere else */
	topic = topic_registry_topic_of(router);
	if (OidIsValid(topic) &&
		topic_partition_is_replica(RelationGetRelid(router), topic))
		start = dir->log_start;
	else
		start = retention_start(router, &policy, dir);
	pfree(dir);
	topic_log_end(router, &end);
	if (start > end.log_start_offset)
	{
		topic_segdir_advance_start(router, start, end.next_offset);
		topic_log_start_record(router);
		log_start_moved();
	}
	topic_segments_drop_retired(router, wait);
	topic_log_end(router, &end);
	return end.log_start_offset;
}

/*
 * Refuse a caller without DELETE on the topic (42501), and a read-only
 * transaction (25006; function names it)
 */
static Relation
open_for_deletion(text *name, const char *function)
{
	Relation	topic = topic_open_by_name(name, AccessShareLock, ACL_DELETE);

	PreventCommandIfReadOnly(function);
	return topic;
}

/*
 * topics.delete_records(topic text, partition int, before_offset bigint)
 * RETURNS bigint: records below before_offset leave the partition (Kafka's
 * DeleteRecords).  The log start moves at once and for good, whatever the
 * calling transaction does; whole segments below it are dropped now or by
 * the worker.  Returns the new log start.
 */
Datum
topic_delete_records(PG_FUNCTION_ARGS)
{
	Relation	topic = open_for_deletion(PG_GETARG_TEXT_PP(0), "delete_records");
	int32		partition = PG_GETARG_INT32(1);
	int64		before = PG_GETARG_INT64(2);
	Relation	router;
	TopicLogEnd end;

	topic_check_partition(topic, partition);
	router = table_open(topic_partition_relid(topic, partition),
						ShareUpdateExclusiveLock);
	if (topic_partition_is_replica(RelationGetRelid(router),
								   RelationGetRelid(topic)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot delete records of partition \"%s\": it is a logical replica",
						RelationGetRelationName(router)),
				 errdetail("A replica's log starts where its publisher's does."),
				 errhint("Delete the records on the publisher; the replica follows.")));
	topic_log_end(router, &end);
	if (before < 0 || before > end.next_offset)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("offset %lld is out of range for partition %d of topic \"%s\"",
						(long long) before, partition, RelationGetRelationName(topic)),
				 errdetail("Records can be deleted up to the high watermark, %lld.",
						   (long long) end.next_offset)));
	if (before > end.log_start_offset)
	{
		topic_segdir_advance_start(router, before, end.next_offset);
		topic_log_start_record(router);
		log_start_moved();
	}
	topic_segments_drop_retired(router, false);
	topic_log_end(router, &end);

	table_close(router, NoLock);
	relation_close(topic, NoLock);
	PG_RETURN_INT64(end.log_start_offset);
}

/*
 * How long topics.enforce_retention() waits for the worker to create the
 * spare segment a due LIVE segment needs: a wake-up starts a round at once
 * unless the launcher is in the middle of one.
 */
static long
spare_wait_ms(void)
{
	return Min(2L * pg_topics_worker_naptime + 10000L, 60000L);
}

/*
 * Apply the retention of partition p of topic, rolling its LIVE segment if
 * it is due.  A roll needs a spare segment, which only the background
 * worker makes (a segment must be committed before it is LIVE): without
 * one, wake the worker and wait for it, outside the partition's lock; if
 * the worker is not running, or does not come in time, fail and say why,
 * rather than return as if retention had been applied.
 */
static int64
enforce_partition(Relation topic, int32 p)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   spare_wait_ms());

	for (;;)
	{
		Relation	router = table_open(topic_partition_relid(topic, p),
										ShareUpdateExclusiveLock);
		TopicRollResult roll;
		int64		start = topic_retention_apply(router, false, &roll);
		const char *problem;

		if (roll != TOPIC_ROLL_NO_SPARE)
		{
			table_close(router, NoLock);
			return start;
		}
		/* the worker needs this lock to add the spare */
		table_close(router, ShareUpdateExclusiveLock);

		problem = topic_maintenance_problem();
		if (problem != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot apply the retention of partition %d of topic \"%s\" because the pg_topics background worker is not running",
							p, RelationGetRelationName(topic)),
					 errdetail("%s", problem),
					 errhint("Its LIVE segment is due to roll over, which needs a spare segment that only the background worker creates; see topics.maintenance and the server log.")));
		if (GetCurrentTimestamp() >= deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot apply the retention of partition %d of topic \"%s\" because the pg_topics background worker did not create a spare segment in time",
							p, RelationGetRelationName(topic)),
					 errdetail("Its LIVE segment is due to roll over, which needs a spare segment; the worker did not add one within %ld ms.",
							   spare_wait_ms()),
					 errhint("See topics.maintenance and the server log; the worker skips partitions whose locks are held, such as by this transaction.")));
		topic_worker_wake();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * topics.enforce_retention(topic text) RETURNS TABLE(partition int,
 * log_start_offset bigint): apply the topic's retention now, doing what
 * the worker's round does for its partitions.
 */
Datum
topic_enforce_retention(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = open_for_deletion(PG_GETARG_TEXT_PP(0), "enforce_retention");
	int32		nparts = topic_partition_count(topic);
	int32		p;

	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int32GetDatum(p);
		values[1] = Int64GetDatum(enforce_partition(topic, p));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}
