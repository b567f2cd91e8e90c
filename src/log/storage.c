/*-------------------------------------------------------------------------
 *
 * storage.c
 *	  Pages of one topic_log relation: the metapage, the tail where
 *	  appends go, and every WAL-logged change to a data page.
 *
 * A segment's main fork holds block 0, its metapage, and data pages in
 * offset order after it; a partition's own relation (its router) has only
 * the metapage, whose segment directory segments/segment.c keeps.
 * Readers walk pages with batch_iter.c.  Appends go to the tail, the last
 * initialized page, under its exclusive content lock, which is what
 * serializes offset and timestamp assignment.  The protocol, in full:
 *
 * - Initialized pages form a prefix of the file; after the tail come only
 *   zero pages, taken ahead of need.  find_tail says how the tail is found
 *   (the page this backend last saw as the tail, a few pages forward over
 *   TL_PAGE_HAS_NEXT, or back from the file's end over the zero pages).
 * - A full tail's writer takes the next page while it still holds the
 *   tail: a page the file has is locked without being read or written
 *   (RBM_ZERO_AND_LOCK); a file that ends at the tail first grows by an
 *   eighth of the relation, 1 to 32 blocks (extend_ahead).  The new page
 *   is initialized by the first batch written to it (one WAL record,
 *   REGBUF_WILL_INIT, no full-page image); standbys grow their files by
 *   replaying it.
 * - Locks are taken from lower blocks to higher ones, holding the lower
 *   one (the writer taking the next page, a walk forward), or one at a
 *   time (the walk back): never a lower block while holding a higher one,
 *   since LWLocks have no deadlock detector.
 *
 * Every page change happens inside a critical section, after all sizing
 * and allocation, and is WAL-logged by the same code that redo runs
 * (topic_page_append_batch), so primary and standby stay byte-identical.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>

#include "access/relation.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/pg_class.h"
#include "catalog/storage.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "storage/smgr.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/wal.h"

#if PG_VERSION_NUM < 160000
/*
 * On 15, more blocks than this at once are allocated with posix_fallocate
 * (fallocate_ahead) rather than written, as 16's smgrzeroextend decides
 */
#define FALLOCATE_MIN_BLOCKS	8
#endif

static void read_metapage(Relation rel, TopicLogMetaData *meta,
						  TopicLogPageOpaqueData *opaque);

/* What is wrong with a page that is not ours */
typedef enum BadPage
{
	BAD_PAGE_SPECIAL_SIZE,
	BAD_PAGE_ID,
	BAD_PAGE_NOT_META,
	BAD_PAGE_NOT_DATA,
	BAD_PAGE_MAGIC,
	BAD_PAGE_NO_METAPAGE,
} BadPage;

/* The errdetail of report_bad_page: one whole sentence per problem */
static int
bad_page_detail(BadPage problem)
{
	switch (problem)
	{
		case BAD_PAGE_SPECIAL_SIZE:
			return errdetail("The special space has the wrong size.");
		case BAD_PAGE_ID:
			return errdetail("The page identifier is wrong.");
		case BAD_PAGE_NOT_META:
			return errdetail("The metapage is not marked as a metapage.");
		case BAD_PAGE_NOT_DATA:
			return errdetail("A data page is not marked as a data page.");
		case BAD_PAGE_MAGIC:
			return errdetail("The metapage has the wrong magic number.");
		case BAD_PAGE_NO_METAPAGE:
			return errdetail("The metapage is missing.");
	}
	return 0;
}

/* Raise the corruption error for a page that is not ours */
static void
report_bad_page(Relation rel, BlockNumber blkno, BadPage problem)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("page %u of topic_log relation \"%s\" is corrupted",
					blkno, RelationGetRelationName(rel)),
			 bad_page_detail(problem),
			 errhint("Run topics.verify() on the topic to list every problem.")));
}

/* Check the page's identity and version; error out if it is not ours */
void
topic_page_check(Relation rel, BlockNumber blkno, Page page, uint16 kind)
{
	TopicLogPageOpaque opaque;

	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(TopicLogPageOpaqueData)))
		report_bad_page(rel, blkno, BAD_PAGE_SPECIAL_SIZE);
	opaque = TopicLogPageGetOpaque(page);
	if (opaque->page_id != TOPIC_LOG_PAGE_ID)
		report_bad_page(rel, blkno, BAD_PAGE_ID);
	if (!TopicLogFormatVersionIsReadable(opaque->version))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("topic_log relation \"%s\" has unsupported on-disk format version %u",
						RelationGetRelationName(rel), opaque->version),
				 errdetail("This version of pg_topics reads format versions %u to %u.",
						   TOPIC_LOG_MIN_FORMAT_VERSION, TOPIC_LOG_FORMAT_VERSION),
				 errhint("Install the pg_topics version that wrote this relation.")));
	if ((opaque->flags & kind) == 0)
		report_bad_page(rel, blkno, kind == TL_PAGE_META ?
						BAD_PAGE_NOT_META : BAD_PAGE_NOT_DATA);
	if (kind == TL_PAGE_META &&
		TopicLogPageGetMeta(page)->magic != TOPIC_LOG_META_MAGIC)
		report_bad_page(rel, blkno, BAD_PAGE_MAGIC);
}

/*
 * Initialize page as a metapage (of a router or a segment, by flags) whose
 * log starts (and ends) at start.
 */
static void
init_metapage(Page page, int64 log_start_offset, TimestampTz max_timestamp,
			  uint32 flags, Oid owner, uint32 segno)
{
	TopicLogPageOpaque opaque;
	TopicLogMetaData *meta;

	PageInit(page, BLCKSZ, sizeof(TopicLogPageOpaqueData));
	meta = TopicLogPageGetMeta(page);
	meta->magic = TOPIC_LOG_META_MAGIC;
	meta->version = TOPIC_LOG_CREATE_VERSION;
	meta->flags = flags;
	meta->log_start_offset = log_start_offset;
	meta->owner = owner;
	meta->segno = segno;
	((PageHeader) page)->pd_lower =
		((char *) meta->segments) - (char *) page;

	opaque = TopicLogPageGetOpaque(page);
	opaque->min_offset = log_start_offset;
	opaque->next_offset = log_start_offset;
	opaque->min_timestamp = max_timestamp;
	opaque->max_timestamp = max_timestamp;
	opaque->flags = TL_PAGE_META;
	opaque->version = TOPIC_LOG_CREATE_VERSION;
	opaque->page_id = TOPIC_LOG_PAGE_ID;
}

