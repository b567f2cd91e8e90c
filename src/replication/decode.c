/*-------------------------------------------------------------------------
 *
 * decode.c
 *	  Logical decoding of topic records: inserts into the partition, as
 *	  heap tuples, for any output plugin (pgoutput, test_decoding).
 *
 * rm_decode runs without catalog access, and everything after it (the
 * reorder buffer, TOAST reassembly, spilling, pgoutput) wants heap tuples
 * of the relation the change is filed under.  So:
 *
 * - A change is filed under the segment's partition (its router), whose
 *   relfilenode insert records carry when wal_level is logical: that is the
 *   relation publications name.  TOAST chunks are ordinary heap inserts
 *   into the segment's TOAST table; the reorder buffer collects them by
 *   value id whatever table they are in, and clears them only after the
 *   last record of an insert call (XLTL_LAST_IN_MULTI), as heap does.
 * - A topic's columns are fixed: int4, int8, timestamptz and three
 *   varlenas whose types (bytea, text, jsonb) all align on int and are
 *   stored extended.  heap_form_tuple() with a descriptor of the same
 *   physical attributes, built here once, writes exactly the bytes it
 *   writes with the topic's own descriptor (TAP test 014 checks what
 *   subscribers and test_decoding read back).
 * - A stable-offset record (XLOG_TOPIC_LOG_STABLE), or a subscriber's
 *   marker batch being passed on, becomes a marker row: the partition, the
 *   stable offset, timestamp 'infinity', no key or value, and headers
 *   {"pg_topics.log_start": l, "pg_topics.partitions": n} (without the log
 *   start when the record does not carry one).  docs/replication.md
 *   explains markers.
 * - The log cleaner's removals (XLOG_TOPIC_LOG_REMOVED) become a removal
 *   row: the partition, the first offset removed, timestamp 'infinity',
 *   no key or value, and headers {"pg_topics.removed": [first, end, ...],
 *   "pg_topics.partitions": n}, the half-open ranges of offsets removed.
 *
 * The order of the checks follows heap_decode() in decode.c, including
 * SnapBuildProcessChange() before the fast-forward test (which keeps a
 * fast-forwarding slot's catalog_xmin right).  Review it against core's on
 * every minor release.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "catalog/pg_type.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/origin.h"
#include "replication/reorderbuffer.h"
#include "replication/snapbuild.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/wal.h"
#include "pg_topics/replication/decode.h"

static TupleDesc physical_desc = NULL;
static MemoryContext decode_context = NULL;

static void
set_attribute(TupleDesc desc, AttrNumber attno, int16 len, bool byval,
			  char align, char storage)
{
	Form_pg_attribute att = TupleDescAttr(desc, attno - 1);

	memset(att, 0, ATTRIBUTE_FIXED_PART_SIZE);
	att->attnum = attno;
	att->attlen = len;
	att->attbyval = byval;
	att->attalign = align;
	att->attstorage = storage;
	att->atttypmod = -1;
#if PG_VERSION_NUM >= 180000
	/* 18's tuple forming reads the compact copy of each attribute */
	populate_compact_attribute(desc, attno - 1);
#endif
}

