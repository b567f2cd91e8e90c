/*-------------------------------------------------------------------------
 *
 * compaction.h
 *	  Keeping topics.consumer_offsets small.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_COMPACTION_H
#define TOPIC_COMPACTION_H

#include "utils/rel.h"

extern uint32 topic_offsets_segment_blocks(void);
extern int64 topic_offsets_compact_copy(Relation router);
extern void topic_offsets_compact_finish(Relation router, int64 cut);

#endif							/* TOPIC_COMPACTION_H */
