/*-------------------------------------------------------------------------
 *
 * insert.c
 *	  The insert path of topic_log: slots in, batches on the tail page out.
 *
 * One call (a single INSERT row, or a COPY/produce buffer of many) becomes
 * one batch per page it touches, in the LIVE segment; a call that makes
 * the segment reach its size (TOAST included) goes on in the next one, so
 * that no call makes a segment much larger than its share of the topic's
 * retention_bytes.  All per-record work that can fail or
 * allocate happens first, without any buffer lock: reading the slots,
 * the placeholder and preserve-mode rules, the size limit, TOAST.  Then the
 * tail page is locked, offsets and the timestamp are assigned from it, the
 * records are encoded into a page-sized scratch batch, and storage.c
 * appends each batch in a critical section.
 *
 * Offsets come from the tail page, so they are dense and in page order no
 * matter how concurrent producers interleave.  The timestamp is the
 * log-append time of the call, never lower than the newest timestamp
 * already in the log.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/hio.h"
#include "access/relation.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "pgstat.h"
#include "replication/logicalworker.h"
#include "storage/predicate.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "pg_topics/am/insert.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/segments/live.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/registry.h"

TopicPositionsArrivedHook topic_positions_arrived_hook = NULL;

/* One record, ready to encode */
typedef struct PreparedRecord
{
	bool		marker;			/* a replicated stable-offset marker */
	int32		npartitions;	/* of a marker: the publisher's topic */
	int64		log_start;		/* of a marker: the publisher's, or -1 */
	int32		partition;
	int64		offset;			/* supplied (preserve mode) or placeholder */
	TimestampTz timestamp;		/* supplied (preserve mode) or placeholder */
	struct varlena *field[3];	/* key, value, headers; NULL when NULL */
} PreparedRecord;

/*
 * Refuse a key, value or headers over limit: pg_topics.max_message_bytes,
 * or the lower max.message.bytes of the topic named topic_name
 */
static void
refuse_too_large(int field, Size rawsize, int64 limit, const char *topic_name)
{
	if (topic_name != NULL)
	{
		static const char *const fields[] = {"key", "value", "headers"};

		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %zu bytes is larger than max.message.bytes of topic \"%s\" (" INT64_FORMAT " bytes)",
						fields[field], rawsize, topic_name, limit)));
	}
	switch (field)
	{
		case 0:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("key of %zu bytes is larger than pg_topics.max_message_bytes (%d bytes)",
							rawsize, (int) limit)));
			break;
		case 1:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("value of %zu bytes is larger than pg_topics.max_message_bytes (%d bytes)",
							rawsize, (int) limit)));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("headers of %zu bytes are larger than pg_topics.max_message_bytes (%d bytes)",
							rawsize, (int) limit)));
	}
}

/* Refuse a log-assigned column that the caller supplied */
static void
refuse_supplied_column(const char *column)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("column \"%s\" of a topic is assigned by the log", column),
			 errdetail("Producers supply only key, value and headers."),
			 errhint("Leave out the \"%s\" column.  To restore or replicate records with their offsets and timestamps, set session_replication_role to replica.",
					 column)));
}

/* Bytes of the record's fields as stored inline (an upper bound) */
static Size
inline_size(PreparedRecord *rec)
{
	Size		size = TOPIC_RECORD_MAX_OVERHEAD;
	int			f;

	for (f = 0; f < 3; f++)
		if (rec->field[f])
			size += VARSIZE_ANY(rec->field[f]) + sizeof(int32);
	return size;
}

/*
 * Keep the record's inline image below the TOAST threshold: compress the
 * largest field, then move the largest to the TOAST table, as heap does.
 */
static void
toast_record(Relation rel, PreparedRecord *rec)
{
	bool		tried_compress[3] = {false, false, false};

	while (inline_size(rec) > TOPIC_LOG_TOAST_THRESHOLD)
	{
		int			largest = -1;
		int			f;
		bool		compress;

		/* first pass: compress; second: move out */
		for (compress = true;; compress = false)
		{
			Size		largest_size = 0;

			for (f = 0; f < 3; f++)
			{
				struct varlena *v = rec->field[f];

				if (v == NULL || VARATT_IS_EXTERNAL(v))
					continue;
				if (compress && (tried_compress[f] || VARATT_IS_COMPRESSED(v)))
					continue;
				if (VARSIZE_ANY(v) > largest_size && VARSIZE_ANY(v) > 64)
				{
					largest = f;
					largest_size = VARSIZE_ANY(v);
				}
			}
			if (largest >= 0 || !compress)
				break;
		}
		if (largest < 0)
			elog(ERROR, "topic record cannot be made small enough for a page");

		if (compress)
		{
			Form_pg_attribute att =
				TupleDescAttr(RelationGetDescr(rel), Anum_topic_key - 1 + largest);
			char		cmethod = att->attcompression;
			Datum		compressed;

			if (!CompressionMethodIsValid(cmethod))
				cmethod = default_toast_compression;
			tried_compress[largest] = true;
			compressed = toast_compress_datum(PointerGetDatum(rec->field[largest]),
											  cmethod);
			if (DatumGetPointer(compressed) != NULL)
				rec->field[largest] = (struct varlena *) DatumGetPointer(compressed);
		}
		else
			rec->field[largest] = (struct varlena *)
				DatumGetPointer(toast_save_datum(rel,
												 PointerGetDatum(rec->field[largest]),
												 NULL, 0));
	}
}

