/*-------------------------------------------------------------------------
 *
 * requests_test.c
 *	  Unit test of src/wire/requests.c, the parsers of Kafka request
 *	  bodies, built as frontend code (make check-wire).
 *
 * Every seed of fuzz_requests' corpus (WIRE_REQUESTS, written by
 * test/fuzz/requests_corpus.py: kafka-python's requests and one of each
 * version offered) must parse, to its last byte: each parser reads all a
 * client sends (the APIs of the schema codec, wire/messages.h, decode by
 * their message; schema_test checks them further).  Then a few requests written out byte by byte are parsed
 * and their fields checked, and a few must be refused: out-of-range
 * versions, acks outside -1..1, and
 * an array count that cannot fit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <dirent.h>

#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"
#include "pg_topics/wire/schema.h"
#include "unit_check.h"

/* Parse body as a request of key and version; the reader is left in r */
static bool
parse(int16 key, int16 version, const char *body, int len, KafkaReader *r)
{
	kafka_reader_init(r, body, len);
	switch (key)
	{
#define PARSE(k, type, fn) case k: { type x; return fn(r, version, &x); }
			PARSE(KAFKA_API_CREATE_TOPICS, KafkaCreateTopicsRequest, kafka_parse_create_topics_request);
			PARSE(KAFKA_API_DELETE_TOPICS, KafkaDeleteTopicsRequest, kafka_parse_delete_topics_request);
#undef PARSE
	}
	/* the APIs of the schema codec */
	if (kafka_request_message(key) != NULL)
	{
		void	   *x = palloc(kafka_request_message(key)->body->size);

		return kafka_decode(r, kafka_request_message(key), version, x);
	}
	return false;
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
	KafkaDeleteTopicsRequest dr;


	/* two billion topics announced by four bytes */
	kafka_reader_init(&r, "\x7f\xff\xff\xff\x00\x00\x00\x00\x00\x00", 10);
	CHECK(!kafka_parse_delete_topics_request(&r, 1, &dr),
		  "an array count that cannot fit is refused");

	/* what the arrays may take: the reader's alloc_left */
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b" "\x00\x00\x75\x30", 14);
	r.alloc_left = 2 * sizeof(KafkaBytes);
	CHECK(kafka_parse_delete_topics_request(&r, 1, &dr) && dr.ntopics == 2 &&
		  !r.over_budget && r.alloc_left == 0,
		  "two topic names fit in the room of two");
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b" "\x00\x00\x75\x30", 14);
	r.alloc_left = 2 * sizeof(KafkaBytes) - 1;
	CHECK(!kafka_parse_delete_topics_request(&r, 1, &dr) && r.over_budget &&
		  dr.ntopics == 0 && dr.topics == NULL,
		  "not in less: over budget, and nothing allocated");

	/* how many elements the arrays may have: the reader's elements_left */
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b" "\x00\x00\x75\x30", 14);
	r.elements_left = 2;
	CHECK(kafka_parse_delete_topics_request(&r, 1, &dr) && r.elements_left == 0,
		  "two topic names are two elements");
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b" "\x00\x00\x75\x30", 14);
	r.elements_left = 1;
	CHECK(!kafka_parse_delete_topics_request(&r, 1, &dr) && r.too_many &&
		  !r.over_budget && dr.ntopics == 0,
		  "more than elements_left: too many");
}

int
main(void)
{
	const char *corpus = getenv("WIRE_REQUESTS");

	check_corpus(corpus ? corpus : "test/fuzz/corpus/requests");
	check_vectors();
	return unit_check_summary("requests_test");
}
