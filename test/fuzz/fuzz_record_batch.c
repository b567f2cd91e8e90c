/*-------------------------------------------------------------------------
 *
 * fuzz_record_batch.c
 *	  libFuzzer target over kafka_batches_decode (make fuzz-wire).
 *
 * Each input is decoded twice: as it is, and with the CRC of every batch
 * whose length fits made to match, since almost every mutation breaks the
 * CRC and would otherwise stop at it.  Records may be compressed with any
 * codec (1 MB decoded at most).  What decodes is written again with our
 * writer and must decode to the same records, with kafka_batch_record_size
 * equal to what each record took.  Everything decoded is freed, so that
 * LeakSanitizer sees a leak of the decoder.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "port/pg_bswap.h"
#include "port/pg_crc32c.h"

#include "pg_topics/wire/record_batch.h"

#define MAX_INFLATED	(1024 * 1024)

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

static bool
bytes_equal(KafkaBytes a, KafkaBytes b)
{
	if (a.len < 0 || b.len < 0)
		return a.len == b.len;
	return a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
}

/* The records of b written by our writer decode to the same records */
static void
round_trip(const KafkaRecordBatch *b)
{
	StringInfoData buf;
	KafkaBatchWriter w;
	KafkaBatches again;
	bool		same_timestamp = true;

	initStringInfo(&buf);
	kafka_batch_begin(&w, &buf, 0, b->base_timestamp);
	for (int i = 0; i < b->nrecords; i++)
	{
		const KafkaRecord *r = &b->records[i];
		int64		ts = (int64) ((uint64) b->base_timestamp + (uint64) r->timestamp_delta);
		Size		size = kafka_batch_record_size(&w, r->offset_delta, ts, r->key,
												   r->value, r->headers,
												   r->nheaders);
		int			before = buf.len;

		kafka_batch_add(&w, r->offset_delta, ts, r->key, r->value, r->headers,
						r->nheaders);
		if (size != (Size) (buf.len - before))
			abort();
		same_timestamp &= r->timestamp_delta == b->records[0].timestamp_delta;
	}
	kafka_batch_finish(&w);

	if (kafka_batches_decode(buf.data, buf.len, MAX_INFLATED, &again) != 0 ||
		again.nbatches != 1 || again.batches[0].nrecords != b->nrecords ||
		((again.batches[0].attributes & KAFKA_ATTR_LOG_APPEND_TIME) != 0) != same_timestamp)
		abort();
	for (int i = 0; i < b->nrecords; i++)
	{
		const KafkaRecord *r = &b->records[i];
		const KafkaRecord *a = &again.batches[0].records[i];

		if (a->offset_delta != r->offset_delta ||
			a->timestamp_delta != r->timestamp_delta ||
			!bytes_equal(a->key, r->key) || !bytes_equal(a->value, r->value) ||
			a->nheaders != r->nheaders)
			abort();
		for (int j = 0; j < r->nheaders; j++)
			if (!bytes_equal(a->headers[j].key, r->headers[j].key) ||
				!bytes_equal(a->headers[j].value, r->headers[j].value))
				abort();
	}
	kafka_batches_free(&again);
	pfree(buf.data);
}

/* Decode data; what decodes must be sane and write again */
static void
decode(const char *data, int len)
{
	KafkaBatches out;
	int			result = kafka_batches_decode(data, len, MAX_INFLATED, &out);

	if (result == 0)
	{
		int64		n = 0;

		for (int i = 0; i < out.nbatches; i++)
		{
			n += out.batches[i].nrecords;
			round_trip(&out.batches[i]);
		}
		if (n != out.nrecords || out.nbatches < 1)
			abort();
	}
	else if (out.error_message == NULL || out.nbatches != 0)
		abort();
	kafka_batches_free(&out);
}

/* Make the CRC of each batch of data match, as far as their lengths fit */
static void
reseal(char *data, int len)
{
	int			pos = 0;

	while (len - pos >= KAFKA_BATCH_HEADER_SIZE)
	{
		uint32		n;
		int32		batch_length;
		pg_crc32c	crc;

		memcpy(&n, data + pos + 8, 4);
		batch_length = (int32) pg_ntoh32(n);
		if (batch_length < KAFKA_BATCH_HEADER_SIZE - KAFKA_BATCH_LOG_OVERHEAD ||
			batch_length > len - pos - KAFKA_BATCH_LOG_OVERHEAD)
			break;
		INIT_CRC32C(crc);
		COMP_CRC32C(crc, data + pos + 21, batch_length + KAFKA_BATCH_LOG_OVERHEAD - 21);
		FIN_CRC32C(crc);
		n = pg_hton32(crc);
		memcpy(data + pos + 17, &n, 4);
		pos += batch_length + KAFKA_BATCH_LOG_OVERHEAD;
	}
}

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	char	   *copy;

	if (size > 16 * 1024 * 1024)
		return 0;
	decode((const char *) data, (int) size);

	copy = palloc(Max(size, 1));
	memcpy(copy, data, size);
	reseal(copy, (int) size);
	decode(copy, (int) size);
	pfree(copy);
	return 0;
}
