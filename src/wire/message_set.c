/*-------------------------------------------------------------------------
 *
 * message_set.c
 *	  Kafka's old message formats (magic 0 and 1): reading the MessageSets
 *	  of Produce v0-2, writing those of Fetch v0-3 (see message_set.h).
 *
 * The checks follow Kafka's broker (its legacy record iterators and
 * LogValidator): each message's size against its format's overhead, its
 * CRC-32 (the IEEE polynomial, zlib's crc32, over everything after the
 * crc field), its magic, its codec; a wrapper's inner messages must be
 * uncompressed, of the wrapper's magic, and at least one.  What decoding
 * allocates (inflated wrappers, the records) is charged to max_decoded, as
 * record_batch.c charges it, so a bomb stops there.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include <zlib.h>

#include "port/pg_bitutils.h"

#include "pg_topics/wire/compression.h"
#include "pg_topics/wire/message_set.h"

#define CORRUPT_MESSAGE					2
#define MESSAGE_TOO_LARGE				10
#define UNSUPPORTED_FOR_MESSAGE_FORMAT	43
#define UNSUPPORTED_COMPRESSION_TYPE	76
#define INVALID_RECORD					87

/* A message as read */
typedef struct Message
{
	int8		magic;
	int			codec;
	KafkaBytes	key;
	KafkaBytes	value;
} Message;

/* The state of one decode */
typedef struct SetDecoder
{
	KafkaBatches *out;
	int			nallocated;		/* out->batches' room */
	int			records_room;	/* the last batch's records' room */
	Size		max_decoded;
	Size		decoded;
} SetDecoder;

static inline int
fail(SetDecoder *d, int code, const char *why)
{
	d->out->error_message = why;
	return code;
}

/* The message at r into *m; 0 or an error code */
static int
read_message(SetDecoder *d, KafkaReader *r, Message *m)
{
	KafkaReader body;
	int32		size;
	uint32		crc;

	if (kafka_reader_remaining(r) < KAFKA_MESSAGE_LOG_OVERHEAD)
		return fail(d, CORRUPT_MESSAGE, "a message is cut short");
	(void) kafka_read_int64(r); /* its offset: the log assigns them */
	size = kafka_read_int32(r);
	if (size < KAFKA_MESSAGE_V0_OVERHEAD)
		return fail(d, CORRUPT_MESSAGE, "a message is smaller than its format's overhead");
	if (size > kafka_reader_remaining(r))
		return fail(d, CORRUPT_MESSAGE, "a message is cut short");
	kafka_reader_init(&body, r->data + r->pos, size);
	r->pos += size;

	crc = kafka_read_uint32(&body);
	m->magic = kafka_read_int8(&body);
	if (m->magic != 0 && m->magic != 1)
		return fail(d, UNSUPPORTED_FOR_MESSAGE_FORMAT,
					"only messages of magic 0 and 1 are read in a message set");
	if (m->magic == 1 && size < KAFKA_MESSAGE_V1_OVERHEAD)
		return fail(d, CORRUPT_MESSAGE, "a message is smaller than its format's overhead");
	if (crc != (uint32) crc32(0L, (const Bytef *) body.data + 4, size - 4))
		return fail(d, CORRUPT_MESSAGE, "a message's CRC does not match");
	m->codec = kafka_read_int8(&body) & KAFKA_ATTR_CODEC_MASK;
	if (m->magic == 1)
		(void) kafka_read_int64(&body); /* its timestamp: the log's instead */
	m->key = kafka_read_bytes(&body);
	m->value = kafka_read_bytes(&body);
	if (body.error || kafka_reader_remaining(&body) != 0)
		return fail(d, INVALID_RECORD, "a message's key and value do not fill it exactly");
	return 0;
}

/* A new batch, empty, at the end of out */
static KafkaRecordBatch *
new_batch(SetDecoder *d)
{
	KafkaBatches *out = d->out;
	KafkaRecordBatch *b;

	if (out->nbatches == d->nallocated)
	{
		d->nallocated = d->nallocated ? d->nallocated * 2 : 1;
		out->batches = out->batches ?
			repalloc(out->batches, d->nallocated * sizeof(KafkaRecordBatch)) :
			palloc(d->nallocated * sizeof(KafkaRecordBatch));
	}
	b = &out->batches[out->nbatches++];
	memset(b, 0, sizeof(*b));
	b->producer_id = -1;
	b->producer_epoch = -1;
	b->base_sequence = -1;
	b->partition_leader_epoch = -1;
	d->records_room = 0;
	return b;
}