/* The physical shape of every topic's rows */
static TupleDesc
topic_physical_desc(void)
{
	if (physical_desc == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		TupleDesc	desc = CreateTemplateTupleDesc(Natts_topic);

		set_attribute(desc, Anum_topic_partition, sizeof(int32), true,
					  TYPALIGN_INT, TYPSTORAGE_PLAIN);
		set_attribute(desc, Anum_topic_offset, sizeof(int64), true,
					  TYPALIGN_DOUBLE, TYPSTORAGE_PLAIN);
		set_attribute(desc, Anum_topic_timestamp, sizeof(TimestampTz), true,
					  TYPALIGN_DOUBLE, TYPSTORAGE_PLAIN);
		set_attribute(desc, Anum_topic_key, -1, false,
					  TYPALIGN_INT, TYPSTORAGE_EXTENDED);
		set_attribute(desc, Anum_topic_value, -1, false,
					  TYPALIGN_INT, TYPSTORAGE_EXTENDED);
		set_attribute(desc, Anum_topic_headers, -1, false,
					  TYPALIGN_INT, TYPSTORAGE_EXTENDED);
		physical_desc = desc;
		decode_context = AllocSetContextCreate(TopMemoryContext,
											   "pg_topics decoding",
											   ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(old);
	}
	return physical_desc;
}

/* Queue tuple as an insert into the relation with relfilenode node */
static void
queue_insert(LogicalDecodingContext *ctx, XLogRecordBuffer *buf,
			 const RelFileLocator *node, HeapTuple tuple, bool clear_toast)
{
	XLogReaderState *r = buf->record;
	ReorderBufferChange *change;
	Size		datalen = tuple->t_len - SizeofHeapTupleHeader;
	HeapTuple	newtuple;
	HeapTupleHeader header;

	/*
	 * The change and its tuple as heap's DecodeInsert makes them: 17 made
	 * the change's tuple a plain HeapTuple (it was a ReorderBufferTupleBuf
	 * holding one), and 18 renamed the allocators.
	 */
#if PG_VERSION_NUM >= 180000
	change = ReorderBufferAllocChange(ctx->reorder);
	newtuple = ReorderBufferAllocTupleBuf(ctx->reorder, datalen);
	change->data.tp.newtuple = newtuple;
#elif PG_VERSION_NUM >= 170000
	change = ReorderBufferGetChange(ctx->reorder);
	newtuple = ReorderBufferGetTupleBuf(ctx->reorder, datalen);
	change->data.tp.newtuple = newtuple;
#else
	change = ReorderBufferGetChange(ctx->reorder);
	change->data.tp.newtuple = ReorderBufferGetTupleBuf(ctx->reorder, datalen);
	newtuple = &change->data.tp.newtuple->tuple;
#endif

	change->action = REORDER_BUFFER_CHANGE_INSERT;
	change->origin_id = XLogRecGetOrigin(r);
#if PG_VERSION_NUM >= 160000
	change->data.tp.rlocator = *node;
#else
	change->data.tp.relnode = *node;
#endif

	/* as heap's decoding rebuilds a logged tuple: header fields zeroed */
	newtuple->t_len = tuple->t_len;
	ItemPointerSetInvalid(&newtuple->t_self);
	newtuple->t_tableOid = InvalidOid;
	header = newtuple->t_data;
	memset(header, 0, SizeofHeapTupleHeader);
	memcpy((char *) header + SizeofHeapTupleHeader,
		   (char *) tuple->t_data + SizeofHeapTupleHeader, datalen);
	header->t_infomask = tuple->t_data->t_infomask | HEAP_XMAX_INVALID;
	header->t_infomask2 = tuple->t_data->t_infomask2;
	header->t_hoff = tuple->t_data->t_hoff;

	change->data.tp.clear_toast_afterwards = clear_toast;
	ReorderBufferQueueChange(ctx->reorder, XLogRecGetXid(r), buf->origptr,
							 change, false);
}

/* The marker row of a partition's stable offset and log start (or -1) */
static void
queue_marker(LogicalDecodingContext *ctx, XLogRecordBuffer *buf,
			 const RelFileLocator *node, int32 partition, int32 npartitions,
			 int64 stable_offset, int64 log_start, bool clear_toast)
{
	Datum		values[Natts_topic];
	bool		nulls[Natts_topic];
	char		headers[128];

	if (log_start >= 0)
		snprintf(headers, sizeof(headers),
				 "{\"pg_topics.log_start\": " INT64_FORMAT ", \"pg_topics.partitions\": %d}",
				 log_start, npartitions);
	else
		snprintf(headers, sizeof(headers), "{\"pg_topics.partitions\": %d}",
				 npartitions);
	memset(nulls, 0, sizeof(nulls));
	values[Anum_topic_partition - 1] = Int32GetDatum(partition);
	values[Anum_topic_offset - 1] = Int64GetDatum(stable_offset);
	values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(TOPIC_MARKER_TIMESTAMP);
	nulls[Anum_topic_key - 1] = true;
	nulls[Anum_topic_value - 1] = true;
	values[Anum_topic_headers - 1] = DirectFunctionCall1(jsonb_in,
														 CStringGetDatum(headers));
	queue_insert(ctx, buf, node,
				 heap_form_tuple(topic_physical_desc(), values, nulls),
				 clear_toast);
}

/* The records (or the marker) of an insert record */
static void
decode_insert(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	TopicInsertRecord parsed;
	const TopicBatchHeaderData *hdr;
	TupleDesc	desc = topic_physical_desc();
	RelFileLocator segment;
	TopicBatchBuffer inflated = {NULL, 0};
	const char *bytes;
	Size		end;
	Size		pos;
	int			i;

	XLogRecGetBlockTag(r, 0, &segment, NULL, NULL);
	if (RelFileLocatorDbOid(segment) != ctx->slot->data.database)
		return;

	topic_insert_record_parse(r, &parsed);
	if (parsed.router == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("topic record at %X/%X cannot be decoded",
						LSN_FORMAT_ARGS(buf->origptr)),
				 errdetail("It was written while wal_level was below logical.")));
	hdr = (const TopicBatchHeaderData *) parsed.batch;

	if (TopicBatchIsMarker(hdr))
	{
		/*
		 * A subscriber passes its publisher's markers on.  Records after it
		 * in the same insert call may still need their TOAST chunks.
		 */
		queue_marker(ctx, buf, &parsed.router->node, hdr->partition,
					 (int32) hdr->reserved, hdr->base_offset,
					 topic_marker_log_start(hdr),
					 (parsed.flags & XLTL_LAST_IN_MULTI) != 0);
		return;
	}

	/* a compressed batch's records travel compressed in WAL */
	bytes = topic_batch_records(hdr, &inflated, &end);
	pos = topic_batch_records_start(hdr);
	for (i = 0; i < hdr->nrecords; i++)
	{
		TopicRecord rec;
		Datum		values[Natts_topic];
		bool		nulls[Natts_topic];
		Pointer		fields[3];
		int			f;

		if (!topic_record_decode(bytes, &pos, end, hdr, i, &rec))
			elog(ERROR, "topic record %d of the batch at %X/%X does not decode",
				 i, LSN_FORMAT_ARGS(buf->origptr));
		values[Anum_topic_partition - 1] = Int32GetDatum(hdr->partition);
		nulls[Anum_topic_partition - 1] = false;
		values[Anum_topic_offset - 1] = Int64GetDatum(rec.offset);
		nulls[Anum_topic_offset - 1] = false;
		values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(rec.timestamp);
		nulls[Anum_topic_timestamp - 1] = false;
		fields[0] = rec.key;
		fields[1] = rec.value;
		fields[2] = rec.headers;
		for (f = 0; f < 3; f++)
		{
			nulls[Anum_topic_key - 1 + f] = (fields[f] == NULL);
			values[Anum_topic_key - 1 + f] = PointerGetDatum(fields[f]);
		}
		queue_insert(ctx, buf, &parsed.router->node,
					 heap_form_tuple(desc, values, nulls),
					 (parsed.flags & XLTL_LAST_IN_MULTI) &&
					 i == hdr->nrecords - 1);
	}
	topic_batch_buffer_free(&inflated);
}

