/*-------------------------------------------------------------------------
 *
 * transactions_test.c
 *	  Unit test of the messages of Kafka's transactions (src/wire/
 *	  msg_add_partitions_to_txn.c, msg_add_offsets_to_txn.c, msg_end_txn.c,
 *	  msg_txn_offset_commit.c, msg_describe_transactions.c,
 *	  msg_list_transactions.c), built as frontend code (make check-wire).
 *
 * schema_test round-trips each of them at every version; here are byte
 * sequences written out by hand from Kafka 3.9's message definitions:
 *
 * - requests as clients encode them, decoded: librdkafka 2.0.2 (what
 *   confluent-kafka sends) writes AddPartitionsToTxn v0, AddOffsetsToTxn
 *   v0, EndTxn v0-1 and TxnOffsetCommit v0-3 (rdkafka_request.c and
 *   rdkafka_txnmgr.c: the versions it asks rd_kafka_broker_ApiVersion_
 *   supported for); Java's producer 3.9 the flexible v3/v4 of the first
 *   three; brokers the batched AddPartitionsToTxn v4-5; Kafka's admin
 *   client DescribeTransactions v0 and ListTransactions v0-1;
 * - responses as the server encodes them, compared byte by byte, in a
 *   non-flexible and a flexible version where the API has both;
 * - hostile requests that must fail: nulls where none is allowed, counts
 *   that cannot fit, too many elements, truncation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/msg_add_offsets_to_txn.h"
#include "pg_topics/wire/msg_add_partitions_to_txn.h"
#include "pg_topics/wire/msg_describe_transactions.h"
#include "pg_topics/wire/msg_end_txn.h"
#include "pg_topics/wire/msg_list_transactions.h"
#include "pg_topics/wire/msg_txn_offset_commit.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/schema.h"
#include "unit_check.h"

#define BYTES(s) (s), (int) sizeof(s) - 1

/* the values the vectors use */
#define PID8	"\x00\x00\x00\x00\x00\x00\x10\x01"	/* producer id 4097 */
#define EPOCH2	"\x00\x03"		/* producer epoch 3 */
#define ZERO4	"\x00\x00\x00\x00"

/* buf holds exactly the len bytes of expected (else they are printed) */
static bool
bytes_are(StringInfo buf, const char *expected, int len)
{
	if (buf->len != len || memcmp(buf->data, expected, len) != 0)
	{
		fprintf(stderr, "got:     ");
		for (int i = 0; i < buf->len; i++)
			fprintf(stderr, " %02x", (uint8) buf->data[i]);
		fprintf(stderr, "\nexpected:");
		for (int i = 0; i < len; i++)
			fprintf(stderr, " %02x", (uint8) expected[i]);
		fprintf(stderr, "\n");
		return false;
	}
	return true;
}

/* Decode len bytes as message m at version v into out, to the last byte */
static bool
decodes(const KafkaMessage *m, int16 v, const char *data, int len, void *out)
{
	KafkaReader r;

	kafka_reader_init(&r, data, len);
	return kafka_decode(&r, m, v, out) && r.pos == r.len;
}

/* Every shorter prefix of data fails to decode */
static bool
prefixes_fail(const KafkaMessage *m, int16 v, const char *data, int len)
{
	char	   *out = palloc(m->body->size);

	for (int i = 0; i < len; i++)
	{
		KafkaReader r;

		kafka_reader_init(&r, data, i);
		if (kafka_decode(&r, m, v, out))
			return false;
	}
	return true;
}

/* Encoding in as m at v gives exactly expected */
static bool
encodes(const KafkaMessage *m, int16 v, const void *in, const char *expected,
		int len)
{
	StringInfoData buf;
	bool		ok;

	initStringInfo(&buf);
	kafka_encode(&buf, m, v, in);
	ok = bytes_are(&buf, expected, len);
	pfree(buf.data);
	return ok;
}

/* ---- AddPartitionsToTxn (24) ---- */

/* topic "orders" with partitions 0 and 2, as a decoded request has it */
static bool
is_orders_0_2(const KafkaAddPartitionsToTxnTopic *t)
{
	return kafka_bytes_equal(t->name, "orders") && t->npartitions == 2 &&
		t->partitions[0] == 0 && t->partitions[1] == 2;
}

