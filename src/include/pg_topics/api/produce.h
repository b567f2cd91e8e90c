/*-------------------------------------------------------------------------
 *
 * produce.h
 *	  The produce path of topics.produce_batch, shared with the Kafka
 *	  listener's Produce.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_PRODUCE_H
#define TOPIC_PRODUCE_H

#include "executor/tuptable.h"
#include "utils/rel.h"

extern void topic_fill_record_slot(TupleTableSlot *slot, int32 partition,
								   Datum key, bool key_null, Datum value,
								   bool value_null, Datum headers,
								   bool headers_null);
extern Relation topic_open_partition_for_insert(Relation topic,
												int32 partition);

#endif							/* TOPIC_PRODUCE_H */
