/*-------------------------------------------------------------------------
 *
 * read.h
 *	  Reading a partition as a consumer (the stable-read rule), shared by
 *	  fetch and poll.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_READ_H
#define TOPIC_READ_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "utils/rel.h"
#include "utils/snapshot.h"
#include "utils/tuplestore.h"

#include "pg_topics/log/storage.h"

struct TopicStableRead;

/*
 * Where a read's records go, one at a time.  The record's fields point
 * into buffer, share-locked, of segment seg; or, when buffer is invalid,
 * into memory the reader allocated in the caller's memory context (and seg
 * is NULL).  External fields are still external.
 */
typedef void (*TopicRecordSink) (struct TopicStableRead *read, Relation seg,
								 Buffer buffer, int32 partition,
								 TopicRecord *rec);

/* What a consumer's read of one partition produced */
typedef struct TopicStableRead
{
	TopicRecordSink sink;		/* where records go; NULL: do not collect */
	void	   *sink_arg;
	Tuplestorestate *store;		/* for topic_read_into_result's sink */
	TupleDesc	desc;
	int64		max_records;
	int64		returned;
	int64		first_returned; /* offset of the first record returned */
	int64		position;		/* where the next read continues */
	bool		passed_ok;		/* if retention passes the read, say so in
								 * passed instead of failing */
	bool		passed;
	bool		latest;			/* read with the latest snapshot even in
								 * REPEATABLE READ */
} TopicStableRead;

/* How a consumer treats a batch */
typedef enum TopicBatchFate
{
	TOPIC_BATCH_READ,					/* committed, durable, before the snapshot */
	TOPIC_BATCH_SKIP,					/* aborted: a gap */
	TOPIC_BATCH_STOP					/* not stable yet */
} TopicBatchFate;

extern TopicBatchFate topic_batch_fate(Buffer buffer, TopicBatchHeader hdr,
								  Snapshot snapshot, TopicLogPosition resolved,
								  XLogRecPtr *flush_to);
/* One batch of topic_walk_batches: true when the walk is over */
typedef bool (*TopicBatchVisitor) (void *arg, Relation seg, BlockNumber blkno,
								   Buffer buffer, TopicBatchHeader hdr,
								   TopicLogPosition resolved,
								   XLogRecPtr *flush_to);

extern bool topic_walk_batches(Relation seg, int64 from,
							   TopicBatchVisitor visit, void *arg);
extern int64 topic_batch_last_offset(Relation rel, BlockNumber blkno,
									   TopicBatchHeader hdr);
extern const char *topic_batch_walk_records(Relation seg, BlockNumber blkno,
											TopicBatchHeader hdr, Size *end);
extern void topic_decode_batch_record(Relation seg, BlockNumber blkno,
									  TopicBatchHeader hdr, const char *bytes,
									  Size end, Size *rpos, int i,
									  TopicRecord *rec);
extern void topic_read_into_result(TopicStableRead *read, FunctionCallInfo fcinfo);

extern void topic_record_tuple_put(Tuplestorestate *store, TupleDesc desc,
								   int32 partition, const TopicRecord *rec);
extern void topic_read_partition(Relation router, int32 partition, int64 from,
								 const TopicLogEnd *end, TopicStableRead *read);
/* The consumer read a check or a long-poll is for, to name it in errors */
typedef enum TopicReader
{
	TOPIC_READER_FETCH,
	TOPIC_READER_POLL
} TopicReader;

extern void topic_check_read_args(TopicReader reader, int32 max_records,
								  int64 wait_us);
extern void topic_check_position(Relation topic, int32 partition, int64 from,
								 const TopicLogEnd *end);
extern int64 topic_interval_usecs(Interval *span);
extern Relation topic_open_by_rowtype(Oid rowtype, AclMode privilege);
/* unordered_read.c */
struct TopicSegmentDir;
extern int64 topic_replicated_bound(Relation rel, Snapshot snapshot,
									const TopicLogEnd *end);
extern void topic_read_unordered(Relation rel, struct TopicSegmentDir *dir,
								 int32 partition, int64 bound,
								 Snapshot snapshot, TopicStableRead *read);

/* fetch's and poll's arguments after the row type: values and nulls */
#define TOPIC_READ_NARGS 4

extern void topic_read_fn_args(FunctionCallInfo fcinfo, Datum *values,
							   bool *nulls);

/* record_tuple.c, record_slot.c: a record as a row of its topic */
extern MinimalTuple topic_record_minimal_tuple(TupleDesc desc, int32 partition,
											   const TopicRecord *rec);
extern const TupleTableSlotOps *topic_record_slot_ops(void);
extern TupleTableSlot *topic_record_slot_store(TupleTableSlot *slot,
											   int32 partition,
											   const TopicRecord *rec);

/* result_store.c: a materialized result whose rows are records */
extern void topic_init_record_srf(FunctionCallInfo fcinfo);

#endif							/* TOPIC_READ_H */
