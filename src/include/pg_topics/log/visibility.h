/*-------------------------------------------------------------------------
 *
 * visibility.h
 *	  Which batches a snapshot sees.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_VISIBILITY_H
#define TOPIC_VISIBILITY_H

#include "storage/bufmgr.h"
#include "utils/snapshot.h"

#include "pg_topics/log/topic_log.h"

typedef enum TopicXidStatus
{
	TOPIC_XID_COMMITTED,
	TOPIC_XID_ABORTED,
	TOPIC_XID_IN_PROGRESS,		/* another backend's, still running */
	TOPIC_XID_CURRENT			/* the current transaction's */
} TopicXidStatus;

extern bool topic_batch_visible(Buffer buffer, TopicBatchHeader hdr,
								Snapshot snapshot, TopicLogPosition resolved);
extern TopicXidStatus topic_batch_status(Buffer buffer, TopicBatchHeader hdr,
										 TopicLogPosition resolved);
extern bool topic_batch_is_resolved(Buffer buffer, TopicBatchHeader hdr,
									TopicLogPosition resolved);
/* Did a batch's transaction commit, by the commit log? */
typedef enum TopicCommitStatus
{
	TOPIC_COMMIT_NO,
	TOPIC_COMMIT_YES,
	TOPIC_COMMIT_FORGOTTEN		/* older than the commit log: resolved */
} TopicCommitStatus;

extern TopicCommitStatus topic_batch_commit_status(TopicBatchHeader hdr);
extern void topic_batch_hint_commit_status(Buffer buffer, TopicBatchHeader hdr,
										   TopicCommitStatus status);
extern void topic_batch_hint_committed(Buffer buffer, TopicBatchHeader hdr);

#endif							/* TOPIC_VISIBILITY_H */