/* Write a metapage into the freshly extended, locked block 0 */
static void
write_metapage(Buffer buffer, bool needwal, int64 log_start_offset,
			   TimestampTz max_timestamp, uint32 flags, Oid owner,
			   uint32 segno)
{
	Assert(BufferGetBlockNumber(buffer) == TOPIC_LOG_METAPAGE_BLKNO);

	START_CRIT_SECTION();
	init_metapage(BufferGetPage(buffer), log_start_offset, max_timestamp,
				  flags, owner, segno);
	MarkBufferDirty(buffer);
	if (needwal)
		log_newpage_buffer(buffer, true);
	END_CRIT_SECTION();
}

/*
 * Create the metapage of a new relfilenode (CREATE TABLE, TRUNCATE): the
 * log starts at log_start_offset, and timestamps continue after
 * max_timestamp.  Storage must exist already.
 */
void
topic_storage_create(const RelFileLocator *rnode, int64 log_start_offset,
					 TimestampTz max_timestamp, uint32 flags, Oid owner,
					 uint32 segno)
{
	Buffer		buffer;
	bool		needwal;

	/*
	 * No one else can see the new storage yet: no extension lock.  From 16
	 * a new block comes from ExtendBufferedRel, which ReadBuffer's P_NEW
	 * only forwards to when there is a relcache entry.
	 */
#if PG_VERSION_NUM >= 160000
	buffer = ExtendBufferedRel(BMR_SMGR(smgropen(*rnode, INVALID_PROC_NUMBER),
										RELPERSISTENCE_PERMANENT),
							   MAIN_FORKNUM, NULL,
							   EB_LOCK_FIRST | EB_SKIP_EXTENSION_LOCK);
#else
	buffer = ReadBufferWithoutRelcache(*rnode, MAIN_FORKNUM, P_NEW,
									   RBM_ZERO_AND_LOCK, NULL, true);
#endif
	/* With wal_level = minimal the new relfilenode is synced at commit */
	needwal = XLogIsNeeded();
	write_metapage(buffer, needwal, log_start_offset, max_timestamp, flags,
				   owner, segno);
	UnlockReleaseBuffer(buffer);
}

/*
 * Empty rel's storage in place (truncating a relation created in the same
 * transaction) and start its log again at log_start_offset.
 */
void
topic_storage_reset(Relation rel, int64 log_start_offset,
					TimestampTz max_timestamp)
{
	TopicLogMetaData meta;
	Buffer		buffer;

	topic_storage_read_meta(rel, &meta);
	RelationTruncate(rel, 0);
	buffer = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW, RBM_ZERO_AND_LOCK,
								NULL);
	write_metapage(buffer, RelationNeedsWAL(rel), log_start_offset,
				   max_timestamp, meta.flags, meta.owner, meta.segno);
	UnlockReleaseBuffer(buffer);
}

/*
 * Blocks in rel's main fork.  Not RelationGetNumberOfBlocks(): for a
 * router that asks the access method, which answers with its segments'.
 */
BlockNumber
topic_storage_nblocks(Relation rel)
{
	return smgrnblocks(RelationGetSmgr(rel), MAIN_FORKNUM);
}

/*
 * Blocks rel's main fork has at least (more than want, or exactly as many
 * as it has): what this backend last learned of the file's size, else the
 * file system's answer (an lseek).  The file of a relfilenode never shrinks
 * under other backends (no one truncates a segment; topic_storage_reset
 * truncates only in the transaction that created it), so what this
 * backend learned stays a lower bound.
 */
static BlockNumber
known_nblocks(Relation rel, BlockNumber want)
{
	SMgrRelation smgr = RelationGetSmgr(rel);
	BlockNumber cached = smgr->smgr_cached_nblocks[MAIN_FORKNUM];

	if (cached != InvalidBlockNumber && cached > want)
		return cached;
	return smgrnblocks(smgr, MAIN_FORKNUM);
}

/*
 * The last initialized page of rel at or below the file's last block
 * (nblocks - 1), walking back over the zero pages after it: the space a
 * writer took ahead (at most TOPIC_LOG_AHEAD_MAX_BLOCKS, see
 * topic_tail_extend), after a crash also the pages whose WAL had not
 * reached disk (any number: a long transaction's), or what a crash of a
 * version before 0.3 left.  Pages are share-locked one at a time.  A
 * backend pays for the walk once per segment: find_tail's callers keep
 * the tail found as their guess.
 */
static BlockNumber
last_initialized(Relation rel, BlockNumber nblocks,
				 BufferAccessStrategy strategy)
{
	BlockNumber blkno = nblocks;

	if (nblocks == 0)
		report_bad_page(rel, TOPIC_LOG_METAPAGE_BLKNO, BAD_PAGE_NO_METAPAGE);
	while (blkno-- > 0)
	{
		Buffer		buffer;
		bool		is_new;

		buffer = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
									strategy);
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		is_new = PageIsNew(BufferGetPage(buffer));
		UnlockReleaseBuffer(buffer);
		if (!is_new)
			return blkno;
	}
	report_bad_page(rel, TOPIC_LOG_METAPAGE_BLKNO, BAD_PAGE_NO_METAPAGE);
	return InvalidBlockNumber;	/* keep compiler quiet */
}