/* The numeric value of header name in headers, or NULL */
static JsonbValue *
marker_header(Jsonb *headers, const char *name)
{
	JsonbValue	key;
	JsonbValue *value;

	key.type = jbvString;
	key.val.string.val = (char *) name;
	key.val.string.len = strlen(name);
	value = findJsonbValueFromContainer(&headers->root, JB_FOBJECT, &key);
	return value != NULL && value->type == jbvNumeric ? value : NULL;
}

/*
 * A marker row from a publisher (docs/replication.md): its headers carry the
 * publisher's partition count, which must be ours, or keys would land in
 * different partitions on the two sides, and the publisher's log start,
 * which becomes ours.
 */
static void
check_marker(Relation rel, PreparedRecord *rec)
{
	Jsonb	   *headers = DatumGetJsonbP(PointerGetDatum(rec->field[2]));
	JsonbValue *count;
	JsonbValue *start;
	Oid			topic_oid;
	Relation	topic;
	int32		ours;

	count = marker_header(headers, "pg_topics.partitions");
	if (count == NULL)
	{
		rec->marker = false;	/* an ordinary record after all */
		return;
	}
	rec->npartitions = DatumGetInt32(DirectFunctionCall1(numeric_int4,
														 NumericGetDatum(count->val.numeric)));
	start = marker_header(headers, "pg_topics.log_start");
	rec->log_start = -1;
	if (start != NULL)
	{
		rec->log_start = DatumGetInt64(DirectFunctionCall1(numeric_int8,
														   NumericGetDatum(start->val.numeric)));
		if (rec->log_start < 0 || rec->log_start >= TOPIC_OFFSET_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("log start %lld of a stable-offset marker is out of range",
							(long long) rec->log_start),
					 errdetail("Offsets run from 0 to %lld.",
							   (long long) TOPIC_OFFSET_MAX - 1)));
	}
	topic_oid = topic_registry_topic_of(rel);
	if (!OidIsValid(topic_oid))
		return;
	topic = relation_open(topic_oid, AccessShareLock);
	ours = topic_partition_count(topic);
	if (ours != rec->npartitions)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("topic \"%s\" has %d partitions here but %d on its publisher",
						RelationGetRelationName(topic), ours, rec->npartitions),
				 errdetail("Logical replication of a topic needs the same partition count on both sides, so that every key stays in its partition."),
				 errhint("Give both topics the same number of partitions with topics.add_partitions(), then let the subscription retry.")));
	relation_close(topic, AccessShareLock);
}

/*
 * The producer-facing rules of the row in slot: a partition, an offset and
 * a timestamp only in preserve mode (and then an offset in range), a key,
 * value and headers within limit bytes (from_topic: the topic's
 * max.message.bytes, which check_rows found)
 */
static void
check_row(Relation rel, TupleTableSlot *slot, bool preserve, int64 limit,
		  bool from_topic)
{
	int			f;

	slot_getallattrs(slot);

	if (slot->tts_isnull[Anum_topic_partition - 1])
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("null value in column \"partition\" of relation \"%s\" violates not-null constraint",
						RelationGetRelationName(rel)),
				 errtablecol(rel, Anum_topic_partition)));

	if (!preserve)
	{
		if (!slot->tts_isnull[Anum_topic_offset - 1] &&
			DatumGetInt64(slot->tts_values[Anum_topic_offset - 1]) != TOPIC_OFFSET_PLACEHOLDER)
			refuse_supplied_column("offset");
		if (!slot->tts_isnull[Anum_topic_timestamp - 1] &&
			DatumGetTimestampTz(slot->tts_values[Anum_topic_timestamp - 1]) != TOPIC_TIMESTAMP_PLACEHOLDER)
			refuse_supplied_column("timestamp");
	}
	else if (!slot->tts_isnull[Anum_topic_offset - 1])
	{
		int64		offset = DatumGetInt64(slot->tts_values[Anum_topic_offset - 1]);

		if (offset < TOPIC_OFFSET_PLACEHOLDER || offset >= TOPIC_OFFSET_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("offset %lld is out of range", (long long) offset),
					 errdetail("Offsets run from 0 to %lld.",
							   (long long) TOPIC_OFFSET_MAX - 1)));
	}

	for (f = 0; f < 3; f++)
	{
		int			attno = Anum_topic_key + f;
		Size		rawsize;

		if (slot->tts_isnull[attno - 1])
			continue;
		rawsize = toast_raw_datum_size(slot->tts_values[attno - 1]) - VARHDRSZ;
		if (rawsize > (Size) limit)
			refuse_too_large(f, rawsize, limit,
							 from_topic ? get_rel_name(topic_registry_topic_of(rel)) : NULL);
	}
}

/*
 * A record without a key for a compacted topic: refused as Kafka refuses it
 * (INVALID_RECORD, "Compacted topic cannot accept message without key").
 * The cleaner keeps the newest record of each key; a keyless record has no
 * newer one, so it would stay in the log forever.  not_null_violation: the
 * key column is required of this topic's records, as a NOT NULL column's
 * values are.
 */
void
topic_insert_refuse_keyless(Relation rel)
{
	Oid			topic = topic_registry_topic_of(rel);

	ereport(ERROR,
			(errcode(ERRCODE_NOT_NULL_VIOLATION),
			 errmsg("a record for compacted topic \"%s\" needs a key",
					OidIsValid(topic) ? get_rel_name(topic) :
					RelationGetRelationName(rel)),
			 errdetail("cleanup.policy includes compact: the log keeps the newest record of each key."),
			 errtablecol(rel, Anum_topic_key)));
}

