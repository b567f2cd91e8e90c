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
#include "pg_topics/wire/msg_delete_groups.h"
#include "pg_topics/wire/msg_describe_groups.h"
#include "pg_topics/wire/msg_heartbeat.h"
#include "pg_topics/wire/msg_join_group.h"
#include "pg_topics/wire/msg_leave_group.h"
#include "pg_topics/wire/msg_list_groups.h"
#include "pg_topics/wire/msg_offset_commit.h"
#include "pg_topics/wire/msg_offset_delete.h"
#include "pg_topics/wire/msg_offset_fetch.h"
#include "pg_topics/wire/msg_sync_group.h"
#include "pg_topics/wire/requests.h"
#include "pg_topics/wire/schema.h"
#include "unit_check.h"

/* The requests of the corpus that the schema codec reads */
static const KafkaMessage *const codec_requests[] = {
	&kafka_offset_commit_request,
	&kafka_offset_fetch_request,
	&kafka_join_group_request,
	&kafka_heartbeat_request,
	&kafka_leave_group_request,
	&kafka_sync_group_request,
	&kafka_describe_groups_request,
	&kafka_list_groups_request,
	&kafka_delete_groups_request,
	&kafka_offset_delete_request,
};

/* Parse body as a request of key and version; the reader is left in r */
static bool
parse(int16 key, int16 version, const char *body, int len, KafkaReader *r)
{
	kafka_reader_init(r, body, len);
	switch (key)
	{
#define PARSE(k, type, fn) case k: { type x; return fn(r, version, &x); }
			PARSE(KAFKA_API_PRODUCE, KafkaProduceRequest, kafka_parse_produce_request);
			PARSE(KAFKA_API_FETCH, KafkaFetchRequest, kafka_parse_fetch_request);
			PARSE(KAFKA_API_LIST_OFFSETS, KafkaListOffsetsRequest, kafka_parse_list_offsets_request);
			PARSE(KAFKA_API_SASL_HANDSHAKE, KafkaSaslHandshakeRequest, kafka_parse_sasl_handshake_request);
			PARSE(KAFKA_API_CREATE_TOPICS, KafkaCreateTopicsRequest, kafka_parse_create_topics_request);
			PARSE(KAFKA_API_DELETE_TOPICS, KafkaDeleteTopicsRequest, kafka_parse_delete_topics_request);
			PARSE(KAFKA_API_INIT_PRODUCER_ID, KafkaInitProducerIdRequest, kafka_parse_init_producer_id_request);
			PARSE(KAFKA_API_SASL_AUTHENTICATE, KafkaSaslAuthenticateRequest, kafka_parse_sasl_authenticate_request);
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

/* Produce v0 (no transactional_id): acks 1, one topic, one partition */
static const char produce_v0[] =
	"\x00\x01"					/* acks 1 */
	"\x00\x00\x75\x30"			/* timeout_ms 30000 */
	"\x00\x00\x00\x01"			/* one topic */
	"\x00\x06orders"
	"\x00\x00\x00\x01"			/* one partition */
	"\x00\x00\x00\x02"			/* partition 2 */
	"\x00\x00\x00\x03" "abc";	/* its message set */

/* Produce v7: transactional_id null, acks -1, one topic, two partitions */
static const char produce_v7[] =
	"\xff\xff"					/* transactional_id: null */
	"\xff\xff"					/* acks -1 */
	"\x00\x00\x75\x30"			/* timeout_ms 30000 */
	"\x00\x00\x00\x01"			/* one topic */
	"\x00\x06orders"
	"\x00\x00\x00\x02"			/* two partitions */
	"\x00\x00\x00\x00" "\x00\x00\x00\x03" "abc"
	"\x00\x00\x00\x01" "\xff\xff\xff\xff";	/* records: null */

/* Fetch v11, with a forgotten topic and a rack */
static const char fetch_v11[] =
	"\xff\xff\xff\xff"			/* replica_id */
	"\x00\x00\x01\xf4"			/* max_wait_ms 500 */
	"\x00\x00\x00\x01"			/* min_bytes */
	"\x00\x00\x10\x00"			/* max_bytes 4096 */
	"\x01"						/* read_committed */
	"\x00\x00\x00\x00" "\xff\xff\xff\xff"	/* session 0, epoch -1 */
	"\x00\x00\x00\x01" "\x00\x01t"
	"\x00\x00\x00\x01"
	"\x00\x00\x00\x03"			/* partition 3 */
	"\x00\x00\x00\x09"			/* current_leader_epoch 9 */
	"\x00\x00\x00\x00\x00\x00\x00\x63"	/* fetch_offset 99 */
	"\xff\xff\xff\xff\xff\xff\xff\xff"	/* log_start_offset -1 */
	"\x00\x00\x04\x00"			/* partition_max_bytes 1024 */
	"\x00\x00\x00\x01" "\x00\x01u" "\x00\x00\x00\x01" "\x00\x00\x00\x04"
	"\x00\x02r1";

static void
check_vectors(void)
{
	KafkaReader r;
	KafkaProduceRequest pr;
	KafkaFetchRequest fr;
	KafkaDeleteTopicsRequest dr;

	kafka_reader_init(&r, produce_v7, sizeof(produce_v7) - 1);
	CHECK(kafka_parse_produce_request(&r, 7, &pr), "Produce v7 parses");
	CHECK(pr.transactional_id.len == -1 && pr.acks == -1 &&
		  pr.timeout_ms == 30000 && pr.ntopics == 1 &&
		  kafka_bytes_equal(pr.topics[0].name, "orders") &&
		  pr.topics[0].npartitions == 2 &&
		  pr.topics[0].partitions[0].partition == 0 &&
		  pr.topics[0].partitions[0].data.len == 3 &&
		  memcmp(pr.topics[0].partitions[0].data.data, "abc", 3) == 0 &&
		  pr.topics[0].partitions[1].partition == 1 &&
		  pr.topics[0].partitions[1].data.len == -1,
		  "Produce v7's fields");
	kafka_reader_init(&r, produce_v7, sizeof(produce_v7) - 1);
	CHECK(!kafka_parse_produce_request(&r, 2, &pr), "Produce v2 is refused");
	kafka_reader_init(&r, produce_v7, sizeof(produce_v7) - 1);
	CHECK(!kafka_parse_produce_request(&r, 8, &pr), "Produce v8 is refused");
	kafka_reader_init(&r, produce_v0, sizeof(produce_v0) - 1);
	CHECK(kafka_parse_legacy_produce_request(&r, 0, &pr) && r.pos == r.len,
		  "Produce v0 parses, to be refused");
	CHECK(pr.transactional_id.len == -1 && pr.acks == 1 &&
		  pr.timeout_ms == 30000 && pr.ntopics == 1 &&
		  kafka_bytes_equal(pr.topics[0].name, "orders") &&
		  pr.topics[0].npartitions == 1 &&
		  pr.topics[0].partitions[0].partition == 2 &&
		  pr.topics[0].partitions[0].data.len == 3,
		  "Produce v0's fields");
	kafka_reader_init(&r, produce_v0, sizeof(produce_v0) - 1);
	CHECK(!kafka_parse_produce_request(&r, 0, &pr),
		  "Produce v0 is not read as a version served");
	kafka_reader_init(&r, produce_v7, sizeof(produce_v7) - 1);
	CHECK(!kafka_parse_legacy_produce_request(&r, 3, &pr),
		  "the legacy parser refuses Produce v3");
	{
		char		acks2[sizeof(produce_v7)];

		memcpy(acks2, produce_v7, sizeof(produce_v7));
		acks2[2] = 0;
		acks2[3] = 2;
		kafka_reader_init(&r, acks2, sizeof(acks2) - 1);
		CHECK(!kafka_parse_produce_request(&r, 7, &pr), "acks 2 is refused");
	}

	kafka_reader_init(&r, fetch_v11, sizeof(fetch_v11) - 1);
	CHECK(kafka_parse_fetch_request(&r, 11, &fr) && r.pos == r.len,
		  "Fetch v11 parses");
	CHECK(fr.max_wait_ms == 500 && fr.min_bytes == 1 && fr.max_bytes == 4096 &&
		  fr.isolation_level == KAFKA_READ_COMMITTED && fr.session_epoch == -1 &&
		  fr.ntopics == 1 && fr.topics[0].partitions[0].partition == 3 &&
		  fr.topics[0].partitions[0].leader_epoch == 9 &&
		  fr.topics[0].partitions[0].offset == 99 &&
		  fr.topics[0].partitions[0].log_start_offset == -1 &&
		  fr.topics[0].partitions[0].max_bytes == 1024 &&
		  fr.nforgotten == 1 && kafka_bytes_equal(fr.forgotten[0].name, "u") &&
		  fr.forgotten[0].partitions[0].partition == 4 &&
		  kafka_bytes_equal(fr.rack_id, "r1"),
		  "Fetch v11's fields");


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
	kafka_reader_init(&r, fetch_v11, sizeof(fetch_v11) - 1);
	r.alloc_left = sizeof(KafkaTopicRequest) + sizeof(KafkaPartitionRequest) +
		sizeof(KafkaTopicRequest);
	CHECK(!kafka_parse_fetch_request(&r, 11, &fr) && r.over_budget &&
		  fr.nforgotten == 1 && fr.forgotten[0].npartitions == 0 &&
		  fr.forgotten[0].partitions == NULL,
		  "a Fetch whose forgotten topics' partitions do not fit: the count is 0");

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
	kafka_reader_init(&r, fetch_v11, sizeof(fetch_v11) - 1);
	r.elements_left = 3;
	CHECK(!kafka_parse_fetch_request(&r, 11, &fr) && r.too_many,
		  "a Fetch's topics, partitions and forgotten topics all count");
}

int
main(void)
{
	const char *corpus = getenv("WIRE_REQUESTS");

	check_corpus(corpus ? corpus : "test/fuzz/corpus/requests");
	check_vectors();
	return unit_check_summary("requests_test");
}
