/*-------------------------------------------------------------------------
 *
 * insert.h
 *	  The table AM's inserts, through the partition writer.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_INSERT_H
#define TOPIC_INSERT_H

#include "access/heapam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"

extern void topic_insert(Relation rel, TupleTableSlot **slots, int nslots,
						 CommandId cid, BulkInsertState bistate);
extern void topic_insert_rows(Relation rel, TupleTableSlot **slots, int nslots,
							  CommandId cid, bool preserve,
							  BulkInsertState bistate);

#endif							/* TOPIC_INSERT_H */
