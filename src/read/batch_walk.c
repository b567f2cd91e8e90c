/*-------------------------------------------------------------------------
 *
 * batch_walk.c
 *	  Walking a segment's batches in offset order, and the fate of each
 *	  batch for a consumer.
 *
 * A consumer reads committed, durable batches, steps over aborted ones and
 * stops at the first batch that is not stable yet (the rule is in
 * stable_read.c).  The walk share-locks one page at a time; a batch whose
 * commit is not flushed yet is flushed outside the page lock, as a
 * synchronous commit would have been, and the page visited again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"

/*
 * How a consumer treats a batch: TOPIC_BATCH_READ, TOPIC_BATCH_SKIP, or TOPIC_BATCH_STOP
 * (with *flush_to set when it only needs its commit flushed).
 */
TopicBatchFate
topic_batch_fate(Buffer buffer, TopicBatchHeader hdr, Snapshot snapshot,
				 TopicLogPosition resolved, XLogRecPtr *flush_to)
{
	TransactionId xid = hdr->xid;

	if (hdr->flags & TB_ABORTED)
		return TOPIC_BATCH_SKIP;
	/* resolved: finished, and durable, before any snapshot still running */
	if (topic_batch_is_resolved(buffer, hdr, resolved) ||
		xid == FrozenTransactionId)
		return TOPIC_BATCH_READ;
	if (hdr->hints & TB_HINT_ABORTED)
		return TOPIC_BATCH_SKIP;
	/* the hint is set only once the commit is durable */
	if ((hdr->hints & TB_HINT_COMMITTED) && !XidInMVCCSnapshot(xid, snapshot))
		return TOPIC_BATCH_READ;
	if (TransactionIdIsCurrentTransactionId(xid))
		return TOPIC_BATCH_STOP;
	if (XidInMVCCSnapshot(xid, snapshot))
	{
		/* running at snapshot time; an abort since then is final */
		if (!TransactionIdIsInProgress(xid) &&
			topic_batch_commit_status(hdr) == TOPIC_COMMIT_NO)
			return TOPIC_BATCH_SKIP;
		return TOPIC_BATCH_STOP;
	}
	if (!(hdr->hints & TB_HINT_COMMITTED))
	{
		TopicCommitStatus commit = topic_batch_commit_status(hdr);

		if (commit == TOPIC_COMMIT_NO)
		{
			topic_batch_set_hints(buffer, hdr, TB_HINT_ABORTED);
			return TOPIC_BATCH_SKIP;
		}
		/* resolved since we read the mark: durable, and no LSN to ask */
		if (commit == TOPIC_COMMIT_FORGOTTEN)
		{
			topic_batch_hint_commit_status(buffer, hdr, commit);
			return TOPIC_BATCH_READ;
		}
	}
	/*
	 * Committed: shown only once durable.  An asynchronous commit (or one
	 * sharing its commit-log LSN group with one) may not be flushed yet;
	 * the caller flushes it, without holding the page, and comes back.
	 */
	if (!RecoveryInProgress())
	{
		XLogRecPtr	commit_lsn = TransactionIdGetCommitLSN(xid);

		if (commit_lsn > GetFlushRecPtr(NULL))
		{
			*flush_to = commit_lsn;
			return TOPIC_BATCH_STOP;
		}
	}
	topic_batch_hint_committed(buffer, hdr);
	return TOPIC_BATCH_READ;
}

/* Offset of the last record of a batch */
int64
topic_batch_last_offset(Relation rel, BlockNumber blkno, TopicBatchHeader hdr)
{
	int64		last;
	TimestampTz min_ts;
	TimestampTz max_ts;

	if (!topic_batch_summary(hdr, &last, &min_ts, &max_ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of topic_log relation \"%s\" has a batch that does not decode",
						blkno, RelationGetRelationName(rel))));
	return last;
}

/*
 * Walk the data pages of segment seg from the one holding offset from on,
 * share-locking one page at a time, and hand each batch to visit, which
 * returns true when the walk is over.  A visitor that needs a commit made
 * durable first sets *flush_to and returns false: the walker flushes
 * outside the page lock, as a synchronous commit would have (rather than
 * wait for the WAL writer), and visits that page again from its start.
 * True when a visitor ended the walk.
 */
bool
topic_walk_batches(Relation seg, int64 from, TopicBatchVisitor visit,
				   void *arg)
{
	BlockNumber nblocks = topic_storage_last_block(seg) + 1;
	TopicLogPosition resolved = topic_storage_resolved(seg);
	TopicBatchIter it;
	TopicBatchHeader hdr;
	bool		done = false;

	topic_batch_iter_begin(&it, seg,
						   topic_page_search(seg, nblocks, false, from, 0),
						   nblocks, NULL, 0);
	while ((hdr = topic_batch_iter_next(&it)) != NULL)
	{
		XLogRecPtr	flush_to = InvalidXLogRecPtr;

		done = visit(arg, seg, it.blkno, it.buffer, hdr, resolved, &flush_to);
		if (flush_to != InvalidXLogRecPtr)
		{
			done = false;
			topic_batch_iter_flush_retry(&it, flush_to);
		}
		else if (done)
			break;
	}
	topic_batch_iter_end(&it);
	return done;
}

/*
 * The bytes the records of batch hdr on page blkno of seg decode from, up
 * to *end: the batch itself, or for a compressed batch its records
 * inflated into the backend's buffer, valid until the next call (readers
 * copy what they keep of a batch's records before the next batch).
 */
const char *
topic_batch_walk_records(Relation seg, BlockNumber blkno, TopicBatchHeader hdr,
						 Size *end)
{
	static TopicBatchBuffer inflated = {NULL, 0};
	const char *bytes;

	if (!(hdr->flags & TB_COMPRESSED))
	{
		*end = hdr->length;
		return (const char *) hdr;
	}
	if (inflated.data == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		inflated.data = palloc(BLCKSZ);
		inflated.size = BLCKSZ;
		MemoryContextSwitchTo(old);
	}
	if (!topic_batch_inflate(hdr, &inflated, &bytes, end))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of topic_log relation \"%s\" has damaged compressed records",
						blkno, RelationGetRelationName(seg)),
				 errdetail("Their checksum does not match, or they do not inflate."),
				 errhint("Run topics.verify() on the topic to list every problem.")));
	return bytes;
}

/*
 * Decode record i of batch hdr on page blkno of seg from bytes (as
 * topic_batch_walk_records gave them), or fail loudly
 */
void
topic_decode_batch_record(Relation seg, BlockNumber blkno, TopicBatchHeader hdr,
						  const char *bytes, Size end, Size *rpos, int i,
						  TopicRecord *rec)
{
	if (!topic_record_decode(bytes, rpos, end, hdr, i, rec))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of topic_log relation \"%s\" has a record that does not decode",
						blkno, RelationGetRelationName(seg))));
}
