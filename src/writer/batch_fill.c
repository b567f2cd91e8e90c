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

#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_topics/log/batch_compression.h"
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
 * Scratch space of compressed batches, used within one topic_batch_fill
 * call (so one set serves every writer of the backend): the records before
 * compression, where each ends, and the records after.  Allocated at the
 * first compressed batch, kept for the backend's life.
 */
static char *scratch_raw = NULL;
static char *scratch_compressed = NULL;
static Size *scratch_ends = NULL;

/* Where the encoding of a batch's records stands */
typedef struct FillState
{
	Size		pos;			/* the end of the records so far */
	int			count;			/* records so far */
	int64		next;			/* the next offset after them */
	TimestampTz newest;			/* the newest timestamp with them */
	bool		stopped;		/* a record must start a batch of its own */
} FillState;

/*
 * Encode records fill->recs[first + st->count ..n) into dst (laid out as
 * a batch: positions count from its start) while they end within limit
 * bytes (MAXALIGNed, if aligned) and the page takes them, assigning their
 * offsets and timestamps; st says where the batch stands and is advanced.
 * Where each record ends goes to ends, if not NULL.
 */
static void
encode_records(TopicBatchFill *fill, TopicTail *tail, int first, int n,
			   TopicBatchHeader hdr, char *dst, Size limit, bool aligned,
			   Size *ends, FillState *st)
{
	PreparedRecord *recs = fill->recs;
	int64	   *offsets = fill->offsets;
	TimestampTz *timestamps = fill->timestamps;
	TimestampTz append_time = Max(fill->now, tail->max_timestamp);
	uint8		flags = hdr->flags;
	int			max_count = Min(n - first, tail->free_records);
	/* the state in locals while the loop runs: it is the hot path */
	Size		pos = st->pos;
	int			count = st->count;
	int64		next = st->next;
	TimestampTz newest = st->newest;

	if (st->stopped)
		return;
	while (count < max_count)
	{
		PreparedRecord *rec = &recs[first + count];
		int64		offset;
		TimestampTz ts;
		Size		end;

		if (rec->partition != hdr->partition || rec->marker ||
			!record_position(fill->rel, rec, fill->keep_supplied,
							 fill->any_order, next, newest, append_time,
							 count > 0 ? offsets[first + count - 1] : -1,
							 &offset, &ts))
		{
			st->stopped = true;
			break;
		}
		if (count == 0)
		{
			hdr->base_offset = offset;
			hdr->base_timestamp = ts;
		}

		end = topic_record_encoded_size(pos, flags,
										offset - hdr->base_offset,
										ts - hdr->base_timestamp,
										rec->field[0], rec->field[1],
										rec->field[2]);
		if ((aligned ? MAXALIGN(end) : end) > limit)
			break;
		pos = topic_record_encode(dst, pos, flags,
								  offset - hdr->base_offset,
								  ts - hdr->base_timestamp, rec->field[0],
								  rec->field[1], rec->field[2]);
		Assert(pos == end);
		offsets[first + count] = offset;
		timestamps[first + count] = ts;
		if (ends != NULL)
			ends[count] = end;
		next = Max(next, offset + 1);
		newest = Max(newest, ts);
		count++;
	}
	st->pos = pos;
	st->count = count;
	st->next = next;
	st->newest = newest;
}

/*
 * Shorten the batch being encoded to its first count records (count > 0),
 * as if the others had never been encoded.
 */
static void
truncate_records(TopicBatchFill *fill, TopicTail *tail, int first, int count,
				 FillState *st)
{
	st->pos = scratch_ends[count - 1];
	st->count = count;
	st->next = tail->next_offset;
	st->newest = tail->max_timestamp;
	for (int i = 0; i < count; i++)
	{
		st->next = Max(st->next, fill->offsets[first + i] + 1);
		st->newest = Max(st->newest, fill->timestamps[first + i]);
	}
	/* the rest goes to the next batch */
	st->stopped = true;
}

/* How many of the encoded records fit the page uncompressed */
static int
records_fitting(TopicBatchFill *fill, int count, Size room)
{
	int			k = 0;

	while (k < count && MAXALIGN(scratch_ends[k]) <= room)
		k++;
	return k;
}

/*
 * Fill fill->batch with records compressed: encode records into scratch_raw,
 * about as many as should fit the page once compressed (judged by the
 * ratio the write's last batch had), compress them, and take fewer or
 * more until the compressed batch fits the page well.  A batch that
 * compression shrinks by less than an eighth, or that fits the page only
 * when fewer records are taken than would fit uncompressed, is stored
 * uncompressed.  Returns the number of records, as topic_batch_fill.
 */