static void
check_add_partitions_to_txn(void)
{
	KafkaAddPartitionsToTxnRequest req;
	const KafkaMessage *m = &kafka_add_partitions_to_txn_request;

	/*
	 * librdkafka 2.0.2's (v0 only): transactional id "txn-1", producer id
	 * and epoch, topics [orders [0, 2], logs [1]] (int32 counts, int16
	 * string lengths); v1 and v2 are the same bytes
	 */
	static const char v0[] =
		"\x00\x05" "txn-1" PID8 EPOCH2
		"\x00\x00\x00\x02"
		"\x00\x06" "orders" "\x00\x00\x00\x02" "\x00\x00\x00\x00" "\x00\x00\x00\x02"
		"\x00\x04" "logs" "\x00\x00\x00\x01" "\x00\x00\x00\x01";

	/*
	 * v3, flexible (Java's producer 3.x): compact string (length+1),
	 * compact arrays (count+1), each topic's empty tagged fields, then the
	 * body's
	 */
	static const char v3[] =
		"\x06" "txn-1" PID8 EPOCH2
		"\x02" "\x07" "orders" "\x03" "\x00\x00\x00\x00" "\x00\x00\x00\x02" "\x00"
		"\x00";

	/*
	 * v4, batched (a broker's): transactions [txn-1 VerifyOnly=1 [orders
	 * [0, 2]], txn-2 VerifyOnly=0 []], each transaction's tagged fields
	 */
	static const char v4[] =
		"\x03"
		"\x06" "txn-1" PID8 EPOCH2 "\x01"
		"\x02" "\x07" "orders" "\x03" "\x00\x00\x00\x00" "\x00\x00\x00\x02" "\x00"
		"\x00"
		"\x06" "txn-2" "\x00\x00\x00\x00\x00\x00\x00\x07" "\x00\x00" "\x00"
		"\x01"
		"\x00"
		"\x00";

	/* v3 with an unknown tagged field (tag 9, 2 bytes) in the topic */
	static const char v3_tag[] =
		"\x06" "txn-1" PID8 EPOCH2
		"\x02" "\x07" "orders" "\x03" "\x00\x00\x00\x00" "\x00\x00\x00\x02"
		"\x01" "\x09" "\x02" "zz"
		"\x00";

	/* v0: a null transactional id (none is allowed) */
	static const char v0_null_id[] =
		"\xff\xff" PID8 EPOCH2 "\x00\x00\x00\x00";

	/* v0: a null topic list */
	static const char v0_null_topics[] =
		"\x00\x01" "t" PID8 EPOCH2 "\xff\xff\xff\xff";

	/* v0: a billion partitions announced in a short body */
	static const char v0_huge[] =
		"\x00\x01" "t" PID8 EPOCH2
		"\x00\x00\x00\x01" "\x00\x01" "a" "\x3b\x9a\xca\x00" "\x00\x00\x00\x00";

	for (int16 v = 0; v <= 2; v++)
	{
		CHECK(decodes(m, v, BYTES(v0), &req) &&
			  kafka_bytes_equal(req.v3_and_below_transactional_id, "txn-1") &&
			  req.v3_and_below_producer_id == 4097 &&
			  req.v3_and_below_producer_epoch == 3 &&
			  req.nv3_and_below_topics == 2 &&
			  is_orders_0_2(&req.v3_and_below_topics[0]) &&
			  kafka_bytes_equal(req.v3_and_below_topics[1].name, "logs") &&
			  req.v3_and_below_topics[1].npartitions == 1 &&
			  req.v3_and_below_topics[1].partitions[0] == 1 &&
			  req.ntransactions == 0 && req.transactions == NULL,
			  "AddPartitionsToTxn v%d request as librdkafka sends it decodes", v);
		CHECK(prefixes_fail(m, v, BYTES(v0)),
			  "AddPartitionsToTxn v%d request cut short fails", v);
	}
	CHECK(decodes(m, 3, BYTES(v3), &req) &&
		  kafka_bytes_equal(req.v3_and_below_transactional_id, "txn-1") &&
		  req.v3_and_below_producer_id == 4097 &&
		  req.nv3_and_below_topics == 1 &&
		  is_orders_0_2(&req.v3_and_below_topics[0]),
		  "AddPartitionsToTxn v3 (flexible) request decodes");
	CHECK(prefixes_fail(m, 3, BYTES(v3)),
		  "AddPartitionsToTxn v3 request cut short fails");
	CHECK(decodes(m, 3, BYTES(v3_tag), &req) &&
		  is_orders_0_2(&req.v3_and_below_topics[0]),
		  "AddPartitionsToTxn v3: an unknown tagged field is skipped");
	for (int16 v = 4; v <= 5; v++)
	{
		CHECK(decodes(m, v, BYTES(v4), &req) &&
			  req.ntransactions == 2 &&
			  kafka_bytes_equal(req.transactions[0].transactional_id, "txn-1") &&
			  req.transactions[0].producer_id == 4097 &&
			  req.transactions[0].producer_epoch == 3 &&
			  req.transactions[0].verify_only &&
			  req.transactions[0].ntopics == 1 &&
			  is_orders_0_2(&req.transactions[0].topics[0]) &&
			  kafka_bytes_equal(req.transactions[1].transactional_id, "txn-2") &&
			  req.transactions[1].producer_id == 7 &&
			  !req.transactions[1].verify_only &&
			  req.transactions[1].ntopics == 0 &&
			  req.v3_and_below_transactional_id.len == 0 &&
			  req.nv3_and_below_topics == 0,
			  "AddPartitionsToTxn v%d (batched) request decodes", v);
		CHECK(prefixes_fail(m, v, BYTES(v4)),
			  "AddPartitionsToTxn v%d request cut short fails", v);
	}

	/* one form is not the other */
	CHECK(!decodes(m, 4, BYTES(v3), &req),
		  "AddPartitionsToTxn: a v3 body does not decode as v4");
	CHECK(!decodes(m, 0, BYTES(v0_null_id), &req),
		  "AddPartitionsToTxn v0: a null transactional id fails");
	CHECK(!decodes(m, 0, BYTES(v0_null_topics), &req),
		  "AddPartitionsToTxn v0: a null topic list fails");
	CHECK(!decodes(m, 0, BYTES(v0_huge), &req) &&
		  req.v3_and_below_topics[0].npartitions == 0,
		  "AddPartitionsToTxn v0: a count that cannot fit fails before allocating");

	/* topics and partitions count against elements_left */
	{
		KafkaReader r;

		kafka_reader_init(&r, BYTES(v0));
		r.elements_left = 4;
		CHECK(!kafka_decode(&r, m, 0, &req) && r.too_many,
			  "AddPartitionsToTxn v0: 2 topics and 3 partitions are over 4 elements");
		kafka_reader_init(&r, BYTES(v0));
		r.elements_left = 5;
		CHECK(kafka_decode(&r, m, 0, &req) && r.elements_left == 0,
			  "AddPartitionsToTxn v0: 2 topics and 3 partitions are 5 elements");
		kafka_reader_init(&r, BYTES(v4));
		r.elements_left = 4;
		CHECK(!kafka_decode(&r, m, 4, &req) && r.too_many,
			  "AddPartitionsToTxn v4: 2 transactions, a topic and 2 partitions are over 4 elements");
		kafka_reader_init(&r, BYTES(v4));
		r.elements_left = 5;
		CHECK(kafka_decode(&r, m, 4, &req) && r.elements_left == 0,
			  "AddPartitionsToTxn v4: transactions count as elements too");
	}
}