static void
decode_stable(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	xl_topic_log_stable xlrec;
	Size		len = XLogRecGetDataLen(buf->record);

	if (len < SizeOfTopicLogStableNoStart)
		elog(ERROR, "pg_topics stable-offset record at %X/%X is truncated",
			 LSN_FORMAT_ARGS(buf->origptr));
	/* a record of an earlier version does not carry the log start */
	xlrec.log_start = -1;
	memcpy(&xlrec, XLogRecGetData(buf->record), Min(len, sizeof(xlrec)));
	if (RelFileLocatorDbOid(xlrec.router) != ctx->slot->data.database)
		return;
	/* written at pre-commit, after every insert call of the transaction */
	queue_marker(ctx, buf, &xlrec.router, xlrec.partition, xlrec.npartitions,
				 xlrec.stable_offset, xlrec.log_start, true);
}

/*
 * The log cleaner's removals: a removal row, the partition, the first
 * offset removed, timestamp 'infinity', no key or value, and headers
 * {"pg_topics.removed": [first, end, ...], "pg_topics.partitions": n}
 */
static void
decode_removed(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	xl_topic_log_removed xlrec;
	const char *data = XLogRecGetData(buf->record);
	Size		len = XLogRecGetDataLen(buf->record);
	StringInfoData headers;
	Datum		values[Natts_topic];
	bool		nulls[Natts_topic];
	int64		first = 0;

	if (len < SizeOfTopicLogRemoved)
		elog(ERROR, "pg_topics removal record at %X/%X is truncated",
			 LSN_FORMAT_ARGS(buf->origptr));
	memcpy(&xlrec, data, SizeOfTopicLogRemoved);
	if (xlrec.nranges <= 0 ||
		len < SizeOfTopicLogRemoved + sizeof(int64) * 2 * xlrec.nranges)
		elog(ERROR, "pg_topics removal record at %X/%X is truncated",
			 LSN_FORMAT_ARGS(buf->origptr));
	if (RelFileLocatorDbOid(xlrec.router) != ctx->slot->data.database)
		return;

	initStringInfo(&headers);
	appendStringInfoString(&headers, "{\"pg_topics.removed\": [");
	for (int i = 0; i < 2 * xlrec.nranges; i++)
	{
		int64		offset;

		memcpy(&offset, data + SizeOfTopicLogRemoved + sizeof(int64) * i,
			   sizeof(int64));
		if (i == 0)
			first = offset;
		appendStringInfo(&headers, "%s" INT64_FORMAT, i > 0 ? ", " : "",
						 offset);
	}
	appendStringInfo(&headers, "], \"pg_topics.partitions\": %d}",
					 xlrec.npartitions);

	memset(nulls, 0, sizeof(nulls));
	values[Anum_topic_partition - 1] = Int32GetDatum(xlrec.partition);
	values[Anum_topic_offset - 1] = Int64GetDatum(first);
	values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(TOPIC_MARKER_TIMESTAMP);
	nulls[Anum_topic_key - 1] = true;
	nulls[Anum_topic_value - 1] = true;
	values[Anum_topic_headers - 1] = DirectFunctionCall1(jsonb_in,
														 CStringGetDatum(headers.data));
	/* the cleaner's transaction inserts nothing after it */
	queue_insert(ctx, buf, &xlrec.router,
				 heap_form_tuple(topic_physical_desc(), values, nulls), true);
}

