/*-------------------------------------------------------------------------
 *
 * wal.h
 *	  The pg_topics WAL resource manager: record types and layouts.
 *
 * docs/architecture.md section 5 describes the records.  The resource
 * manager ID is part of the WAL format: once released it never changes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WAL_H
#define TOPIC_WAL_H

#include "access/xlogreader.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "pg_topics/base/compat.h"

/*
 * IDs 128-255 belong to extensions (128 is for experiments).  163 is to be
 * registered on the PostgreSQL wiki's list of custom WAL resource managers.
 */
#define TOPIC_LOG_RMGR_ID		163
#define TOPIC_LOG_RMGR_NAME		"pg_topics"

/* Record types (the high bits of xl_info) */
#define XLOG_TOPIC_LOG_INSERT		0x00
#define XLOG_TOPIC_LOG_MARK_ABORTED	0x10
#define XLOG_TOPIC_LOG_RESOLVE		0x20
#define XLOG_TOPIC_LOG_START		0x30
#define XLOG_TOPIC_LOG_STABLE		0x40
#define XLOG_TOPIC_LOG_REMOVED		0x50
#define XLOG_TOPIC_LOG_OPMASK		0x70
#define XLOG_TOPIC_LOG_INIT_PAGE	0x80	/* the batch starts a new page */

/*
 * XLOG_TOPIC_LOG_INSERT: one batch appended to block 0.  The main data is
 * this header, then (XLTL_ROUTER) the partition the segment belongs to,
 * then (XLTL_PAGE_START, with INIT_PAGE) where the new page's summary
 * starts, then the batch bytes exactly as they go on the page (hints
 * zero).  Batch bytes in the main data survive a full-page image, so
 * decoding always has them.
 */
typedef struct xl_topic_log_insert
{
	uint8		version;		/* TOPIC_LOG_FORMAT_VERSION */
	uint8		flags;			/* XLTL_* */
	uint16		reserved;
	uint32		reserved2;		/* keeps the batch after it MAXALIGNed */
} xl_topic_log_insert;

#define SizeOfTopicLogInsert	MAXALIGN(sizeof(xl_topic_log_insert))

#define XLTL_LAST_IN_MULTI		0x01	/* last record of one insert call */
#define XLTL_ROUTER				0x02	/* an xl_topic_log_router follows */
#define XLTL_PAGE_START			0x04	/* an xl_topic_log_page_start follows */

/*
 * The partition (router relation) a segment's insert belongs to, written
 * when wal_level is logical: decoding has no catalog access, and a
 * subscriber must see the change as one of the partition's.
 */
typedef struct xl_topic_log_router
{
	RelFileLocator node;
	uint32		reserved;
} xl_topic_log_router;

/*
 * A new page continues the running summary of the pages before it: its
 * next_offset and max_timestamp never go below theirs, even when a
 * replicated batch arrives out of offset order (docs/architecture.md
 * section 6).
 */
typedef struct xl_topic_log_page_start
{
	int64		next_offset;
	TimestampTz max_timestamp;
} xl_topic_log_page_start;

/*
 * XLOG_TOPIC_LOG_MARK_ABORTED: set TB_ABORTED on the batches of data page
 * block 0 that start at the byte positions following this header.
 */
typedef struct xl_topic_log_mark_aborted
{
	uint16		nbatches;
	uint16		positions[FLEXIBLE_ARRAY_MEMBER];
} xl_topic_log_mark_aborted;

#define SizeOfTopicLogMarkAborted	offsetof(xl_topic_log_mark_aborted, positions)

/*
 * XLOG_TOPIC_LOG_RESOLVE: move the resolved mark of metapage block 0 to
 * resolved.  Queries on a hot standby whose snapshots may not see
 * latest_committed conflict with it.
 */
typedef struct xl_topic_log_resolve
{
	uint64		resolved;		/* a TopicLogPosition */
	TransactionId latest_committed;
} xl_topic_log_resolve;

/*
 * XLOG_TOPIC_LOG_START: a segment without records (metapage block 0)
 * starts, and continues, at log_start.
 */
typedef struct xl_topic_log_start
{
	int64		log_start;
	TimestampTz max_timestamp;	/* timestamps continue after it */
} xl_topic_log_start;

/*
 * XLOG_TOPIC_LOG_STABLE: no page changes.  Written when wal_level is
 * logical by a transaction that produced into a partition, just before it
 * commits (and by the worker when a partition's stable offset or log start
 * moved with nobody producing): every record below stable_offset was
 * written by a transaction that has finished, or by this one, and the log
 * starts at log_start.  Decoding turns it into a marker row that
 * subscribers keep as a marker batch and that bounds their readers; a
 * subscriber's log starts where its publisher's does.
 */
typedef struct xl_topic_log_stable
{
	RelFileLocator router;
	int32		partition;
	int32		npartitions;	/* of the topic; subscribers must match */
	int64		stable_offset;
	int64		log_start;
} xl_topic_log_stable;

/* the record before log_start was added: the log start is not known */
#define SizeOfTopicLogStableNoStart	offsetof(xl_topic_log_stable, log_start)

/*
 * XLOG_TOPIC_LOG_REMOVED: no page changes.  Written when wal_level is
 * logical by the log cleaner's transaction for each segment it rewrote
 * (segment_rewrite.c): the offsets of the partition's records it removed,
 * as nranges half-open ranges [ranges[2i], ranges[2i+1]) of offsets no
 * kept record holds (a range may span offsets that were holes already).
 * Decoding turns it into a removal row; a subscriber removes the same
 * records from its own segments, whatever their layout (docs/replication.md).
 * A segment with more ranges than TOPIC_REMOVED_MAX_RANGES gets several.
 */
typedef struct xl_topic_log_removed
{
	RelFileLocator router;
	int32		partition;
	int32		npartitions;
	int32		nranges;
	int32		reserved;
	int64		ranges[FLEXIBLE_ARRAY_MEMBER];
} xl_topic_log_removed;

#define SizeOfTopicLogRemoved	offsetof(xl_topic_log_removed, ranges)
#define TOPIC_REMOVED_MAX_RANGES	512

/* An insert record taken apart */
typedef struct TopicInsertRecord
{
	uint8		flags;			/* XLTL_* */
	const xl_topic_log_router *router;	/* NULL if not logged */
	const xl_topic_log_page_start *start;	/* NULL unless INIT_PAGE */
	const char *batch;			/* MAXALIGNed */
	Size		len;
} TopicInsertRecord;

/* walredo.c */
extern void topic_insert_record_parse(XLogReaderState *record,
									  TopicInsertRecord *parsed);
extern void topic_redo(XLogReaderState *record);
extern void topic_desc(StringInfo buf, XLogReaderState *record);
extern const char *topic_identify(uint8 info);
extern void topic_mask(char *pagedata, BlockNumber blkno);

#endif							/* TOPIC_WAL_H */