static void
check_add_partitions_to_txn_response(void)
{
	const KafkaMessage *m = &kafka_add_partitions_to_txn_response;
	KafkaAddPartitionsToTxnPartitionResult parts[2] = {
		{0, KAFKA_NONE}, {2, KAFKA_INVALID_TXN_STATE}
	};
	KafkaAddPartitionsToTxnTopicResult topic = {{"orders", 6}, 2, parts};
	KafkaAddPartitionsToTxnResult txn = {{"txn-1", 5}, 1, &topic};
	KafkaAddPartitionsToTxnResponse old = {0};
	KafkaAddPartitionsToTxnResponse batched = {0};

	/* v0-2: throttle, results by topic [orders [0: 0, 2: 48]] */
	static const char v0[] =
		ZERO4
		"\x00\x00\x00\x01"
		"\x00\x06" "orders" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x02" "\x00\x30";

	/* v3: the same, compact, each partition's and topic's tagged fields */
	static const char v3[] =
		ZERO4
		"\x02"
		"\x07" "orders" "\x03"
		"\x00\x00\x00\x00" "\x00\x00" "\x00" "\x00\x00\x00\x02" "\x00\x30" "\x00"
		"\x00"
		"\x00";

	/* v4: throttle, top-level error 0, results by transaction [txn-1 [...]] */
	static const char v4[] =
		ZERO4 "\x00\x00"
		"\x02" "\x06" "txn-1"
		"\x02" "\x07" "orders" "\x03"
		"\x00\x00\x00\x00" "\x00\x00" "\x00" "\x00\x00\x00\x02" "\x00\x30" "\x00"
		"\x00"
		"\x00"
		"\x00";

	old.nresults_by_topic_v3_and_below = 1;
	old.results_by_topic_v3_and_below = &topic;
	batched.nresults_by_transaction = 1;
	batched.results_by_transaction = &txn;
	for (int16 v = 0; v <= 2; v++)
		CHECK(encodes(m, v, &old, BYTES(v0)),
			  "AddPartitionsToTxn v%d response's bytes", v);
	CHECK(encodes(m, 3, &old, BYTES(v3)), "AddPartitionsToTxn v3 response's bytes");
	CHECK(encodes(m, 4, &batched, BYTES(v4)), "AddPartitionsToTxn v4 response's bytes");
	CHECK(encodes(m, 5, &batched, BYTES(v4)), "AddPartitionsToTxn v5 response's bytes");
}

