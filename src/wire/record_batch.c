/*-------------------------------------------------------------------------
 *
 * record_batch.c
 *	  Kafka's RecordBatch v2: checking and decoding what a producer sends,
 *	  writing what a consumer fetches (see record_batch.h).
 *
 * Decoding checks each batch as Kafka's broker does before it appends one
 * (its LogValidator), in this order: the magic byte (offset 16, where every
 * message format has it), the batch length, the CRC-32C of everything from
 * the attributes on, the codec and the control bit, the record count and
 * lastOffsetDelta; then the records are inflated when compressed, and read
 * one by one.  Nothing the producer states is trusted for a size: a
 * record count beyond what the bytes could hold (a record is at least 7
 * bytes) is refused before anything is allocated for it, a header count
 * likewise (a header is at least 2 bytes), and what decoding allocates
 * (inflated records, and the decoded records and headers, which take up to
 * nine times the bytes of the tiniest records) stays within the
 * max_decoded budget shared by all batches of the call: 7 million records
 * of 7 bytes fail there rather than taking 450 MB.
 *
 * The error codes: what breaks the framing is 2 CORRUPT_MESSAGE (a batch
 * cut short or longer than the data, a CRC that does not match, compressed
 * records that do not inflate, a record length that is malformed, negative
 * or past the batch's records); what is well framed but not a valid record
 * is 87 INVALID_RECORD (a record count of 0 or other than the records
 * present, offset deltas other than 0..n-1, a lastOffsetDelta other than
 * n-1, a record whose fields do not fill its length exactly, a length or
 * count below -1, a null header key, a control batch).  Besides, 43 for a
 * magic other than 2, 76 for a codec above 4, and 10 for records that
 * inflate or decode beyond the budget.
 *
 * Writing: kafka_batch_begin leaves room for the header, kafka_batch_add
 * appends records, kafka_batch_finish fills the header in and computes the
 * CRC.  A batch says partitionLeaderEpoch -1 (no epoch: clients skip the
 * leader-epoch checks of KIP-320) and producerId/Epoch/baseSequence -1.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "port/pg_bswap.h"
#include "port/pg_crc32c.h"

#include "pg_topics/wire/compression.h"
#include "pg_topics/wire/record_batch.h"

#define CORRUPT_MESSAGE					2
#define UNSUPPORTED_FOR_MESSAGE_FORMAT	43
#define UNSUPPORTED_COMPRESSION_TYPE	76
#define INVALID_RECORD					87
#define MESSAGE_TOO_LARGE				10

/* where the header's fields are */
#define MAGIC_AT			16
#define CRC_AT				17
#define ATTRIBUTES_AT		21

/* the smallest record: length, attributes, and five one-byte varints */
#define MIN_RECORD_SIZE		7
/* the smallest header: two one-byte varints (empty key, null value) */
#define MIN_HEADER_SIZE		2

/* Set the error message; returns code */
static inline int
fail(const char **msg, int code, const char *why)
{
	*msg = why;
	return code;
}

/* CRC-32C of len bytes */
static uint32
crc32c(const char *data, Size len)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return crc;
}

/* A varint length and that many bytes; -1 is null, below it *invalid */
static KafkaBytes
read_varint_bytes(KafkaReader *r, bool *invalid)
{
	int32		len = kafka_read_varint(r);
	KafkaBytes	null = {NULL, -1};

	if (r->error || len == -1)
		return null;
	if (len < -1)
	{
		*invalid = true;
		return null;
	}
	return kafka_read_raw(r, len);
}

static inline Size
payload_size(KafkaBytes b)
{
	return b.len > 0 ? b.len : 0;
}

/*
 * Record number index of a batch from r into *rec; 0 or an error code.
 * On an error nothing of the record stays allocated.
 */
