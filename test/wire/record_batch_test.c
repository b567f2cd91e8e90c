/*-------------------------------------------------------------------------
 *
 * record_batch_test.c
 *	  Unit tests of src/wire/record_batch.c and src/wire/compression.c, as
 *	  a frontend program (make check-wire).
 *
 * It checks that what our writer writes decodes to the same records, that
 * every malformed batch gets the error code record_batch.h promises, that
 * each codec inflates what its library (and kafka-python) writes and stops
 * a decompression bomb at the limit with bounded memory, and that the
 * batches kafka-python and librdkafka wrote (the .vec files of
 * WIRE_VECTORS, made by kafka_python.py and librdkafka.py generate)
 * decode to the records they hold.  It writes our own batches to .vec
 * files in WIRE_OUT, for kafka_python.py check and librdkafka.py check to
 * read back with those clients.  Truncating a batch at every byte, and
 * flipping bits of its records (with the CRC made to match again), must
 * give an error or a sane result, never a crash.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <dirent.h>
#include <sys/resource.h>

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "port/pg_crc32c.h"

#include "pg_topics/wire/compression.h"
#include "pg_topics/wire/record_batch.h"
#include "unit_check.h"

#define MB	(1024 * 1024)

/* A record as a test gives it: absolute offset and timestamp */
typedef struct TestRecord
{
	int64		offset;
	int64		timestamp;
	KafkaBytes	key;
	KafkaBytes	value;
	int			nheaders;
	KafkaHeader *headers;
} TestRecord;

/* A batch of a .vec file and what it must decode to */
typedef struct TestBatch
{
	int			attributes;		/* -1: not said */
	int			nrecords;
	TestRecord *records;
} TestBatch;

static const char *out_dir;

static const KafkaBytes null_bytes = {NULL, -1};


static KafkaBytes
bytes_of(const char *data, int len)
{
	KafkaBytes	b = {data, len};

	return b;
}

static KafkaBytes
str(const char *s)
{
	return bytes_of(s, strlen(s));
}

/* n bytes, all c */
static KafkaBytes
repeated(char c, int n)
{
	char	   *data = palloc(Max(n, 1));

	memset(data, c, n);
	return bytes_of(data, n);
}

static bool
bytes_equal(KafkaBytes a, KafkaBytes b)
{
	if (a.len < 0 || b.len < 0)
		return a.len == b.len;
	return a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
}

static uint32
crc32c(const char *data, int len)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return crc;
}

static int32
get32(const char *at)
{
	uint32		v;

	memcpy(&v, at, 4);
	return (int32) pg_ntoh32(v);
}

static void
set32(char *at, int32 v)
{
	uint32		n = pg_hton32((uint32) v);

	memcpy(at, &n, 4);
}

static void
set16(char *at, int16 v)
{
	uint16		n = pg_hton16((uint16) v);

	memcpy(at, &n, 2);
}

/* Make the batch at data (len bytes) consistent again: length and CRC */
static void
reseal(char *data, int len)
{
	set32(data + 8, len - KAFKA_BATCH_LOG_OVERHEAD);
	set32(data + 17, (int32) crc32c(data + 21, len - 21));
}

static int
decode(const char *data, int len, Size max_decoded, KafkaBatches *out)
{
	return kafka_batches_decode(data, len, max_decoded, out);
}

/* The decode error of data (0 if it decodes), freeing the result */
static int
decode_error(const char *data, int len, Size max_decoded)
{
	KafkaBatches out;
	int			result = decode(data, len, max_decoded, &out);

	kafka_batches_free(&out);
	return result;
}

/* Write recs as one batch with our writer, checking each record's size */
static void
write_batch(StringInfo buf, int64 base_offset, int64 base_timestamp,
			const TestRecord *recs, int n)
{
	KafkaBatchWriter w;

	kafka_batch_begin(&w, buf, base_offset, base_timestamp);
	for (int i = 0; i < n; i++)
	{
		const TestRecord *r = &recs[i];
		Size		size = kafka_batch_record_size(&w, r->offset, r->timestamp,
												   r->key, r->value,
												   r->headers, r->nheaders);
		int			before = buf->len;

		kafka_batch_add(&w, r->offset, r->timestamp, r->key, r->value,
						r->headers, r->nheaders);
		CHECK(size == (Size) (buf->len - before),
			  "kafka_batch_record_size says %zu for a record of %d bytes",
			  size, buf->len - before);
	}
	kafka_batch_finish(&w);
}

/* Whether batch b holds recs; why not, in why */
static bool
batch_holds(const KafkaRecordBatch *b, const TestRecord *recs, int n,
			char *why, size_t whylen)
{
	if (b->nrecords != n)
	{
		snprintf(why, whylen, "%d records, not %d", b->nrecords, n);
		return false;
	}
	for (int i = 0; i < n; i++)
	{
		const KafkaRecord *r = &b->records[i];
		const TestRecord *e = &recs[i];
		int64		ts = (b->attributes & KAFKA_ATTR_LOG_APPEND_TIME) ?
			b->max_timestamp :
			(int64) ((uint64) b->base_timestamp + (uint64) r->timestamp_delta);

		if (b->base_offset + r->offset_delta != e->offset || ts != e->timestamp)
			snprintf(why, whylen, "record %d: offset %lld timestamp %lld, not %lld %lld",
					 i, (long long) (b->base_offset + r->offset_delta),
					 (long long) ts, (long long) e->offset,
					 (long long) e->timestamp);
		else if (!bytes_equal(r->key, e->key) || !bytes_equal(r->value, e->value))
			snprintf(why, whylen, "record %d: another key or value", i);
		else if (r->nheaders != e->nheaders)
			snprintf(why, whylen, "record %d: %d headers, not %d", i,
					 r->nheaders, e->nheaders);
		else
		{
			for (int j = 0; j < r->nheaders; j++)
				if (!bytes_equal(r->headers[j].key, e->headers[j].key) ||
					!bytes_equal(r->headers[j].value, e->headers[j].value))
				{
					snprintf(why, whylen, "record %d: header %d differs", i, j);
					return false;
				}
			continue;
		}
		return false;
	}
	return true;
}

/* A byte string as a .vec file writes it */
static void
put_bytes(FILE *f, KafkaBytes b)
{
	bool		same = b.len >= 64;

	if (b.len < 0)
	{
		fputs(" -", f);
		return;
	}
	if (b.len == 0)
	{
		fputs(" .", f);
		return;
	}
	for (int i = 1; i < b.len && same; i++)
		same = b.data[i] == b.data[0];
	fputc(' ', f);
	if (same)
	{
		fprintf(f, "%02x*%d", (uint8) b.data[0], b.len);
		return;
	}
	for (int i = 0; i < b.len; i++)
		fprintf(f, "%02x", (uint8) b.data[i]);
}

