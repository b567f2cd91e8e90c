/*-------------------------------------------------------------------------
 *
 * visibility.c
 *	  Which batches a snapshot sees.
 *
 * All records of a batch share one transaction id and command id, so
 * visibility is decided once per batch.  The rules are heap's for an
 * inserted tuple that is never updated or deleted: the current
 * transaction's records are visible to later commands; other records
 * once their transaction committed before the snapshot.  The batch's hint
 * byte caches the transaction's fate like heap's hint bits: "committed" is
 * set only once the commit record is flushed (an asynchronous commit can
 * still be lost), "aborted" whenever the transaction is known to be over
 * without committing (a crash counts).
 *
 * Records of an aborted transaction stay on disk and keep their offsets;
 * readers see a gap exactly there.
 *
 * Batches before the partition's resolved mark are decided without their
 * xid, which may be older than the commit log or wrapped around: visible
 * unless flagged TB_ABORTED.  VACUUM moves the mark (freeze.c), only past
 * transactions every snapshot already sees as finished.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/visibility.h"

/* Is the batch before the resolved mark? */
bool
topic_batch_is_resolved(Buffer buffer, TopicBatchHeader hdr,
						TopicLogPosition resolved)
{
	Size		pos = (char *) hdr - (char *) BufferGetPage(buffer);

	return TopicLogPositionMake(BufferGetBlockNumber(buffer), pos) < resolved;
}

/*
 * Did the batch's transaction commit?  For a batch at or after the
 * resolved mark the caller read.  VACUUM may have moved the mark past it
 * since, and the commit log may even have been truncated past its xid
 * (relfrozenxid only advances behind the mark): the xid is then
 * "forgotten", which means resolved, committed and durable unless the
 * aborted flag says otherwise, and its commit LSN must not be asked for
 * either.  The truncation lock keeps the commit log in place while we
 * look, as pg_xact_status() does.
 */
TopicCommitStatus
topic_batch_commit_status(TopicBatchHeader hdr)
{
	TopicCommitStatus status;

	if (hdr->flags & TB_ABORTED)
		return TOPIC_COMMIT_NO;
	LWLockAcquire(XactTruncationLock, LW_SHARED);
	if (TransactionIdIsNormal(hdr->xid) &&
		TransactionIdPrecedes(hdr->xid, TransamVariables->oldestClogXid))
		status = TOPIC_COMMIT_FORGOTTEN;
	else
		status = TransactionIdDidCommit(hdr->xid) ? TOPIC_COMMIT_YES : TOPIC_COMMIT_NO;
	LWLockRelease(XactTruncationLock);
	return status;
}

/*
 * The batch committed (status YES or FORGOTTEN): set its hint, when the
 * commit cannot be lost any more.
 */
void
topic_batch_hint_commit_status(Buffer buffer, TopicBatchHeader hdr,
							   TopicCommitStatus status)
{
	if (status == TOPIC_COMMIT_FORGOTTEN)
		topic_batch_set_hints(buffer, hdr, TB_HINT_COMMITTED);
	else
		topic_batch_hint_committed(buffer, hdr);
}

/* Set the committed hint, unless the commit may still be lost */
void
topic_batch_hint_committed(Buffer buffer, TopicBatchHeader hdr)
{
	if (BufferIsPermanent(buffer) &&
		XLogNeedsFlush(TransactionIdGetCommitLSN(hdr->xid)))
		return;
	topic_batch_set_hints(buffer, hdr, TB_HINT_COMMITTED);
}

/*
 * The fate of a batch's transaction, from the hint byte or the commit log
 * (updating the hint).
 */
TopicXidStatus
topic_batch_status(Buffer buffer, TopicBatchHeader hdr,
				   TopicLogPosition resolved)
{
	TransactionId xid = hdr->xid;
	TopicCommitStatus commit;

	if (hdr->flags & TB_ABORTED)
		return TOPIC_XID_ABORTED;
	if (topic_batch_is_resolved(buffer, hdr, resolved))
		return TOPIC_XID_COMMITTED;
	if (hdr->hints & TB_HINT_COMMITTED || xid == FrozenTransactionId)
		return TOPIC_XID_COMMITTED;
	if (hdr->hints & TB_HINT_ABORTED)
		return TOPIC_XID_ABORTED;
	if (TransactionIdIsCurrentTransactionId(xid))
		return TOPIC_XID_CURRENT;
	/* in-progress first: the commit log is set before the proc array */
	if (TransactionIdIsInProgress(xid))
		return TOPIC_XID_IN_PROGRESS;
	commit = topic_batch_commit_status(hdr);
	if (commit != TOPIC_COMMIT_NO)
	{
		topic_batch_hint_commit_status(buffer, hdr, commit);
		return TOPIC_XID_COMMITTED;
	}
	topic_batch_set_hints(buffer, hdr, TB_HINT_ABORTED);
	return TOPIC_XID_ABORTED;
}

/* Does an MVCC snapshot see the batch? */
static bool
visible_mvcc(Buffer buffer, TopicBatchHeader hdr, Snapshot snapshot)
{
	TransactionId xid = hdr->xid;
	TopicCommitStatus commit;

	if (xid == FrozenTransactionId)
		return true;
	if (hdr->hints & TB_HINT_ABORTED)
		return false;
	if (!(hdr->hints & TB_HINT_COMMITTED))
	{
		if (TransactionIdIsCurrentTransactionId(xid))
			return hdr->cid < snapshot->curcid;
		if (XidInMVCCSnapshot(xid, snapshot))
			return false;

		/*
		 * Finished before the snapshot was taken, so the commit log is
		 * settled for it.
		 */
		commit = topic_batch_commit_status(hdr);
		if (commit != TOPIC_COMMIT_NO)
		{
			topic_batch_hint_commit_status(buffer, hdr, commit);
			return true;
		}
		topic_batch_set_hints(buffer, hdr, TB_HINT_ABORTED);
		return false;
	}
	/* committed, but perhaps after the snapshot was taken */
	return !XidInMVCCSnapshot(xid, snapshot);
}

/* Does snapshot see the batch?  The buffer is pinned and locked. */
bool
topic_batch_visible(Buffer buffer, TopicBatchHeader hdr, Snapshot snapshot,
					TopicLogPosition resolved)
{
	switch (snapshot->snapshot_type)
	{
		case SNAPSHOT_MVCC:
			if (hdr->flags & TB_ABORTED)
				return false;
			if (topic_batch_is_resolved(buffer, hdr, resolved))
				return true;
			return visible_mvcc(buffer, hdr, snapshot);
		case SNAPSHOT_ANY:
			return true;
		case SNAPSHOT_SELF:
		case SNAPSHOT_DIRTY:
			{
				TopicXidStatus status = topic_batch_status(buffer, hdr, resolved);

				return status == TOPIC_XID_COMMITTED ||
					status == TOPIC_XID_CURRENT ||
					(status == TOPIC_XID_IN_PROGRESS &&
					 snapshot->snapshot_type == SNAPSHOT_DIRTY);
			}
		default:
			elog(ERROR, "unsupported snapshot type %d for a topic_log relation",
				 (int) snapshot->snapshot_type);
	}
	return false;				/* keep compiler quiet */
}