static int
decode_record(KafkaReader *r, int32 index, KafkaRecord *rec, Size *payload,
			  Size max_decoded, Size *decoded, const char **msg)
{
	KafkaReader body;
	int32		len;
	bool		invalid = false;
	const char *why = NULL;
	Size		size;

	if (kafka_reader_remaining(r) == 0)
		return fail(msg, INVALID_RECORD, "fewer records than the batch's record count");
	len = kafka_read_varint(r);
	if (r->error || len < 0 || len > kafka_reader_remaining(r))
		return fail(msg, CORRUPT_MESSAGE, "a record's length runs past its batch");
	kafka_reader_init(&body, r->data + r->pos, len);
	r->pos += len;

	(void) kafka_read_int8(&body);	/* attributes: none defined */
	rec->timestamp_delta = kafka_read_varlong(&body);
	rec->offset_delta = kafka_read_varint(&body);
	rec->key = read_varint_bytes(&body, &invalid);
	rec->value = read_varint_bytes(&body, &invalid);
	rec->nheaders = kafka_read_varint(&body);
	rec->headers = NULL;
	if (invalid || rec->nheaders < 0)
		return fail(msg, INVALID_RECORD, "a record has a length or count below -1");
	if (body.error || rec->nheaders > kafka_reader_remaining(&body) / MIN_HEADER_SIZE)
		return fail(msg, INVALID_RECORD, "a record's fields run past its length");

	size = payload_size(rec->key) + payload_size(rec->value);
	if ((Size) rec->nheaders * sizeof(KafkaHeader) > max_decoded - *decoded)
		return fail(msg, MESSAGE_TOO_LARGE, "the batch's record headers take more memory than allowed");
	if (rec->nheaders > 0)
		rec->headers = palloc(rec->nheaders * sizeof(KafkaHeader));
	for (int i = 0; i < rec->nheaders && !body.error && !invalid && !why; i++)
	{
		KafkaHeader *h = &rec->headers[i];

		h->key = read_varint_bytes(&body, &invalid);
		h->value = read_varint_bytes(&body, &invalid);
		if (h->key.len < 0 && !body.error && !invalid)
			why = "a record header's key is null";
		size += payload_size(h->key) + payload_size(h->value);
	}
	if (why == NULL && invalid)
		why = "a record has a length or count below -1";
	else if (why == NULL && body.error)
		why = "a record's fields run past its length";
	else if (why == NULL && kafka_reader_remaining(&body) != 0)
		why = "a record's length is more than its fields";
	else if (why == NULL && rec->offset_delta != index)
		why = "a record's offset delta is not its position in the batch";
	if (why)
	{
		if (rec->headers)
			pfree(rec->headers);
		return fail(msg, INVALID_RECORD, why);
	}
	*payload += size;
	*decoded += (Size) rec->nheaders * sizeof(KafkaHeader);
	return 0;
}

/*
 * The batch at the start of data (avail bytes) into *b, its size in bytes
 * into *size; 0 or an error code.  *decoded counts what all batches so
 * far allocated (inflated bytes, records, headers), within max_decoded.
 * On an error, what stays allocated is in *b (its
 * inflated records and its first b->nrecords records).
 */
