/*-------------------------------------------------------------------------
 *
 * requests_test.c
 *	  Unit test of src/wire/requests.c, the parsers of Kafka request
 *	  bodies, built as frontend code (make check-wire).
 *
 * Every seed of fuzz_requests' corpus (WIRE_REQUESTS, written by
 * test/fuzz/requests_corpus.py: kafka-python's requests and one of each
 * version offered) must parse, to its last byte: each parser reads all a
 * client sends.  Then a few requests written out byte by byte are parsed
 * and their fields checked, and a few must be refused: out-of-range
 * versions, acks outside -1..1, OffsetFetch v1 asking for every topic, and
 * an array count that cannot fit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <dirent.h>

#include "pg_topics/wire/msg_fetch.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"
#include "unit_check.h"

/* Parse body as a request of key and version; the reader is left in r */
static bool
parse(int16 key, int16 version, const char *body, int len, KafkaReader *r)
{
	kafka_reader_init(r, body, len);
	switch (key)
	{
#define PARSE(k, type, fn) case k: { type x; return fn(r, version, &x); }
		case KAFKA_API_PRODUCE:
			{
				/* on the schema codec (schema_test.c checks its fields) */
				KafkaProduceRequest x;

				return kafka_decode(r, &kafka_produce_request, version, &x);
			}
		case KAFKA_API_FETCH:
			{
				KafkaFetchRequest x;

				return kafka_decode(r, &kafka_fetch_request, version, &x);
			}
			PARSE(KAFKA_API_LIST_OFFSETS, KafkaListOffsetsRequest, kafka_parse_list_offsets_request);
			PARSE(KAFKA_API_METADATA, KafkaMetadataRequest, kafka_parse_metadata_request);
			PARSE(KAFKA_API_OFFSET_COMMIT, KafkaOffsetCommitRequest, kafka_parse_offset_commit_request);
			PARSE(KAFKA_API_OFFSET_FETCH, KafkaOffsetFetchRequest, kafka_parse_offset_fetch_request);
			PARSE(KAFKA_API_FIND_COORDINATOR, KafkaFindCoordinatorRequest, kafka_parse_find_coordinator_request);
			PARSE(KAFKA_API_JOIN_GROUP, KafkaJoinGroupRequest, kafka_parse_join_group_request);
			PARSE(KAFKA_API_HEARTBEAT, KafkaHeartbeatRequest, kafka_parse_heartbeat_request);
			PARSE(KAFKA_API_LEAVE_GROUP, KafkaLeaveGroupRequest, kafka_parse_leave_group_request);
			PARSE(KAFKA_API_SYNC_GROUP, KafkaSyncGroupRequest, kafka_parse_sync_group_request);
			PARSE(KAFKA_API_DESCRIBE_GROUPS, KafkaDescribeGroupsRequest, kafka_parse_describe_groups_request);
			PARSE(KAFKA_API_LIST_GROUPS, KafkaListGroupsRequest, kafka_parse_list_groups_request);
			PARSE(KAFKA_API_SASL_HANDSHAKE, KafkaSaslHandshakeRequest, kafka_parse_sasl_handshake_request);
			PARSE(KAFKA_API_API_VERSIONS, KafkaApiVersionsRequest, kafka_parse_api_versions_request);
			PARSE(KAFKA_API_CREATE_TOPICS, KafkaCreateTopicsRequest, kafka_parse_create_topics_request);
			PARSE(KAFKA_API_DELETE_TOPICS, KafkaDeleteTopicsRequest, kafka_parse_delete_topics_request);
			PARSE(KAFKA_API_INIT_PRODUCER_ID, KafkaInitProducerIdRequest, kafka_parse_init_producer_id_request);
			PARSE(KAFKA_API_SASL_AUTHENTICATE, KafkaSaslAuthenticateRequest, kafka_parse_sasl_authenticate_request);
#undef PARSE
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

/* OffsetCommit v6: partitions with leader epochs and metadata */
static const char offset_commit_v6[] =
	"\x00\x02g1"
	"\x00\x00\x00\x07"			/* generation 7 */
	"\x00\x01m"
	"\x00\x00\x00\x01"
	"\x00\x01t"
	"\x00\x00\x00\x01"
	"\x00\x00\x00\x02"			/* partition 2 */
	"\x00\x00\x00\x00\x00\x00\x00\x2a"	/* offset 42 */
	"\x00\x00\x00\x05"			/* leader epoch 5 */
	"\x00\x02md";

static void
check_vectors(void)
{
	KafkaReader r;
	KafkaOffsetCommitRequest cr;
	KafkaOffsetFetchRequest of;
	KafkaMetadataRequest mr;

	kafka_reader_init(&r, offset_commit_v6, sizeof(offset_commit_v6) - 1);
	CHECK(kafka_parse_offset_commit_request(&r, 6, &cr) && r.pos == r.len,
		  "OffsetCommit v6 parses");
	CHECK(kafka_bytes_equal(cr.group_id, "g1") && cr.generation_id == 7 &&
		  kafka_bytes_equal(cr.member_id, "m") &&
		  cr.group_instance_id.len == -1 && cr.retention_time_ms == -1 &&
		  cr.ntopics == 1 && cr.topics[0].partitions[0].partition == 2 &&
		  cr.topics[0].partitions[0].offset == 42 &&
		  cr.topics[0].partitions[0].leader_epoch == 5 &&
		  kafka_bytes_equal(cr.topics[0].partitions[0].data, "md"),
		  "OffsetCommit v6's fields");
	/* v5 has no leader epoch: the same bytes then do not fit */
	kafka_reader_init(&r, offset_commit_v6, sizeof(offset_commit_v6) - 1);
	CHECK(!kafka_parse_offset_commit_request(&r, 5, &cr) || r.pos != r.len,
		  "OffsetCommit v6's bytes are not a v5 request");


	/* OffsetFetch: null topics is every topic, from v2 on */
	kafka_reader_init(&r, "\x00\x01g\xff\xff\xff\xff", 7);
	CHECK(kafka_parse_offset_fetch_request(&r, 2, &of) && of.all_topics &&
		  of.ntopics == 0, "OffsetFetch v2 asks for every topic with null");
	kafka_reader_init(&r, "\x00\x01g\xff\xff\xff\xff", 7);
	CHECK(!kafka_parse_offset_fetch_request(&r, 1, &of),
		  "OffsetFetch v1 cannot ask for every topic");

	/* Metadata: every topic is [] in v0, null later; [] is none from v1 */
	kafka_reader_init(&r, "\x00\x00\x00\x00", 4);
	CHECK(kafka_parse_metadata_request(&r, 0, &mr) && mr.all_topics,
		  "Metadata v0 [] is every topic");
	kafka_reader_init(&r, "\x00\x00\x00\x00", 4);
	CHECK(kafka_parse_metadata_request(&r, 1, &mr) && !mr.all_topics,
		  "Metadata v1 [] is no topic");
	kafka_reader_init(&r, "\xff\xff\xff\xff\x01", 5);
	CHECK(kafka_parse_metadata_request(&r, 4, &mr) && mr.all_topics &&
		  mr.allow_auto_topic_creation, "Metadata v4 null is every topic");

	/* two billion topics announced by four bytes */
	kafka_reader_init(&r, "\x7f\xff\xff\xff\x00\x00", 6);
	CHECK(!kafka_parse_metadata_request(&r, 1, &mr),
		  "an array count that cannot fit is refused");

	/* what the arrays may take: the reader's alloc_left */
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b", 10);
	r.alloc_left = 2 * sizeof(KafkaBytes);
	CHECK(kafka_parse_metadata_request(&r, 1, &mr) && mr.ntopics == 2 &&
		  !r.over_budget && r.alloc_left == 0,
		  "two topic names fit in the room of two");
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b", 10);
	r.alloc_left = 2 * sizeof(KafkaBytes) - 1;
	CHECK(!kafka_parse_metadata_request(&r, 1, &mr) && r.over_budget &&
		  mr.ntopics == 0 && mr.topics == NULL,
		  "not in less: over budget, and nothing allocated");

	/* how many elements the arrays may have: the reader's elements_left */
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b", 10);
	r.elements_left = 2;
	CHECK(kafka_parse_metadata_request(&r, 1, &mr) && r.elements_left == 0,
		  "two topic names are two elements");
	kafka_reader_init(&r, "\x00\x00\x00\x02\x00\x01" "a" "\x00\x01" "b", 10);
	r.elements_left = 1;
	CHECK(!kafka_parse_metadata_request(&r, 1, &mr) && r.too_many &&
		  !r.over_budget && mr.ntopics == 0,
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