/*
 * Find the tail of rel, its last initialized page L, and return it locked
 * in mode (share for readers, exclusive for a writer) in *buffer.
 *
 * Initialized pages form a prefix of the file: a writer takes L + 1 only
 * while it holds L (topic_tail_extend), and after a crash WAL came before
 * data, so replay restores every page up to the last one logged.  After L
 * come only zero pages, the space taken ahead.  So:
 *
 * - An initialized data page that no writer has taken a page after
 *   (TL_PAGE_HAS_NEXT, set by the writer that takes the next page before
 *   it lets go of this one) is L, under any lock: the common case, the
 *   page this backend last saw as the tail (its target block), needs
 *   neither the file's size nor another page.
 * - A flagged page or the metapage is L unless the page after it exists
 *   and is initialized: then walk on to it, holding the lower page while
 *   locking the higher one (the writer's order), at most
 *   TOPIC_LOG_TAIL_WALK_MAX pages from a guess.
 * - No guess (a backend's first look, after a restart or a promotion, or
 *   during recovery, where replay sets no flags), a guess that is a zero
 *   page (a writer failed on it) or one that fell too far behind: walk
 *   back from the file's end over the zero pages (last_initialized).
 *
 * The flag is a hint that is not WAL-logged, so a flag can be missing on
 * a page that is no longer the last after a crash; but a guess is only
 * ever a page this backend found as the tail since the server started, and
 * every page taken after it since then was flagged.
 */
static BlockNumber
find_tail(Relation rel, BlockNumber guess, int mode,
		  BufferAccessStrategy strategy, Buffer *buffer)
{
	BlockNumber blkno = guess;
	int			walked = 0;

	for (;;)
	{
		Buffer		buf;
		Page		page;
		Buffer		next;
		BlockNumber nblocks;

		if (blkno == InvalidBlockNumber)
		{
			blkno = last_initialized(rel, topic_storage_nblocks(rel),
									 strategy);
			walked = -1;		/* no bound: the walk starts from the truth */
		}
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 strategy);
		LockBuffer(buf, mode);
		page = BufferGetPage(buf);
		if (PageIsNew(page))
		{
			/* a guess a writer left zero: only the file can tell */
			Assert(walked >= 0);
			UnlockReleaseBuffer(buf);
			blkno = InvalidBlockNumber;
			continue;
		}
		for (;;)
		{
			bool		is_meta = (blkno == TOPIC_LOG_METAPAGE_BLKNO);

			topic_page_check(rel, blkno, page,
							 is_meta ? TL_PAGE_META : TL_PAGE_DATA);
			if (!is_meta &&
				(TopicLogPageGetOpaque(page)->flags & TL_PAGE_HAS_NEXT) == 0)
				break;
			nblocks = known_nblocks(rel, blkno + 1);
			if (blkno + 1 >= nblocks)
				break;
			next = ReadBufferExtended(rel, MAIN_FORKNUM, blkno + 1,
									  RBM_NORMAL, strategy);
			LockBuffer(next, mode);
			if (PageIsNew(BufferGetPage(next)))
			{
				/* taken ahead, or left zero by a writer that failed */
				UnlockReleaseBuffer(next);
				break;
			}
			UnlockReleaseBuffer(buf);
			buf = next;
			page = BufferGetPage(buf);
			blkno++;
			if (walked >= 0 && ++walked > TOPIC_LOG_TAIL_WALK_MAX)
				break;
		}
		if (walked > TOPIC_LOG_TAIL_WALK_MAX)
		{
			/* a guess that fell far behind: the file's end is nearer */
			UnlockReleaseBuffer(buf);
			blkno = InvalidBlockNumber;
			walked = 0;
			continue;
		}
		*buffer = buf;
		return blkno;
	}
}

/*
 * The tail of rel, its last initialized page (find_tail): the last page a
 * reader need look at, since after it come only zero pages taken ahead.
 * A reader that knew the tail before (this backend's target block, which
 * inserts keep too) finds it again without asking the file system when it
 * is still unflagged.  Not during recovery: replay sets no flags, so a
 * standby walks back from the file's end every time and keeps no guess
 * for after a promotion.
 */
BlockNumber
topic_storage_last_block(Relation rel)
{
	bool		recovery = RecoveryInProgress();
	BlockNumber guess = recovery ? InvalidBlockNumber : RelationGetTargetBlock(rel);
	BlockNumber last;
	Buffer		buffer;

	last = find_tail(rel, guess, BUFFER_LOCK_SHARE, NULL, &buffer);
	UnlockReleaseBuffer(buffer);
	if (!recovery)
		RelationSetTargetBlock(rel, last);
	return last;
}

/*
 * The end of the log as of the initialized page at or below blkno: the
 * next offset to assign and the newest timestamp.  Pages are share-locked
 * one at a time.
 */
static void
log_end_at(Relation rel, BlockNumber blkno, BufferAccessStrategy strategy,
		   int64 *next_offset, TimestampTz *max_timestamp)
{
	for (;;)
	{
		Buffer		buffer;
		Page		page;

		buffer = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
									strategy);
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		if (!PageIsNew(page))
		{
			TopicLogPageOpaque opaque;

			topic_page_check(rel, blkno, page,
					   blkno == TOPIC_LOG_METAPAGE_BLKNO ? TL_PAGE_META : TL_PAGE_DATA);
			opaque = TopicLogPageGetOpaque(page);
			*next_offset = opaque->next_offset;
			*max_timestamp = opaque->max_timestamp;
			UnlockReleaseBuffer(buffer);
			return;
		}
		UnlockReleaseBuffer(buffer);
		if (blkno == TOPIC_LOG_METAPAGE_BLKNO)
			report_bad_page(rel, blkno, BAD_PAGE_NO_METAPAGE);
		blkno--;
	}
}

/* Read the fixed part of rel's metapage into *meta */
void
topic_storage_read_meta(Relation rel, TopicLogMetaData *meta)
{
	read_metapage(rel, meta, NULL);
}

/*
 * Read the fixed part of rel's metapage into *meta and, if opaque is not
 * NULL, its page summary into *opaque
 */
static void
read_metapage(Relation rel, TopicLogMetaData *meta,
			  TopicLogPageOpaqueData *opaque)
{
	Buffer		buffer;
	Page		page;

	/*
	 * No size check first: every read asks for the metapage, and asking the
	 * file system for the size costs a system call.  A file without its
	 * metapage fails the read itself, as data corruption.
	 */
	buffer = ReadBuffer(rel, TOPIC_LOG_METAPAGE_BLKNO);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	if (PageIsNew(page))
		report_bad_page(rel, TOPIC_LOG_METAPAGE_BLKNO, BAD_PAGE_NO_METAPAGE);
	topic_page_check(rel, TOPIC_LOG_METAPAGE_BLKNO, page, TL_PAGE_META);
	*meta = *TopicLogPageGetMeta(page);
	if (opaque != NULL)
		*opaque = *TopicLogPageGetOpaque(page);
	UnlockReleaseBuffer(buffer);
}