/*
 * Add a batch to WIRE_OUT/name.vec, for kafka-python to check: its bytes,
 * the records it holds, its attributes and last offset.
 */
static void
vec_add(const char *name, const char *data, int len, const TestRecord *recs,
		int n, int attributes, int64 last)
{
	char		path[MAXPGPATH];
	FILE	   *f;

	if (out_dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s.vec", out_dir, name);
	f = fopen(path, "a");
	if (f == NULL)
	{
		CHECK(false, "cannot write %s: %m", path);
		return;
	}
	fputs("batch ", f);
	for (int i = 0; i < len; i++)
		fprintf(f, "%02x", (uint8) data[i]);
	fprintf(f, "\nattributes %d\nlast %lld\n", attributes, (long long) last);
	for (int i = 0; i < n; i++)
	{
		fprintf(f, "record %lld %lld", (long long) recs[i].offset,
				(long long) recs[i].timestamp);
		put_bytes(f, recs[i].key);
		put_bytes(f, recs[i].value);
		for (int j = 0; j < recs[i].nheaders; j++)
		{
			put_bytes(f, recs[i].headers[j].key);
			put_bytes(f, recs[i].headers[j].value);
		}
		fputc('\n', f);
	}
	fclose(f);
}

/* Records of every shape: null and empty, binary, headers, big, far apart */
static TestRecord *
varied_records(int64 base_offset, int64 ts, int *n)
{
	static char binary[256];
	TestRecord *r = palloc0(6 * sizeof(TestRecord));
	KafkaHeader *h = palloc0(110 * sizeof(KafkaHeader));

	for (int i = 0; i < 256; i++)
		binary[i] = (char) i;
	for (int i = 0; i < 6; i++)
	{
		r[i].offset = base_offset + i;
		r[i].timestamp = ts;
	}
	r[0].key = null_bytes;
	r[0].value = null_bytes;
	r[1].key = str("");
	r[1].value = str("");
	r[1].timestamp = ts + 1;
	r[2].key = bytes_of(binary, 256);
	r[2].value = str("v");
	r[2].timestamp = ts - 1000;
	r[2].nheaders = 1;
	r[2].headers = h;
	h[0].key = str("h");
	h[0].value = null_bytes;
	r[3].key = str("k");
	r[3].value = repeated('x', 5000);
	r[3].timestamp = ts + ((int64) 1 << 40);
	r[3].nheaders = 3;
	r[3].headers = h + 1;
	h[1].key = str("dup");
	h[1].value = str("1");
	h[2].key = str("dup");
	h[2].value = str("2");
	h[3].key = str("");
	h[3].value = str("");
	r[4].key = str("k2");
	r[4].value = null_bytes;
	r[4].timestamp = 0;
	r[4].nheaders = 100;
	r[4].headers = h + 4;
	for (int i = 0; i < 100; i++)
	{
		h[4 + i].key = str("h");
		h[4 + i].value = i % 2 ? str("v") : null_bytes;
	}
	r[5].key = repeated('K', 200);
	r[5].value = repeated('\xff', 70000);
	*n = 6;
	return r;
}

/* Our writer's batches decode to what went in, and kafka-python reads them */
static void
test_round_trip(void)
{
	StringInfoData buf;
	KafkaBatches out;
	char		why[256];
	int			n;
	int64		base = (int64) 1 << 40;
	int64		ts = INT64CONST(1700000000000);
	TestRecord *recs = varied_records(base, ts, &n);
	TestRecord	same[3];
	int			result;

	initStringInfo(&buf);
	write_batch(&buf, base, ts, recs, n);
	result = decode(buf.data, buf.len, MB, &out);
	CHECK(result == 0, "round trip: decode fails with %d (%s)", result,
		  out.error_message);
	if (result == 0)
	{
		KafkaRecordBatch *b = &out.batches[0];

		CHECK(out.nbatches == 1 && out.nrecords == n, "round trip: %d batches, %lld records",
			  out.nbatches, (long long) out.nrecords);
		CHECK(batch_holds(b, recs, n, why, sizeof(why)), "round trip: %s", why);
		CHECK(b->attributes == 0, "round trip: attributes %d", b->attributes);
		CHECK(b->base_offset == base && b->base_timestamp == ts &&
			  b->max_timestamp == ts + ((int64) 1 << 40) &&
			  b->partition_leader_epoch == -1 && b->producer_id == -1 &&
			  b->producer_epoch == -1 && b->base_sequence == -1 &&
			  b->last_offset_delta == n - 1,
			  "round trip: header fields");
		CHECK(out.payload_bytes == (256 + 1 + 1) + (1 + 5000 + 3 + 1 + 3 + 1) +
			  (2 + 100 + 50) + (200 + 70000),
			  "round trip: payload_bytes %zu", out.payload_bytes);
	}
	kafka_batches_free(&out);
	vec_add("record_batch_varied", buf.data, buf.len, recs, n, 0, base + n - 1);

	/* one timestamp for all: LogAppendTime, and maxTimestamp is it */
	for (int i = 0; i < 3; i++)
	{
		same[i] = recs[i % 2];
		same[i].offset = 7 + i;
		same[i].timestamp = ts;
	}
	resetStringInfo(&buf);
	write_batch(&buf, 7, ts - 10, same, 3);
	result = decode(buf.data, buf.len, MB, &out);
	CHECK(result == 0 && out.batches[0].attributes == KAFKA_ATTR_LOG_APPEND_TIME &&
		  out.batches[0].max_timestamp == ts &&
		  batch_holds(&out.batches[0], same, 3, why, sizeof(why)),
		  "one timestamp: not LogAppendTime with that maxTimestamp");
	kafka_batches_free(&out);
	vec_add("record_batch_same_timestamp", buf.data, buf.len, same, 3,
			KAFKA_ATTR_LOG_APPEND_TIME, 9);

	/* offsets with gaps (a fetch's batch): produce refuses them */
	same[1].offset = 10;
	same[2].offset = 20;
	same[2].timestamp = ts + 1;
	resetStringInfo(&buf);
	write_batch(&buf, 7, ts, same, 3);
	CHECK(get32(buf.data + 23) == 13, "gaps: lastOffsetDelta %d, not 13",
		  get32(buf.data + 23));
	result = decode_error(buf.data, buf.len, MB);
	CHECK(result == 87, "gaps: decode gives %d, not 87", result);
	vec_add("record_batch_gaps", buf.data, buf.len, same, 3, 0, 20);

	/* a record alone, and two batches back to back */
	resetStringInfo(&buf);
	write_batch(&buf, base, ts, recs, 1);
	write_batch(&buf, base + 1, ts, recs + 1, 2);
	result = decode(buf.data, buf.len, MB, &out);
	CHECK(result == 0 && out.nbatches == 2 && out.nrecords == 3 &&
		  batch_holds(&out.batches[1], recs + 1, 2, why, sizeof(why)),
		  "two batches: decode gives %d", result);
	kafka_batches_free(&out);
	pfree(buf.data);
}

/* A gap batch: no records, spanning first..last */
static void
test_gap_batch(void)
{
	StringInfoData buf;
	KafkaReader r;
	TestRecord	rec;
	int64		ts = INT64CONST(1700000000000);

	initStringInfo(&buf);
	appendStringInfoString(&buf, "ab");
	kafka_write_gap_batch(&buf, 5000, 5009, ts);
	kafka_reader_init(&r, buf.data + 2, buf.len - 2);
	CHECK(buf.len - 2 == KAFKA_BATCH_HEADER_SIZE, "gap batch: %d bytes", buf.len - 2);
	CHECK(kafka_read_int64(&r) == 5000, "gap batch: baseOffset");
	CHECK(kafka_read_int32(&r) == KAFKA_BATCH_HEADER_SIZE - 12, "gap batch: batchLength");
	CHECK(kafka_read_int32(&r) == -1, "gap batch: partitionLeaderEpoch");
	CHECK(kafka_read_int8(&r) == 2, "gap batch: magic");
	CHECK(kafka_read_uint32(&r) == crc32c(buf.data + 2 + 21, buf.len - 2 - 21),
		  "gap batch: CRC");
	CHECK(kafka_read_int16(&r) == 0, "gap batch: attributes");
	CHECK(kafka_read_int32(&r) == 9, "gap batch: lastOffsetDelta");
	CHECK(kafka_read_int64(&r) == ts && kafka_read_int64(&r) == ts,
		  "gap batch: timestamps");
	CHECK(kafka_read_int64(&r) == -1 && kafka_read_int16(&r) == -1 &&
		  kafka_read_int32(&r) == -1, "gap batch: producer");
	CHECK(kafka_read_int32(&r) == 0 && kafka_reader_remaining(&r) == 0 && !r.error,
		  "gap batch: recordCount");
	CHECK(decode_error(buf.data + 2, buf.len - 2, MB) == 87,
		  "gap batch: decode does not refuse it with 87");
	vec_add("record_batch_gap", buf.data + 2, buf.len - 2, NULL, 0, 0, 5009);

	/* and a record after it, which a consumer at 5000 must get to */
	memset(&rec, 0, sizeof(rec));
	rec.offset = 5010;
	rec.timestamp = ts;
	rec.key = str("after the gap");
	rec.value = null_bytes;
	resetStringInfo(&buf);
	write_batch(&buf, 5010, ts, &rec, 1);
	vec_add("record_batch_gap", buf.data, buf.len, &rec, 1,
			KAFKA_ATTR_LOG_APPEND_TIME, 5010);
	pfree(buf.data);
}

/* A batch of raw records bytes, with the given header fields */
static void
raw_batch(StringInfo buf, const char *records, int len, int16 attributes,
		  int32 last_delta, int32 count)
{
	int			start = buf->len;

	kafka_write_int64(buf, 0);
	kafka_write_int32(buf, 0);
	kafka_write_int32(buf, 0);
	kafka_write_int8(buf, 2);
	kafka_write_int32(buf, 0);
	kafka_write_int16(buf, attributes);
	kafka_write_int32(buf, last_delta);
	kafka_write_int64(buf, 1000);
	kafka_write_int64(buf, 1000);
	kafka_write_int64(buf, -1);
	kafka_write_int16(buf, -1);
	kafka_write_int32(buf, -1);
	kafka_write_int32(buf, count);
	appendBinaryStringInfo(buf, records, len);
	reseal(buf->data + start, buf->len - start);
}

/* A record: its length (adjusted by len_adjust) and its body */
static void
raw_record(StringInfo recs, StringInfo body, int32 len_adjust)
{
	kafka_write_varint(recs, body->len + len_adjust);
	appendBinaryStringInfo(recs, body->data, body->len);
	resetStringInfo(body);
}

/* A record body: attributes, deltas, key, value; the header count follows */
static void
raw_body(StringInfo body, int32 offset_delta, int32 keylen, int32 valuelen)
{
	kafka_write_int8(body, 0);
	kafka_write_varlong(body, 0);
	kafka_write_varint(body, offset_delta);
	kafka_write_varint(body, keylen);
	for (int i = 0; i < keylen; i++)
		kafka_write_int8(body, 'k');
	kafka_write_varint(body, valuelen);
	for (int i = 0; i < valuelen; i++)
		kafka_write_int8(body, 'v');
}

/* The error of one batch of records built by the caller */
static int
raw_error(StringInfo recs, int16 attributes, int32 last_delta, int32 count)
{
	StringInfoData buf;
	int			result;

	initStringInfo(&buf);
	raw_batch(&buf, recs->data, recs->len, attributes, last_delta, count);
	result = decode_error(buf.data, buf.len, MB);
	pfree(buf.data);
	resetStringInfo(recs);
	return result;
}

/* Every malformed batch gets the error record_batch.h promises */
static void
test_malformed(void)
{
	StringInfoData recs;
	StringInfoData body;
	StringInfoData good;
	StringInfoData buf;
	int			n;
	TestRecord *varied = varied_records(0, 1000, &n);
	int			e;

	initStringInfo(&recs);
	initStringInfo(&body);
	initStringInfo(&good);
	initStringInfo(&buf);
	write_batch(&good, 0, 1000, varied, 3);

#define EXPECT(code, what) \
	do { \
		e = decode_error(buf.data, buf.len, MB); \
		CHECK(e == (code), "%s: %d, not %d", what, e, code); \
	} while (0)
#define RESET_TO_GOOD() \
	do { \
		resetStringInfo(&buf); \
		appendBinaryStringInfo(&buf, good.data, good.len); \
	} while (0)

	RESET_TO_GOOD();
	EXPECT(0, "a good batch");
	buf.data[40] ^= 1;
	EXPECT(2, "a byte flipped under the CRC");
	RESET_TO_GOOD();
	buf.data[17] ^= 0x80;
	EXPECT(2, "a CRC flipped");
	RESET_TO_GOOD();
	buf.data[16] = 1;
	EXPECT(43, "magic 1");
	buf.data[16] = 0;
	EXPECT(43, "magic 0");
	buf.data[16] = 3;
	EXPECT(43, "magic 3");
	buf.len = 17;
	EXPECT(43, "magic 3, cut after it");
	RESET_TO_GOOD();
	set32(buf.data + 8, get32(buf.data + 8) + 1);
	EXPECT(2, "batchLength past the data");
	set32(buf.data + 8, 48);
	EXPECT(2, "batchLength below the header");
	set32(buf.data + 8, -1);
	EXPECT(2, "batchLength -1");
	RESET_TO_GOOD();
	set32(buf.data + 8, get32(buf.data + 8) - 1);
	EXPECT(2, "batchLength short of the data");
	RESET_TO_GOOD();
	appendStringInfoString(&buf, "0123456789");
	EXPECT(2, "a partial batch after a good one");
	RESET_TO_GOOD();
	appendBinaryStringInfo(&buf, good.data, 17);
	buf.data[buf.len - 1] = 1;
	EXPECT(43, "a magic 1 message after a good batch");
	RESET_TO_GOOD();
	EXPECT(0, "a good batch again");
	resetStringInfo(&buf);
	EXPECT(87, "no data");

	/* header fields under the CRC (made to match) */
	RESET_TO_GOOD();
	set16(buf.data + 21, 5);
	reseal(buf.data, buf.len);
	EXPECT(76, "codec 5");
	set16(buf.data + 21, 7);
	reseal(buf.data, buf.len);
	EXPECT(76, "codec 7");
	set16(buf.data + 21, KAFKA_ATTR_CONTROL);
	reseal(buf.data, buf.len);
	EXPECT(87, "a control batch");
	set16(buf.data + 21, KAFKA_ATTR_TRANSACTIONAL);
	reseal(buf.data, buf.len);
	EXPECT(0, "a transactional batch");
	RESET_TO_GOOD();
	set32(buf.data + 57, 0);
	set32(buf.data + 23, -1);
	reseal(buf.data, buf.len);
	EXPECT(87, "recordCount 0");
	set32(buf.data + 57, 4);
	set32(buf.data + 23, 3);
	reseal(buf.data, buf.len);
	EXPECT(87, "recordCount above the records");
	set32(buf.data + 57, 2);
	set32(buf.data + 23, 1);
	reseal(buf.data, buf.len);
	EXPECT(87, "recordCount below the records");
	set32(buf.data + 57, 3);
	set32(buf.data + 23, 3);
	reseal(buf.data, buf.len);
	EXPECT(87, "lastOffsetDelta past the last record");
	set32(buf.data + 57, -5);
	set32(buf.data + 23, -6);
	reseal(buf.data, buf.len);
	EXPECT(87, "recordCount -5");
	set32(buf.data + 57, PG_INT32_MAX);
	set32(buf.data + 23, PG_INT32_MAX - 1);
	reseal(buf.data, buf.len);
	EXPECT(87, "recordCount 2^31-1 (nothing allocated for it)");

	/* records built by hand */
	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 0);
	raw_body(&body, 1, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 1, 2);
	CHECK(e == 0, "two hand-made records: %d", e);

	raw_body(&body, 1, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "offsetDelta 1 for the first record: %d", e);

	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 0);
	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 1, 2);
	CHECK(e == 87, "offsetDelta 0 twice: %d", e);

	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 1);
	kafka_write_int8(&recs, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a record's length beyond its fields: %d", e);

	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, -1);
	kafka_write_int8(&recs, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a record's length short of its fields: %d", e);

	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 5);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 2, "a record's length past its batch: %d", e);

	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	kafka_write_varint(&recs, -3);
	appendBinaryStringInfo(&recs, body.data, body.len);
	resetStringInfo(&body);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 2, "a record's length -3: %d", e);

	raw_body(&body, 0, 0, 0);
	kafka_write_varint(&body, 0);
	body.data[3] = 3;			/* the key's length -2, zigzag */
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a key length -2: %d", e);

	raw_body(&body, 0, 0, 0);
	kafka_write_varint(&body, 0);
	body.data[4] = 9;			/* the value's length -5, zigzag */
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a value length -5: %d", e);

	raw_body(&body, 0, -1, -1);
	kafka_write_varint(&body, -1);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a header count -1: %d", e);

	raw_body(&body, 0, -1, -1);
	kafka_write_varint(&body, 1);
	kafka_write_varint(&body, -1);
	kafka_write_varint(&body, 1);
	kafka_write_int8(&body, 'x');
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a null header key: %d", e);

	raw_body(&body, 0, -1, -1);
	kafka_write_varint(&body, 1);
	kafka_write_varint(&body, 1);
	kafka_write_int8(&body, 'h');
	kafka_write_varint(&body, -7);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a header value length -7: %d", e);

	raw_body(&body, 0, -1, -1);
	kafka_write_varint(&body, 1);
	kafka_write_varint(&body, 1);
	kafka_write_int8(&body, 'h');
	kafka_write_varint(&body, -1);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 0, "a null header value: %d", e);

	raw_body(&body, 0, -1, -1);
	kafka_write_varint(&body, 1000000);
	for (int i = 0; i < 20; i++)
		kafka_write_int8(&body, 0);
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a header count of a million in 20 bytes: %d", e);

	raw_body(&body, 0, 1, 100);
	kafka_write_varint(&body, 0);
	body.len -= 50;				/* the value runs past the record */
	raw_record(&recs, &body, 0);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "a value past its record: %d", e);

	raw_body(&body, 0, 1, 1);
	kafka_write_varint(&body, 0);
	raw_record(&recs, &body, 0);
	appendBinaryStringInfo(&recs, "\0\0\0", 3);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 87, "bytes after the last record: %d", e);

	appendBinaryStringInfo(&recs, "\x80\x80\x80\x80\x80\x01\0", 7);
	e = raw_error(&recs, 0, 0, 1);
	CHECK(e == 2, "a record length of six varint bytes: %d", e);

	appendBinaryStringInfo(&recs, "garbage!", 8);
	e = raw_error(&recs, KAFKA_CODEC_GZIP, 0, 1);
	CHECK(e == 2, "gzip records that are not gzip: %d", e);
	appendBinaryStringInfo(&recs, "garbage!", 8);
	e = raw_error(&recs, KAFKA_CODEC_ZSTD, 0, 1);
	CHECK(e == 2, "zstd records that are not zstd: %d", e);

	pfree(recs.data);
	pfree(body.data);
	pfree(good.data);
	pfree(buf.data);
