/*-------------------------------------------------------------------------
 *
 * writer.h
 *	  The partition writer: the one way records get into a partition's
 *	  log (docs/architecture.md, "The partition writer").
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WRITER_H
#define TOPIC_WRITER_H

#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "pg_topics/log/topic_log.h"

/* How a writer writes (topic_writer_open) */
typedef struct TopicWriterOptions
{
	CommandId	cid;			/* as this command of the (sub)transaction */
	bool		preserve;		/* keep supplied offsets and timestamps */
	bool		checked;		/* the rows passed topic_record_check_rows */
	bool		dense;			/* the records of all appends together */
	const TopicBatchProducerData *producer; /* an idempotent Kafka batch */
	BufferAccessStrategy strategy;	/* for the tail page, or NULL */
} TopicWriterOptions;

typedef struct TopicWriter TopicWriter;

extern void topic_writer_options_init(TopicWriterOptions *options,
									  CommandId cid);
extern TopicWriter *topic_writer_open(Relation rel,
									  const TopicWriterOptions *options);
extern void topic_writer_append(TopicWriter *writer, TupleTableSlot **slots,
								int nslots);
extern void topic_writer_close(TopicWriter *writer);
extern void topic_writer_write(Relation rel, TupleTableSlot **slots,
							   int nslots, const TopicWriterOptions *options);

/* What a producer hands the writer (produce_row.c) */
extern void topic_fill_record_slot(TupleTableSlot *slot, int32 partition,
								   Datum key, bool key_null, Datum value,
								   bool value_null, Datum headers,
								   bool headers_null);
extern Relation topic_open_partition_for_insert(Relation topic,
												int32 partition);

/*
 * Called with the rows that logical replication's apply (or a restore)
 * writes into topics.consumer_offsets, once their offsets are assigned:
 * committed group positions that must reach the groups' cache at commit.
 * skip[i] marks rows that are not positions.  Set by the consumer groups
 * at load, so that the log never calls up into them.
 */
typedef void (*TopicPositionsArrivedHook) (TupleTableSlot **slots,
										   const int64 *offsets,
										   const bool *skip, int nslots);
extern PGDLLIMPORT TopicPositionsArrivedHook topic_positions_arrived_hook;

#endif							/* TOPIC_WRITER_H */