/*
 * Log start, high watermark, newest timestamp and resolved mark of rel, as
 * its own pages tell them: of the segment, or for a router what its
 * metapage holds (the log start, and the end of the segments already
 * retired).  topic_log_end() adds a router's LIVE segment.
 */
void
topic_storage_log_end(Relation rel, TopicLogEnd *end)
{
	TopicLogMetaData meta;
	TopicLogPageOpaqueData summary;

	read_metapage(rel, &meta, &summary);
	end->log_start_offset = meta.log_start_offset;
	end->resolved = meta.resolved;

	if (!(meta.flags & TL_META_ROUTER))
		log_end_at(rel, topic_storage_last_block(rel), NULL,
				   &end->next_offset, &end->max_timestamp);
	else
	{
		/* a router's only page is its metapage: records live in segments */
		end->next_offset = summary.next_offset;
		end->max_timestamp = summary.max_timestamp;
		end->resolved = 0;
	}
}

/*
 * rel's resolved mark.  A reader may keep it for as long as it likes: the
 * mark only moves forward, and a batch it passed since still reads right
 * (see topic_batch_did_commit).
 */
TopicLogPosition
topic_storage_resolved(Relation rel)
{
	TopicLogMetaData meta;

	topic_storage_read_meta(rel, &meta);
	return meta.resolved;
}

/*
 * Set the resolved mark of a metapage; on the primary and in redo.  A
 * metapage written before the mark existed gets its pd_lower raised over
 * it, so that full-page images keep it.
 */
static void
metapage_set_resolved(Page page, TopicLogPosition resolved)
{
	TopicLogMetaData *meta = TopicLogPageGetMeta(page);
	PageHeader	phdr = (PageHeader) page;
	LocationIndex meta_end = ((char *) meta + sizeof(TopicLogMetaData)) - (char *) page;

	meta->resolved = Max(meta->resolved, resolved);
	if (phdr->pd_lower < meta_end)
		phdr->pd_lower = meta_end;
}

/*
 * Move rel's resolved mark forward to position (never back).
 * latest_committed is the newest committed xid among the batches it passes
 * (or invalid): a hot standby first cancels the queries whose snapshots
 * might not see that transaction yet, as for heap's all-visible marks.
 */
void
topic_storage_advance_resolved(Relation rel, TopicLogPosition position,
							   TransactionId latest_committed)
{
	Buffer		buffer = ReadBuffer(rel, TOPIC_LOG_METAPAGE_BLKNO);
	Page		page;

	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buffer);
	topic_page_check(rel, TOPIC_LOG_METAPAGE_BLKNO, page, TL_PAGE_META);
	if (position <= TopicLogPageGetMeta(page)->resolved)
	{
		UnlockReleaseBuffer(buffer);
		return;
	}

	START_CRIT_SECTION();
	metapage_set_resolved(page, position);
	MarkBufferDirty(buffer);
	if (RelationNeedsWAL(rel))
	{
		xl_topic_log_resolve xlrec;
		XLogRecPtr	recptr;

		memset(&xlrec, 0, sizeof(xlrec));
		xlrec.resolved = position;
		xlrec.latest_committed = latest_committed;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		XLogRegisterBuffer(0, buffer, REGBUF_STANDARD);
		recptr = XLogInsert(TOPIC_LOG_RMGR_ID, XLOG_TOPIC_LOG_RESOLVE);
		PageSetLSN(page, recptr);
	}
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buffer);
}

/* Redo of topic_storage_advance_resolved's metapage change */
void
topic_page_set_resolved(Page page, TopicLogPosition position)
{
	metapage_set_resolved(page, position);
}

/* Does a batch start at each of positions[0..n-1] of a data page? */
static bool
batches_at(Page page, const uint16 *positions, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		Size		pos = 0;
		TopicBatchHeader hdr;
		bool		found = false;

		while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
			if ((char *) hdr - (char *) page == positions[i])
			{
				found = true;
				break;
			}
		if (!found)
			return false;
	}
	return true;
}

/*
 * Flag the batches at byte positions positions[0..n-1] of a data page as
 * rolled back for good (TB_ABORTED); on the primary and in redo.  False,
 * changing nothing, if a position is not where a batch starts.
 */
bool
topic_page_set_aborted(Page page, const uint16 *positions, int n)
{
	int			i;

	if (!batches_at(page, positions, n))
		return false;
	for (i = 0; i < n; i++)
		((TopicBatchHeader) ((char *) page + positions[i]))->flags |= TB_ABORTED;
	return true;
}

/*
 * Flag batches of an exclusively locked data page as rolled back for good,
 * so that they stay invisible once the resolved mark passes them and their
 * xids are forgotten.  positions are the batches' byte positions.
 */
void
topic_page_mark_aborted(Relation rel, Buffer buffer, const uint16 *positions,
						int n)
{
	Page		page = BufferGetPage(buffer);

	/* checked outside the critical section, so that it cannot PANIC */
	if (n <= 0 || !batches_at(page, positions, n))
		elog(ERROR, "no batches to mark on page %u of \"%s\"",
			 BufferGetBlockNumber(buffer), RelationGetRelationName(rel));

	START_CRIT_SECTION();
	if (!topic_page_set_aborted(page, positions, n))
		elog(PANIC, "page %u of \"%s\" has no batch where one was marked",
			 BufferGetBlockNumber(buffer), RelationGetRelationName(rel));
	MarkBufferDirty(buffer);
	if (RelationNeedsWAL(rel))
	{
		xl_topic_log_mark_aborted xlrec;
		XLogRecPtr	recptr;

		xlrec.nbatches = n;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfTopicLogMarkAborted);
		XLogRegisterData((char *) positions, n * sizeof(uint16));
		XLogRegisterBuffer(0, buffer, REGBUF_STANDARD);
		recptr = XLogInsert(TOPIC_LOG_RMGR_ID, XLOG_TOPIC_LOG_MARK_ABORTED);
		PageSetLSN(page, recptr);
	}
	END_CRIT_SECTION();
}

