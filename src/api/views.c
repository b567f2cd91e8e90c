/*-------------------------------------------------------------------------
 *
 * views.c
 *	  What operators see: the per-partition numbers behind the
 *	  topics.partitions view, and the segments behind topics.segments.
 *
 * Everything here is cheap: the metapage, the first and the last data
 * page of each partition, the relation sizes, and the in-flight registry.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "funcapi.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"

PG_FUNCTION_INFO_V1(topic_partition_info);
PG_FUNCTION_INFO_V1(topic_segment_info);

#define PARTITION_INFO_COLS 13
#define SEGMENT_INFO_COLS 7

/*
 * Oldest timestamp of a segment: its first data page's.  A page that is
 * not a data page of ours shows no timestamp rather than failing the view
 * (topics.verify() is where damage is reported).
 */
static bool
oldest_timestamp(Relation seg, TimestampTz *ts)
{
	Buffer		buffer;
	Page		page;
	bool		found = false;

	if (topic_storage_nblocks(seg) <= TOPIC_LOG_FIRST_DATA_BLKNO)
		return false;
	buffer = ReadBuffer(seg, TOPIC_LOG_FIRST_DATA_BLKNO);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	if (topic_page_is_data(page))
	{
		*ts = TopicLogPageGetOpaque(page)->min_timestamp;
		found = true;
	}
	UnlockReleaseBuffer(buffer);
	return found;
}

/*
 * Disk bytes of a partition, segments and their TOAST included, and its
 * oldest timestamp (*found false if it has no records).  Every segment
 * still there counts, spares and retired ones too: not the readable
 * segments of topic_segdir_foreach.
 */
static int64
partition_bytes(Relation router, TimestampTz *oldest, bool *found)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	int64		bytes = DatumGetInt64(DirectFunctionCall1(pg_total_relation_size,
														  ObjectIdGetDatum(RelationGetRelid(router))));
	int			i;

	*found = false;
	for (i = 0; i < dir->nentries; i++)
	{
		Relation	seg = topic_segment_open(dir->router, &dir->entries[i],
											 AccessShareLock);

		if (seg == NULL)
			continue;
		bytes += DatumGetInt64(DirectFunctionCall1(pg_total_relation_size,
												   ObjectIdGetDatum(dir->entries[i].relid)));
		if (!*found && topic_segment_readable(&dir->entries[i]))
			*found = oldest_timestamp(seg, oldest);
		relation_close(seg, AccessShareLock);
	}
	pfree(dir);
	return bytes;
}

/*
 * topics.partition_info(topic regclass) RETURNS TABLE(partition int,
 *		relation regclass, log_start_offset bigint, high_watermark bigint,
 *		last_stable_offset bigint, records bigint, bytes bigint,
 *		oldest_timestamp timestamptz, newest_timestamp timestamptz,
 *		holder_pid int, holder_xid xid, holder_since timestamptz,
 *		logical_replica boolean)
 *
 * For those who may SELECT the topic, superusers and pg_monitor members
 * (topic_may_describe); others get 42501, as from topics.offsets().
 */
Datum
topic_partition_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open(PG_GETARG_OID(0), AccessShareLock, TOPIC_NO_ACL_CHECK);
	int32		nparts;
	int32		p;

	topic_check_describe(topic);
	nparts = topic_partition_count(topic);
	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Oid			routerid = topic_partition_relid(topic, p);
		Relation	router = table_open(routerid, AccessShareLock);
		TopicLogEnd end;
		TopicHolder holder;
		TimestampTz oldest;
		bool		found;
		Datum		values[PARTITION_INFO_COLS];
		bool		nulls[PARTITION_INFO_COLS];
		int64		lso;
		bool		replica;

		memset(nulls, 0, sizeof(nulls));
		topic_log_end(router, &end);
		lso = topic_registry_stable_offset(routerid, end.next_offset, &holder);
		/* a replica's records are stable up to its publisher's marker */
		replica = topic_partition_is_replica(routerid, RelationGetRelid(topic));
		if (replica)
			lso = Min(lso, topic_replicated_bound(router, GetActiveSnapshot(), &end));

		values[0] = Int32GetDatum(p);
		values[1] = ObjectIdGetDatum(routerid);
		values[2] = Int64GetDatum(end.log_start_offset);
		values[3] = Int64GetDatum(end.next_offset);
		values[4] = Int64GetDatum(lso);
		/* offsets in the log, gaps of aborted transactions included */
		values[5] = Int64GetDatum(end.next_offset - end.log_start_offset);
		values[6] = Int64GetDatum(partition_bytes(router, &oldest, &found));
		if (found)
		{
			values[7] = TimestampTzGetDatum(oldest);
			values[8] = TimestampTzGetDatum(end.max_timestamp);
		}
		else
			nulls[7] = nulls[8] = true;
		if (holder.pid != 0)
		{
			values[9] = Int32GetDatum(holder.pid);
			values[10] = TransactionIdGetDatum(holder.xid);
			values[11] = TimestampTzGetDatum(holder.since);
		}
		else
			nulls[9] = nulls[10] = nulls[11] = true;
		values[12] = BoolGetDatum(replica);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		table_close(router, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}

/* The name topics.segments shows for a directory entry's state */
static const char *
segment_state_name(uint16 state)
{
	switch (state)
	{
		case TOPIC_SEGMENT_SPARE:
			return "spare";
		case TOPIC_SEGMENT_LIVE:
			return "live";
		case TOPIC_SEGMENT_SEALED:
			return "sealed";
		case TOPIC_SEGMENT_RETIRED:
			return "retired";
	}
	return "unknown";			/* topics.verify() reports it */
}

/*
 * topics.segment_info(topic regclass) RETURNS TABLE(partition int,
 *		segment int, state text, base_offset bigint,
 *		activated_at timestamptz, relation regclass, bytes bigint)
 *
 * Every entry of every partition's segment directory, in directory order
 * (oldest first): what retention will drop next, and where the disk space
 * is.  A segment whose relation is gone (the background worker has not yet
 * forgotten its entry) has no relation and no bytes.  The same callers as
 * topics.partition_info().
 */
Datum
topic_segment_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open(PG_GETARG_OID(0), AccessShareLock, TOPIC_NO_ACL_CHECK);
	int32		nparts;
	int32		p;

	topic_check_describe(topic);
	nparts = topic_partition_count(topic);
	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p),
										AccessShareLock);
		TopicSegmentDir *dir = topic_segdir_read(router);
		int			i;

		for (i = 0; i < dir->nentries; i++)
		{
			TopicSegmentEntry *e = &dir->entries[i];
			Relation	seg = topic_segment_open(dir->router, e, AccessShareLock);
			Datum		values[SEGMENT_INFO_COLS];
			bool		nulls[SEGMENT_INFO_COLS];

			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(p);
			values[1] = Int32GetDatum((int32) e->segno);
			values[2] = CStringGetTextDatum(segment_state_name(e->state));
			values[3] = Int64GetDatum(e->base_offset);
			nulls[3] = e->state == TOPIC_SEGMENT_SPARE;
			values[4] = TimestampTzGetDatum(e->activated_at);
			nulls[4] = e->state == TOPIC_SEGMENT_SPARE ||
				TIMESTAMP_NOT_FINITE(e->activated_at);
			if (seg != NULL)
			{
				values[5] = ObjectIdGetDatum(e->relid);
				values[6] = DirectFunctionCall1(pg_total_relation_size,
												ObjectIdGetDatum(e->relid));
				relation_close(seg, AccessShareLock);
			}
			else
				nulls[5] = nulls[6] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		pfree(dir);
		table_close(router, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}
