/*-------------------------------------------------------------------------
 *
 * message_set_test.c
 *	  Unit test of src/wire/message_set.c: the MessageSets (magic 0 and 1)
 *	  of Produce v0-2 read into records, built as frontend code (make
 *	  check-wire).
 *
 * Messages written for Fetch v0-3 read back.  Message sets are built here
 * field by field from Kafka's layout (each
 * message's CRC-32 by zlib): plain, in gzip and lz4 wrappers (an lz4
 * wrapper of magic 0 with a wrong frame descriptor checksum, as Kafka's
 * old clients wrote it, is read; of magic 1 it is not), and broken in each
 * way Kafka's broker refuses.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <zlib.h>
#include <lz4frame.h>

#include "lib/stringinfo.h"
#include "port/pg_bswap.h"

#include "pg_topics/wire/message_set.h"
#include "pg_topics/wire/record_batch.h"
#include "unit_check.h"

static void
put32(StringInfo buf, int32 v)
{
	uint32		n = pg_hton32((uint32) v);

	appendBinaryStringInfo(buf, (char *) &n, 4);
}

static void
put64(StringInfo buf, int64 v)
{
	uint64		n = pg_hton64((uint64) v);

	appendBinaryStringInfo(buf, (char *) &n, 8);
}

static void
put_bytes(StringInfo buf, const char *s, int len)
{
	put32(buf, s ? len : -1);
	if (s)
		appendBinaryStringInfo(buf, s, len);
}

/*
 * Append one message (offset, size, crc, magic, attributes, [timestamp],
 * key, value) of magic with codec; value of vlen bytes (-1: strlen)
 */
static void
add_message(StringInfo set, int64 offset, int magic, int codec,
			const char *key, const char *value, int vlen)
{
	StringInfoData body;
	uint32		crc;

	initStringInfo(&body);
	appendStringInfoChar(&body, (char) magic);
	appendStringInfoChar(&body, (char) codec);
	if (magic == 1)
		put64(&body, 1700000000000);
	put_bytes(&body, key, key ? (int) strlen(key) : 0);
	put_bytes(&body, value, value ? (vlen >= 0 ? vlen : (int) strlen(value)) : 0);
	crc = (uint32) crc32(0L, (const Bytef *) body.data, body.len);
	put64(set, offset);
	put32(set, body.len + 4);
	put32(set, (int32) crc);
	appendBinaryStringInfo(set, body.data, body.len);
	pfree(body.data);
}

/* gzip of in */
static char *
gzip_of(StringInfo in, int *outlen)
{
	z_stream	z;
	int			room = in->len + 64;
	char	   *out = palloc(room);

	memset(&z, 0, sizeof(z));
	deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *) in->data;
	z.avail_in = in->len;
	z.next_out = (Bytef *) out;
	z.avail_out = room;
	deflate(&z, Z_FINISH);
	*outlen = room - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* an lz4 frame of in */
static char *
lz4_of(StringInfo in, int *outlen)
{
	size_t		room = LZ4F_compressFrameBound(in->len, NULL);
	char	   *out = palloc(room);

	*outlen = (int) LZ4F_compressFrame(out, room, in->data, in->len, NULL);
	return out;
}

static KafkaBatches out;

static int
decode(StringInfo set)
{
	return kafka_message_set_decode(set->data, set->len, 1 << 20, &out);
}

/* the records of out, "key=value" joined by "," (null: -) */
static const char *
records_of(void)
{
	static char text[1024];

	text[0] = '\0';
	for (int b = 0; b < out.nbatches; b++)
		for (int i = 0; i < out.batches[b].nrecords; i++)
		{
			KafkaRecord *r = &out.batches[b].records[i];

			if (text[0])
				strcat(text, ",");
			if (r->key.len < 0)
				strcat(text, "-");
			else
				strncat(text, r->key.data, r->key.len);
			strcat(text, "=");
			if (r->value.len < 0)
				strcat(text, "-");
			else
				strncat(text, r->value.data, r->value.len);
			if (r->offset_delta != i || r->nheaders != 0)
				strcat(text, "!");
		}
	return text;
}