#undef EXPECT
#undef RESET_TO_GOOD
}

/* in (len bytes) compressed with codec into out (raw snappy, one frame) */
static void
compress_with(int codec, const char *in, int len, StringInfo out)
{
	size_t		bound;
	size_t		n;

	resetStringInfo(out);
	switch (codec)
	{
		case KAFKA_CODEC_GZIP:
			{
				z_stream	zs;

				memset(&zs, 0, sizeof(zs));
				deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
				bound = deflateBound(&zs, len);
				enlargeStringInfo(out, bound);
				zs.next_in = (Bytef *) in;
				zs.avail_in = len;
				zs.next_out = (Bytef *) out->data;
				zs.avail_out = bound;
				deflate(&zs, Z_FINISH);
				n = zs.total_out;
				deflateEnd(&zs);
				break;
			}
		case KAFKA_CODEC_SNAPPY:
			bound = snappy_max_compressed_length(len);
			enlargeStringInfo(out, bound);
			n = bound;
			snappy_compress(in, len, out->data, &n);
			break;
		case KAFKA_CODEC_LZ4:
			bound = LZ4F_compressFrameBound(len, NULL);
			enlargeStringInfo(out, bound);
			n = LZ4F_compressFrame(out->data, bound, in, len, NULL);
			break;
		default:
			bound = ZSTD_compressBound(len);
			enlargeStringInfo(out, bound);
			n = ZSTD_compress(out->data, bound, in, len, 3);
			break;
	}
	out->len = (int) n;
}