/*
 * Lock the tail page of rel (its last initialized page, find_tail)
 * exclusively and describe it in *tail.  With free_bytes == 0 the caller
 * must topic_tail_extend() before appending.  The space taken ahead is
 * bounded by tail->ahead_limit blocks, 0 here: one page at a time; the
 * LIVE segment's writers set it to its roll size (segments/live.c).
 */
void
topic_tail_lock(Relation rel, TopicTail *tail, BufferAccessStrategy strategy)
{
	BlockNumber blkno;
	Buffer		buffer;
	Page		page;
	TopicLogPageOpaque opaque;
	bool		is_meta;

	blkno = find_tail(rel, RelationGetTargetBlock(rel), BUFFER_LOCK_EXCLUSIVE,
					  strategy, &buffer);
	page = BufferGetPage(buffer);
	is_meta = (blkno == TOPIC_LOG_METAPAGE_BLKNO);
	opaque = TopicLogPageGetOpaque(page);

	tail->buffer = buffer;
	tail->blkno = blkno;
	tail->strategy = strategy;
	tail->ahead_limit = 0;
	tail->init_page = false;
	tail->sealed = (opaque->flags & TL_PAGE_SEALED) != 0;
	tail->next_offset = opaque->next_offset;
	tail->max_timestamp = opaque->max_timestamp;
	if (is_meta)
	{
		tail->free_bytes = 0;
		tail->free_records = 0;
	}
	else
	{
		tail->free_bytes = PageGetExactFreeSpace(page);
		tail->free_records = TOPIC_LOG_MAX_RECORDS_PER_PAGE - opaque->nrecords;
	}
	RelationSetTargetBlock(rel, blkno);
}

/*
 * Move the start (and end) of a log without records: the metapage; on the
 * primary and in redo.
 */
void
topic_page_set_log_start(Page page, int64 log_start, TimestampTz max_timestamp)
{
	TopicLogPageOpaque opaque = TopicLogPageGetOpaque(page);
	TopicLogMetaData *meta = TopicLogPageGetMeta(page);

	meta->log_start_offset = Max(meta->log_start_offset, log_start);
	opaque->min_offset = Max(opaque->min_offset, log_start);
	opaque->next_offset = Max(opaque->next_offset, log_start);
	opaque->min_timestamp = Max(opaque->min_timestamp, max_timestamp);
	opaque->max_timestamp = Max(opaque->max_timestamp, max_timestamp);
}

/*
 * Start a segment that has no records yet at a later offset, with
 * timestamps continuing after max_timestamp: a segment starts where the
 * one before it ended, and preserve mode's first record (pg_restore,
 * replication) brings the log start its source had.  tail must be the
 * locked metapage of a segment without data pages.
 */
void
topic_tail_move_start(Relation rel, TopicTail *tail, int64 log_start,
					  TimestampTz max_timestamp)
{
	Page		page = BufferGetPage(tail->buffer);

	Assert(tail->blkno == TOPIC_LOG_METAPAGE_BLKNO);
	if (log_start <= tail->next_offset && max_timestamp <= tail->max_timestamp)
		return;

	START_CRIT_SECTION();
	topic_page_set_log_start(page, log_start, max_timestamp);
	MarkBufferDirty(tail->buffer);
	if (RelationNeedsWAL(rel))
	{
		xl_topic_log_start xlrec;
		XLogRecPtr	recptr;

		xlrec.log_start = log_start;
		xlrec.max_timestamp = max_timestamp;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		XLogRegisterBuffer(0, tail->buffer, REGBUF_STANDARD);
		recptr = XLogInsert(TOPIC_LOG_RMGR_ID, XLOG_TOPIC_LOG_START);
		PageSetLSN(page, recptr);
	}
	END_CRIT_SECTION();
	tail->next_offset = Max(tail->next_offset, log_start);
	tail->max_timestamp = Max(tail->max_timestamp, max_timestamp);
}

/*
 * How many blocks to add when the file ends at the tail: an eighth of what
 * the relation uses so far (pages, metapage included), 1 to
 * TOPIC_LOG_AHEAD_MAX_BLOCKS, never past limit (a segment's roll size)
 * unless the relation reached it already (then one: a segment that goes
 * on without a spare to roll to grows page by page), and never past the
 * most blocks a segment may have.
 */
static BlockNumber
ahead_blocks(BlockNumber nblocks, BlockNumber limit)
{
	BlockNumber n = Min(Max(nblocks / 8, 1), TOPIC_LOG_AHEAD_MAX_BLOCKS);

	if (limit > nblocks)
		n = Min(n, limit - nblocks);
	else
		n = 1;
	if (nblocks + n > TOPIC_SEGMENT_MAX_BLOCKS)
		n = Max(TOPIC_SEGMENT_MAX_BLOCKS, nblocks + 1) - nblocks;
	return n;
}

#if PG_VERSION_NUM < 160000
/*
 * PostgreSQL 15 only, where smgr extends one block at a time (an 8 kB
 * pwrite of zeros each): the blocks [first, first + n) of rel's main fork
 * are allocated with posix_fallocate on the segment's own file, around
 * smgr, as 16's mdzeroextend does through it for more than 8 blocks.  That
 * is sound because md.c keeps no size of its own (mdnblocks asks the file)
 * and the blocks are zero to any reader; they need no fsync, since the
 * space ahead need not survive a crash (see extend_ahead), and the pages
 * written into them later register the file for the checkpoint's fsync as
 * any write does.  Only inside the relation's first file of RELSEG_SIZE
 * blocks (a segment is never larger, unless the server was built with a
 * smaller segment size) and for a permanent relation.  False when it
 * cannot, or the file system does not offer the call: the caller then
 * writes the zero blocks through smgr.
 */
static bool
fallocate_ahead(Relation rel, BlockNumber first, BlockNumber n)
{
	char	   *path;
	int			fd;
	int			rc;

	if ((uint64) first + n > RELSEG_SIZE ||
		rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		return false;
	path = relpathperm(RelationGetLocator(rel), MAIN_FORKNUM);
	fd = OpenTransientFile(path, O_RDWR | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	do
	{
		rc = posix_fallocate(fd, (off_t) first * BLCKSZ, (off_t) n * BLCKSZ);
	} while (rc == EINTR);
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", path)));
	if (rc == EINVAL || rc == EOPNOTSUPP)
	{
		pfree(path);
		return false;
	}
	if (rc != 0)
	{
		errno = rc;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not extend file \"%s\": %m", path),
				 errhint("Check free disk space.")));
	}
	pfree(path);
	return true;
}
#endif