/* Append m's key and value to b (the last batch) as a record */
static int
add_record(SetDecoder *d, KafkaRecordBatch *b, const Message *m)
{
	KafkaRecord *rec;

	if (b->nrecords == d->records_room)
	{
		int			room = d->records_room ? d->records_room * 2 : 16;
		Size		more = (Size) (room - d->records_room) * sizeof(KafkaRecord);

		if (more > d->max_decoded - d->decoded)
			return fail(d, MESSAGE_TOO_LARGE, "the messages take more memory than allowed");
		d->decoded += more;
		/* under 1 GB: a message takes 26 bytes at least, a record 48 */
		b->records = b->records ?
			repalloc(b->records, room * sizeof(KafkaRecord)) :
			palloc(room * sizeof(KafkaRecord));
		d->records_room = room;
	}
	rec = &b->records[b->nrecords];
	memset(rec, 0, sizeof(*rec));
	rec->offset_delta = b->nrecords;
	rec->key = m->key;
	rec->value = m->value;
	b->nrecords++;
	b->last_offset_delta = b->nrecords - 1;
	d->out->nrecords++;
	d->out->payload_bytes += Max(m->key.len, 0) + Max(m->value.len, 0);
	return 0;
}

/* XXH32 of a short input (under 16 bytes), seed 0: an LZ4 frame's HC */
static uint32
xxh32_short(const uint8 *p, int len)
{
	const uint32 prime1 = 0x9E3779B1U,
				prime2 = 0x85EBCA77U,
				prime3 = 0xC2B2AE3DU,
				prime4 = 0x27D4EB2FU,
				prime5 = 0x165667B1U;
	uint32		h = prime5 + (uint32) len;
	int			i = 0;

	Assert(len < 16);
	for (; i + 4 <= len; i += 4)
	{
		uint32		lane = (uint32) p[i] | (uint32) p[i + 1] << 8 |
			(uint32) p[i + 2] << 16 | (uint32) p[i + 3] << 24;

		h += lane * prime3;
		h = pg_rotate_left32(h, 17) * prime4;
	}
	for (; i < len; i++)
	{
		h += p[i] * prime5;
		h = pg_rotate_left32(h, 11) * prime1;
	}
	h ^= h >> 15;
	h *= prime2;
	h ^= h >> 13;
	h *= prime3;
	h ^= h >> 16;
	return h;
}

/*
 * A copy of an lz4 frame of magic 0 whose descriptor checksum (HC) is
 * recomputed: Kafka's clients computed it over the frame's magic number
 * too, and Kafka's broker ignores it for magic 0 (so liblz4, which checks
 * it, must be given the right one).  NULL if it is not charged (too large).
 */
static char *
fixed_lz4_header(SetDecoder *d, KafkaBytes value)
{
	uint8	   *copy;
	int			desc_len;

	if ((Size) value.len > d->max_decoded - d->decoded)
		return NULL;
	d->decoded += value.len;
	copy = palloc_extended(value.len, MCXT_ALLOC_HUGE);
	memcpy(copy, value.data, value.len);
	/* magic number 0x184D2204 (little-endian), FLG, BD, [size], [dict], HC */
	if (value.len >= 7 && copy[0] == 0x04 && copy[1] == 0x22 &&
		copy[2] == 0x4D && copy[3] == 0x18)
	{
		desc_len = 2 + ((copy[4] & 0x08) ? 8 : 0) + ((copy[4] & 0x01) ? 4 : 0);
		if (value.len > 4 + desc_len)
			copy[4 + desc_len] = (uint8) (xxh32_short(copy + 4, desc_len) >> 8);
	}
	return (char *) copy;
}

