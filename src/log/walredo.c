/*-------------------------------------------------------------------------
 *
 * walredo.c
 *	  Redo, description and masking of topic_log's WAL records (the
 *	  resource manager's table is in pg_topics.c; decoding is
 *	  replication/decode.c).
 *
 * Redo of an insert runs topic_page_append_batch(), the very function the
 * primary runs in its critical section, so pages on a standby are the
 * primary's byte for byte except for hint bytes, which topic_mask()
 * hides from wal_consistency_checking.
 *
 * The resource manager must be registered while shared_preload_libraries
 * is processed, in the postmaster, so every process that may replay or
 * decode WAL (startup, walsenders, backends) has it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/bufmask.h"
#include "access/xlog_internal.h"
#include "access/xlogutils.h"
#include "storage/bufmgr.h"
#include "storage/standby.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/wal.h"

/*
 * Take an insert record apart (redo, description and decoding share it).
 * The batch is MAXALIGNed, copied if the record's data is not.
 */
void
topic_insert_record_parse(XLogReaderState *record, TopicInsertRecord *parsed)
{
	char	   *data = XLogRecGetData(record);
	Size		len = XLogRecGetDataLen(record);
	Size		pos = SizeOfTopicLogInsert;
	const xl_topic_log_insert *xlrec = (const xl_topic_log_insert *) data;

	if (len < SizeOfTopicLogInsert)
		elog(PANIC, "pg_topics WAL record is truncated");
	if (!TopicLogFormatVersionIsReadable(xlrec->version))
		elog(PANIC, "pg_topics WAL record has format version %u, expected %u to %u",
			 xlrec->version, TOPIC_LOG_MIN_FORMAT_VERSION,
			 TOPIC_LOG_FORMAT_VERSION);
	parsed->flags = xlrec->flags;
	parsed->router = NULL;
	parsed->start = NULL;
	if (xlrec->flags & XLTL_ROUTER)
	{
		parsed->router = (const xl_topic_log_router *) (data + pos);
		pos += sizeof(xl_topic_log_router);
	}
	if (xlrec->flags & XLTL_PAGE_START)
	{
		parsed->start = (const xl_topic_log_page_start *) (data + pos);
		pos += sizeof(xl_topic_log_page_start);
	}
	if (pos > len)
		elog(PANIC, "pg_topics WAL record is truncated");
	parsed->len = len - pos;
	parsed->batch = data + pos;
	if ((uintptr_t) data % MAXIMUM_ALIGNOF != 0)
	{
		char	   *copy = palloc(len);

		memcpy(copy, data, len);
		if (parsed->router)
			parsed->router = (const xl_topic_log_router *) (copy + ((const char *) parsed->router - data));
		if (parsed->start)
			parsed->start = (const xl_topic_log_page_start *) (copy + ((const char *) parsed->start - data));
		parsed->batch = copy + pos;
	}
}

static void
redo_insert(XLogReaderState *record, bool init_page)
{
	XLogRecPtr	lsn = record->EndRecPtr;
	Buffer		buffer;
	XLogRedoAction action;
	TopicInsertRecord parsed;
	xl_topic_log_page_start legacy_start;

	topic_insert_record_parse(record, &parsed);
	/* records written before page starts were logged begin the page afresh */
	if (init_page && parsed.start == NULL)
	{
		legacy_start.next_offset = 0;
		legacy_start.max_timestamp = DT_NOBEGIN;
		parsed.start = &legacy_start;
	}
	else if (!init_page)
		parsed.start = NULL;

	if (init_page)
	{
		buffer = XLogInitBufferForRedo(record, 0);
		action = BLK_NEEDS_REDO;
	}
	else
		action = XLogReadBufferForRedo(record, 0, &buffer);

	if (action == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buffer);

		topic_page_append_batch(page, parsed.batch, parsed.len, parsed.start);
		PageSetLSN(page, lsn);
		MarkBufferDirty(buffer);
	}
	if (BufferIsValid(buffer))
		UnlockReleaseBuffer(buffer);
}