/*
 * The file of rel ends at the locked tail: add the space ahead, zero
 * blocks that later tails take without writing them first, and return the
 * first of them locked.  Not WAL-logged (standbys grow their file by
 * replaying the pages' first batches, which extend a file that is too
 * short, as any redo does).
 *
 * WAL is not flushed first (that would be one more fdatasync per growth
 * on produce's path, where the commit's flush is already a quarter of
 * the time): the pages before the tail whose WAL had not reached disk
 * come back from a crash as zero pages, before the space ahead.  They
 * are after every page that does come back, since a page's first batch
 * is logged after its predecessor's (L + 1 is taken only while L is
 * held) and replay restores a prefix of the WAL, so the initialized
 * pages still form a prefix; only the run of zero pages at the end is
 * longer, and last_initialized walks any run.
 */
static Buffer
extend_ahead(Relation rel, TopicTail *tail)
{
	BlockNumber next = tail->blkno + 1;
	BlockNumber n = ahead_blocks(next, tail->ahead_limit);
	Buffer		buffer;

#if PG_VERSION_NUM >= 160000
	{
		Buffer		buffers[TOPIC_LOG_AHEAD_MAX_BLOCKS];
		uint32		extended_by = 0;
		BlockNumber first;

		/* zero-filled in one call (posix_fallocate past 8 blocks) */
		first = ExtendBufferedRelBy(BMR_REL(rel), MAIN_FORKNUM,
									tail->strategy, EB_LOCK_FIRST, n,
									buffers, &extended_by);
		if (first != next)
			elog(ERROR, "relation \"%s\" grew at block %u past its tail %u",
				 RelationGetRelationName(rel), first, tail->blkno);
		for (uint32 i = 1; i < extended_by; i++)
			ReleaseBuffer(buffers[i]);
		buffer = buffers[0];
	}
#else
	{
		SMgrRelation smgr;
		PGAlignedBlock zero;
		BlockNumber nblocks;

		memset(zero.data, 0, BLCKSZ);
		LockRelationForExtension(rel, ExclusiveLock);
		smgr = RelationGetSmgr(rel);
		nblocks = smgrnblocks(smgr, MAIN_FORKNUM);
		if (nblocks != next)
			elog(ERROR, "relation \"%s\" has %u blocks past its tail %u",
				 RelationGetRelationName(rel), nblocks, tail->blkno);
		if (n <= FALLOCATE_MIN_BLOCKS || !fallocate_ahead(rel, next, n))
			for (BlockNumber i = 0; i < n; i++)
				smgrextend(smgr, MAIN_FORKNUM, next + i, zero.data, false);
		UnlockRelationForExtension(rel, ExclusiveLock);
		buffer = ReadBufferExtended(rel, MAIN_FORKNUM, next, RBM_ZERO_AND_LOCK,
									tail->strategy);
	}
#endif
	return buffer;
}

/*
 * Make the page after the full tail the tail, holding the old tail until
 * the new one is locked, so that nobody else can take it.  A page the file
 * has already (taken ahead) is zero and is taken without reading it
 * (RBM_ZERO_AND_LOCK); only when the file ends at the tail does it grow,
 * by more than one page (extend_ahead).
 */
void
topic_tail_extend(Relation rel, TopicTail *tail)
{
	BlockNumber next = tail->blkno + 1;
	Buffer		buffer;

	if (next < known_nblocks(rel, next))
		buffer = ReadBufferExtended(rel, MAIN_FORKNUM, next, RBM_ZERO_AND_LOCK,
									tail->strategy);
	else
		buffer = extend_ahead(rel, tail);

	/*
	 * Only the holder of the tail takes the page after it, and pages after
	 * the tail are zero; one that is not (found in shared buffers with
	 * contents) would be overwritten.
	 */
	if (!PageIsNew(BufferGetPage(buffer)))
		elog(ERROR, "page %u after the tail of \"%s\" is not empty",
			 next, RelationGetRelationName(rel));

	/* writers holding on to the old tail as their guess must look again */
	if (tail->blkno != TOPIC_LOG_METAPAGE_BLKNO &&
		!PageIsNew(BufferGetPage(tail->buffer)))
	{
		TopicLogPageGetOpaque(BufferGetPage(tail->buffer))->flags |= TL_PAGE_HAS_NEXT;
		MarkBufferDirtyHint(tail->buffer, true);
	}
	UnlockReleaseBuffer(tail->buffer);

	tail->buffer = buffer;
	tail->blkno = next;
	tail->init_page = true;
	tail->free_bytes = TOPIC_LOG_PAGE_CAPACITY;
	tail->free_records = TOPIC_LOG_MAX_RECORDS_PER_PAGE;
	RelationSetTargetBlock(rel, tail->blkno);
}

/*
 * Append one batch to the locked tail and WAL-log it.  The caller has
 * checked that it fits (free_bytes, free_records).  router is the
 * partition rel belongs to; decoding needs it when wal_level is logical.
 */