/*
 * The rules of check_row for nslots rows, within pg_topics.max_message_bytes
 * and, but in preserve mode, the topic's max.message.bytes and its need of
 * a key: looked up once for them all (two hash lookups a row were a few
 * percent of a Kafka Produce's time).  Records restored or replicated
 * (preserve mode) were taken under the rules of their time and place: the
 * publisher's log is what it is.
 */
static void
check_rows(Relation rel, TupleTableSlot **slots, int nslots, bool preserve)
{
	TopicProducerRules rules;

	if (nslots <= 0)
		return;

	if (preserve)
	{
		rules.max_message_bytes = pg_topics_max_message_bytes;
		rules.limit_from_topic = false;
		rules.needs_key = false;
	}
	else
		topic_config_producer_rules(topic_registry_topic_of(rel), &rules);
	for (int i = 0; i < nslots; i++)
		check_row(rel, slots[i], preserve, rules.max_message_bytes,
				  rules.limit_from_topic);
	/* apart, so that the loop above is the same for other topics */
	if (rules.needs_key)
		for (int i = 0; i < nslots; i++)
			if (slots[i]->tts_isnull[Anum_topic_key - 1])
				topic_insert_refuse_keyless(rel);
}

/*
 * The rules of check_row for the row in slot.  The insert buffer checks a
 * row here when it is inserted, so that the rules of that moment apply,
 * not those of when it is written.
 */
void
topic_insert_check_row(Relation rel, TupleTableSlot *slot, bool preserve)
{
	check_rows(rel, &slot, 1, preserve);
}

/* Read one slot into rec; topic_insert_check_row has passed it */
static void
prepare_record(Relation rel, TupleTableSlot *slot, bool any_order,
			   PreparedRecord *rec)
{
	int			f;

	slot_getallattrs(slot);

	rec->partition = DatumGetInt32(slot->tts_values[Anum_topic_partition - 1]);
	rec->offset = TOPIC_OFFSET_PLACEHOLDER;
	if (!slot->tts_isnull[Anum_topic_offset - 1])
		rec->offset = DatumGetInt64(slot->tts_values[Anum_topic_offset - 1]);
	rec->timestamp = TOPIC_TIMESTAMP_PLACEHOLDER;
	if (!slot->tts_isnull[Anum_topic_timestamp - 1])
		rec->timestamp = DatumGetTimestampTz(slot->tts_values[Anum_topic_timestamp - 1]);

	for (f = 0; f < 3; f++)
	{
		int			attno = Anum_topic_key + f;
		struct varlena *v;

		if (slot->tts_isnull[attno - 1])
		{
			rec->field[f] = NULL;
			continue;
		}
		v = (struct varlena *) DatumGetPointer(slot->tts_values[attno - 1]);
		/* values toasted elsewhere, indirect or expanded: bring them inline */
		if (VARATT_IS_EXTERNAL(v))
			v = detoast_external_attr(v);
		rec->field[f] = v;
	}

	/* only a subscription's worker receives markers */
	rec->log_start = -1;
	rec->marker = any_order && rec->timestamp == TOPIC_MARKER_TIMESTAMP &&
		rec->field[0] == NULL && rec->field[1] == NULL &&
		rec->field[2] != NULL && rec->offset >= 0;
	if (rec->marker)
		check_marker(rel, rec);
}

/* Does any record of the call carry a supplied offset or timestamp? */
static bool
any_supplied(PreparedRecord *recs, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (recs[i].offset != TOPIC_OFFSET_PLACEHOLDER ||
			recs[i].timestamp != TOPIC_TIMESTAMP_PLACEHOLDER)
			return true;
	return false;
}

/*
 * Encode marker rec into batch, a batch of its own without records; the
 * publisher's log start follows its header, for the subscribers of this
 * log.  Returns 0 if it does not fit on the tail page, else 1 with the
 * batch length in *len.
 */
static int
fill_marker_batch(TopicTail *tail, PreparedRecord *rec, char *batch,
				  Size *len, int64 *offset, TimestampTz *timestamp)
{
	TopicBatchHeader hdr = (TopicBatchHeader) batch;
	Size		length = rec->log_start >= 0 ?
		TOPIC_MARKER_LENGTH_WITH_START : sizeof(TopicBatchHeaderData);

	if (MAXALIGN(length) > tail->free_bytes)
		return 0;
	hdr->flags = TB_STABLE;
	hdr->base_offset = rec->offset;
	hdr->base_timestamp = tail->max_timestamp;
	hdr->reserved = (uint32) rec->npartitions;
	hdr->length = length;
	if (rec->log_start >= 0)
		memcpy(batch + sizeof(TopicBatchHeaderData),
			   &rec->log_start, sizeof(int64));
	*offset = rec->offset;
	*timestamp = rec->timestamp;
	*len = hdr->length;
	return 1;
}

/*
 * The offset and timestamp of rec, the next record of a batch after prev
 * (the previous record's offset, or -1 for the batch's first): assigned
 * after next and newest, or supplied in preserve mode.  False if rec must
 * start a new batch instead.
 */