/* The batch in buf with its records compressed with codec */
static void
compress_batch(StringInfo buf, int codec)
{
	StringInfoData z;

	initStringInfo(&z);
	compress_with(codec, buf->data + KAFKA_BATCH_HEADER_SIZE,
			 buf->len - KAFKA_BATCH_HEADER_SIZE, &z);
	buf->len = KAFKA_BATCH_HEADER_SIZE;
	appendBinaryStringInfo(buf, z.data, z.len);
	set16(buf->data + 21, codec);
	reseal(buf->data, buf->len);
	pfree(z.data);
}

static const char *const codec_names[] = {"none", "gzip", "snappy", "lz4", "zstd"};

/* kafka_inflate of in, which must give want (or an error, want NULL) */
static void
expect_inflate(const char *what, int codec, const char *in, int inlen,
			   Size max_out, const char *want, Size wantlen, int wanterr)
{
	char	   *out;
	Size		outlen;
	const char *msg;
	int			result = kafka_inflate(codec, in, inlen, max_out, &out, &outlen, &msg);

	if (wanterr != 0)
		CHECK(result == wanterr && out == NULL && msg != NULL,
			  "%s (%s): %d, not %d", what, codec_names[codec], result, wanterr);
	else
	{
		CHECK(result == 0 && outlen == wantlen && memcmp(out, want, wantlen) == 0,
			  "%s (%s): %d (%s), %zu bytes for %zu", what, codec_names[codec],
			  result, msg ? msg : "", outlen, wantlen);
		if (result == 0)
			pfree(out);
	}
}

