/*-------------------------------------------------------------------------
 *
 * retention.h
 *	  Retention: old records leave a whole segment at a time.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_RETENTION_H
#define TOPIC_RETENTION_H

#include "utils/rel.h"

#include "pg_topics/segments/segment.h"

extern int64 topic_retention_apply(Relation router, bool wait,
								   TopicRollResult *roll);
extern void topic_retention_size_segments(Oid topicid);

#endif							/* TOPIC_RETENTION_H */