static int
decode_batch(const char *data, int avail, KafkaRecordBatch *b, int *size,
			 Size max_decoded, Size *decoded, Size *payload,
			 const char **msg)
{
	KafkaReader r;
	KafkaReader records;
	int32		batch_length;
	uint32		crc;
	int32		count;
	int			codec;

	if (avail <= MAGIC_AT)
		return fail(msg, CORRUPT_MESSAGE, "a record batch is cut short");
	if (data[MAGIC_AT] != 2)
		return fail(msg, UNSUPPORTED_FOR_MESSAGE_FORMAT,
					"only record batches of magic 2 are supported");
	if (avail < KAFKA_BATCH_HEADER_SIZE)
		return fail(msg, CORRUPT_MESSAGE, "a record batch is cut short");

	kafka_reader_init(&r, data, avail);
	b->base_offset = kafka_read_int64(&r);
	batch_length = kafka_read_int32(&r);
	if (batch_length < KAFKA_BATCH_HEADER_SIZE - KAFKA_BATCH_LOG_OVERHEAD ||
		batch_length > avail - KAFKA_BATCH_LOG_OVERHEAD)
		return fail(msg, CORRUPT_MESSAGE, "a record batch's length does not fit the data");
	*size = batch_length + KAFKA_BATCH_LOG_OVERHEAD;
	b->partition_leader_epoch = kafka_read_int32(&r);
	(void) kafka_read_int8(&r); /* magic */
	crc = kafka_read_uint32(&r);
	if (crc != crc32c(data + ATTRIBUTES_AT, *size - ATTRIBUTES_AT))
		return fail(msg, CORRUPT_MESSAGE, "a record batch's CRC does not match");

	b->attributes = kafka_read_int16(&r);
	b->last_offset_delta = kafka_read_int32(&r);
	b->base_timestamp = kafka_read_int64(&r);
	b->max_timestamp = kafka_read_int64(&r);
	b->producer_id = kafka_read_int64(&r);
	b->producer_epoch = kafka_read_int16(&r);
	b->base_sequence = kafka_read_int32(&r);
	count = kafka_read_int32(&r);
	Assert(!r.error && r.pos == KAFKA_BATCH_HEADER_SIZE);

	codec = b->attributes & KAFKA_ATTR_CODEC_MASK;
	if (codec > KAFKA_CODEC_ZSTD)
		return fail(msg, UNSUPPORTED_COMPRESSION_TYPE, "unknown compression codec");
	if (b->attributes & KAFKA_ATTR_CONTROL)
		return fail(msg, INVALID_RECORD, "control batches are written by the broker only");
	if (count < 1)
		return fail(msg, INVALID_RECORD, "a record batch without records");
	if (b->last_offset_delta != count - 1)
		return fail(msg, INVALID_RECORD, "a record batch's lastOffsetDelta is not its record count - 1");

	kafka_reader_init(&records, data + KAFKA_BATCH_HEADER_SIZE,
					  *size - KAFKA_BATCH_HEADER_SIZE);
	if (codec != KAFKA_CODEC_NONE)
	{
		Size		len;
		int			result;

		result = kafka_inflate(codec, records.data, records.len,
							   max_decoded - *decoded, &b->inflated, &len,
							   msg);
		if (result != 0)
			return result;
		*decoded += len;
		kafka_reader_init(&records, b->inflated, (int) len);
	}

	if (count > records.len / MIN_RECORD_SIZE)
		return fail(msg, INVALID_RECORD, "a record batch's record count is more than its records");
	if ((Size) count * sizeof(KafkaRecord) > max_decoded - *decoded)
		return fail(msg, MESSAGE_TOO_LARGE, "the batch's records take more memory than allowed");
	*decoded += (Size) count * sizeof(KafkaRecord);
	b->records = palloc_extended(count * sizeof(KafkaRecord), MCXT_ALLOC_HUGE);
	for (int i = 0; i < count; i++)
	{
		int			result = decode_record(&records, i, &b->records[i],
										   payload, max_decoded, decoded, msg);

		if (result != 0)
			return result;
		b->nrecords = i + 1;
	}
	if (kafka_reader_remaining(&records) != 0)
		return fail(msg, INVALID_RECORD, "more records than the batch's record count");
	return 0;
}

void
kafka_batches_free(KafkaBatches *batches)
{
	for (int i = 0; i < batches->nbatches; i++)
	{
		KafkaRecordBatch *b = &batches->batches[i];

		for (int j = 0; j < b->nrecords; j++)
			if (b->records[j].headers)
				pfree(b->records[j].headers);
		if (b->records)
			pfree(b->records);
		if (b->inflated)
			pfree(b->inflated);
	}
	if (batches->batches)
		pfree(batches->batches);
	memset(batches, 0, sizeof(*batches));
}

