/*-------------------------------------------------------------------------
 *
 * batch_fill.c
 *	  Prepared records encoded into a batch for the tail page, with their
 *	  offsets and timestamps.
 *
 * Runs under the tail lock, so it only assigns and copies: offsets follow
 * the tail's next offset (dense, in page order, however producers
 * interleave) or are kept as supplied in preserve mode; the timestamp is
 * the call's log-append time, never below the newest in the log.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/rel.h"

#include "pg_topics/log/topic_log.h"
#include "pg_topics/writer/batch_fill.h"

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
 * Encode as many records from fill->recs[first..n) as fit on the tail page
 * into fill->batch, all of one partition; returns how many, and the batch
 * length in fill->len.  Offsets and timestamps are assigned here, under
 * the tail lock, into fill->offsets and fill->timestamps.
 */
int
topic_batch_fill(TopicBatchFill *fill, TopicTail *tail, int first, int n)
{
	Relation	rel = fill->rel;
	PreparedRecord *recs = fill->recs;
	bool		keep_supplied = fill->keep_supplied;
	TimestampTz now = fill->now;
	TopicBatchProducerData *producer = fill->producer;
	char	   *batch = fill->batch;
	int64	   *offsets = fill->offsets;
	TimestampTz *timestamps = fill->timestamps;
	TopicBatchHeader hdr = (TopicBatchHeader) batch;
	uint8		flags = keep_supplied ? 0 : (TB_CONTIGUOUS | TB_SAME_TIMESTAMP);
	TimestampTz append_time = Max(now, tail->max_timestamp);
	int64		next = tail->next_offset;
	TimestampTz newest = tail->max_timestamp;
	Size		pos;
	int			count = 0;

	memset(hdr, 0, sizeof(TopicBatchHeaderData));
	hdr->xid = fill->xid;
	hdr->cid = fill->cid;
	hdr->partition = recs[first].partition;

	if (recs[first].marker)
		return fill_marker_batch(tail, &recs[first], batch, &fill->len,
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
		if (!record_position(rel, rec, keep_supplied, fill->any_order, next,
							 newest,
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
		/* dense (a dense writer): the first batch's first offset is the base */
		if (producer->first_offset < 0)
			producer->first_offset = hdr->base_offset;
		Assert(hdr->base_offset >= producer->first_offset &&
			   hdr->base_offset + count <= producer->first_offset + producer->count);
		memcpy(batch + sizeof(TopicBatchHeaderData), producer,
			   sizeof(TopicBatchProducerData));
	}
	hdr->length = pos;
	hdr->nrecords = count;
	fill->len = pos;
	return count;
}