/* ---- AddOffsetsToTxn (25) and EndTxn (26) ---- */

static void
check_add_offsets_and_end_txn(void)
{
	KafkaAddOffsetsToTxnRequest ao;
	KafkaAddOffsetsToTxnResponse aor = {0, KAFKA_INVALID_PRODUCER_EPOCH};
	KafkaEndTxnRequest et;
	KafkaEndTxnResponse etr = {7, KAFKA_NONE};

	/* librdkafka 2.0.2's AddOffsetsToTxn v0: id, producer id, epoch, group */
	static const char ao_v0[] = "\x00\x05" "txn-1" PID8 EPOCH2 "\x00\x02" "g1";

	/* v3: compact strings and the body's tagged fields */
	static const char ao_v3[] = "\x06" "txn-1" PID8 EPOCH2 "\x03" "g1" "\x00";

	/* v0: a null group id */
	static const char ao_null_group[] = "\x00\x05" "txn-1" PID8 EPOCH2 "\xff\xff";

	/* responses: throttle 0, error 47 (v3: and the tagged fields) */
	static const char aor_v0[] = ZERO4 "\x00\x2f";
	static const char aor_v3[] = ZERO4 "\x00\x2f" "\x00";

	/* librdkafka 2.0.2's EndTxn v0-1: id, producer id, epoch, committed */
	static const char et_v0[] = "\x00\x05" "txn-1" PID8 EPOCH2 "\x01";

	/* v3, aborting */
	static const char et_v3[] = "\x06" "txn-1" PID8 EPOCH2 "\x00" "\x00";

	/* any byte but 0 is true, as Kafka reads a bool */
	static const char et_v0_2[] = "\x00\x05" "txn-1" PID8 EPOCH2 "\x02";

	/* responses: throttle 7, error 0 */
	static const char etr_v0[] = "\x00\x00\x00\x07" "\x00\x00";
	static const char etr_v3[] = "\x00\x00\x00\x07" "\x00\x00" "\x00";

	for (int16 v = 0; v <= 2; v++)
	{
		CHECK(decodes(&kafka_add_offsets_to_txn_request, v, BYTES(ao_v0), &ao) &&
			  kafka_bytes_equal(ao.transactional_id, "txn-1") &&
			  ao.producer_id == 4097 && ao.producer_epoch == 3 &&
			  kafka_bytes_equal(ao.group_id, "g1"),
			  "AddOffsetsToTxn v%d request as librdkafka sends it decodes", v);
		CHECK(encodes(&kafka_add_offsets_to_txn_response, v, &aor, BYTES(aor_v0)),
			  "AddOffsetsToTxn v%d response's bytes", v);
		CHECK(decodes(&kafka_end_txn_request, v, BYTES(et_v0), &et) &&
			  kafka_bytes_equal(et.transactional_id, "txn-1") &&
			  et.producer_id == 4097 && et.producer_epoch == 3 && et.committed,
			  "EndTxn v%d request as librdkafka sends it decodes", v);
		CHECK(encodes(&kafka_end_txn_response, v, &etr, BYTES(etr_v0)),
			  "EndTxn v%d response's bytes", v);
	}
	for (int16 v = 3; v <= 4; v++)
	{
		CHECK(decodes(&kafka_add_offsets_to_txn_request, v, BYTES(ao_v3), &ao) &&
			  kafka_bytes_equal(ao.transactional_id, "txn-1") &&
			  ao.producer_id == 4097 && kafka_bytes_equal(ao.group_id, "g1"),
			  "AddOffsetsToTxn v%d (flexible) request decodes", v);
		CHECK(encodes(&kafka_add_offsets_to_txn_response, v, &aor, BYTES(aor_v3)),
			  "AddOffsetsToTxn v%d response's bytes", v);
		CHECK(decodes(&kafka_end_txn_request, v, BYTES(et_v3), &et) &&
			  kafka_bytes_equal(et.transactional_id, "txn-1") &&
			  et.producer_epoch == 3 && !et.committed,
			  "EndTxn v%d (flexible) request decodes", v);
		CHECK(encodes(&kafka_end_txn_response, v, &etr, BYTES(etr_v3)),
			  "EndTxn v%d response's bytes", v);
	}
	CHECK(prefixes_fail(&kafka_add_offsets_to_txn_request, 0, BYTES(ao_v0)) &&
		  prefixes_fail(&kafka_add_offsets_to_txn_request, 3, BYTES(ao_v3)) &&
		  prefixes_fail(&kafka_end_txn_request, 0, BYTES(et_v0)) &&
		  prefixes_fail(&kafka_end_txn_request, 3, BYTES(et_v3)),
		  "AddOffsetsToTxn and EndTxn requests cut short fail");
	CHECK(!decodes(&kafka_add_offsets_to_txn_request, 0, BYTES(ao_null_group), &ao),
		  "AddOffsetsToTxn v0: a null group id fails");
	CHECK(decodes(&kafka_end_txn_request, 0, BYTES(et_v0_2), &et) && et.committed,
		  "EndTxn v0: Committed 2 reads as true");
	CHECK(!decodes(&kafka_end_txn_request, 5, BYTES(et_v3), &et),
		  "EndTxn v5 (Kafka 4.0's) is not a version of 3.9's");
}