int
kafka_batches_decode(const char *data, int len, Size max_decoded,
					 KafkaBatches *out)
{
	int			allocated = 0;
	int			pos = 0;
	Size		decoded = 0;

	memset(out, 0, sizeof(*out));
	if (len <= 0)
	{
		out->error_message = "no record batches";
		return INVALID_RECORD;
	}
	while (pos < len)
	{
		KafkaRecordBatch *b;
		int			size = 0;
		int			result;

		if (out->nbatches == allocated)
		{
			allocated = allocated ? allocated * 2 : 1;
			out->batches = out->batches ?
				repalloc(out->batches, allocated * sizeof(KafkaRecordBatch)) :
				palloc(allocated * sizeof(KafkaRecordBatch));
		}
		b = &out->batches[out->nbatches++];
		memset(b, 0, sizeof(*b));
		result = decode_batch(data + pos, len - pos, b, &size, max_decoded,
							  &decoded, &out->payload_bytes,
							  &out->error_message);
		if (result != 0)
		{
			const char *why = out->error_message;

			kafka_batches_free(out);
			out->error_message = why;
			return result;
		}
		out->nrecords += b->nrecords;
		pos += size;
	}
	return 0;
}

/* The bytes a varint length and the bytes (or null) take */
static inline Size
varint_bytes_size(KafkaBytes b)
{
	return b.len < 0 ? 1 : kafka_varint_size(b.len) + b.len;
}

/* b's varint length and bytes (or null) at dst; their size */
static inline int
put_varint_bytes(char *dst, KafkaBytes b)
{
	int			n;

	if (b.len < 0)
		return kafka_put_varint(dst, -1);
	n = kafka_put_varint(dst, b.len);
	memcpy(dst + n, b.data, b.len);
	return n + b.len;
}

/* timestamp - base, wrapping rather than overflowing */
static inline int64
timestamp_delta(const KafkaBatchWriter *w, int64 timestamp)
{
	return (int64) ((uint64) timestamp - (uint64) w->base_timestamp);
}

/* A record's size after its length varint */
static Size
record_body_size(const KafkaBatchWriter *w, int64 offset, int64 timestamp,
				 KafkaBytes key, KafkaBytes value,
				 const KafkaHeader *headers, int nheaders)
{
	Size		size = 1;		/* attributes */

	size += kafka_varlong_size(timestamp_delta(w, timestamp));
	size += kafka_varint_size((int32) (offset - w->base_offset));
	size += varint_bytes_size(key) + varint_bytes_size(value);
	size += kafka_varint_size(nheaders);
	for (int i = 0; i < nheaders; i++)
		size += varint_bytes_size(headers[i].key) +
			varint_bytes_size(headers[i].value);
	return size;
}

static inline void
put16(char *at, int16 v)
{
	uint16		n = pg_hton16((uint16) v);

	memcpy(at, &n, 2);
}

static inline void
put32(char *at, int32 v)
{
	uint32		n = pg_hton32((uint32) v);

	memcpy(at, &n, 4);
}

static inline void
put64(char *at, int64 v)
{
	uint64		n = pg_hton64((uint64) v);

	memcpy(at, &n, 8);
}

void
kafka_batch_begin(KafkaBatchWriter *w, StringInfo buf, int64 base_offset,
				  int64 base_timestamp)
{
	static const char zeros[KAFKA_BATCH_HEADER_SIZE];

	w->buf = buf;
	w->start = buf->len;
	w->base_offset = base_offset;
	w->last_offset = base_offset;
	w->base_timestamp = base_timestamp;
	w->max_timestamp = base_timestamp;
	w->same_timestamp = true;
	w->nrecords = 0;
	appendBinaryStringInfoNT(buf, zeros, KAFKA_BATCH_HEADER_SIZE);
}