static void
redo_mark_aborted(XLogReaderState *record)
{
	xl_topic_log_mark_aborted *xlrec = (xl_topic_log_mark_aborted *) XLogRecGetData(record);
	Buffer		buffer;

	if (XLogRecGetDataLen(record) < SizeOfTopicLogMarkAborted ||
		XLogRecGetDataLen(record) != SizeOfTopicLogMarkAborted +
		xlrec->nbatches * sizeof(uint16))
		elog(PANIC, "pg_topics redo: malformed mark-aborted record");

	if (XLogReadBufferForRedo(record, 0, &buffer) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buffer);

		if (!topic_page_set_aborted(page, xlrec->positions, xlrec->nbatches))
			elog(PANIC, "pg_topics redo: mark-aborted record names no batch");
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buffer);
	}
	if (BufferIsValid(buffer))
		UnlockReleaseBuffer(buffer);
}

static void
redo_resolve(XLogReaderState *record)
{
	xl_topic_log_resolve xlrec;
	Buffer		buffer;

	if (XLogRecGetDataLen(record) < sizeof(xlrec))
		elog(PANIC, "pg_topics redo: malformed resolve record");
	memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));

	/* as heap's freezing: cancel snapshots that see less, before the page */
	if (InHotStandby && TransactionIdIsValid(xlrec.latest_committed))
	{
		RelFileLocator rnode;

		XLogRecGetBlockTag(record, 0, &rnode, NULL, NULL);
#if PG_VERSION_NUM >= 160000
		/* topics are never catalog relations */
		ResolveRecoveryConflictWithSnapshot(xlrec.latest_committed, false,
											rnode);
#else
		ResolveRecoveryConflictWithSnapshot(xlrec.latest_committed, rnode);
#endif
	}

	if (XLogReadBufferForRedo(record, 0, &buffer) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buffer);

		topic_page_set_resolved(page, xlrec.resolved);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buffer);
	}
	if (BufferIsValid(buffer))
		UnlockReleaseBuffer(buffer);
}

static void
redo_log_start(XLogReaderState *record)
{
	xl_topic_log_start xlrec;
	Buffer		buffer;

	if (XLogRecGetDataLen(record) < sizeof(xlrec))
		elog(PANIC, "pg_topics redo: malformed log-start record");
	memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
	if (XLogReadBufferForRedo(record, 0, &buffer) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buffer);

		topic_page_set_log_start(page, xlrec.log_start, xlrec.max_timestamp);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buffer);
	}
	if (BufferIsValid(buffer))
		UnlockReleaseBuffer(buffer);
}

void
topic_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	switch (info & XLOG_TOPIC_LOG_OPMASK)
	{
		case XLOG_TOPIC_LOG_INSERT:
			redo_insert(record, (info & XLOG_TOPIC_LOG_INIT_PAGE) != 0);
			break;
		case XLOG_TOPIC_LOG_MARK_ABORTED:
			redo_mark_aborted(record);
			break;
		case XLOG_TOPIC_LOG_RESOLVE:
			redo_resolve(record);
			break;
		case XLOG_TOPIC_LOG_START:
			redo_log_start(record);
			break;
		case XLOG_TOPIC_LOG_STABLE:
		case XLOG_TOPIC_LOG_REMOVED:
			break;				/* for decoding only */
		default:
			elog(PANIC, "pg_topics redo: unknown op code %u", info);
	}
}