/* ---- TxnOffsetCommit (28) ---- */

static void
check_txn_offset_commit(void)
{
	KafkaTxnOffsetCommitRequest req;
	const KafkaMessage *m = &kafka_txn_offset_commit_request;
	KafkaTxnOffsetCommitResponsePartition parts[2] = {
		{0, KAFKA_NONE}, {1, KAFKA_UNKNOWN_MEMBER_ID}
	};
	KafkaTxnOffsetCommitResponseTopic topic = {{"orders", 6}, 2, parts};
	KafkaTxnOffsetCommitResponse resp = {0, 1, &topic};

	/*
	 * librdkafka 2.0.2's v0 and v1: id, group, producer id, epoch, topics
	 * [orders [0: offset 10 metadata "m", 1: offset 20 metadata null]]
	 */
	static const char v0[] =
		"\x00\x05" "txn-1" "\x00\x02" "g1" PID8 EPOCH2
		"\x00\x00\x00\x01" "\x00\x06" "orders" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x0a" "\x00\x01" "m"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00\x00\x00\x00\x14" "\xff\xff";

	/* v2: each partition's committed leader epoch (librdkafka writes -1) */
	static const char v2[] =
		"\x00\x05" "txn-1" "\x00\x02" "g1" PID8 EPOCH2
		"\x00\x00\x00\x01" "\x00\x06" "orders" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x0a" "\xff\xff\xff\xff"
		"\x00\x01" "m"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00\x00\x00\x00\x14" "\x00\x00\x00\x04"
		"\xff\xff";

	/*
	 * v3, flexible (librdkafka 2.0.2's newest): generation 5, member "m-1",
	 * group instance null, then the topics compact, tagged fields after
	 * each partition, each topic and the body
	 */
	static const char v3[] =
		"\x06" "txn-1" "\x03" "g1" PID8 EPOCH2
		"\x00\x00\x00\x05" "\x04" "m-1" "\x00"
		"\x02" "\x07" "orders" "\x03"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x0a" "\xff\xff\xff\xff"
		"\x02" "m" "\x00"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00\x00\x00\x00\x14" "\x00\x00\x00\x04"
		"\x00" "\x00"
		"\x00"
		"\x00";

	/* v3 with a group instance id (static membership) and no topics */
	static const char v3_static[] =
		"\x06" "txn-1" "\x03" "g1" PID8 EPOCH2
		"\xff\xff\xff\xff" "\x01" "\x03" "i1" "\x01" "\x00";

	/* v3: a null member id (only the instance id may be null) */
	static const char v3_null_member[] =
		"\x06" "txn-1" "\x03" "g1" PID8 EPOCH2
		"\xff\xff\xff\xff" "\x00" "\x00" "\x01" "\x00";

	/* responses: throttle 0, topics [orders [0: 0, 1: 25]] */
	static const char resp_v0[] =
		ZERO4 "\x00\x00\x00\x01" "\x00\x06" "orders" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x01" "\x00\x19";
	static const char resp_v3[] =
		ZERO4 "\x02" "\x07" "orders" "\x03"
		"\x00\x00\x00\x00" "\x00\x00" "\x00" "\x00\x00\x00\x01" "\x00\x19" "\x00"
		"\x00"
		"\x00";

	for (int16 v = 0; v <= 1; v++)
		CHECK(decodes(m, v, BYTES(v0), &req) &&
			  kafka_bytes_equal(req.transactional_id, "txn-1") &&
			  kafka_bytes_equal(req.group_id, "g1") &&
			  req.producer_id == 4097 && req.producer_epoch == 3 &&
			  req.generation_id == -1 && req.member_id.len == 0 &&
			  req.group_instance_id.len == -1 &&
			  req.ntopics == 1 && req.topics[0].npartitions == 2 &&
			  req.topics[0].partitions[0].committed_offset == 10 &&
			  req.topics[0].partitions[0].committed_leader_epoch == -1 &&
			  kafka_bytes_equal(req.topics[0].partitions[0].committed_metadata, "m") &&
			  req.topics[0].partitions[1].partition_index == 1 &&
			  req.topics[0].partitions[1].committed_offset == 20 &&
			  req.topics[0].partitions[1].committed_metadata.len == -1,
			  "TxnOffsetCommit v%d request as librdkafka sends it decodes, "
			  "generation -1, member \"\", instance null by default", v);
	CHECK(decodes(m, 2, BYTES(v2), &req) &&
		  req.topics[0].partitions[0].committed_leader_epoch == -1 &&
		  req.topics[0].partitions[1].committed_leader_epoch == 4 &&
		  req.topics[0].partitions[1].committed_offset == 20,
		  "TxnOffsetCommit v2 request decodes with its leader epochs");
	for (int16 v = 3; v <= 4; v++)
	{
		CHECK(decodes(m, v, BYTES(v3), &req) &&
			  kafka_bytes_equal(req.transactional_id, "txn-1") &&
			  req.generation_id == 5 &&
			  kafka_bytes_equal(req.member_id, "m-1") &&
			  req.group_instance_id.len == -1 &&
			  req.ntopics == 1 &&
			  kafka_bytes_equal(req.topics[0].name, "orders") &&
			  req.topics[0].partitions[1].committed_leader_epoch == 4 &&
			  req.topics[0].partitions[1].committed_metadata.len == -1,
			  "TxnOffsetCommit v%d (flexible) request decodes", v);
		CHECK(prefixes_fail(m, v, BYTES(v3)),
			  "TxnOffsetCommit v%d request cut short fails", v);
		CHECK(encodes(&kafka_txn_offset_commit_response, v, &resp, BYTES(resp_v3)),
			  "TxnOffsetCommit v%d response's bytes", v);
	}
	CHECK(prefixes_fail(m, 0, BYTES(v0)) && prefixes_fail(m, 2, BYTES(v2)),
		  "TxnOffsetCommit v0 and v2 requests cut short fail");
	CHECK(!decodes(m, 0, BYTES(v2), &req) && !decodes(m, 2, BYTES(v0), &req),
		  "TxnOffsetCommit: v0's and v2's partitions are not each other's");
	CHECK(decodes(m, 3, BYTES(v3_static), &req) &&
		  req.generation_id == -1 && req.member_id.len == 0 &&
		  kafka_bytes_equal(req.group_instance_id, "i1") && req.ntopics == 0,
		  "TxnOffsetCommit v3 with a group instance id decodes");
	CHECK(!decodes(m, 3, BYTES(v3_null_member), &req),
		  "TxnOffsetCommit v3: a null member id fails");
	for (int16 v = 0; v <= 2; v++)
		CHECK(encodes(&kafka_txn_offset_commit_response, v, &resp, BYTES(resp_v0)),
			  "TxnOffsetCommit v%d response's bytes", v);
}

