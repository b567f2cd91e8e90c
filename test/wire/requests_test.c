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

#include "pg_topics/wire/msg_create_partitions.h"
#include "pg_topics/wire/msg_delete_records.h"
#include "pg_topics/wire/msg_describe_acls.h"
#include "pg_topics/wire/msg_describe_cluster.h"
#include "pg_topics/wire/msg_describe_log_dirs.h"
#include "pg_topics/wire/msg_init_producer_id.h"
#include "pg_topics/wire/msg_list_offsets.h"
#include "pg_topics/wire/msg_offset_for_leader_epoch.h"
#include "pg_topics/wire/msg_sasl_authenticate.h"
#include "pg_topics/wire/msg_sasl_handshake.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"
#include "pg_topics/wire/schema.h"
#include "unit_check.h"

/* The requests the server decodes with the schema codec (schema.h) */
static const KafkaMessage *const schema_requests[] = {
	&kafka_list_offsets_request,
	&kafka_offset_for_leader_epoch_request,
	&kafka_delete_records_request,
	&kafka_create_partitions_request,
	&kafka_describe_cluster_request,
	&kafka_describe_log_dirs_request,
	&kafka_describe_acls_request,
	&kafka_sasl_handshake_request,
	&kafka_sasl_authenticate_request,
	&kafka_init_producer_id_request,
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
			PARSE(KAFKA_API_API_VERSIONS, KafkaApiVersionsRequest, kafka_parse_api_versions_request);
			PARSE(KAFKA_API_CREATE_TOPICS, KafkaCreateTopicsRequest, kafka_parse_create_topics_request);
			PARSE(KAFKA_API_DELETE_TOPICS, KafkaDeleteTopicsRequest, kafka_parse_delete_topics_request);
#undef PARSE
	}
	/* the requests decoded by the schema codec */
	for (int i = 0; i < lengthof(schema_requests); i++)
		if (schema_requests[i]->api_key == key)
			return kafka_decode(r, schema_requests[i], version,
								palloc(schema_requests[i]->body->size));
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
	KafkaOffsetCommitRequest cr;
	KafkaFetchRequest fr;
	KafkaOffsetFetchRequest of;
	KafkaMetadataRequest mr;

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
	kafka_reader_init(&r, fetch_v11, sizeof(fetch_v11) - 1);
	r.alloc_left = sizeof(KafkaTopicRequest) + sizeof(KafkaPartitionRequest) +
		sizeof(KafkaTopicRequest);
	CHECK(!kafka_parse_fetch_request(&r, 11, &fr) && r.over_budget &&
		  fr.nforgotten == 1 && fr.forgotten[0].npartitions == 0 &&
		  fr.forgotten[0].partitions == NULL,
		  "a Fetch whose forgotten topics' partitions do not fit: the count is 0");

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