void
topic_tail_append(Relation rel, TopicTail *tail, char *batch, Size len,
				  bool last_in_multi, Relation router)
{
	Page		page = BufferGetPage(tail->buffer);
	TopicBatchHeader hdr PG_USED_FOR_ASSERTS_ONLY = (TopicBatchHeader) batch;
	TopicLogPageOpaque opaque;
	xl_topic_log_page_start start;

	Assert(MAXALIGN(len) <= tail->free_bytes);
	Assert(hdr->nrecords <= tail->free_records);
	Assert(hdr->hints == 0);

	/* anything that could fail in there must fail here */
	if (!topic_page_batch_fits(page, batch, len, tail->init_page))
		elog(ERROR, "topic_log batch of %zu bytes does not fit page %u of \"%s\"",
			 len, tail->blkno, RelationGetRelationName(rel));

	/* a new page carries the running summary of the log before it */
	memset(&start, 0, sizeof(start));
	start.next_offset = tail->next_offset;
	start.max_timestamp = tail->max_timestamp;

	START_CRIT_SECTION();

	topic_page_append_batch(page, batch, len, tail->init_page ? &start : NULL);
	MarkBufferDirty(tail->buffer);

	if (RelationNeedsWAL(rel))
	{
		xl_topic_log_insert xlrec;
		xl_topic_log_router xlrouter;
		XLogRecPtr	recptr;
		uint8		info = XLOG_TOPIC_LOG_INSERT;
		int			regflags = REGBUF_STANDARD;

		memset(&xlrec, 0, sizeof(xlrec));
		/* a release that cannot read the batch refuses the record */
		xlrec.version = topic_batch_format_version((TopicBatchHeader) batch);
		xlrec.flags = last_in_multi ? XLTL_LAST_IN_MULTI : 0;
		if (XLogLogicalInfoActive())
			xlrec.flags |= XLTL_ROUTER;
		if (tail->init_page)
		{
			info |= XLOG_TOPIC_LOG_INIT_PAGE;
			regflags |= REGBUF_WILL_INIT;
			xlrec.flags |= XLTL_PAGE_START;
		}

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfTopicLogInsert);
		if (xlrec.flags & XLTL_ROUTER)
		{
			memset(&xlrouter, 0, sizeof(xlrouter));
			xlrouter.node = RelationGetLocator(router);
			XLogRegisterData((char *) &xlrouter, sizeof(xlrouter));
		}
		if (xlrec.flags & XLTL_PAGE_START)
			XLogRegisterData((char *) &start, sizeof(start));
		XLogRegisterData(batch, len);
		XLogRegisterBuffer(0, tail->buffer, regflags);
		/* like heap: lets decoding filter changes by replication origin */
		XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
		recptr = XLogInsert(TOPIC_LOG_RMGR_ID, info);
		PageSetLSN(page, recptr);
	}

	END_CRIT_SECTION();

	opaque = TopicLogPageGetOpaque(page);
	tail->init_page = false;
	tail->free_bytes = PageGetExactFreeSpace(page);
	tail->free_records = TOPIC_LOG_MAX_RECORDS_PER_PAGE - opaque->nrecords;
	tail->next_offset = opaque->next_offset;
	tail->max_timestamp = opaque->max_timestamp;
}

void
topic_tail_release(TopicTail *tail)
{
	UnlockReleaseBuffer(tail->buffer);
	tail->buffer = InvalidBuffer;
}

/*
 * Mark the locked tail page as the end of a segment that rolled over (a
 * hint, see TL_PAGE_SEALED).  False if the tail is not an initialized data
 * page, which cannot carry the mark: the caller then does not roll.
 */
bool
topic_tail_seal(TopicTail *tail)
{
	Page		page = BufferGetPage(tail->buffer);

	if (PageIsNew(page) || tail->blkno == TOPIC_LOG_METAPAGE_BLKNO)
		return false;
	TopicLogPageGetOpaque(page)->flags |= TL_PAGE_SEALED;
	MarkBufferDirtyHint(tail->buffer, true);
	tail->sealed = true;
	return true;
}

/*
 * Last offset and timestamp range of a batch.  Walks the records only when
 * the header cannot tell; false if they do not parse.
 */
bool
topic_batch_summary(const TopicBatchHeaderData *hdr, int64 *last_offset,
					TimestampTz *min_ts, TimestampTz *max_ts)
{
	const char *bytes = (const char *) hdr;
	Size		pos = topic_batch_records_start(hdr);
	int			i;

	/* a marker covers no offsets, but the log's end reaches its own */
	if (TopicBatchIsMarker(hdr))
	{
		*last_offset = hdr->base_offset - 1;
		*min_ts = *max_ts = hdr->base_timestamp;
		return true;
	}
	if ((hdr->flags & (TB_CONTIGUOUS | TB_SAME_TIMESTAMP)) ==
		(TB_CONTIGUOUS | TB_SAME_TIMESTAMP))
	{
		*last_offset = hdr->base_offset + hdr->nrecords - 1;
		*min_ts = *max_ts = hdr->base_timestamp;
		return true;
	}
	if (hdr->flags & TB_COMPRESSED)
	{
		TopicBatchCompressionData compression;

		/* kept beside the compressed records, under their checksum */
		if (!topic_batch_compression_intact(hdr, &compression))
			return false;
		*last_offset = compression.last_offset;
		*min_ts = compression.min_timestamp;
		*max_ts = compression.max_timestamp;
		return true;
	}

	*last_offset = hdr->base_offset;
	*min_ts = *max_ts = hdr->base_timestamp;
	for (i = 0; i < hdr->nrecords; i++)
	{
		TopicRecord rec;

		if (!topic_record_decode(bytes, &pos, hdr->length, hdr, i, &rec))
			return false;
		*last_offset = Max(*last_offset, rec.offset);
		*min_ts = Min(*min_ts, rec.timestamp);
		*max_ts = Max(*max_ts, rec.timestamp);
	}
	return true;
}

/*
 * Does a compressed batch of len bytes describe itself plausibly: intact
 * (checksum and all), and a summary that holds the batch's records?  Its
 * records are checked when they are read (inflating them here would
 * allocate in a critical section).
 */
static bool
compression_plausible(const TopicBatchHeaderData *hdr, Size len)
{
	TopicBatchCompressionData c;

	if (hdr->length != len || !topic_batch_compression_intact(hdr, &c))
		return false;
	return c.last_offset >= hdr->base_offset + hdr->nrecords - 1 &&
		c.min_timestamp <= c.max_timestamp &&
		(!(hdr->flags & TB_CONTIGUOUS) ||
		 c.last_offset == hdr->base_offset + hdr->nrecords - 1) &&
		(!(hdr->flags & TB_SAME_TIMESTAMP) ||
		 (c.min_timestamp == hdr->base_timestamp &&
		  c.max_timestamp == hdr->base_timestamp));
}

/*
 * Would the batch go on the page (initialized first, if init_page) as a
 * well-formed batch?  Checked before the critical section, so that a bad
 * batch is an ERROR and not a PANIC.
 */