/* ---- DescribeTransactions (65) and ListTransactions (66) ---- */

static void
check_describe_transactions(void)
{
	KafkaDescribeTransactionsRequest req;
	const KafkaMessage *m = &kafka_describe_transactions_request;
	int32		partitions[2] = {0, 2};
	KafkaDescribedTransactionTopic topic = {{"orders", 6}, 2, partitions};
	KafkaDescribedTransaction states[2];
	KafkaDescribeTransactionsResponse resp = {0, 2, states};

	/* v0 (flexible only): transactional ids [txn-1, txn-2] */
	static const char v0[] = "\x03" "\x06" "txn-1" "\x06" "txn-2" "\x00";

	/* an empty list: nothing to describe */
	static const char v0_empty[] = "\x01" "\x00";

	/* a null list (none is allowed) */
	static const char v0_null[] = "\x00" "\x00";

	/* a null id in the list */
	static const char v0_null_id[] = "\x02" "\x00" "\x00";

	/*
	 * response: throttle 0, states [error 0, txn-1, "Ongoing", timeout
	 * 60000, started 1700000000000, producer id 4097, epoch 3, topics
	 * [orders [0, 2]]; error 105, txn-2, "", 0, -1, -1, -1, []], each
	 * struct's tagged fields
	 */
	static const char resp_v0[] =
		ZERO4
		"\x03"
		"\x00\x00" "\x06" "txn-1" "\x08" "Ongoing" "\x00\x00\xea\x60"
		"\x00\x00\x01\x8b\xcf\xe5\x68\x00" PID8 EPOCH2
		"\x02" "\x07" "orders" "\x03" "\x00\x00\x00\x00" "\x00\x00\x00\x02" "\x00"
		"\x00"
		"\x00\x69" "\x06" "txn-2" "\x01" "\x00\x00\x00\x00"
		"\xff\xff\xff\xff\xff\xff\xff\xff" "\xff\xff\xff\xff\xff\xff\xff\xff"
		"\xff\xff" "\x01"
		"\x00"
		"\x00";

	CHECK(decodes(m, 0, BYTES(v0), &req) && req.ntransactional_ids == 2 &&
		  kafka_bytes_equal(req.transactional_ids[0], "txn-1") &&
		  kafka_bytes_equal(req.transactional_ids[1], "txn-2"),
		  "DescribeTransactions v0 request decodes");
	CHECK(prefixes_fail(m, 0, BYTES(v0)),
		  "DescribeTransactions v0 request cut short fails");
	CHECK(decodes(m, 0, BYTES(v0_empty), &req) && req.ntransactional_ids == 0,
		  "DescribeTransactions v0: an empty list decodes");
	CHECK(!decodes(m, 0, BYTES(v0_null), &req),
		  "DescribeTransactions v0: a null list fails");
	CHECK(!decodes(m, 0, BYTES(v0_null_id), &req),
		  "DescribeTransactions v0: a null transactional id fails");
	CHECK(!decodes(m, 1, BYTES(v0), &req),
		  "DescribeTransactions v1 is not a version of Kafka 3.9's");
	{
		KafkaReader r;

		kafka_reader_init(&r, BYTES(v0));
		r.elements_left = 1;
		CHECK(!kafka_decode(&r, m, 0, &req) && r.too_many,
			  "DescribeTransactions: the ids count against elements_left");
	}

	memset(states, 0, sizeof(states));
	states[0].transactional_id = kafka_bytes_of("txn-1");
	states[0].transaction_state = kafka_bytes_of("Ongoing");
	states[0].transaction_timeout_ms = 60000;
	states[0].transaction_start_time_ms = INT64CONST(1700000000000);
	states[0].producer_id = 4097;
	states[0].producer_epoch = 3;
	states[0].ntopics = 1;
	states[0].topics = &topic;
	states[1].error_code = KAFKA_TRANSACTIONAL_ID_NOT_FOUND;
	states[1].transactional_id = kafka_bytes_of("txn-2");
	states[1].transaction_state = kafka_bytes_of("");
	states[1].transaction_start_time_ms = -1;
	states[1].producer_id = -1;
	states[1].producer_epoch = -1;
	CHECK(encodes(&kafka_describe_transactions_response, 0, &resp, BYTES(resp_v0)),
		  "DescribeTransactions v0 response's bytes");
}