/* The inner messages of wrapper m into a batch of their own */
static int
read_wrapper(SetDecoder *d, const Message *m)
{
	KafkaRecordBatch *b;
	KafkaBytes	in = m->value;
	char	   *fixed = NULL;
	Size		len;
	KafkaReader inner;
	int			result;

	if (m->codec > KAFKA_CODEC_LZ4)
		return fail(d, UNSUPPORTED_COMPRESSION_TYPE,
					m->codec == KAFKA_CODEC_ZSTD ?
					"zstd compression needs record batches (magic 2)" :
					"unknown compression codec");
	if (in.len < 0)
		return fail(d, INVALID_RECORD, "a compressed message set's wrapper has a null value");
	if (m->codec == KAFKA_CODEC_LZ4 && m->magic == 0)
	{
		fixed = fixed_lz4_header(d, in);
		if (fixed == NULL)
			return fail(d, MESSAGE_TOO_LARGE, "the messages take more memory than allowed");
		in.data = fixed;
	}
	b = new_batch(d);
	result = kafka_inflate(m->codec, in.data, in.len,
						   d->max_decoded - d->decoded, &b->inflated, &len,
						   &d->out->error_message);
	if (fixed)
		pfree(fixed);
	if (result != 0)
		return result;
	d->decoded += len;
	kafka_reader_init(&inner, b->inflated, (int) len);
	while (kafka_reader_remaining(&inner) > 0)
	{
		Message		im;

		result = read_message(d, &inner, &im);
		if (result != 0)
			return result;
		if (im.codec != KAFKA_CODEC_NONE)
			return fail(d, INVALID_RECORD, "inner messages must not be compressed");
		if (im.magic != m->magic)
			return fail(d, INVALID_RECORD, "an inner message's magic is not its wrapper's");
		result = add_record(d, b, &im);
		if (result != 0)
			return result;
	}
	if (b->nrecords == 0)
		return fail(d, INVALID_RECORD, "a compressed message set without messages");
	return 0;
}

int
kafka_message_set_decode(const char *data, int len, Size max_decoded,
						 KafkaBatches *out)
{
	SetDecoder	d;
	KafkaReader r;
	KafkaRecordBatch *plain = NULL;
	int			result = 0;

	memset(out, 0, sizeof(*out));
	memset(&d, 0, sizeof(d));
	d.out = out;
	d.max_decoded = max_decoded;
	if (len <= 0)
		return fail(&d, INVALID_RECORD, "no messages");
	kafka_reader_init(&r, data, len);
	while (kafka_reader_remaining(&r) > 0 && result == 0)
	{
		Message		m;

		result = read_message(&d, &r, &m);
		if (result != 0)
			break;
		if (m.codec == KAFKA_CODEC_NONE)
		{
			/* uncompressed messages in a row make one batch */
			if (plain == NULL)
				plain = new_batch(&d);
			result = add_record(&d, plain, &m);
		}
		else
		{
			plain = NULL;
			result = read_wrapper(&d, &m);
		}
	}
	if (result != 0)
	{
		const char *why = out->error_message;

		kafka_batches_free(out);
		out->error_message = why;
	}
	return result;
}

Size
kafka_message_size(int magic, KafkaBytes key, KafkaBytes value)
{
	return KAFKA_MESSAGE_LOG_OVERHEAD +
		(magic == 0 ? KAFKA_MESSAGE_V0_OVERHEAD : KAFKA_MESSAGE_V1_OVERHEAD) +
		Max(key.len, 0) + Max(value.len, 0);
}

void
kafka_message_append(StringInfo buf, int magic, int64 offset, int64 timestamp,
					 KafkaBytes key, KafkaBytes value)
{
	int			start;
	uint32		crc;

	kafka_write_int64(buf, offset);
	kafka_write_int32(buf, (int32) (kafka_message_size(magic, key, value) -
									KAFKA_MESSAGE_LOG_OVERHEAD));
	start = buf->len;
	kafka_write_int32(buf, 0);	/* the crc, patched below */
	kafka_write_int8(buf, (int8) magic);
	kafka_write_int8(buf, magic == 1 ? KAFKA_ATTR_LOG_APPEND_TIME : 0);
	if (magic == 1)
		kafka_write_int64(buf, timestamp);
	kafka_write_bytes(buf, key.data, key.len);
	kafka_write_bytes(buf, value.data, value.len);
	crc = (uint32) crc32(0L, (const Bytef *) buf->data + start + 4,
						 buf->len - start - 4);
	kafka_patch_int32(buf, start, (int32) crc);
}