static bool
record_position(Relation rel, PreparedRecord *rec, bool keep_supplied,
				bool any_order, int64 next, TimestampTz newest,
				TimestampTz append_time, int64 prev, int64 *offset,
				TimestampTz *ts)
{
	*offset = next;
	*ts = append_time;
	if (keep_supplied && rec->offset != TOPIC_OFFSET_PLACEHOLDER &&
		any_order && rec->offset < next)
	{
		/*
		 * A subscription's worker: records arrive in the publisher's commit
		 * order, not offset order.  Offsets only grow within a batch, so an
		 * earlier one starts the next batch.
		 */
		if (prev >= 0 && rec->offset < prev + 1)
			return false;
		*offset = rec->offset;
	}
	else if (keep_supplied && rec->offset != TOPIC_OFFSET_PLACEHOLDER)
	{
		if (rec->offset < next)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("offset %lld is below the end of the log of \"%s\" (%lld)",
							(long long) rec->offset, RelationGetRelationName(rel),
							(long long) next),
					 errdetail("In preserve mode records must arrive in offset order, above the records already there.")));
		*offset = rec->offset;
	}
	else if (next >= TOPIC_OFFSET_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("partition \"%s\" has used up its offsets",
						RelationGetRelationName(rel)),
				 errdetail("Offsets run from 0 to %lld.",
						   (long long) TOPIC_OFFSET_MAX - 1)));
	/* an assigned timestamp follows supplied ones too */
	*ts = Max(*ts, newest);
	if (keep_supplied && rec->timestamp != TOPIC_TIMESTAMP_PLACEHOLDER)
	{
		if (rec->timestamp < newest && !any_order)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("timestamp of offset %lld is older than the newest record of \"%s\"",
							(long long) *offset, RelationGetRelationName(rel)),
					 errdetail("Timestamps never decrease along a partition's log.")));
		*ts = rec->timestamp;
	}
	return true;
}

/*
 * Encode as many records from recs[first..n) as fit on the tail page into
 * batch, all of one partition; returns how many, and the batch length in
 * *len.  Offsets and timestamps are assigned here, under the tail lock.
 */
static int
fill_batch(Relation rel, TopicTail *tail, PreparedRecord *recs, int first,
		   int n, bool keep_supplied, bool any_order, TimestampTz now,
		   TransactionId xid, CommandId cid, TopicBatchProducerData *producer,
		   char *batch, Size *len, int64 *offsets, TimestampTz *timestamps)
{
	TopicBatchHeader hdr = (TopicBatchHeader) batch;
	uint8		flags = keep_supplied ? 0 : (TB_CONTIGUOUS | TB_SAME_TIMESTAMP);
	TimestampTz append_time = Max(now, tail->max_timestamp);
	int64		next = tail->next_offset;
	TimestampTz newest = tail->max_timestamp;
	Size		pos;
	int			count = 0;

	memset(hdr, 0, sizeof(TopicBatchHeaderData));
	hdr->xid = xid;
	hdr->cid = cid;
	hdr->partition = recs[first].partition;

	if (recs[first].marker)
		return fill_marker_batch(tail, &recs[first], batch, len,
								 &offsets[first], &timestamps[first]);

	/* an idempotent producer's records carry its batch's description */
	if (producer != NULL)
		flags |= TB_PRODUCER;
	hdr->flags = flags;
	pos = topic_batch_records_start(hdr);

	while (first + count < n && count < tail->free_records)
	{
		PreparedRecord *rec = &recs[first + count];
		int64		offset;
		TimestampTz ts;
		Size		end;

		if (rec->partition != hdr->partition || rec->marker)
			break;
		if (!record_position(rel, rec, keep_supplied, any_order, next, newest,
							 append_time,
							 count > 0 ? offsets[first + count - 1] : -1,
							 &offset, &ts))
			break;
		if (count == 0)
		{
			hdr->base_offset = offset;
			hdr->base_timestamp = ts;
		}

		end = topic_record_encoded_size(pos, flags, offset - hdr->base_offset,
										ts - hdr->base_timestamp,
										rec->field[0], rec->field[1],
										rec->field[2]);
		if (MAXALIGN(end) > tail->free_bytes)
			break;
		pos = topic_record_encode(batch, pos, flags, offset - hdr->base_offset,
								  ts - hdr->base_timestamp, rec->field[0],
								  rec->field[1], rec->field[2]);
		Assert(pos == end);
		offsets[first + count] = offset;
		timestamps[first + count] = ts;
		next = Max(next, offset + 1);
		newest = Max(newest, ts);
		count++;
	}

	if (producer != NULL && count > 0)
	{
		/* dense (topic_writer): the first batch's first offset is the base */
		if (producer->first_offset < 0)
			producer->first_offset = hdr->base_offset;
		Assert(hdr->base_offset >= producer->first_offset &&
			   hdr->base_offset + count <= producer->first_offset + producer->count);
		memcpy(batch + sizeof(TopicBatchHeaderData), producer,
			   sizeof(TopicBatchProducerData));
	}
	hdr->length = pos;
	hdr->nrecords = count;
	*len = pos;
	return count;
}

/* Show the log-assigned values and the TID in the caller's slot */
static void
fill_slot(Relation rel, TupleTableSlot *slot, int64 offset, TimestampTz ts,
		  BlockNumber blkno, int index)
{
	if (slot->tts_ops == &TTSOpsVirtual)
	{
		slot->tts_values[Anum_topic_offset - 1] = Int64GetDatum(offset);
		slot->tts_isnull[Anum_topic_offset - 1] = false;
		slot->tts_values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(ts);
		slot->tts_isnull[Anum_topic_timestamp - 1] = false;
	}
	ItemPointerSet(&slot->tts_tid, blkno, index);
	slot->tts_tableOid = RelationGetRelid(rel);
}

/* Did preparing rec move a field out to the TOAST table? */
static bool
moved_to_toast(const PreparedRecord *rec)
{
	int			f;

	for (f = 0; f < 3; f++)
		if (rec->field[f] != NULL && VARATT_IS_EXTERNAL_ONDISK(rec->field[f]))
			return true;
	return false;
}