static int
fill_compressed(TopicBatchFill *fill, TopicTail *tail, int first, int n,
				TopicBatchHeader hdr, FillState *st)
{
	Size		start = st->pos;	/* where the records start */
	Size		cstart = start + sizeof(TopicBatchCompressionData);
	Size		room = tail->free_bytes;
	Size		budget;
	Size		rawlen = 0;
	Size		clen = 0;
	int			plain;
	int			good = 0;		/* records of the last batch that fitted */
	bool		compressed = false;
	TopicBatchCompressionData c;

	if (scratch_raw == NULL)
	{
		scratch_raw = MemoryContextAlloc(TopMemoryContext,
										 TOPIC_BATCH_MAX_RAW_LENGTH);
		scratch_compressed =
			MemoryContextAlloc(TopMemoryContext,
							   topic_batch_compress_bound(TOPIC_BATCH_MAX_RAW_LENGTH));
		scratch_ends = MemoryContextAlloc(TopMemoryContext,
										  sizeof(Size) * TOPIC_LOG_MAX_RECORDS_PER_PAGE);
	}
	budget = Min((Size) TOPIC_BATCH_MAX_RAW_LENGTH,
				 Max(room, (Size) (room * fill->ratio)));
	for (int attempt = 0; attempt < 4; attempt++)
	{
		Size		used;

		encode_records(fill, tail, first, n, hdr, scratch_raw, budget, false,
					   scratch_ends, st);
		if (st->count == 0)
			return 0;
		rawlen = st->pos - start;
		clen = topic_batch_compress(fill->codec, scratch_raw + start, rawlen,
									scratch_compressed,
									topic_batch_compress_bound(rawlen));
		if (clen > 0)
			fill->ratio = Max(Min((double) rawlen / clen, 16.0), 1.0);
		if (clen == 0 ||
			(clen + sizeof(TopicBatchCompressionData)) * 8 > rawlen * 7)
		{
			compressed = false;
			break;
		}
		used = cstart + clen;
		if (MAXALIGN(used) <= room)
		{
			compressed = true;
			good = st->count;
			/* room left and records left: take more, if it is worth it */
			if (used * 5 >= room * 4 || st->stopped ||
				first + st->count >= n || st->count >= tail->free_records ||
				budget >= TOPIC_BATCH_MAX_RAW_LENGTH || attempt == 3)
				break;
			budget = Min((Size) TOPIC_BATCH_MAX_RAW_LENGTH,
						 start + (Size) ((double) rawlen * (room - cstart) / clen * 0.95));
			if (budget <= st->pos)
				break;
			continue;
		}
		compressed = false;
		if (good > 0)
		{
			/* taking more was too much: back to what fitted */
			truncate_records(fill, tail, first, good, st);
			rawlen = st->pos - start;
			clen = topic_batch_compress(fill->codec, scratch_raw + start, rawlen,
										scratch_compressed,
										topic_batch_compress_bound(rawlen));
			compressed = (clen > 0 && MAXALIGN(cstart + clen) <= room);
			break;
		}
		if (attempt == 3)
			break;
		/* too long: the records that should fit, by the bytes they take */
		{
			Size		want = (Size) ((double) rawlen * (room - cstart) / clen * 0.95);
			int			k = 0;

			while (k < st->count && scratch_ends[k] - start <= want)
				k++;
			if (k == st->count)
				k--;
			if (k <= records_fitting(fill, st->count, room))
				break;
			truncate_records(fill, tail, first, k, st);
			budget = st->pos;
		}
	}

	if (!compressed)
	{
		/* as many records as fit uncompressed, copied as they are */
		plain = records_fitting(fill, st->count, room);
		if (plain == 0)
			return 0;
		truncate_records(fill, tail, first, plain, st);
		memcpy(fill->batch + start, scratch_raw + start, st->pos - start);
		hdr->length = st->pos;
		return plain;
	}

	/* the compressed records, after their description */
	memset(&c, 0, sizeof(c));
	c.codec = fill->codec;
	c.raw_length = (uint32) rawlen;
	c.last_offset = hdr->base_offset;
	c.min_timestamp = c.max_timestamp = hdr->base_timestamp;
	for (int i = 0; i < st->count; i++)
	{
		c.last_offset = Max(c.last_offset, fill->offsets[first + i]);
		c.min_timestamp = Min(c.min_timestamp, fill->timestamps[first + i]);
		c.max_timestamp = Max(c.max_timestamp, fill->timestamps[first + i]);
	}
	topic_batch_put_compressed(hdr, &c, scratch_compressed, clen);
	Assert(hdr->length == cstart + clen);
	return st->count;
}

/*
 * Encode as many records from fill->recs[first..n) as fit on the tail page
 * into fill->batch, all of one partition, compressed if fill->codec says
 * so; returns how many, and the batch length in fill->len.  Offsets and
 * timestamps are assigned here, under the tail lock, into fill->offsets
 * and fill->timestamps.
 */
int
topic_batch_fill(TopicBatchFill *fill, TopicTail *tail, int first, int n)
{
	PreparedRecord *recs = fill->recs;
	TopicBatchProducerData *producer = fill->producer;
	char	   *batch = fill->batch;
	TopicBatchHeader hdr = (TopicBatchHeader) batch;
	FillState	st;
	int			count;

	memset(hdr, 0, sizeof(TopicBatchHeaderData));
	hdr->xid = fill->xid;
	hdr->cid = fill->cid;
	hdr->partition = recs[first].partition;

	if (recs[first].marker)
		return fill_marker_batch(tail, &recs[first], batch, &fill->len,
								 &fill->offsets[first],
								 &fill->timestamps[first]);

	hdr->flags = fill->keep_supplied ? 0 : (TB_CONTIGUOUS | TB_SAME_TIMESTAMP);
	/* an idempotent producer's records carry its batch's description */
	if (producer != NULL)
		hdr->flags |= TB_PRODUCER;
	st.pos = topic_batch_records_start(hdr);
	st.count = 0;
	st.next = tail->next_offset;
	st.newest = tail->max_timestamp;
	st.stopped = false;

	/*
	 * Compress when there is room for more than a few records' worth: what
	 * a page's last few hundred bytes hold would not compress well
	 */
	if (fill->codec != TOPIC_CODEC_NONE &&
		tail->free_bytes >= TOPIC_LOG_PAGE_CAPACITY / 8)
		count = fill_compressed(fill, tail, first, n, hdr, &st);
	else
	{
		encode_records(fill, tail, first, n, hdr, batch, tail->free_bytes,
					   true, NULL, &st);
		count = st.count;
		hdr->length = st.pos;
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
	hdr->nrecords = count;
	fill->len = hdr->length;
	return count;
}