/* Deterministic noise */
static uint32
next_random(uint32 *state)
{
	*state = *state * 1103515245 + 12345;
	return *state >> 8;
}

/* Each codec inflates what its library writes, and refuses garbage */
static void
test_inflate(void)
{
	StringInfoData plain;
	StringInfoData z;
	StringInfoData two;
	uint32		seed = 42;

	initStringInfo(&plain);
	initStringInfo(&z);
	initStringInfo(&two);
	for (int i = 0; plain.len < 100000; i++)
		appendStringInfo(&plain, "record %d of the test, %u; ", i, next_random(&seed) % 1000);

	for (int codec = KAFKA_CODEC_GZIP; codec <= KAFKA_CODEC_ZSTD; codec++)
	{
		compress_with(codec, plain.data, plain.len, &z);
		expect_inflate("100 kB", codec, z.data, z.len, MB, plain.data, plain.len, 0);
		expect_inflate("exactly max_out", codec, z.data, z.len, plain.len,
					   plain.data, plain.len, 0);
		expect_inflate("one byte beyond max_out", codec, z.data, z.len,
					   plain.len - 1, NULL, 0, 10);
		expect_inflate("max_out 0", codec, z.data, z.len, 0, NULL, 0, 10);

		/* members or frames back to back (raw snappy has no such thing) */
		if (codec != KAFKA_CODEC_SNAPPY)
		{
			resetStringInfo(&two);
			appendBinaryStringInfo(&two, z.data, z.len);
			compress_with(codec, "tail", 4, &z);
			appendBinaryStringInfo(&two, z.data, z.len);
			appendStringInfoString(&plain, "tail");
			expect_inflate("two frames", codec, two.data, two.len, MB,
						   plain.data, plain.len, 0);
			plain.len -= 4;
			appendStringInfoString(&two, "junk");
			expect_inflate("two frames and junk", codec, two.data, two.len, MB,
						   NULL, 0, 2);
		}

		/* every truncation of a small one fails */
		compress_with(codec, plain.data, 3000, &z);
		for (int len = 0; len < z.len; len++)
			expect_inflate("truncated", codec, z.data, len, MB, NULL, 0, 2);

		/* noise */
		for (int i = 0; i < 20; i++)
		{
			resetStringInfo(&z);
			for (int j = 0; j < 1 + i * 50; j++)
				appendStringInfoChar(&z, (char) next_random(&seed));
			expect_inflate("noise", codec, z.data, z.len, MB, NULL, 0, 2);
		}
	}

	/* zlib's own format, and an empty gzip stream */
	resetStringInfo(&z);
	enlargeStringInfo(&z, compressBound(plain.len));
	{
		uLongf		n = compressBound(plain.len);

		compress2((Bytef *) z.data, &n, (Bytef *) plain.data, plain.len, 9);
		z.len = n;
	}
	expect_inflate("a zlib stream", KAFKA_CODEC_GZIP, z.data, z.len, MB,
				   plain.data, plain.len, 0);
	compress_with(KAFKA_CODEC_GZIP, "", 0, &z);
	expect_inflate("empty", KAFKA_CODEC_GZIP, z.data, z.len, MB, "", 0, 0);

	/* xerial's framing: a header, then length-prefixed blocks */
	resetStringInfo(&two);
	appendBinaryStringInfo(&two, "\x82SNAPPY\0", 8);
	kafka_write_int32(&two, 1);
	kafka_write_int32(&two, 1);
	expect_inflate("xerial, no blocks", KAFKA_CODEC_SNAPPY, two.data, two.len, MB,
				   "", 0, 0);
	for (int off = 0; off < plain.len; off += 32768)
	{
		compress_with(KAFKA_CODEC_SNAPPY, plain.data + off, Min(32768, plain.len - off), &z);
		kafka_write_int32(&two, z.len);
		appendBinaryStringInfo(&two, z.data, z.len);
	}
	expect_inflate("xerial, 4 blocks", KAFKA_CODEC_SNAPPY, two.data, two.len, MB,
				   plain.data, plain.len, 0);
	expect_inflate("xerial, beyond max_out", KAFKA_CODEC_SNAPPY, two.data, two.len,
				   plain.len - 1, NULL, 0, 10);
	for (int len = 17; len < two.len; len += 97)
		expect_inflate("xerial, truncated", KAFKA_CODEC_SNAPPY, two.data, len, MB,
					   NULL, 0, 2);
	set32(two.data + 16, -1);
	expect_inflate("xerial, block length -1", KAFKA_CODEC_SNAPPY, two.data,
				   two.len, MB, NULL, 0, 2);
	set32(two.data + 16, 1 << 30);
	expect_inflate("xerial, block length past the data", KAFKA_CODEC_SNAPPY,
				   two.data, two.len, MB, NULL, 0, 2);

	expect_inflate("codec 5", 5, plain.data, 10, MB, NULL, 0, 76);
	expect_inflate("codec 0", 0, plain.data, 10, MB, NULL, 0, 76);

	pfree(plain.data);
	pfree(z.data);
	pfree(two.data);
}

