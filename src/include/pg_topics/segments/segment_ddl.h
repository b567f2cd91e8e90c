/*-------------------------------------------------------------------------
 *
 * segment_ddl.h
 *	  Keeping segments in step with DDL on their partitions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SEGMENT_DDL_H
#define TOPIC_SEGMENT_DDL_H

#include "nodes/pg_list.h"
#include "utils/rel.h"

/* The notes of enclosing utility statements, set aside */
typedef struct TopicSegmentDdlState
{
	List	   *created;
	List	   *emptied;
	List	   *dropped;
} TopicSegmentDdlState;

extern void topic_segment_ddl_init(void);
extern void topic_segment_ddl_begin(TopicSegmentDdlState *state);
extern void topic_segment_ddl_end(TopicSegmentDdlState *state);
extern void topic_segment_ddl_abort(TopicSegmentDdlState *state);
extern void topic_segment_ddl_note_truncate(Relation router);
extern bool topic_segment_ddl_settle(Oid router);

#endif							/* TOPIC_SEGMENT_DDL_H */
