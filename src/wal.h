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
#define XLOG_TOPIC_LOG_OPMASK		0x70
#define XLOG_TOPIC_LOG_INIT_PAGE	0x80	/* the batch starts a new page */

/*
 * XLOG_TOPIC_LOG_INSERT: one batch appended to block 0.  The batch bytes,
 * exactly as they go on the page (hints zero), follow this header in the
 * main data, so a full-page image never hides them from decoding.
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

/* walredo.c */
extern void topic_wal_init(void);
extern void topic_redo(XLogReaderState *record);
extern void topic_desc(StringInfo buf, XLogReaderState *record);
extern const char *topic_identify(uint8 info);
extern void topic_mask(char *pagedata, BlockNumber blkno);

#endif							/* TOPIC_WAL_H */