/* The peak resident size so far, in kB */
static long
peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * A bomb: 256 MB of zeros compressed with codec (64 MB for gzip and snappy,
 * which compress them less), streamed from a 1 MB buffer
 */
static void
make_bomb(int codec, StringInfo out)
{
	static char zeros[MB];
	int			chunks = codec == KAFKA_CODEC_GZIP || codec == KAFKA_CODEC_SNAPPY ? 64 : 256;

	resetStringInfo(out);
	if (codec == KAFKA_CODEC_GZIP)
	{
		z_stream	zs;

		memset(&zs, 0, sizeof(zs));
		deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_RLE);
		for (int i = 0; i < chunks; i++)
		{
			zs.next_in = (Bytef *) zeros;
			zs.avail_in = MB;
			do
			{
				enlargeStringInfo(out, 65536);
				zs.next_out = (Bytef *) out->data + out->len;
				zs.avail_out = 65536;
				deflate(&zs, i == chunks - 1 ? Z_FINISH : Z_NO_FLUSH);
				out->len = (char *) zs.next_out - out->data;
			} while (zs.avail_out == 0);
		}
		deflateEnd(&zs);
	}
	else if (codec == KAFKA_CODEC_LZ4)
	{
		LZ4F_compressionContext_t ctx;
		size_t		bound = LZ4F_compressBound(MB, NULL);

		LZ4F_createCompressionContext(&ctx, LZ4F_VERSION);
		enlargeStringInfo(out, LZ4F_HEADER_SIZE_MAX);
		out->len += LZ4F_compressBegin(ctx, out->data, LZ4F_HEADER_SIZE_MAX, NULL);
		for (int i = 0; i < chunks; i++)
		{
			enlargeStringInfo(out, bound);
			out->len += LZ4F_compressUpdate(ctx, out->data + out->len, bound,
											zeros, MB, NULL);
		}
		enlargeStringInfo(out, bound);
		out->len += LZ4F_compressEnd(ctx, out->data + out->len, bound, NULL);
		LZ4F_freeCompressionContext(ctx);
	}
	else if (codec == KAFKA_CODEC_ZSTD)
	{
		ZSTD_CCtx  *cctx = ZSTD_createCCtx();

		for (int i = 0; i < chunks; i++)
		{
			ZSTD_inBuffer in = {zeros, MB, 0};
			size_t		left;

			do
			{
				ZSTD_outBuffer o;

				enlargeStringInfo(out, 65536);
				o.dst = out->data + out->len;
				o.size = 65536;
				o.pos = 0;
				left = ZSTD_compressStream2(cctx, &o, &in,
											i == chunks - 1 ? ZSTD_e_end : ZSTD_e_continue);
				out->len += o.pos;
			} while (in.pos < in.size || (i == chunks - 1 && left != 0));
		}
		ZSTD_freeCCtx(cctx);
	}
	else
	{
		/* xerial blocks of 32 kB zeros */
		StringInfoData z;

		initStringInfo(&z);
		compress_with(KAFKA_CODEC_SNAPPY, zeros, 32768, &z);
		appendBinaryStringInfo(out, "\x82SNAPPY\0\0\0\0\1\0\0\0\1", 16);
		for (int i = 0; i < chunks * 32; i++)
		{
			kafka_write_int32(out, z.len);
			appendBinaryStringInfo(out, z.data, z.len);
		}
		pfree(z.data);
	}
}

/*
 * A zstd frame without a content size, of a 2^window_log window, and
 * nblocks RLE blocks of 128 kB zeros
 */
static void
zstd_rle_frame(StringInfo out, int window_log, int nblocks)
{
	resetStringInfo(out);
	appendBinaryStringInfo(out, "\x28\xb5\x2f\xfd", 4);	/* magic */
	appendStringInfoChar(out, 0);	/* no content size, checksum, dictionary */
	appendStringInfoChar(out, (char) ((window_log - 10) << 3));
	for (int i = 0; i < nblocks; i++)
	{
		/* last block?, type RLE, size; then the byte */
		uint32		block = (i == nblocks - 1) | (1 << 1) | (131072 << 3);
		char		b[4] = {block & 0xff, (block >> 8) & 0xff, block >> 16, 0};

		appendBinaryStringInfo(out, b, 4);
	}
}

/*
 * Decompression bombs stop at max_out with error 10, and the peak memory
 * shows that nothing near their size was allocated.  Runs first, before
 * anything else raises the peak.
 */