/*
 * Prepare the records from first on for segment seg, TOASTing their large
 * fields into it, as many as the segment's size leaves room for (limit
 * blocks; 0: no limit), and at least one.  Returns where the chunk ends;
 * *due says whether the segment reaches its size with it.  The size is the
 * segment's whole size on disk up to its tail, TOAST included
 * (topic_segment_used_blocks: measured after each record that moved values
 * there, the only ones that grow it), plus the encoded
 * size of the chunk's records: a call of any size, and records of any size,
 * never make one segment much larger than its share of retention_bytes.
 */
static int
prepare_chunk(Relation router, Relation seg, TupleTableSlot **slots,
			  int first, int nslots, bool any_order,
			  PreparedRecord *recs, BlockNumber limit, bool *due)
{
	BlockNumber main_blocks = topic_live_nblocks(seg);
	BlockNumber disk_blocks = 0;
	Size		inline_bytes = 0;
	int			i;

	*due = false;
	for (i = first; i < nslots; i++)
	{
		prepare_record(router, slots[i], any_order, &recs[i]);
		toast_record(seg, &recs[i]);
		if (limit == 0)
			continue;
		inline_bytes += inline_size(&recs[i]);
		if (moved_to_toast(&recs[i]))
			disk_blocks = topic_segment_used_blocks(seg, false);
		if (Max(main_blocks, disk_blocks) + inline_bytes / TOPIC_LOG_PAGE_CAPACITY >= limit)
		{
			*due = true;
			return i + 1;
		}
	}
	return nslots;
}

/*
 * Open the LIVE segment of router (segments/live.c), prepare the records
 * from first on for it (up to *end, see prepare_chunk: at its limit), and
 * lock its tail in *tail.  The records are prepared (and TOASTed into
 * that segment) first, without any buffer lock; if the segment stopped
 * being LIVE meanwhile (another writer rolled), they are prepared again
 * for the next one.
 */
static void
lock_live_segment(Relation router, TupleTableSlot **slots, int first,
				  int nslots, const TopicLiveSlack *slack, bool any_order,
				  bool dense, PreparedRecord *recs, TopicTail *tail,
				  BufferAccessStrategy strategy, TopicLiveSegment *live,
				  int *end, bool *due)
{
	do
	{
		topic_live_open(router, slack, dense, live);
		*end = prepare_chunk(router, live->seg, slots, first, nslots,
							 any_order, recs, live->limit, due);
	} while (!topic_live_lock(router, live, tail, strategy));
}

/*
 * Move the log start of replica rel to its publisher's, as the markers
 * among recs carry it: the records below it are gone on the publisher
 * (retention, delete_records, or never committed there), so a consumer
 * that moves between the two finds the same range of offsets.  Like
 * delete_records, not transactional: the publisher's log start never moves
 * back, so a retried apply moves it to the same place.  The segments below
 * go at the worker's next round.
 */
static void
follow_log_start(Relation rel, PreparedRecord *recs, int nslots)
{
	int64		start = -1;
	TopicLogEnd end;
	int			i;

	for (i = 0; i < nslots; i++)
		if (recs[i].marker)
			start = Max(start, recs[i].log_start);
	if (start < 0)
		return;
	topic_log_end(rel, &end);
	if (start < end.log_start_offset || start == 0)
		return;
	/* never past the end, which the marker's stable offset moved */
	if (start > end.log_start_offset)
		topic_segdir_advance_start(rel, start, end.next_offset);

	/*
	 * Record it for pg_dump also when the metapage is there already: an
	 * earlier attempt of this apply may have moved it and then failed,
	 * taking its record along (an unchanged start writes nothing)
	 */
	topic_log_start_record(rel);
}

/* What the steps of one topic_insert call share */
typedef struct InsertCall
{
	MemoryContext context;		/* everything of the call but the slots */
	MemoryContext oldcontext;
	PreparedRecord *recs;
	int64	   *offsets;		/* each record's offset, as written */
	TimestampTz *timestamps;
	char	   *batch;			/* a page's worth of batch being built */
	bool		preserve;		/* session_replication_role = replica */
	bool		any_order;		/* a subscription's worker: commit order */
	TopicLiveSlack slack;		/* a full segment we go on in */
	TransactionId xid;
	CommandId	cid;
	TimestampTz now;
	Oid			topic;
	int			slot;			/* our writer slot in the registry */
	BufferAccessStrategy strategy;
	TopicBatchProducerData *producer;	/* whose records, or NULL */
} InsertCall;

/*
 * Begin a topic_insert call: refuse segments and logical replicas, set up
 * the call's memory and register as a writer of the partition
 */
