/*-------------------------------------------------------------------------
 *
 * fetch.h
 *	  topics.fetch(), for the function and the TopicFetch scan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_FETCH_H
#define TOPIC_FETCH_H

#include "datatype/timestamp.h"
#include "fmgr.h"

#include "pg_topics/read/read.h"

/* fetch's arguments after the row type, checked */
typedef struct TopicFetchArgs
{
	int32		partition;
	int64		from;
	int32		max_records;
	int64		wait_us;
} TopicFetchArgs;

extern Relation topic_fetch_begin(Oid rowtype, Datum *values, bool *nulls,
								  TopicFetchArgs *args);
extern void topic_fetch_read(Relation topic, const TopicFetchArgs *args,
							 TopicStableRead *read);
extern Datum topic_fetch(PG_FUNCTION_ARGS);

/* a partition's bounds, as topics.offsets() reports them */
typedef struct TopicPartitionBounds
{
	int64		log_start;
	int64		high_watermark;
	int64		last_stable;
} TopicPartitionBounds;

extern void topic_partition_bounds(Relation router, Oid topic,
								   TopicPartitionBounds *bounds);
extern int64 topic_partition_offset_for_time(Relation router, TimestampTz ts,
											 TimestampTz *found);

/* read_scan.c: the TopicFetch and TopicPoll scans */
extern void topic_fetch_scan_init(void);

#endif							/* TOPIC_FETCH_H */
