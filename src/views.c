/*-------------------------------------------------------------------------
 *
 * views.c
 *	  What operators see: the per-partition numbers behind the
 *	  topics.partitions view.
 *
 * Everything here is cheap: the metapage, the first and the last data
 * page of each partition, the relation sizes, and the in-flight registry.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "funcapi.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "catalog.h"
#include "pg_topics.h"
#include "registry.h"
#include "storage.h"
#include "topic_log.h"

PG_FUNCTION_INFO_V1(topic_partition_info);

#define PARTITION_INFO_COLS 12

/* Oldest timestamp of a partition: the first data page's */
static bool
oldest_timestamp(Relation leaf, TimestampTz *ts)
{
	Buffer		buffer;
	Page		page;
	bool		found = false;

	if (RelationGetNumberOfBlocks(leaf) <= TOPIC_LOG_FIRST_DATA_BLKNO)
		return false;
	buffer = ReadBuffer(leaf, TOPIC_LOG_FIRST_DATA_BLKNO);
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
 * topics.partition_info(topic regclass) RETURNS TABLE(partition int,
 *		relation regclass, log_start_offset bigint, high_watermark bigint,
 *		last_stable_offset bigint, records bigint, bytes bigint,
 *		oldest_timestamp timestamptz, newest_timestamp timestamptz,
 *		holder_pid int, holder_xid xid, holder_since timestamptz)
 */
Datum
topic_partition_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open(PG_GETARG_OID(0), AccessShareLock, TOPIC_NO_ACL_CHECK);
	int32		nparts = topic_partition_count(topic);
	int32		p;

	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Oid			leafid = topic_partition_relid(topic, p);
		Relation	leaf = table_open(leafid, AccessShareLock);
		TopicLogEnd end;
		TopicHolder holder;
		TimestampTz oldest;
		Datum		values[PARTITION_INFO_COLS];
		bool		nulls[PARTITION_INFO_COLS];
		int64		lso;

		memset(nulls, 0, sizeof(nulls));
		topic_storage_log_end(leaf, &end);
		lso = topic_registry_stable_offset(leafid, end.next_offset, &holder);

		values[0] = Int32GetDatum(p);
		values[1] = ObjectIdGetDatum(leafid);
		values[2] = Int64GetDatum(end.log_start_offset);
		values[3] = Int64GetDatum(end.next_offset);
		values[4] = Int64GetDatum(lso);
		/* offsets in the log, gaps of aborted transactions included */
		values[5] = Int64GetDatum(end.next_offset - end.log_start_offset);
		values[6] = DirectFunctionCall1(pg_total_relation_size, ObjectIdGetDatum(leafid));
		if (oldest_timestamp(leaf, &oldest))
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
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		table_close(leaf, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}