static void
check_list_transactions(void)
{
	KafkaListTransactionsRequest req;
	const KafkaMessage *m = &kafka_list_transactions_request;
	KafkaBytes	unknown = {"Bogus", 5};
	KafkaListedTransaction states[1] = {{{"txn-1", 5}, 4097, {"Ongoing", 7}}};
	KafkaListTransactionsResponse resp = {0, KAFKA_NONE, 1, &unknown, 1, states};

	/*
	 * v0 (flexible): state filters [Ongoing, Bogus], producer id filters
	 * [4097]
	 */
	static const char v0[] =
		"\x03" "\x08" "Ongoing" "\x06" "Bogus" "\x02" PID8 "\x00";

	/* v1: no filters but DurationFilter 30000 ms */
	static const char v1[] =
		"\x01" "\x01" "\x00\x00\x00\x00\x00\x00\x75\x30" "\x00";

	/* v1 with DurationFilter -1 (Kafka's admin client's default) */
	static const char v1_any[] =
		"\x01" "\x01" "\xff\xff\xff\xff\xff\xff\xff\xff" "\x00";

	/* v0: a null producer id list */
	static const char v0_null_pids[] = "\x01" "\x00" "\x00";

	/* v0: 2^28 producer ids announced in a short body */
	static const char v0_huge[] = "\x01" "\x81\x80\x80\x80\x01" "\x00";

	/*
	 * response: throttle 0, error 0, unknown state filters [Bogus],
	 * states [txn-1 4097 Ongoing, tagged fields], the body's tagged fields
	 */
	static const char resp_v0[] =
		ZERO4 "\x00\x00"
		"\x02" "\x06" "Bogus"
		"\x02" "\x06" "txn-1" PID8 "\x08" "Ongoing" "\x00"
		"\x00";

	CHECK(decodes(m, 0, BYTES(v0), &req) && req.nstate_filters == 2 &&
		  kafka_bytes_equal(req.state_filters[0], "Ongoing") &&
		  kafka_bytes_equal(req.state_filters[1], "Bogus") &&
		  req.nproducer_id_filters == 1 && req.producer_id_filters[0] == 4097 &&
		  req.duration_filter == -1,
		  "ListTransactions v0 request decodes, DurationFilter -1 by default");
	CHECK(prefixes_fail(m, 0, BYTES(v0)),
		  "ListTransactions v0 request cut short fails");
	CHECK(decodes(m, 1, BYTES(v1), &req) && req.nstate_filters == 0 &&
		  req.nproducer_id_filters == 0 && req.duration_filter == 30000,
		  "ListTransactions v1 request decodes with its DurationFilter");
	CHECK(prefixes_fail(m, 1, BYTES(v1)),
		  "ListTransactions v1 request cut short fails");
	CHECK(decodes(m, 1, BYTES(v1_any), &req) && req.duration_filter == -1,
		  "ListTransactions v1: DurationFilter -1 decodes");
	CHECK(!decodes(m, 0, BYTES(v1), &req),
		  "ListTransactions: a v1 body is not a v0 one");
	CHECK(!decodes(m, 0, BYTES(v0_null_pids), &req),
		  "ListTransactions v0: a null producer id list fails");
	CHECK(!decodes(m, 0, BYTES(v0_huge), &req) && req.nproducer_id_filters == 0,
		  "ListTransactions v0: a count that cannot fit fails before allocating");
	{
		KafkaReader r;

		kafka_reader_init(&r, BYTES(v0));
		r.elements_left = 2;
		CHECK(!kafka_decode(&r, m, 0, &req) && r.too_many,
			  "ListTransactions: filters count against elements_left");
	}
	for (int16 v = 0; v <= 1; v++)
		CHECK(encodes(&kafka_list_transactions_response, v, &resp, BYTES(resp_v0)),
			  "ListTransactions v%d response's bytes", v);
}

