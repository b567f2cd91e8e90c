/*-------------------------------------------------------------------------
 *
 * insert.h
 *	  Writing rows into a partition's log.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_INSERT_H
#define TOPIC_INSERT_H

#include "access/heapam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/topic_log.h"

extern void topic_insert(Relation rel, TupleTableSlot **slots, int nslots,
						 CommandId cid, BulkInsertState bistate);
extern void topic_insert_rows(Relation rel, TupleTableSlot **slots, int nslots,
							  CommandId cid, bool preserve,
							  BulkInsertState bistate);
pg_noreturn extern void topic_insert_refuse_keyless(Relation rel) pg_attribute_noreturn();
extern void topic_insert_check_row(Relation rel, TupleTableSlot *slot,
								   bool preserve);

/* Records appended in several calls with dense offsets (insert.c) */
typedef struct TopicWriter TopicWriter;

extern TopicWriter *topic_writer_begin(Relation rel, CommandId cid,
									   const TopicBatchProducerData *producer);
extern void topic_writer_append(TopicWriter *writer, TupleTableSlot **slots,
								int nslots);
extern void topic_writer_end(TopicWriter *writer);

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

#endif							/* TOPIC_INSERT_H */