static void
insert_begin(Relation rel, int nslots, CommandId cid, bool preserve,
			 BulkInsertState bistate, InsertCall *call)
{
	if (!topic_log_is_router(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("segment \"%s\" is written through its partition",
						RelationGetRelationName(rel)),
				 errhint("Insert into the topic or its partition.")));

	/*
	 * Records need their copies on synchronous standbys; a group's position
	 * (the offsets log) is the consumer's and is not held to that
	 */
	if (RelationGetRelid(rel) != topic_offsets_log_relid())
	{
		Oid			topic = topic_registry_topic_of(rel);
		bool		from_topic;
		int			required = topic_config_insync_standbys(topic, &from_topic);

		if (required > 0)
			topic_check_insync_replicas(required,
										from_topic ? get_rel_name(topic) : NULL);
	}

	/* conflicts with serializable readers of the whole relation */
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);

	call->context = AllocSetContextCreate(CurrentMemoryContext,
										  "topic_log insert",
										  ALLOCSET_DEFAULT_SIZES);
	call->oldcontext = MemoryContextSwitchTo(call->context);

	call->xid = GetCurrentTransactionId();
	call->cid = cid;
	call->preserve = preserve;
	/* only a subscription's workers bring records in commit order */
	call->any_order = call->preserve && IsLogicalWorker();
	call->slack.relid = InvalidOid;
	call->slack.blocks = 0;
	call->strategy = bistate ? bistate->strategy : NULL;
	call->producer = NULL;

	call->recs = palloc(sizeof(PreparedRecord) * nslots);
	call->offsets = palloc(sizeof(int64) * nslots);
	call->timestamps = palloc(sizeof(TimestampTz) * nslots);
	call->batch = palloc(TOPIC_LOG_PAGE_CAPACITY);

	/* catalog lookups and the registry's lock before the tail lock */
	call->topic = topic_registry_topic_of(rel);
	if (!call->preserve &&
		topic_partition_is_replica(RelationGetRelid(rel), call->topic))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot write to partition \"%s\": it is a logical replica",
						RelationGetRelationName(rel)),
				 errdetail("A subscription of this database replicates its records from a publisher, which gives out its offsets."),
				 errhint("To write here, drop the subscription, or stop publishing the topic and refresh the subscription.")));
	call->slot = topic_registry_add_writer(rel, call->topic);
	call->now = GetCurrentTimestamp();
}

/*
 * Where a restored log starts, for topic_live_start: its first supplied
 * offset.  Not a replicated one: it receives records in commit order, so
 * its first record need not be the publisher's first, and it takes its log
 * start from the publisher's markers instead (follow_log_start).
 */
static int64
restored_start(PreparedRecord *rec, bool keep_supplied, bool any_order)
{
	return keep_supplied && !any_order ? rec->offset : TOPIC_OFFSET_PLACEHOLDER;
}

/*
 * Append records first..end-1 to segment seg in batches, a page at a time,
 * and point their slots at them.  True if a batch went in below the log's
 * next offset (records out of offset order).
 */
static bool
insert_batches(Relation rel, Relation seg, TopicTail *tail,
			   TopicSegmentEntry *entry, TupleTableSlot **slots, int first,
			   int end, bool keep_supplied, InsertCall *call)
{
	bool		unordered = false;
	int			done = first;

	while (done < end)
	{
		Size		len;
		int			count;
		int			first_index;
		TopicBatchHeader hdr;

		count = fill_batch(rel, tail, call->recs, done, end, keep_supplied,
						   call->any_order, call->now, call->xid, call->cid,
						   call->producer, call->batch, &len, call->offsets,
						   call->timestamps);
		if (count == 0)
		{
			if (tail->init_page)
				elog(ERROR, "topic record does not fit an empty page");
			if (tail->blkno + 1 >= TOPIC_SEGMENT_MAX_BLOCKS)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("segment of partition \"%s\" is full, and there is no next segment",
								RelationGetRelationName(rel)),
						 errhint("Check that the pg_topics background worker is running (topics.maintenance); it creates segments ahead of need.")));
			topic_tail_extend(seg, tail);
			continue;
		}

		first_index = TOPIC_LOG_MAX_RECORDS_PER_PAGE - tail->free_records + 1;
		hdr = (TopicBatchHeader) call->batch;
		if (!TopicBatchIsMarker(hdr))
		{
			/* readers must learn of us before our offsets are in the log */
			topic_registry_set_first_offset(call->slot, hdr->base_offset);
			if (hdr->base_offset < tail->next_offset)
				unordered = true;
		}
		topic_tail_append(seg, tail, call->batch, len, done + count == end, rel);
		if (!TopicBatchIsMarker(hdr))
			topic_registry_set_partition(call->slot, hdr->partition);
		for (int i = 0; i < count; i++)
			fill_slot(rel, slots[done + i], call->offsets[done + i],
					  call->timestamps[done + i],
					  TopicTidBlock(entry->segno, tail->blkno), first_index + i);
		done += count;
	}
	return unordered;
}

/*
 * Write the records from first on, as many as the LIVE segment takes (one
 * chunk), and roll the segment if it reached its size.  Returns where the
 * chunk ended.
 */
static int
insert_chunk(Relation rel, TupleTableSlot **slots, int first, int nslots,
			 InsertCall *call)
{
	TopicTail	tail;
	TopicLiveSegment live;
	bool		keep_supplied;
	bool		due;
	bool		unordered;
	int			end;

	lock_live_segment(rel, slots, first, nslots, &call->slack,
					  call->any_order, false, call->recs, &tail,
					  call->strategy, &live, &end, &due);
	keep_supplied = call->preserve && any_supplied(call->recs + first, end - first);

	if (tail.blkno == TOPIC_LOG_METAPAGE_BLKNO)
		topic_live_start(rel, &live, &tail,
						 restored_start(&call->recs[first], keep_supplied,
										call->any_order));
	unordered = insert_batches(rel, live.seg, &tail, &live.entry, slots,
							   first, end, keep_supplied, call);
	topic_tail_release(&tail);

	/* before anyone can see those batches: readers must not trust order */
	if (unordered && !(live.entry.flags & TOPIC_SEGENTRY_UNORDERED))
		topic_segdir_mark_unordered(rel, live.entry.relid, live.entry.segno);

	if (due)
		topic_live_roll(rel, &live, end < nslots, &call->slack);

	/* the segment for autovacuum's freezing */
	pgstat_count_heap_insert(live.seg, end - first);
	relation_close(live.seg, NoLock);
	return end;
}