static void
check_plain(void)
{
	StringInfoData set;

	initStringInfo(&set);
	for (int magic = 0; magic <= 1; magic++)
	{
		resetStringInfo(&set);
		add_message(&set, 0, magic, 0, "k1", "v1", -1);
		add_message(&set, 0, magic, 0, NULL, "v2", -1);
		add_message(&set, 0, magic, 0, "k3", NULL, 0);
		CHECK(decode(&set) == 0 && out.nbatches == 1 && out.nrecords == 3 &&
			  strcmp(records_of(), "k1=v1,-=v2,k3=-") == 0 &&
			  out.batches[0].producer_id == -1 &&
			  out.batches[0].last_offset_delta == 2 &&
			  out.payload_bytes == 8,
			  "magic %d: three messages, one batch, keys and values as sent", magic);
		kafka_batches_free(&out);
	}
	/* magic 0 and 1 mixed, as Kafka's broker takes them */
	resetStringInfo(&set);
	add_message(&set, 0, 0, 0, "a", "1", -1);
	add_message(&set, 1, 1, 0, "b", "2", -1);
	CHECK(decode(&set) == 0 && strcmp(records_of(), "a=1,b=2") == 0,
		  "messages of magic 0 and 1 in one set");
	kafka_batches_free(&out);
	pfree(set.data);
}

static void
check_wrappers(void)
{
	StringInfoData inner;
	StringInfoData set;
	char	   *z;
	int			zlen;

	initStringInfo(&inner);
	initStringInfo(&set);
	for (int magic = 0; magic <= 1; magic++)
	{
		resetStringInfo(&inner);
		add_message(&inner, 0, magic, 0, "k1", "v1", -1);
		add_message(&inner, 1, magic, 0, "k2", "v2", -1);
		z = gzip_of(&inner, &zlen);
		resetStringInfo(&set);
		add_message(&set, 0, 0, 0, "before", "x", -1);
		add_message(&set, 1, magic, KAFKA_CODEC_GZIP, NULL, z, zlen);
		add_message(&set, 2, 0, 0, "after", "y", -1);
		CHECK(decode(&set) == 0 && out.nbatches == 3 && out.nrecords == 4 &&
			  strcmp(records_of(), "before=x,k1=v1,k2=v2,after=y") == 0,
			  "magic %d: a gzip wrapper between plain messages: three batches", magic);
		kafka_batches_free(&out);
		pfree(z);

		z = lz4_of(&inner, &zlen);
		resetStringInfo(&set);
		add_message(&set, 0, magic, KAFKA_CODEC_LZ4, NULL, z, zlen);
		CHECK(decode(&set) == 0 && strcmp(records_of(), "k1=v1,k2=v2") == 0,
			  "magic %d: an lz4 wrapper", magic);
		kafka_batches_free(&out);

		/* the frame descriptor's checksum (after magic, FLG, BD) wrong */
		z[6] ^= 0x5a;
		resetStringInfo(&set);
		add_message(&set, 0, magic, KAFKA_CODEC_LZ4, NULL, z, zlen);
		if (magic == 0)
			CHECK(decode(&set) == 0 && strcmp(records_of(), "k1=v1,k2=v2") == 0,
				  "magic 0: an lz4 wrapper with the old clients' descriptor checksum is read");
		else
			CHECK(decode(&set) == 2,
				  "magic 1: an lz4 wrapper with a wrong descriptor checksum is corrupt");
		kafka_batches_free(&out);
		pfree(z);
	}
	pfree(inner.data);
	pfree(set.data);
}