bool
topic_page_batch_fits(Page page, const char *batch, Size len, bool init_page)
{
	const TopicBatchHeaderData *hdr = (const TopicBatchHeaderData *) batch;
	Size		lower = MAXALIGN(SizeOfPageHeaderData);
	Size		upper = BLCKSZ - MAXALIGN(sizeof(TopicLogPageOpaqueData));
	int			nrecords = 0;
	int64		last_offset;
	TimestampTz min_ts;
	TimestampTz max_ts;

	if (!init_page)
	{
		lower = ((PageHeader) page)->pd_lower;
		upper = ((PageHeader) page)->pd_upper;
		nrecords = TopicLogPageGetOpaque(page)->nrecords;
	}
	if (len >= sizeof(TopicBatchHeaderData) && TopicBatchIsMarker(hdr))
		return hdr->length == len &&
			(len == sizeof(TopicBatchHeaderData) ||
			 len == TOPIC_MARKER_LENGTH_WITH_START) &&
			hdr->nrecords == 0 && lower + MAXALIGN(len) <= upper &&
			hdr->base_offset >= 0 && hdr->base_offset < TOPIC_OFFSET_MAX;
	if (len >= sizeof(TopicBatchHeaderData) && (hdr->flags & TB_COMPRESSED) &&
		!compression_plausible(hdr, len))
		return false;
	return len >= sizeof(TopicBatchHeaderData) && hdr->length == len &&
		len > topic_batch_records_start(hdr) &&
		hdr->nrecords > 0 && lower + MAXALIGN(len) <= upper &&
		nrecords + hdr->nrecords <= TOPIC_LOG_MAX_RECORDS_PER_PAGE &&
		hdr->base_offset >= 0 &&
		topic_batch_summary(hdr, &last_offset, &min_ts, &max_ts) &&
		last_offset < PG_INT64_MAX;
}

/*
 * Initialize a data page whose first offset is first_offset, its summary
 * running on from the log before it (start).  No batch yet: the page's
 * counts are zero.
 */
void
topic_page_init_data(Page page, int64 first_offset,
					 const xl_topic_log_page_start *start)
{
	TopicLogPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(TopicLogPageOpaqueData));
	opaque = TopicLogPageGetOpaque(page);
	opaque->min_offset = first_offset;
	opaque->next_offset = Max(start->next_offset, first_offset);
	opaque->min_timestamp = DT_NOEND;
	opaque->max_timestamp = start->max_timestamp;
	opaque->flags = TL_PAGE_DATA;
	opaque->version = TOPIC_LOG_CREATE_VERSION;
	opaque->page_id = TOPIC_LOG_PAGE_ID;
}

/*
 * Append a batch to a page, initializing the page first if asked.  Runs in
 * a critical section on the primary and in redo; both must do exactly the
 * same, so that the pages are byte-identical.
 */
void
topic_page_append_batch(Page page, const char *batch, Size len,
						const xl_topic_log_page_start *init)
{
	bool		init_page = (init != NULL);
	const TopicBatchHeaderData *hdr = (const TopicBatchHeaderData *) batch;
	PageHeader	phdr = (PageHeader) page;
	TopicLogPageOpaque opaque;
	int64		last_offset;
	TimestampTz min_ts;
	TimestampTz max_ts;

	if (!topic_page_batch_fits(page, batch, len, init_page))
		elog(PANIC, "topic_log batch of %zu bytes does not fit its page", len);
	(void) topic_batch_summary(hdr, &last_offset, &min_ts, &max_ts);

	if (init_page)
		topic_page_init_data(page, hdr->base_offset, init);
	opaque = TopicLogPageGetOpaque(page);
	/*
	 * A version 2 page holds no producer batches and a version 3 one no
	 * compressed batches: the page takes the version its batch needs
	 */
	if (hdr->flags & (TB_PRODUCER | TB_COMPRESSED))
		opaque->version = Max(opaque->version, topic_batch_format_version(hdr));

	memcpy((char *) page + phdr->pd_lower, batch, len);
	/* zero the alignment padding, so pages compare equal byte for byte */
	memset((char *) page + phdr->pd_lower + len, 0, MAXALIGN(len) - len);
	phdr->pd_lower += MAXALIGN(len);

	opaque->min_offset = Min(opaque->min_offset, hdr->base_offset);
	opaque->next_offset = Max(opaque->next_offset, last_offset + 1);
	opaque->min_timestamp = Min(opaque->min_timestamp, min_ts);
	opaque->max_timestamp = Max(opaque->max_timestamp, max_ts);
	opaque->nrecords += hdr->nrecords;
	opaque->nbatches++;
}

/* Is page an initialized data page of ours? (does not check the version) */
bool
topic_page_is_data(Page page)
{
	return !PageIsNew(page) &&
		PageGetSpecialSize(page) == MAXALIGN(sizeof(TopicLogPageOpaqueData)) &&
		TopicLogPageGetOpaque(page)->page_id == TOPIC_LOG_PAGE_ID &&
		(TopicLogPageGetOpaque(page)->flags & TL_PAGE_DATA) != 0;
}

/*
 * The batch at *pos of a data page (0 means the first), advancing *pos to
 * the next one.  NULL at the end of the page, or when the bytes there are
 * not a plausible batch header (topics.verify tells those apart).
 */
TopicBatchHeader
topic_page_next_batch(Page page, Size *pos)
{
	PageHeader	phdr = (PageHeader) page;
	TopicBatchHeader hdr;
	Size		p = *pos;

	if (p == 0)
		p = MAXALIGN(SizeOfPageHeaderData);
	if (p + sizeof(TopicBatchHeaderData) > phdr->pd_lower)
		return NULL;
	hdr = (TopicBatchHeader) ((char *) page + p);
	if (hdr->length < topic_batch_records_start(hdr) ||
		p + hdr->length > phdr->pd_lower ||
		(hdr->nrecords == 0 && !TopicBatchIsMarker(hdr)))
		return NULL;
	*pos = p + MAXALIGN(hdr->length);
	return hdr;
}

/*
 * Cache a batch's transaction status in its hint byte.  Like heap's hint
 * bits: no WAL unless checksums need a full-page image, and a share lock
 * is enough.
 */
void
topic_batch_set_hints(Buffer buffer, TopicBatchHeader hdr, uint8 hints)
{
	hdr->hints |= hints;
	MarkBufferDirtyHint(buffer, true);
}