/*
 * Insert nslots records into rel (a partition's log), in order, as
 * command cid of the current (sub)transaction, in preserve mode if the
 * session is in it (session_replication_role = replica)
 */
void
topic_insert(Relation rel, TupleTableSlot **slots, int nslots, CommandId cid,
			 BulkInsertState bistate)
{
	bool		preserve = (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA);

	check_rows(rel, slots, nslots, preserve);
	topic_insert_rows(rel, slots, nslots, cid, preserve, bistate);
}

/*
 * The half-open offset ranges of a removal row (a publisher's log cleaner
 * removed those records, docs/replication.md) as an int8multirange's text,
 * or NULL if slot is no removal row.  A removal row is a marker row whose
 * headers have "pg_topics.removed": an array of offsets, first and end of
 * each range, ascending.
 */
static char *
removal_ranges(TupleTableSlot *slot)
{
	Jsonb	   *headers;
	JsonbValue	key;
	JsonbValue *found;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	v;
	StringInfoData text;
	int64		last = -1;
	int			n = 0;

	slot_getallattrs(slot);
	if (slot->tts_isnull[Anum_topic_timestamp - 1] ||
		DatumGetTimestampTz(slot->tts_values[Anum_topic_timestamp - 1]) !=
		TOPIC_MARKER_TIMESTAMP ||
		!slot->tts_isnull[Anum_topic_key - 1] ||
		!slot->tts_isnull[Anum_topic_value - 1] ||
		slot->tts_isnull[Anum_topic_headers - 1])
		return NULL;
	headers = DatumGetJsonbP(slot->tts_values[Anum_topic_headers - 1]);
	if (!JB_ROOT_IS_OBJECT(headers))
		return NULL;
	key.type = jbvString;
	key.val.string.val = "pg_topics.removed";
	key.val.string.len = strlen(key.val.string.val);
	found = findJsonbValueFromContainer(&headers->root, JB_FOBJECT, &key);
	if (found == NULL || found->type != jbvBinary ||
		!JsonContainerIsArray(found->val.binary.data))
		return NULL;

	initStringInfo(&text);
	appendStringInfoChar(&text, '{');
	it = JsonbIteratorInit(found->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		int64		offset;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("removal row of a publisher's log cleaner holds a value that is no offset")));
		offset = DatumGetInt64(DirectFunctionCall1(numeric_int8,
												   NumericGetDatum(v.val.numeric)));
		/* first < end, each range after the one before */
		if (offset < 0 || offset >= TOPIC_OFFSET_MAX ||
			(n % 2 == 1 ? offset <= last : offset < last))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("removal row of a publisher's log cleaner has offset %lld out of order",
							(long long) offset)));
		if (n % 2 == 0)
			appendStringInfo(&text, "%s[" INT64_FORMAT, n > 0 ? "," : "", offset);
		else
			appendStringInfo(&text, "," INT64_FORMAT ")", offset);
		last = offset;
		n++;
	}
	if (n == 0 || n % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("removal row of a publisher's log cleaner has %d offsets, not pairs", n)));
	appendStringInfoChar(&text, '}');
	return text.data;
}

/*
 * A subscription worker's insert: the removal rows among slots go to
 * topics.replica_removals, for the worker to remove the same records from
 * this log (worker/replica_cleaner.c), in the apply's transaction, so that
 * they are kept exactly when the apply is.  The other slots, in order.
 */