static void
check_refused(void)
{
	StringInfoData inner;
	StringInfoData set;
	char	   *z;
	int			zlen;

	initStringInfo(&inner);
	initStringInfo(&set);

	CHECK(kafka_message_set_decode(NULL, 0, 1 << 20, &out) == 87,
		  "no messages: INVALID_RECORD");

	add_message(&set, 0, 1, 0, "k", "v", -1);
	set.data[set.len - 1] ^= 1;
	CHECK(decode(&set) == 2 && out.nbatches == 0,
		  "a CRC that does not match: CORRUPT_MESSAGE, nothing kept");

	resetStringInfo(&set);
	add_message(&set, 0, 0, 0, "k", "v", -1);
	set.len -= 1;
	CHECK(decode(&set) == 2, "a message cut short: CORRUPT_MESSAGE");

	resetStringInfo(&set);
	put64(&set, 0);
	put32(&set, 13);
	appendBinaryStringInfo(&set, "0123456789abc", 13);
	CHECK(decode(&set) == 2,
		  "a message smaller than magic 0's overhead: CORRUPT_MESSAGE");

	resetStringInfo(&set);
	add_message(&set, 0, 2, 0, "k", "v", -1);
	CHECK(decode(&set) == 43, "magic 2 in a message set: UNSUPPORTED_FOR_MESSAGE_FORMAT");

	resetStringInfo(&set);
	add_message(&set, 0, 1, KAFKA_CODEC_ZSTD, NULL, "zz", -1);
	CHECK(decode(&set) == 76, "zstd: UNSUPPORTED_COMPRESSION_TYPE");
	resetStringInfo(&set);
	add_message(&set, 0, 1, 6, NULL, "zz", -1);
	CHECK(decode(&set) == 76, "codec 6: UNSUPPORTED_COMPRESSION_TYPE");

	resetStringInfo(&set);
	add_message(&set, 0, 1, KAFKA_CODEC_GZIP, NULL, NULL, 0);
	CHECK(decode(&set) == 87, "a wrapper with a null value: INVALID_RECORD");

	resetStringInfo(&set);
	add_message(&set, 0, 1, KAFKA_CODEC_GZIP, NULL, "not gzip", -1);
	CHECK(decode(&set) == 2,
		  "a wrapper that does not inflate: CORRUPT_MESSAGE");

	/* inner messages compressed, of another magic, or none */
	add_message(&inner, 0, 1, KAFKA_CODEC_GZIP, NULL, "x", -1);
	z = gzip_of(&inner, &zlen);
	resetStringInfo(&set);
	add_message(&set, 0, 1, KAFKA_CODEC_GZIP, NULL, z, zlen);
	CHECK(decode(&set) == 87, "a compressed inner message: INVALID_RECORD");
	pfree(z);
	resetStringInfo(&inner);
	add_message(&inner, 0, 0, 0, "k", "v", -1);
	z = gzip_of(&inner, &zlen);
	resetStringInfo(&set);
	add_message(&set, 0, 1, KAFKA_CODEC_GZIP, NULL, z, zlen);
	CHECK(decode(&set) == 87, "an inner message of magic 0 in a wrapper of magic 1: INVALID_RECORD");
	pfree(z);
	resetStringInfo(&inner);
	z = gzip_of(&inner, &zlen);
	resetStringInfo(&set);
	add_message(&set, 0, 1, KAFKA_CODEC_GZIP, NULL, z, zlen);
	CHECK(decode(&set) == 87, "a wrapper without messages: INVALID_RECORD");
	pfree(z);

	/* a key whose length runs past its message */
	resetStringInfo(&set);
	{
		StringInfoData body;
		uint32		crc;

		initStringInfo(&body);
		appendStringInfoChar(&body, 0);
		appendStringInfoChar(&body, 0);
		put32(&body, 50);
		put32(&body, -1);
		crc = (uint32) crc32(0L, (const Bytef *) body.data, body.len);
		put64(&set, 0);
		put32(&set, body.len + 4);
		put32(&set, (int32) crc);
		appendBinaryStringInfo(&set, body.data, body.len);
		pfree(body.data);
	}
	CHECK(decode(&set) == 87, "a key that runs past its message: INVALID_RECORD");

	/* the budget: 100 records do not fit in a few hundred bytes */
	resetStringInfo(&set);
	for (int i = 0; i < 100; i++)
		add_message(&set, i, 0, 0, NULL, "v", -1);
	CHECK(kafka_message_set_decode(set.data, set.len, 512, &out) == 10,
		  "records beyond max_decoded: MESSAGE_TOO_LARGE");
	CHECK(kafka_message_set_decode(set.data, set.len, 1 << 20, &out) == 0 &&
		  out.nrecords == 100, "and within it, all of them");
	kafka_batches_free(&out);
	pfree(inner.data);
	pfree(set.data);
}

/* Messages written for Fetch v0-3 read back as they were written */
static void
check_written(void)
{
	StringInfoData set;
	KafkaBytes	k = {"key", 3};
	KafkaBytes	v = {"value", 5};
	KafkaBytes	null = {NULL, -1};

	initStringInfo(&set);
	for (int magic = 0; magic <= 1; magic++)
	{
		resetStringInfo(&set);
		kafka_message_append(&set, magic, 41, 1700000000000, k, v);
		CHECK((Size) set.len == kafka_message_size(magic, k, v),
			  "magic %d: a message is of the size said", magic);
		kafka_message_append(&set, magic, 42, 1700000000001, null, v);
		kafka_message_append(&set, magic, 44, 1700000000002, k, null);
		CHECK(decode(&set) == 0 &&
			  strcmp(records_of(), "key=value,-=value,key=-") == 0,
			  "magic %d: written messages read back (CRC, sizes, nulls)", magic);
		kafka_batches_free(&out);
		CHECK(set.data[KAFKA_BATCH_MAGIC_AT] == magic &&
			  (set.data[KAFKA_BATCH_MAGIC_AT + 1] & KAFKA_ATTR_LOG_APPEND_TIME) ==
			  (magic == 1 ? KAFKA_ATTR_LOG_APPEND_TIME : 0) &&
			  pg_ntoh64(*(uint64 *) set.data) == 41,
			  "magic %d: its magic, its offset, log-append time for magic 1", magic);
	}
	pfree(set.data);
}

int
main(int argc, char **argv)
{
	check_plain();
	check_wrappers();
	check_refused();
	check_written();
	return unit_check_summary("message_set_test");
}