static void
test_bombs(void)
{
	StringInfoData bomb;
	StringInfoData buf;
	StringInfoData raw;
	KafkaBytes	zeros;
	long		before;
	long		grown;

	initStringInfo(&bomb);
	initStringInfo(&buf);
	initStringInfo(&raw);
	enlargeStringInfo(&bomb, 4 * MB);
	before = peak_kb();
	for (int codec = KAFKA_CODEC_GZIP; codec <= KAFKA_CODEC_ZSTD; codec++)
	{
		make_bomb(codec, &bomb);
		expect_inflate("a bomb", codec, bomb.data, bomb.len, MB, NULL, 0, 10);

		/* as a batch's records, against the budget of the call */
		resetStringInfo(&buf);
		raw_batch(&buf, bomb.data, bomb.len, codec, 0, 1);
		CHECK(decode_error(buf.data, buf.len, MB) == 10,
			  "a bomb in a batch (%s) does not give 10", codec_names[codec]);
	}

	/* zstd frames of RLE blocks, made by hand */
	zstd_rle_frame(&bomb, 27, 2048);
	expect_inflate("a bomb with a 128 MB window", KAFKA_CODEC_ZSTD, bomb.data,
				   bomb.len, MB, NULL, 0, 10);
	zstd_rle_frame(&bomb, 22, 2048);
	expect_inflate("a bomb of RLE blocks", KAFKA_CODEC_ZSTD, bomb.data,
				   bomb.len, MB, NULL, 0, 10);
	zstd_rle_frame(&bomb, 22, 8);
	zeros = repeated(0, MB);
	expect_inflate("RLE blocks within the limit", KAFKA_CODEC_ZSTD, bomb.data,
				   bomb.len, MB, zeros.data, MB, 0);

	/* raw snappy of 64 MB and a byte */
	kafka_write_uvarint(&raw, 64 * MB + 1);
	appendBinaryStringInfo(&raw, "\0\0", 2);	/* a literal zero */
	for (int i = 0; i < MB; i++)
		appendBinaryStringInfo(&raw, "\xfe\x01\0", 3);	/* copy 64 from 1 back */
	expect_inflate("a raw snappy bomb", KAFKA_CODEC_SNAPPY, raw.data, raw.len,
				   MB, NULL, 0, 10);
	/* the same, stating 1000 bytes: it does not hold what it says */
	resetStringInfo(&buf);
	kafka_write_uvarint(&buf, 1000);
	appendBinaryStringInfo(&buf, raw.data + 4, raw.len - 4);
	expect_inflate("a raw snappy bomb that lies", KAFKA_CODEC_SNAPPY, buf.data,
				   buf.len, MB, NULL, 0, 2);

	grown = peak_kb() - before;
	CHECK(grown < 48 * 1024, "the bombs raised the peak memory by %ld kB", grown);

	/* the budget is for all batches of a call: 600 kB and 600 kB of 1 MB */
	{
		TestRecord r;
		StringInfoData two;
		int			e;

		memset(&r, 0, sizeof(r));
		r.key = null_bytes;
		r.value = repeated('a', 600 * 1024);
		initStringInfo(&two);
		for (int i = 0; i < 2; i++)
		{
			resetStringInfo(&buf);
			write_batch(&buf, 0, 0, &r, 1);
			compress_batch(&buf, KAFKA_CODEC_GZIP);
			appendBinaryStringInfo(&two, buf.data, buf.len);
		}
		e = decode_error(buf.data, buf.len, MB);
		CHECK(e == 0, "one 600 kB batch of a 1 MB budget: %d", e);
		e = decode_error(two.data, two.len, MB);
		CHECK(e == 10, "two 600 kB batches of a 1 MB budget: %d", e);
		pfree(two.data);
		pfree((char *) r.value.data);
	}
	pfree(bomb.data);
	pfree(buf.data);
	pfree(raw.data);
}

/*
 * The records and headers decoding makes count in max_decoded: a batch of
 * many tiny records takes about nine times its bytes decoded, and is
 * refused (10) before it is allocated
 */
static void
test_decoded_budget(void)
{
	StringInfoData buf;
	TestRecord *recs = palloc0(1000 * sizeof(TestRecord));
	KafkaHeader h = {{"k", 1}, {"v", 1}};
	Size		need = 1000 * sizeof(KafkaRecord);

	for (int i = 0; i < 1000; i++)
	{
		recs[i].offset = i;
		recs[i].timestamp = 1000;
		recs[i].key = null_bytes;
		recs[i].value = null_bytes;
	}
	initStringInfo(&buf);
	write_batch(&buf, 0, 1000, recs, 1000);
	CHECK(decode_error(buf.data, buf.len, need) == 0,
		  "1000 tiny records decode within %zu bytes", need);
	CHECK(decode_error(buf.data, buf.len, need - 1) == 10,
		  "and are MESSAGE_TOO_LARGE within one byte less (the batch is %d bytes)",
		  buf.len);

	/* a header counts too */
	recs[999].headers = &h;
	recs[999].nheaders = 1;
	resetStringInfo(&buf);
	write_batch(&buf, 0, 1000, recs, 1000);
	CHECK(decode_error(buf.data, buf.len, need + sizeof(KafkaHeader)) == 0 &&
		  decode_error(buf.data, buf.len, need + sizeof(KafkaHeader) - 1) == 10,
		  "a record's header counts in the budget");
	pfree(buf.data);
	pfree(recs);
}

/* Records compressed by each codec (ours, by the libraries) round-trip */
static void
test_compressed_round_trip(void)
{
	StringInfoData buf;
	KafkaBatches out;
	char		why[256];
	int			n;
	TestRecord *recs = varied_records(100, 5000, &n);

	initStringInfo(&buf);
	for (int codec = KAFKA_CODEC_GZIP; codec <= KAFKA_CODEC_ZSTD; codec++)
	{
		int			result;

		resetStringInfo(&buf);
		write_batch(&buf, 100, 5000, recs, n);
		compress_batch(&buf, codec);
		result = decode(buf.data, buf.len, MB, &out);
		CHECK(result == 0 && out.nbatches == 1 &&
			  (out.batches[0].attributes & KAFKA_ATTR_CODEC_MASK) == codec &&
			  batch_holds(&out.batches[0], recs, n, why, sizeof(why)),
			  "compressed round trip (%s): %d %s", codec_names[codec], result,
			  result ? out.error_message : why);
		kafka_batches_free(&out);
		CHECK(decode_error(buf.data, buf.len, 70000) == 10,
			  "compressed round trip (%s) within 70000 bytes", codec_names[codec]);
	}
	pfree(buf.data);
}

/* A .vec byte string: - . HEX HEX*N */
static KafkaBytes
parse_bytes(const char *s)
{
	StringInfoData b;
	const char *star = strchr(s, '*');
	int			hexlen = star ? star - s : (int) strlen(s);
	int			times = star ? atoi(star + 1) : 1;

	if (strcmp(s, "-") == 0)
		return null_bytes;
	initStringInfo(&b);
	if (strcmp(s, ".") == 0)
		return bytes_of(b.data, 0);
	for (int t = 0; t < times; t++)
		for (int i = 0; i + 1 < hexlen; i += 2)
		{
			unsigned int c;

			sscanf(s + i, "%2x", &c);
			appendStringInfoChar(&b, (char) c);
		}
	return bytes_of(b.data, b.len);
}