static TupleTableSlot **
take_removals(Relation rel, TupleTableSlot **slots, int *nslots)
{
	TupleTableSlot **rest = NULL;
	int			kept = 0;

	for (int i = 0; i < *nslots; i++)
	{
		char	   *ranges = removal_ranges(slots[i]);
		Oid			argtypes[2] = {REGCLASSOID, TEXTOID};
		Datum		args[2];

		if (ranges == NULL)
		{
			if (rest != NULL)
				rest[kept] = slots[i];
			kept++;
			continue;
		}
		if (rest == NULL)
		{
			rest = palloc(sizeof(TupleTableSlot *) * *nslots);
			memcpy(rest, slots, sizeof(TupleTableSlot *) * i);
		}
		args[0] = ObjectIdGetDatum(RelationGetRelid(rel));
		args[1] = CStringGetTextDatum(ranges);
		if (topic_internal_sql_exec("INSERT INTO topics.replica_removals AS r "
									"VALUES ($1, $2::pg_catalog.int8multirange) "
									"ON CONFLICT (\"partition\") DO UPDATE "
									"SET removed = r.removed OPERATOR(pg_catalog.+) excluded.removed",
									2, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not record the removals of \"%s\"",
				 RelationGetRelationName(rel));
	}
	*nslots = kept;
	return rest != NULL ? rest : slots;
}

/*
 * Insert nslots records into rel, in order, as command cid of the current
 * (sub)transaction; preserve: keep supplied offsets and timestamps.  Each
 * row has passed topic_insert_check_row, once: the insert buffer checks
 * its rows when they are inserted, not again when they are written.
 */
void
topic_insert_rows(Relation rel, TupleTableSlot **slots, int nslots,
				  CommandId cid, bool preserve, BulkInsertState bistate)
{
	InsertCall	call;
	PreparedRecord *recs;
	int64	   *offsets;
	bool		any_order;
	Oid			topic;
	int			first;
	int			i;

	if (preserve && IsLogicalWorker())
		slots = take_removals(rel, slots, &nslots);
	if (nslots <= 0)
		return;
	insert_begin(rel, nslots, cid, preserve, bistate, &call);
	/* what the end of the call looks at */
	recs = call.recs;
	offsets = call.offsets;
	any_order = call.any_order;
	topic = call.topic;

	/*
	 * The records go in chunks, each to the segment that is LIVE when it
	 * starts: a chunk ends where the segment reaches its size, which then
	 * rolls.  Without a spare the segment is flagged and takes as much
	 * again before the next try, where a call that filled even that waits
	 * briefly for the worker's spare.
	 */
	for (first = 0; first < nslots;)
		first = insert_chunk(rel, slots, first, nslots, &call);

	/* a replica of a topic's partition starts where its publisher does */
	if (any_order && OidIsValid(topic))
		follow_log_start(rel, recs, nslots);

	/* group positions committed elsewhere reach the cache at our commit */
	if (preserve && !OidIsValid(topic) && topic_positions_arrived_hook != NULL &&
		RelationGetRelid(rel) == topic_offsets_log_relid())
	{
		bool	   *skip = palloc(sizeof(bool) * nslots);

		for (i = 0; i < nslots; i++)
			skip[i] = recs[i].marker;
		topic_positions_arrived_hook(slots, offsets, skip, nslots);
	}

	/* the partition for people */
	pgstat_count_heap_insert(rel, nslots);

	MemoryContextSwitchTo(call.oldcontext);
	MemoryContextDelete(call.context);
}

/*
 * A writer: records appended in several calls that get dense offsets,
 * one after the other with nobody else's in between, as a Kafka batch
 * must (its answer gives the first offset, and the client numbers the
 * rest from it).  The LIVE segment's tail stays locked from the first
 * append to the end, so the partition's other writers wait for it, and
 * the segment does not roll in between: it may grow past its size by the
 * writer's records, as a Kafka segment does by a batch.  The caller
 * builds each append's slots while the tail is locked, so it appends in
 * chunks of bounded size and does nothing there that waits for another
 * writer of the partition.  An error in between releases the lock with
 * the (sub)transaction; topic_writer_end is then not called.
 */
struct TopicWriter
{
	InsertCall	call;
	Relation	rel;
	int			capacity;		/* of the call's per-record arrays */
	bool		locked;			/* the tail is locked: live, tail */
	TopicLiveSegment live;
	TopicTail	tail;
	int64		nrecords;
	TopicBatchProducerData producer;
};

/*
 * Begin writing to rel (a partition's log) as command cid of the current
 * (sub)transaction; producer, if not NULL, describes the idempotent Kafka
 * batch the records are (its first_offset is filled in)
 */
TopicWriter *
topic_writer_begin(Relation rel, CommandId cid,
				   const TopicBatchProducerData *producer)
{
	TopicWriter *writer = palloc0(sizeof(TopicWriter));
	MemoryContext oldcontext = CurrentMemoryContext;

	insert_begin(rel, 0, cid, false, NULL, &writer->call);
	MemoryContextSwitchTo(oldcontext);
	writer->rel = rel;
	if (producer != NULL)
	{
		writer->producer = *producer;
		writer->producer.first_offset = -1;
		writer->call.producer = &writer->producer;
	}
	return writer;
}

/*
 * Append nslots records, after the writer's earlier ones; their slots show
 * their offsets and timestamps
 */
void
topic_writer_append(TopicWriter *writer, TupleTableSlot **slots, int nslots)
{
	InsertCall *call = &writer->call;
	Relation	rel = writer->rel;
	MemoryContext oldcontext;

	if (nslots <= 0)
		return;
	check_rows(rel, slots, nslots, false);
	oldcontext = MemoryContextSwitchTo(call->context);
	if (nslots > writer->capacity)
	{
		call->recs = repalloc(call->recs, sizeof(PreparedRecord) * nslots);
		call->offsets = repalloc(call->offsets, sizeof(int64) * nslots);
		call->timestamps = repalloc(call->timestamps, sizeof(TimestampTz) * nslots);
		writer->capacity = nslots;
	}
	if (!writer->locked)
	{
		int			end;
		bool		due;

		lock_live_segment(rel, slots, 0, nslots, NULL, false, true,
						  call->recs, &writer->tail, call->strategy,
						  &writer->live, &end, &due);
		Assert(end == nslots);
		writer->locked = true;
		if (writer->tail.blkno == TOPIC_LOG_METAPAGE_BLKNO)
			topic_live_start(rel, &writer->live, &writer->tail,
							 TOPIC_OFFSET_PLACEHOLDER);
	}
	else
	{
		/* the segment is ours until the end: prepare for it, locked */
		for (int i = 0; i < nslots; i++)
		{
			prepare_record(rel, slots[i], false, &call->recs[i]);
			toast_record(writer->live.seg, &call->recs[i]);
		}
	}
	(void) insert_batches(rel, writer->live.seg, &writer->tail,
						  &writer->live.entry, slots, 0, nslots, false, call);
	pgstat_count_heap_insert(writer->live.seg, nslots);
	writer->nrecords += nslots;
	MemoryContextSwitchTo(oldcontext);
}

/* Finish the writer: unlock the tail, and roll the segment if it is due */
void
topic_writer_end(TopicWriter *writer)
{
	InsertCall *call = &writer->call;

	if (writer->locked)
	{
		topic_tail_release(&writer->tail);
		if (topic_live_nblocks(writer->live.seg) >= writer->live.roll_blocks)
			topic_live_roll(writer->rel, &writer->live, false, &call->slack);
		relation_close(writer->live.seg, NoLock);
		writer->locked = false;
	}
	pgstat_count_heap_insert(writer->rel, writer->nrecords);
	MemoryContextDelete(call->context);
	pfree(writer);
}