void
topic_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	TransactionId xid = XLogRecGetXid(r);
	uint8		op = XLogRecGetInfo(r) & XLOG_TOPIC_LOG_OPMASK;
	MemoryContext old;

	ReorderBufferProcessXid(ctx->reorder, xid, buf->origptr);

	/* freezing, log starts and flags change nothing a subscriber sees */
	if (op != XLOG_TOPIC_LOG_INSERT && op != XLOG_TOPIC_LOG_STABLE &&
		op != XLOG_TOPIC_LOG_REMOVED)
		return;
	if (SnapBuildCurrentState(ctx->snapshot_builder) < SNAPBUILD_FULL_SNAPSHOT)
		return;
	if (!SnapBuildProcessChange(ctx->snapshot_builder, xid, buf->origptr))
		return;
	if (ctx->fast_forward)
		return;
	if (ctx->callbacks.filter_by_origin_cb != NULL &&
		filter_by_origin_cb_wrapper(ctx, XLogRecGetOrigin(r)))
		return;

	(void) topic_physical_desc();
	old = MemoryContextSwitchTo(decode_context);
	if (op == XLOG_TOPIC_LOG_INSERT)
		decode_insert(ctx, buf);
	else if (op == XLOG_TOPIC_LOG_STABLE)
		decode_stable(ctx, buf);
	else
		decode_removed(ctx, buf);
	MemoryContextSwitchTo(old);
	MemoryContextReset(decode_context);
}
