/*-------------------------------------------------------------------------
 *
 * insert_buffer.h
 *	  Rows of an INSERT statement that wait to be written as batches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_INSERT_BUFFER_H
#define TOPIC_INSERT_BUFFER_H

#include "executor/tuptable.h"
#include "utils/rel.h"

/* What a statement that starts saves of the one around it */
typedef struct TopicBufferScope
{
	bool		rows_wait;
	SubTransactionId subid;
} TopicBufferScope;

extern TopicBufferScope topic_buffer_statement_start(bool rows_may_wait);
extern void topic_buffer_statement_end(TopicBufferScope outer, bool failed);

extern bool topic_buffer_add(Relation rel, TupleTableSlot *slot, CommandId cid);
extern void topic_buffer_flush(void);

extern void topic_buffer_init(void);

#endif							/* TOPIC_INSERT_BUFFER_H */
