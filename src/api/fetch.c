/*-------------------------------------------------------------------------
 *
 * fetch.c
 *	  topics.fetch(), next_offset(), offsets() and offsets_for_times().
 *
 * fetch reads one partition by the stable-read rule (stable_read.c),
 * long-polling for records when asked to (long_poll.c); the others report
 * a partition's bounds, or search it by time.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/read/long_poll.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"

PG_FUNCTION_INFO_V1(topic_fetch);
PG_FUNCTION_INFO_V1(topic_next_offset);
PG_FUNCTION_INFO_V1(topic_offsets);
PG_FUNCTION_INFO_V1(topic_offsets_for_times);


/*
 * Check fetch's arguments after the row type (values and nulls of
 * partition, from_offset, max_records and wait) into *args, and open the
 * topic whose row type is rowtype, for SELECT.  Shared by the function and
 * the TopicFetch scan (read_scan.c), so both fail alike.
 */
Relation
topic_fetch_begin(Oid rowtype, Datum *values, bool *nulls, TopicFetchArgs *args)
{
	if (nulls[0] || nulls[1] || nulls[2])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition, from_offset and max_records must not be null")));
	args->partition = DatumGetInt32(values[0]);
	args->from = DatumGetInt64(values[1]);
	args->max_records = DatumGetInt32(values[2]);
	args->wait_us = nulls[3] ? 0 :
		topic_interval_usecs(DatumGetIntervalP(values[3]));
	topic_check_read_args(TOPIC_READER_FETCH, args->max_records, args->wait_us);

	/* the row type must be a topic's before anything else looks at it */
	return topic_open_by_rowtype(rowtype, ACL_SELECT);
}

/* A fetch's long-poll: what its tries need */
typedef struct FetchPoll
{
	const TopicFetchArgs *args;
	TopicStableRead *read;
	Oid			routerid;			/* the partition the last try read */
} FetchPoll;

/* One try of a fetch: read the partition now */
static int64
fetch_try(TopicLongPoll *lp, Relation topic, void *arg)
{
	FetchPoll  *fp = (FetchPoll *) arg;
	int32		partition = fp->args->partition;
	Relation	router;
	TopicLogEnd end;

	topic_check_partition(topic, partition);
	fp->routerid = topic_partition_relid(topic, partition);
	router = table_open(fp->routerid, AccessShareLock);
	topic_long_poll_watch(lp, fp->routerid);

	/* the watermark first, then the snapshot */
	topic_log_end(router, &end);
	topic_check_position(topic, partition, fp->args->from, &end);
	topic_read_partition(router, partition, fp->args->from, &end, fp->read);
	table_close(router, NoLock);
	return fp->read->returned;
}

/* Before a fetch sleeps: let go of the partition */
static void
fetch_release(void *arg, bool sleeping)
{
	FetchPoll  *fp = (FetchPoll *) arg;

	if (sleeping)
		UnlockRelationOid(fp->routerid, AccessShareLock);
}

/*
 * Read topic (opened by topic_fetch_begin, and closed here) as args say
 * into read (its sink set), long-polling up to args->wait_us for a first
 * record.
 */
void
topic_fetch_read(Relation topic, const TopicFetchArgs *args, TopicStableRead *read)
{
	FetchPoll	fp = {args, read, InvalidOid};

	read->max_records = args->max_records;
	topic_long_poll(TOPIC_READER_FETCH, topic, args->wait_us, fetch_try,
					fetch_release, &fp);
}

/*
 * topics.fetch(topic anyelement, partition int, from_offset bigint,
 *		max_records int, wait interval) RETURNS SETOF anyelement
 *
 * In a query's FROM the TopicFetch scan runs instead (read_scan.c); this
 * is the function for every other place.
 */
Datum
topic_fetch(PG_FUNCTION_ARGS)
{
	Datum		values[TOPIC_READ_NARGS];
	bool		nulls[TOPIC_READ_NARGS];
	TopicFetchArgs args;
	Relation	topic;
	TopicStableRead	read;

	topic_read_fn_args(fcinfo, values, nulls);
	topic = topic_fetch_begin(get_fn_expr_argtype(fcinfo->flinfo, 0), values,
							  nulls, &args);
	topic_read_into_result(&read, fcinfo);
	topic_fetch_read(topic, &args, &read);
	return (Datum) 0;
}

/* Open partition number partition of the topic named by name */
static Relation
open_partition_for_read(text *name, int32 partition, Relation *topic)
{
	*topic = topic_open_by_name(name, AccessShareLock, ACL_SELECT);
	topic_check_partition(*topic, partition);
	return table_open(topic_partition_relid(*topic, partition), AccessShareLock);
}

/*
 * topics.next_offset(topic text, partition int, from_offset bigint)
 * RETURNS bigint: the first record at or after from_offset a reader would
 * get, or else where its next read would start (stepping over aborted
 * records).
 */
Datum
topic_next_offset(PG_FUNCTION_ARGS)
{
	Relation	topic;
	Relation	router;
	int32		partition = PG_GETARG_INT32(1);
	int64		from = PG_GETARG_INT64(2);
	TopicLogEnd end;
	TopicStableRead	read;

	router = open_partition_for_read(PG_GETARG_TEXT_PP(0), partition, &topic);
	topic_log_end(router, &end);
	topic_check_position(topic, partition, from, &end);

	memset(&read, 0, sizeof(read));
	read.max_records = 1;
	topic_read_partition(router, partition, from, &end, &read);

	table_close(router, NoLock);
	relation_close(topic, NoLock);
	PG_RETURN_INT64(read.returned > 0 ? read.first_returned : read.position);
}