void
topic_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if ((info & XLOG_TOPIC_LOG_OPMASK) == XLOG_TOPIC_LOG_INSERT)
	{
		TopicInsertRecord parsed;
		TopicBatchHeaderData hdr;

		topic_insert_record_parse(record, &parsed);
		if (parsed.len < sizeof(hdr))
		{
			appendStringInfoString(buf, "truncated");
			return;
		}
		memcpy(&hdr, parsed.batch, sizeof(hdr));
		if (TopicBatchIsMarker(&hdr))
		{
			appendStringInfo(buf, "partition %d, stable offset marker " INT64_FORMAT,
							 hdr.partition, hdr.base_offset);
			if (hdr.length >= TOPIC_MARKER_LENGTH_WITH_START &&
				parsed.len >= TOPIC_MARKER_LENGTH_WITH_START)
				appendStringInfo(buf, ", log start " INT64_FORMAT,
								 topic_marker_log_start((const TopicBatchHeaderData *) parsed.batch));
		}
		else
			appendStringInfo(buf, "partition %d, %u records from offset " INT64_FORMAT
							 ", %u bytes",
							 hdr.partition, hdr.nrecords, hdr.base_offset,
							 hdr.length);
		if (parsed.flags & XLTL_LAST_IN_MULTI)
			appendStringInfoString(buf, ", last in multi");
		if (parsed.router)
			appendStringInfo(buf, ", partition relation %u/%u/%u",
							 RelFileLocatorSpcOid(parsed.router->node),
							 RelFileLocatorDbOid(parsed.router->node),
							 RelFileLocatorRelNumber(parsed.router->node));
	}
	else if ((info & XLOG_TOPIC_LOG_OPMASK) == XLOG_TOPIC_LOG_MARK_ABORTED)
	{
		xl_topic_log_mark_aborted *xlrec = (xl_topic_log_mark_aborted *) XLogRecGetData(record);

		appendStringInfo(buf, "%u batches", xlrec->nbatches);
	}
	else if ((info & XLOG_TOPIC_LOG_OPMASK) == XLOG_TOPIC_LOG_RESOLVE)
	{
		xl_topic_log_resolve xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		appendStringInfo(buf, "resolved to block %u position %zu, latest committed xid %u",
						 TopicLogPositionGetBlock(xlrec.resolved),
						 TopicLogPositionGetPos(xlrec.resolved),
						 xlrec.latest_committed);
	}
	else if ((info & XLOG_TOPIC_LOG_OPMASK) == XLOG_TOPIC_LOG_START)
	{
		xl_topic_log_start xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		appendStringInfo(buf, "log starts at offset " INT64_FORMAT, xlrec.log_start);
	}
	else if ((info & XLOG_TOPIC_LOG_OPMASK) == XLOG_TOPIC_LOG_STABLE)
	{
		xl_topic_log_stable xlrec;
		Size		len = XLogRecGetDataLen(record);

		if (len < SizeOfTopicLogStableNoStart)
		{
			appendStringInfoString(buf, "truncated");
			return;
		}
		xlrec.log_start = -1;
		memcpy(&xlrec, XLogRecGetData(record), Min(len, sizeof(xlrec)));
		appendStringInfo(buf, "partition %d of %d, stable offset " INT64_FORMAT
						 ", log start " INT64_FORMAT
						 ", partition relation %u/%u/%u",
						 xlrec.partition, xlrec.npartitions, xlrec.stable_offset,
						 xlrec.log_start,
						 RelFileLocatorSpcOid(xlrec.router), RelFileLocatorDbOid(xlrec.router),
						 RelFileLocatorRelNumber(xlrec.router));
	}
	else if ((info & XLOG_TOPIC_LOG_OPMASK) == XLOG_TOPIC_LOG_REMOVED)
	{
		xl_topic_log_removed xlrec;
		Size		len = XLogRecGetDataLen(record);

		if (len < SizeOfTopicLogRemoved)
		{
			appendStringInfoString(buf, "truncated");
			return;
		}
		memcpy(&xlrec, XLogRecGetData(record), SizeOfTopicLogRemoved);
		appendStringInfo(buf, "partition %d of %d, %d ranges of removed offsets"
						 ", partition relation %u/%u/%u",
						 xlrec.partition, xlrec.npartitions, xlrec.nranges,
						 RelFileLocatorSpcOid(xlrec.router), RelFileLocatorDbOid(xlrec.router),
						 RelFileLocatorRelNumber(xlrec.router));
	}
}

const char *
topic_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_TOPIC_LOG_INSERT:
			return "INSERT";
		case XLOG_TOPIC_LOG_INSERT | XLOG_TOPIC_LOG_INIT_PAGE:
			return "INSERT+INIT";
		case XLOG_TOPIC_LOG_MARK_ABORTED:
			return "MARK_ABORTED";
		case XLOG_TOPIC_LOG_RESOLVE:
			return "RESOLVE";
		case XLOG_TOPIC_LOG_START:
			return "LOG_START";
		case XLOG_TOPIC_LOG_STABLE:
			return "STABLE";
		case XLOG_TOPIC_LOG_REMOVED:
			return "REMOVED";
	}
	return NULL;
}

/*
 * Hide what may legitimately differ between primary and standby: LSN,
 * checksum, page-level hint bits, unused space and our batch hint bytes.
 */
void
topic_mask(char *pagedata, BlockNumber blkno)
{
	Page		page = (Page) pagedata;

	mask_page_lsn_and_checksum(page);
	mask_page_hint_bits(page);
	mask_unused_space(page);

	if (topic_page_is_data(page))
	{
		Size		pos = 0;
		TopicBatchHeader hdr;

		/* hints on the primary only */
		TopicLogPageGetOpaque(page)->flags &= ~TL_PAGE_HINTS;

		while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
			hdr->hints = 0;
	}
}
