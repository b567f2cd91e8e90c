/*-------------------------------------------------------------------------
 *
 * requests_test.c
 *	  Unit test of the requests a Kafka client sends, as the server reads
 *	  them: the request header (codec.c) and every body by its message
 *	  (the schema codec, wire/messages.h), built as frontend code (make
 *	  check-wire).
 *
 * Every seed of fuzz_requests' corpus (WIRE_REQUESTS, written by
 * test/fuzz/requests_corpus.py: kafka-python's requests and one of each
 * version offered) must decode, to its last byte, by its API's message
 * (schema_test checks each message further).  Then request headers written
 * out byte by byte are read, and one cut short must fail.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <dirent.h>

#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/schema.h"
#include "unit_check.h"

/* Decode body as a request of key and version; the reader is left in r */
static bool
parse(int16 key, int16 version, const char *body, int len, KafkaReader *r)
{
	const KafkaMessage *m = kafka_request_message(key);

	kafka_reader_init(r, body, len);
	if (m == NULL)
		return false;
	return kafka_decode(r, m, version, palloc(m->body->size));
}

/* A seed (API key, version, body) parses to its end */
static void
check_seed(const char *name, const char *data, int len)
{
	int16		key;
	int16		version;
	KafkaReader r;

	if (len < 4)
	{
		CHECK(false, "%s has a request header", name);
		return;
	}
	key = (int16) (((uint8) data[0] << 8) | (uint8) data[1]);
	version = (int16) (((uint8) data[2] << 8) | (uint8) data[3]);
	CHECK(parse(key, version, data + 4, len - 4, &r) && r.pos == r.len,
		  "%s parses to its last byte", name);
}

static void
check_corpus(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	int			seeds = 0;

	if (d == NULL)
	{
		fprintf(stderr, "requests_test: cannot open %s\n", dir);
		CHECK(false, "the corpus can be read");
		return;
	}
	while ((de = readdir(d)) != NULL)
	{
		char		path[MAXPGPATH];
		FILE	   *f;
		char		buf[65536];
		int			len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		if (f == NULL)
			continue;
		len = (int) fread(buf, 1, sizeof(buf), f);
		fclose(f);
		check_seed(de->d_name, buf, len);
		seeds++;
	}
	closedir(d);
	CHECK(seeds >= 19, "a seed for every API");
}


static void
check_vectors(void)
{
	KafkaReader r;
	KafkaRequestHeader h;

	/* Metadata v9, correlation id 7, client id "c" */
	kafka_reader_init(&r, "\x00\x03\x00\x09\x00\x00\x00\x07\x00\x01" "c", 11);
	CHECK(kafka_read_request_header(&r, &h) && h.api_key == 3 &&
		  h.api_version == 9 && h.correlation_id == 7 &&
		  kafka_bytes_equal(h.client_id, "c") && r.pos == r.len,
		  "a request header reads to its client id");

	/* a null client id */
	kafka_reader_init(&r, "\x00\x13\x00\x07\x00\x00\x00\x01\xff\xff", 10);
	CHECK(kafka_read_request_header(&r, &h) && h.api_key == 19 &&
		  h.client_id.len == -1,
		  "a header with a null client id reads");

	/* cut short in the client id */
	kafka_reader_init(&r, "\x00\x13\x00\x07\x00\x00\x00\x01\x00\x05" "ab", 12);
	CHECK(!kafka_read_request_header(&r, &h),
		  "a header cut short in its client id fails");
}

int
main(void)
{
	const char *corpus = getenv("WIRE_REQUESTS");

	check_corpus(corpus ? corpus : "test/fuzz/corpus/requests");
	check_vectors();
	return unit_check_summary("requests_test");
}
