/*-------------------------------------------------------------------------
 *
 * log_cleaner.h
 *	  Log compaction of topics with cleanup.policy compact: each key keeps
 *	  its newest record, every kept record at its offset.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_LOG_CLEANER_H
#define TOPIC_LOG_CLEANER_H

#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_topics/base/topic_config.h"

/* How much of a partition's log is left to clean */
typedef struct TopicCleanerStatus
{
	int64		cleaned_to;		/* records below it were cleaned */
	int64		sealed_blocks;	/* pages of the sealed segments */
	int64		dirty_blocks;	/* of those, pages of segments reaching
								 * above cleaned_to */
	TimestampTz oldest_dirty;	/* oldest timestamp above cleaned_to, or 0 */
	TimestampTz last_cleaned;	/* the last pass, or 0 */
	int64		removed;		/* records the passes removed */
} TopicCleanerStatus;

extern void topic_cleaner_status(Relation router, TopicCleanerStatus *status);
extern bool topic_cleaner_due(Relation router, const TopicConfig *config,
							  TimestampTz now);

typedef struct TopicCleanPass TopicCleanPass;

extern TopicCleanPass *topic_cleaner_begin(Relation router,
										   const TopicConfig *config,
										   TimestampTz now);
extern bool topic_cleaner_step(TopicCleanPass *pass, bool wait,
							   int64 *removed);
extern bool topic_cleaner_more(TopicCleanPass *pass);
extern bool topic_cleaner_overdue(TopicCleanPass *pass);
extern void topic_cleaner_end(TopicCleanPass *pass);
extern int64 topic_cleaner_run(Relation router, const TopicConfig *config);

#endif							/* TOPIC_LOG_CLEANER_H */