/* The six are described, at Kafka 3.9's versions and flexible versions */
static void
check_listed(void)
{
	static const struct
	{
		int16		key;
		int16		max;
		int16		first_flexible;
	}			apis[] = {
		{KAFKA_API_ADD_PARTITIONS_TO_TXN, 5, 3},
		{KAFKA_API_ADD_OFFSETS_TO_TXN, 4, 3},
		{KAFKA_API_END_TXN, 4, 3},
		{KAFKA_API_TXN_OFFSET_COMMIT, 4, 3},
		{KAFKA_API_DESCRIBE_TRANSACTIONS, 0, 0},
		{KAFKA_API_LIST_TRANSACTIONS, 1, 0},
	};

	for (int i = 0; i < lengthof(apis); i++)
	{
		const KafkaMessage *req = kafka_request_message(apis[i].key);
		const KafkaMessage *resp = kafka_response_message(apis[i].key);

		CHECK(req != NULL && resp != NULL &&
			  req->min_version == 0 && req->max_version == apis[i].max &&
			  req->first_flexible == apis[i].first_flexible &&
			  resp->min_version == 0 && resp->max_version == apis[i].max &&
			  resp->first_flexible == apis[i].first_flexible,
			  "API %d: versions 0-%d, flexible from %d", apis[i].key,
			  apis[i].max, apis[i].first_flexible);
	}
}

int
main(void)
{
	check_listed();
	check_add_partitions_to_txn();
	check_add_partitions_to_txn_response();
	check_add_offsets_and_end_txn();
	check_txn_offset_commit();
	check_describe_transactions();
	check_list_transactions();
	return unit_check_summary("transactions_test");
}