/*
 * The bounds of a partition (its router open): log start, high watermark
 * and last stable offset, as topics.offsets() and Kafka's ListOffsets and
 * Fetch report them.  A logical replica's records are stable up to its
 * publisher's marker.
 */
void
topic_partition_bounds(Relation router, Oid topic, TopicPartitionBounds *bounds)
{
	Oid			routerid = RelationGetRelid(router);
	TopicLogEnd end;
	int64		lso;

	topic_log_end(router, &end);
	lso = topic_registry_stable_offset(routerid, end.next_offset, NULL);
	if (topic_partition_is_replica(routerid, topic))
		lso = Min(lso, topic_replicated_bound(router, GetActiveSnapshot(), &end));
	bounds->log_start = end.log_start_offset;
	bounds->high_watermark = end.next_offset;
	bounds->last_stable = lso;
}

/*
 * topics.offsets(topic text) RETURNS TABLE(partition int,
 *		log_start_offset bigint, high_watermark bigint,
 *		last_stable_offset bigint)
 */
Datum
topic_offsets(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
										   TOPIC_NO_ACL_CHECK);
	int32		nparts;
	int32		p;

	/* numbers about the topic, not its records: pg_monitor sees them too */
	topic_check_describe(topic);
	nparts = topic_partition_count(topic);
	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p),
										AccessShareLock);
		TopicPartitionBounds bounds;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		topic_partition_bounds(router, RelationGetRelid(topic), &bounds);
		values[0] = Int32GetDatum(p);
		values[1] = Int64GetDatum(bounds.log_start);
		values[2] = Int64GetDatum(bounds.high_watermark);
		values[3] = Int64GetDatum(bounds.last_stable);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		table_close(router, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}

/* offsets_for_times' search of one partition */
typedef struct TimeSearch
{
	TimestampTz ts;
	int64		log_start;
	int64		offset;			/* the answer, -1 until found */
	TimestampTz found;			/* its timestamp */
} TimeSearch;

/*
 * The earliest offset of segment seg (at or after the log start) whose
 * timestamp is at or after the one sought (a topic_segdir_foreach
 * visitor): true when found.
 */
static bool
offset_for_time(void *arg, Relation seg, const TopicSegmentEntry *entry, int i)
{
	TimeSearch *search = (TimeSearch *) arg;
	BlockNumber nblocks = topic_storage_last_block(seg) + 1;
	TopicBatchIter it;
	TopicBatchHeader hdr;

	topic_batch_iter_begin(&it, seg,
						   topic_page_search(seg, nblocks, true, 0, search->ts),
						   nblocks, NULL, 0);
	while (search->offset < 0 && (hdr = topic_batch_iter_next(&it)) != NULL)
	{
		Size		rpos = topic_batch_records_start(hdr);
		Size		end;
		const char *bytes;
		int64		last;
		TimestampTz oldest;
		TimestampTz newest;
		int			r;

		/* a batch all older than the time: not worth inflating */
		if (hdr->nrecords == 0 ||
			(topic_batch_summary(hdr, &last, &oldest, &newest) &&
			 newest < search->ts))
			continue;
		bytes = topic_batch_walk_records(seg, it.blkno, hdr, &end);
		for (r = 0; r < hdr->nrecords; r++)
		{
			TopicRecord rec;

			/* a record that does not decode is corruption, as for fetch */
			topic_decode_batch_record(seg, it.blkno, hdr, bytes, end, &rpos,
									  r, &rec);
			if (rec.timestamp >= search->ts && rec.offset >= search->log_start)
			{
				search->offset = rec.offset;
				search->found = rec.timestamp;
				break;
			}
		}
	}
	topic_batch_iter_end(&it);
	return search->offset >= 0;
}

/*
 * The earliest offset of a partition (its router open) whose timestamp is
 * at or after ts, with that timestamp in *found; -1 if there is none yet
 */
int64
topic_partition_offset_for_time(Relation router, TimestampTz ts,
								TimestampTz *found)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	TimeSearch	search = {ts, dir->log_start, -1, 0};

	if (!topic_segdir_foreach(dir, -1, 0, AccessShareLock, offset_for_time,
							  &search))
		search.offset = -1;
	pfree(dir);
	if (found)
		*found = search.found;
	return search.offset;
}

/*
 * topics.offsets_for_times(topic text, ts timestamptz) RETURNS
 * TABLE(partition int, "offset" bigint): per partition, the earliest
 * offset whose timestamp is at or after ts (Kafka's ListOffsets by time);
 * NULL when there is none yet.
 */
Datum
topic_offsets_for_times(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
										   ACL_SELECT);
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(1);
	int32		nparts = topic_partition_count(topic);
	int32		p;

	InitMaterializedSRF(fcinfo, 0);
	for (p = 0; p < nparts; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p), AccessShareLock);
		int64		offset = topic_partition_offset_for_time(router, ts, NULL);
		Datum		values[2] = {Int32GetDatum(p), Int64GetDatum(offset)};
		bool		nulls[2] = {false, offset < 0};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		table_close(router, NoLock);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}