/* Read a .vec file: the batches' bytes into data, what they hold */
static TestBatch *
read_vec(const char *path, StringInfo data, int *nbatches)
{
	FILE	   *f = fopen(path, "r");
	StringInfoData line;
	TestBatch  *batches = palloc0(64 * sizeof(TestBatch));

	*nbatches = 0;
	if (f == NULL)
		return batches;
	initStringInfo(&line);
	for (;;)
	{
		int			c;
		char	   *fields[1024];
		int			n = 0;

		resetStringInfo(&line);
		while ((c = fgetc(f)) != EOF && c != '\n')
			appendStringInfoChar(&line, (char) c);
		if (c == EOF && line.len == 0)
			break;
		for (char *tok = strtok(line.data, " "); tok && n < 1024; tok = strtok(NULL, " "))
			fields[n++] = tok;
		if (n == 0 || fields[0][0] == '#')
			continue;
		if (strcmp(fields[0], "batch") == 0 && *nbatches < 64)
		{
			KafkaBytes	b = parse_bytes(fields[1]);
			TestBatch  *tb = &batches[(*nbatches)++];

			appendBinaryStringInfo(data, b.data, b.len);
			tb->attributes = -1;
			tb->records = palloc0(1024 * sizeof(TestRecord));
		}
		else if (strcmp(fields[0], "attributes") == 0 && *nbatches > 0)
			batches[*nbatches - 1].attributes = atoi(fields[1]);
		else if (strcmp(fields[0], "record") == 0 && *nbatches > 0 && n >= 5 &&
				 batches[*nbatches - 1].nrecords < 1024)
		{
			TestBatch  *tb = &batches[*nbatches - 1];
			TestRecord *r = &tb->records[tb->nrecords++];

			r->offset = strtoll(fields[1], NULL, 10);
			r->timestamp = strtoll(fields[2], NULL, 10);
			r->key = parse_bytes(fields[3]);
			r->value = parse_bytes(fields[4]);
			r->nheaders = (n - 5) / 2;
			r->headers = palloc0(Max(r->nheaders, 1) * sizeof(KafkaHeader));
			for (int i = 0; i < r->nheaders; i++)
			{
				r->headers[i].key = parse_bytes(fields[5 + 2 * i]);
				r->headers[i].value = parse_bytes(fields[6 + 2 * i]);
			}
		}
	}
	fclose(f);
	pfree(line.data);
	return batches;
}

/*
 * Damage a good batch: cut it at every byte; cut its records at every byte
 * (stride for big ones) with length and CRC made to match; flip each byte
 * of its records, CRC made to match.  Only errors or sane results.
 */
static void
damage(const char *name, const char *data, int len)
{
	StringInfoData buf;
	int			records = len - KAFKA_BATCH_HEADER_SIZE;
	int			stride = Max(1, records / 1500);
	int			bad = 0;

	initStringInfo(&buf);
	for (int cut = 0; cut < len; cut++)
		if (decode_error(data, cut, MB) == 0)
			bad++;
	CHECK(bad == 0, "%s: %d truncations decode", name, bad);

	bad = 0;
	for (int cut = KAFKA_BATCH_HEADER_SIZE; cut < len; cut += stride)
	{
		resetStringInfo(&buf);
		appendBinaryStringInfo(&buf, data, cut);
		reseal(buf.data, buf.len);
		if (decode_error(buf.data, buf.len, MB) == 0)
			bad++;
	}
	CHECK(bad == 0, "%s: %d truncations of the records decode", name, bad);

	for (int at = KAFKA_BATCH_HEADER_SIZE; at < len; at += stride)
	{
		KafkaBatches out;

		resetStringInfo(&buf);
		appendBinaryStringInfo(&buf, data, len);
		buf.data[at] ^= 1 << (at % 8);
		reseal(buf.data, buf.len);
		if (decode(buf.data, buf.len, MB, &out) == 0)
		{
			for (int i = 0; i < out.batches[0].nrecords; i++)
			{
				KafkaRecord *r = &out.batches[0].records[i];

				if (r->offset_delta != i || r->key.len < -1 || r->value.len < -1)
					bad++;
			}
		}
		else if (out.nbatches != 0 || out.error_message == NULL)
			bad++;
		kafka_batches_free(&out);
	}
	CHECK(bad == 0, "%s: flipped bits decode to nonsense %d times", name, bad);
	pfree(buf.data);
}

/* The batches of the vectors decode to the records they hold */
static void
test_vectors(const char *dir)
{
	DIR		   *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	int			files = 0;

	CHECK(d != NULL, "no vectors: set WIRE_VECTORS to test/wire/vectors");
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL)
	{
		char		path[MAXPGPATH];
		StringInfoData data;
		TestBatch  *expected;
		int			nbatches;
		KafkaBatches out;
		int			result;
		size_t		namelen = strlen(de->d_name);

		if (namelen < 5 || strcmp(de->d_name + namelen - 4, ".vec") != 0)
			continue;
		files++;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		initStringInfo(&data);
		expected = read_vec(path, &data, &nbatches);
		result = decode(data.data, data.len, 16 * MB, &out);
		CHECK(result == 0 && out.nbatches == nbatches,
			  "%s: decode gives %d (%s), %d batches", de->d_name, result,
			  result ? out.error_message : "", out.nbatches);
		for (int i = 0; result == 0 && i < Min(nbatches, out.nbatches); i++)
		{
			char		why[256];

			CHECK(batch_holds(&out.batches[i], expected[i].records,
							  expected[i].nrecords, why, sizeof(why)),
				  "%s, batch %d: %s", de->d_name, i, why);
			CHECK(expected[i].attributes < 0 ||
				  out.batches[i].attributes == expected[i].attributes,
				  "%s, batch %d: attributes %d", de->d_name, i,
				  out.batches[i].attributes);
		}
		kafka_batches_free(&out);
		if (nbatches == 1)
			damage(de->d_name, data.data, data.len);
		pfree(data.data);
	}
	closedir(d);
	CHECK(files >= 10, "only %d vectors in %s", files, dir);
}

int
main(int argc, char **argv)
{
	StringInfoData buf;
	int			n;
	TestRecord *recs;

	out_dir = getenv("WIRE_OUT");
	test_bombs();
	test_inflate();
	test_round_trip();
	test_compressed_round_trip();
	test_decoded_budget();
	test_gap_batch();
	test_malformed();
	test_vectors(getenv("WIRE_VECTORS"));

	/* our own batches damaged */
	recs = varied_records(0, 1000, &n);
	initStringInfo(&buf);
	write_batch(&buf, 0, 1000, recs, 5);
	damage("our batch", buf.data, buf.len);
	compress_batch(&buf, KAFKA_CODEC_LZ4);
	damage("our batch, lz4", buf.data, buf.len);

	return unit_check_summary("record_batch_test");
}
