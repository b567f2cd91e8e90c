/*-------------------------------------------------------------------------
 *
 * segment_rewrite.h
 *	  Rewriting a sealed segment without some of its records, every kept
 *	  record at its offset: the log cleaner's swap.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SEGMENT_REWRITE_H
#define TOPIC_SEGMENT_REWRITE_H

#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "pg_topics/log/topic_log.h"

/* What a batch is to the cleaner */
typedef enum TopicBatchSettled
{
	TOPIC_BATCH_SETTLED_KEEP,	/* every snapshot sees it, for good */
	TOPIC_BATCH_SETTLED_DROP,	/* rolled back, for good */
	TOPIC_BATCH_UNSETTLED		/* some snapshot may still decide otherwise */
} TopicBatchSettled;

extern TopicBatchSettled topic_batch_settled(Buffer buffer,
											 TopicBatchHeader hdr,
											 TopicLogPosition resolved,
											 TransactionId oldest_xmin);

/* Does the cleaner remove this record of a settled batch? */
typedef bool (*TopicRecordRemovable) (void *arg,
									  const TopicBatchHeaderData *hdr,
									  const TopicRecord *rec);

typedef enum TopicRewriteOutcome
{
	TOPIC_REWRITE_DONE,			/* rewritten and swapped in */
	TOPIC_REWRITE_NOTHING,		/* nothing to remove: left as it is */
	TOPIC_REWRITE_UNSETTLED,	/* holds a batch not settled yet */
	TOPIC_REWRITE_BUSY,			/* readers held it (only when not waiting) */
	TOPIC_REWRITE_GONE			/* the segment is not there any more */
} TopicRewriteOutcome;

typedef struct TopicRewriteResult
{
	int64		removed;		/* records removed */
	int64		kept;			/* records kept */
	BlockNumber old_blocks;
	BlockNumber new_blocks;

	/*
	 * When rewritten: the offsets removed, for logical subscribers, as
	 * nranges pairs [first, end) ascending, in the caller's memory context
	 */
	int64	   *ranges;
	int			nranges;
} TopicRewriteResult;

extern TopicRewriteOutcome topic_segment_rewrite(Oid router,
												 const TopicSegmentEntry *entry,
												 TopicRecordRemovable removable,
												 void *arg, int64 cleaned_to,
												 TimestampTz now, bool wait,
												 TopicRewriteResult *result);
extern TopicRewriteOutcome topic_segment_rewrite_replica(Oid router,
														 const TopicSegmentEntry *entry,
														 TopicRecordRemovable removable,
														 void *arg, bool wait,
														 TopicRewriteResult *result);

extern bool topic_segment_read_cleaning(Relation seg,
										TopicSegmentCleaning *cleaning);
extern void topic_segment_note_cleaned(Relation seg, int64 cleaned_to,
									   TimestampTz now);

#endif							/* TOPIC_SEGMENT_REWRITE_H */