Size
kafka_batch_record_size(const KafkaBatchWriter *w, int64 offset,
						int64 timestamp, KafkaBytes key, KafkaBytes value,
						const KafkaHeader *headers, int nheaders)
{
	Size		body = record_body_size(w, offset, timestamp, key, value,
										headers, nheaders);

	return kafka_varint_size((int32) body) + body;
}

void
kafka_batch_add(KafkaBatchWriter *w, int64 offset, int64 timestamp,
				KafkaBytes key, KafkaBytes value,
				const KafkaHeader *headers, int nheaders)
{
	StringInfo	buf = w->buf;
	Size		body = record_body_size(w, offset, timestamp, key, value,
										headers, nheaders);
	int			size;
	char	   *start PG_USED_FOR_ASSERTS_ONLY;
	char	   *p;

	Assert(offset >= w->base_offset &&
		   offset - w->base_offset <= KAFKA_BATCH_MAX_OFFSET_DELTA);
	Assert(w->nrecords == 0 || offset > w->last_offset);
	Assert(body <= PG_INT32_MAX);

	/*
	 * The record's size is known: room for all of it at once, then its
	 * fields written in place (a Fetch writes thousands of records, and a
	 * write a field was a fifth of its time)
	 */
	size = kafka_varint_size((int32) body) + (int) body;
	start = p = kafka_reserve(buf, size);
	p += kafka_put_varint(p, (int32) body);
	*p++ = 0;					/* attributes */
	p += kafka_put_varlong(p, timestamp_delta(w, timestamp));
	p += kafka_put_varint(p, (int32) (offset - w->base_offset));
	p += put_varint_bytes(p, key);
	p += put_varint_bytes(p, value);
	p += kafka_put_varint(p, nheaders);
	for (int i = 0; i < nheaders; i++)
	{
		Assert(headers[i].key.len >= 0);
		p += put_varint_bytes(p, headers[i].key);
		p += put_varint_bytes(p, headers[i].value);
	}
	Assert(p - start == size);
	buf->len += size;
	buf->data[buf->len] = '\0';

	/* while all are the same, max_timestamp is the first one's */
	if (w->nrecords == 0)
		w->max_timestamp = timestamp;
	else
	{
		w->same_timestamp &= (timestamp == w->max_timestamp);
		w->max_timestamp = Max(w->max_timestamp, timestamp);
	}
	w->last_offset = offset;
	w->nrecords++;
}

void
kafka_batch_finish(KafkaBatchWriter *w)
{
	char	   *h = w->buf->data + w->start;
	int			size = w->buf->len - w->start;
	int16		attributes = KAFKA_CODEC_NONE;

	/* one timestamp for all: clients take maxTimestamp for every record */
	if (w->nrecords > 0 && w->same_timestamp)
		attributes |= KAFKA_ATTR_LOG_APPEND_TIME;

	put64(h, w->base_offset);
	put32(h + 8, size - KAFKA_BATCH_LOG_OVERHEAD);
	put32(h + 12, -1);			/* partitionLeaderEpoch: none */
	h[MAGIC_AT] = 2;
	put16(h + ATTRIBUTES_AT, attributes);
	put32(h + 23, (int32) (w->last_offset - w->base_offset));
	put64(h + 27, w->base_timestamp);
	put64(h + 35, w->max_timestamp);
	put64(h + 43, -1);			/* producerId */
	put16(h + 51, -1);			/* producerEpoch */
	put32(h + 53, -1);			/* baseSequence */
	put32(h + 57, w->nrecords);
	put32(h + CRC_AT, (int32) crc32c(h + ATTRIBUTES_AT, size - ATTRIBUTES_AT));
}

void
kafka_write_gap_batch(StringInfo buf, int64 first, int64 last, int64 timestamp)
{
	KafkaBatchWriter w;

	Assert(last >= first && last - first <= KAFKA_BATCH_MAX_OFFSET_DELTA);
	kafka_batch_begin(&w, buf, first, timestamp);
	w.last_offset = last;
	kafka_batch_finish(&w);
}
