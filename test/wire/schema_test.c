/*-------------------------------------------------------------------------
 *
 * schema_test.c
 *	  Unit test of src/wire/schema.c, the schema codec, and of the messages
 *	  described for it (src/wire/msg_*.c), built as frontend code (make
 *	  check-wire).
 *
 * - Every message of messages[] at every version: a struct filled with
 *   values that differ from each other and from the defaults (every other
 *   nullable value null) encodes, decodes to its last byte to the same
 *   values (the fields absent from the version to their defaults), and
 *   every shorter prefix of the encoding fails to decode.
 * - Byte sequences derived by hand from Kafka's message definitions, in
 *   flexible and non-flexible versions, both ways.
 * - Hostile bodies fail: negative lengths, counts that cannot fit, nulls
 *   where the version allows none, tagged fields overrunning their sizes,
 *   arrays over the reader's alloc_left or elements_left; unknown tagged
 *   fields are skipped.
 * - The field tables follow schema.h's conventions (check_schema), and
 *   each message is listed in wire/messages.c.
 * - A message of every type (test_schema below): uint16, float64, bytes,
 *   records written by a callback, arrays of primitives, nested and
 *   tagged structs.
 *
 * A message moved onto the codec is added to messages[], and gets a
 * byte sequence of a flexible and a non-flexible version if it has both.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/msg_add_offsets_to_txn.h"
#include "pg_topics/wire/msg_add_partitions_to_txn.h"
#include "pg_topics/wire/msg_alter_configs.h"
#include "pg_topics/wire/msg_api_versions.h"
#include "pg_topics/wire/msg_create_partitions.h"
#include "pg_topics/wire/msg_create_topics.h"
#include "pg_topics/wire/msg_delete_groups.h"
#include "pg_topics/wire/msg_delete_records.h"
#include "pg_topics/wire/msg_delete_topics.h"
#include "pg_topics/wire/msg_describe_acls.h"
#include "pg_topics/wire/msg_describe_cluster.h"
#include "pg_topics/wire/msg_describe_configs.h"
#include "pg_topics/wire/msg_describe_groups.h"
#include "pg_topics/wire/msg_describe_log_dirs.h"
#include "pg_topics/wire/msg_describe_transactions.h"
#include "pg_topics/wire/msg_end_txn.h"
#include "pg_topics/wire/msg_fetch.h"
#include "pg_topics/wire/msg_find_coordinator.h"
#include "pg_topics/wire/msg_heartbeat.h"
#include "pg_topics/wire/msg_incremental_alter_configs.h"
#include "pg_topics/wire/msg_init_producer_id.h"
#include "pg_topics/wire/msg_join_group.h"
#include "pg_topics/wire/msg_leave_group.h"
#include "pg_topics/wire/msg_list_groups.h"
#include "pg_topics/wire/msg_list_offsets.h"
#include "pg_topics/wire/msg_list_transactions.h"
#include "pg_topics/wire/msg_metadata.h"
#include "pg_topics/wire/msg_offset_commit.h"
#include "pg_topics/wire/msg_offset_delete.h"
#include "pg_topics/wire/msg_offset_fetch.h"
#include "pg_topics/wire/msg_offset_for_leader_epoch.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/msg_sasl_authenticate.h"
#include "pg_topics/wire/msg_sasl_handshake.h"
#include "pg_topics/wire/msg_sync_group.h"
#include "pg_topics/wire/msg_txn_offset_commit.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/schema.h"
#include "unit_check.h"

/*
 * Every message described, each request before its response: each is
 * checked at each of its versions
 */
static const KafkaMessage *const messages[] = {
	&kafka_api_versions_request,
	&kafka_api_versions_response,
	&kafka_metadata_request,
	&kafka_metadata_response,
	&kafka_find_coordinator_request,
	&kafka_find_coordinator_response,
	&kafka_offset_commit_request,
	&kafka_offset_commit_response,
	&kafka_offset_fetch_request,
	&kafka_offset_fetch_response,
	&kafka_join_group_request,
	&kafka_join_group_response,
	&kafka_sync_group_request,
	&kafka_sync_group_response,
	&kafka_heartbeat_request,
	&kafka_heartbeat_response,
	&kafka_leave_group_request,
	&kafka_leave_group_response,
	&kafka_describe_groups_request,
	&kafka_describe_groups_response,
	&kafka_list_groups_request,
	&kafka_list_groups_response,
	&kafka_delete_groups_request,
	&kafka_delete_groups_response,
	&kafka_offset_delete_request,
	&kafka_offset_delete_response,
	&kafka_produce_request,
	&kafka_produce_response,
	&kafka_fetch_request,
	&kafka_fetch_response,
	&kafka_list_offsets_request,
	&kafka_list_offsets_response,
	&kafka_offset_for_leader_epoch_request,
	&kafka_offset_for_leader_epoch_response,
	&kafka_delete_records_request,
	&kafka_delete_records_response,
	&kafka_create_partitions_request,
	&kafka_create_partitions_response,
	&kafka_describe_cluster_request,
	&kafka_describe_cluster_response,
	&kafka_describe_log_dirs_request,
	&kafka_describe_log_dirs_response,
	&kafka_describe_acls_request,
	&kafka_describe_acls_response,
	&kafka_sasl_handshake_request,
	&kafka_sasl_handshake_response,
	&kafka_sasl_authenticate_request,
	&kafka_sasl_authenticate_response,
	&kafka_init_producer_id_request,
	&kafka_init_producer_id_response,
	&kafka_create_topics_request,
	&kafka_create_topics_response,
	&kafka_delete_topics_request,
	&kafka_delete_topics_response,
	&kafka_describe_configs_request,
	&kafka_describe_configs_response,
	&kafka_alter_configs_request,
	&kafka_alter_configs_response,
	&kafka_incremental_alter_configs_request,
	&kafka_incremental_alter_configs_response,
	&kafka_add_partitions_to_txn_request,
	&kafka_add_partitions_to_txn_response,
	&kafka_add_offsets_to_txn_request,
	&kafka_add_offsets_to_txn_response,
	&kafka_end_txn_request,
	&kafka_end_txn_response,
	&kafka_txn_offset_commit_request,
	&kafka_txn_offset_commit_response,
	&kafka_describe_transactions_request,
	&kafka_describe_transactions_response,
	&kafka_list_transactions_request,
	&kafka_list_transactions_response,
};

/* ---- a message of every type ---- */

typedef struct TestInner
{
	uint16		u;
	KafkaBytes	s;
} TestInner;

typedef struct TestMessage
{
	int8		i8;
	int16		i16;
	int32		i32;
	int64		i64;
	uint16		u16;
	double		f64;
	bool		b;
	KafkaUuid	id;
	KafkaBytes	str;			/* nullable from 1 */
	KafkaBytes	bytes;			/* nullable */
	KafkaRecords records;		/* nullable */
	int32		nints;
	int32	   *ints;
	int32		nstrings;		/* nullable from 2 */
	KafkaBytes *strings;
	TestInner	inner;
	int32		ninners;
	TestInner  *inners;
	int64		only_v1;		/* v1 only, default 7 */
	int32		ntagged;		/* tag 0 from 2 */
	TestInner  *tagged;
	int32		tagged_int;		/* tag 5 from 2, default -1 */
	TestInner	tagged_inner;	/* tag 9 from 3 */
} TestMessage;

static const KafkaField inner_fields[] = {
	{"U", KAFKA_TYPE_UINT16, KAFKA_V_FROM(0), KAFKA_AT(TestInner, u)},
	{"S", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_AT(TestInner, s)},
};
static const KafkaSchema inner_schema =
KAFKA_SCHEMA("Inner", TestInner, inner_fields);

static const KafkaField test_fields[] = {
	{"I8", KAFKA_TYPE_INT8, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, i8)},
	{"I16", KAFKA_TYPE_INT16, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, i16)},
	{"I32", KAFKA_TYPE_INT32, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, i32)},
	{"I64", KAFKA_TYPE_INT64, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, i64)},
	{"U16", KAFKA_TYPE_UINT16, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, u16)},
	{"F64", KAFKA_TYPE_FLOAT64, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, f64)},
	{"B", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, b)},
	{"Id", KAFKA_TYPE_UUID, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, id)},
	{"Str", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(1),
	KAFKA_AT(TestMessage, str)},
	{"Bytes", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(TestMessage, bytes)},
	{"Records", KAFKA_TYPE_RECORDS, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(TestMessage, records)},
	{"Ints", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(TestMessage, ints, nints)},
	{"Strings", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(2),
	KAFKA_ARRAY_AT(TestMessage, strings, nstrings), .flags = KAFKA_FIELD_COUNTED},
	{"Inner", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0), KAFKA_AT(TestMessage, inner),
	.schema = &inner_schema},
	{"Inners", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(TestMessage, inners, ninners), .schema = &inner_schema},
	{"OnlyV1", KAFKA_TYPE_INT64, KAFKA_V(1, 1), KAFKA_AT(TestMessage, only_v1),
	.def = 7},
	{"Tagged", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(2), KAFKA_TAGGED(0, 2),
	KAFKA_ARRAY_AT(TestMessage, tagged, ntagged), .schema = &inner_schema},
	{"TaggedInt", KAFKA_TYPE_INT32, KAFKA_V_FROM(2), KAFKA_TAGGED(5, 2),
	KAFKA_AT(TestMessage, tagged_int), .def = -1},
	{"TaggedInner", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(3), KAFKA_TAGGED(9, 3),
	KAFKA_AT(TestMessage, tagged_inner), .schema = &inner_schema},
};
static const KafkaSchema test_schema =
KAFKA_SCHEMA("Test", TestMessage, test_fields);

/* versions 0-3, flexible from 2 */
static const KafkaMessage test_message = {"Test", 999, 0, 3, 2, &test_schema};

/* ---- filling and comparing any struct by its schema ---- */

/* the C size of one element of f */
static Size
element_size(const KafkaField *f)
{
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			return 1;
		case KAFKA_TYPE_INT16:
		case KAFKA_TYPE_UINT16:
			return 2;
		case KAFKA_TYPE_INT32:
			return 4;
		case KAFKA_TYPE_INT64:
			return 8;
		case KAFKA_TYPE_FLOAT64:
			return sizeof(double);
		case KAFKA_TYPE_BOOL:
			return sizeof(bool);
		case KAFKA_TYPE_UUID:
			return sizeof(KafkaUuid);
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			return sizeof(KafkaBytes);
		case KAFKA_TYPE_RECORDS:
			return sizeof(KafkaRecords);
		case KAFKA_TYPE_STRUCT:
			return f->schema->size;
	}
	return 0;
}

static uint32 fill_counter;

static char *
fill_string(void)
{
	return psprintf("s%u", fill_counter++);
}

static void fill_struct(const KafkaSchema *s, int16 v, char *out, int depth);

/* One value of f (an element, if an array) at p, non-default, maybe null */
static void
fill_value(const KafkaField *f, int16 v, char *p, int depth)
{
	uint32		n = ++fill_counter;
	bool		null = f->nullable && v >= f->nullable_from && n % 3 == 0;

	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			*(int8 *) p = (int8) (n % 100 + 1);
			break;
		case KAFKA_TYPE_INT16:
			*(int16 *) p = (int16) (n + 300);
			break;
		case KAFKA_TYPE_INT32:
			*(int32 *) p = (int32) (n * 65537);
			break;
		case KAFKA_TYPE_INT64:
			*(int64 *) p = (int64) n * 4294967311LL;
			break;
		case KAFKA_TYPE_UINT16:
			*(uint16 *) p = (uint16) (65535 - n);
			break;
		case KAFKA_TYPE_FLOAT64:
			*(double *) p = n + 0.25;
			break;
		case KAFKA_TYPE_BOOL:
			*(bool *) p = true;
			break;
		case KAFKA_TYPE_UUID:
			for (int i = 0; i < 16; i++)
				((KafkaUuid *) p)->data[i] = (uint8) (n + i * 7);
			break;
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			*(KafkaBytes *) p = null ? kafka_bytes_of(NULL) :
				kafka_bytes_of(fill_string());
			break;
		case KAFKA_TYPE_RECORDS:
			((KafkaRecords *) p)->bytes = null ? kafka_bytes_of(NULL) :
				kafka_bytes_of(fill_string());
			break;
		case KAFKA_TYPE_STRUCT:
			fill_struct(f->schema, v, p, depth + 1);
			break;
	}
}

static void
fill_field(const KafkaField *f, int16 v, char *out, int depth)
{
	uint32		n = ++fill_counter;
	int32		count;
	Size		size;
	char	   *elements;

	if (!f->array)
	{
		fill_value(f, v, out + f->offset, depth);
		return;
	}
	if (f->nullable && v >= f->nullable_from && n % 4 == 0)
	{
		*(int32 *) (out + f->count_offset) = -1;
		*(void **) (out + f->offset) = NULL;
		return;
	}
	count = depth > 2 ? 1 : 2;
	size = element_size(f);
	elements = palloc0(size * count);
	for (int i = 0; i < count; i++)
		fill_value(f, v, elements + i * size, depth);
	*(int32 *) (out + f->count_offset) = count;
	*(void **) (out + f->offset) = elements;
}

static void
fill_struct(const KafkaSchema *s, int16 v, char *out, int depth)
{
	for (int i = 0; i < s->nfields; i++)
		fill_field(&s->fields[i], v, out, depth);
}

static bool same_struct(const KafkaSchema *s, int16 v, const char *a,
						const char *b, const char **what);

static bool
same_bytes(KafkaBytes a, KafkaBytes b)
{
	return a.len == b.len && (a.len <= 0 || memcmp(a.data, b.data, a.len) == 0);
}

static bool
same_value(const KafkaField *f, int16 v, const char *a, const char *b,
		   const char **what)
{
	switch (f->type)
	{
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			return same_bytes(*(const KafkaBytes *) a, *(const KafkaBytes *) b);
		case KAFKA_TYPE_RECORDS:
			return same_bytes(((const KafkaRecords *) a)->bytes,
							  ((const KafkaRecords *) b)->bytes);
		case KAFKA_TYPE_STRUCT:
			return same_struct(f->schema, v, a, b, what);
		default:
			return memcmp(a, b, element_size(f)) == 0;
	}
}

/*
 * Do a (as filled) and b (as decoded) hold the same values in version v?
 * Fields absent from v must be their defaults in b.
 */
static bool
same_struct(const KafkaSchema *s, int16 v, const char *a, const char *b,
			const char **what)
{
	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];
		bool		in = v >= f->from && v <= f->to;
		bool		ok = true;

		if (!in)
		{
			if (f->array)
				ok = *(const int32 *) (b + f->count_offset) == 0;
			else if (f->type == KAFKA_TYPE_INT8)
				ok = *(const int8 *) (b + f->offset) == (int8) f->def;
			else if (f->type == KAFKA_TYPE_INT16)
				ok = *(const int16 *) (b + f->offset) == (int16) f->def;
			else if (f->type == KAFKA_TYPE_INT32)
				ok = *(const int32 *) (b + f->offset) == (int32) f->def;
			else if (f->type == KAFKA_TYPE_INT64)
				ok = *(const int64 *) (b + f->offset) == f->def;
			else if (f->type == KAFKA_TYPE_BOOL)
				ok = *(const bool *) (b + f->offset) == (f->def != 0);
			else if (f->type == KAFKA_TYPE_STRING)
				ok = ((const KafkaBytes *) (b + f->offset))->len ==
					(f->def_null ? -1 : 0);
		}
		else if (f->array)
		{
			int32		na = *(const int32 *) (a + f->count_offset);
			int32		nb = *(const int32 *) (b + f->count_offset);
			const char *ea = *(const char *const *) (a + f->offset);
			const char *eb = *(const char *const *) (b + f->offset);

			ok = na == nb;
			for (int32 j = 0; ok && j < na; j++)
				ok = same_value(f, v, ea + j * element_size(f),
								eb + j * element_size(f), what);
		}
		else
			ok = same_value(f, v, a + f->offset, b + f->offset, what);
		if (!ok)
		{
			if (*what == NULL)
				*what = f->name;
			return false;
		}
	}
	return true;
}

/* ---- the checks ---- */

/* m at every version: round trip, and every prefix fails */
static void
check_round_trips(const KafkaMessage *m)
{
	for (int16 v = m->min_version; v <= m->max_version; v++)
	{
		char	   *in = palloc0(m->body->size);
		char	   *out = palloc0(m->body->size);
		StringInfoData buf;
		KafkaReader r;
		const char *what = NULL;
		bool		ok;
		int			prefixes_decoded = 0;

		fill_counter = v * 1000;
		fill_struct(m->body, v, in, 0);
		initStringInfo(&buf);
		kafka_encode(&buf, m, v, in);
		kafka_reader_init(&r, buf.data, buf.len);
		ok = kafka_decode(&r, m, v, out);
		CHECK(ok && r.pos == r.len, "%s v%d decodes to its last byte (%d of %d)",
			  m->name, v, r.pos, r.len);
		CHECK(ok && same_struct(m->body, v, in, out, &what),
			  "%s v%d round-trips (field %s)", m->name, v,
			  what ? what : "?");
		for (int len = 0; len < buf.len; len++)
		{
			kafka_reader_init(&r, buf.data, len);
			if (kafka_decode(&r, m, v, out))
				prefixes_decoded++;
		}
		CHECK(prefixes_decoded == 0, "%s v%d: %d shorter prefixes decoded",
			  m->name, v, prefixes_decoded);
		kafka_reader_init(&r, buf.data, buf.len);
		CHECK(!kafka_decode(&r, m, m->max_version + 1, out) &&
			  !kafka_decode(&r, m, m->min_version - 1, out),
			  "%s: versions outside %d-%d fail", m->name, m->min_version,
			  m->max_version);
		pfree(buf.data);
	}
}

/*
 * The conventions of schema.h hold for every struct of m: versions within
 * the message's, nullable and tagged versions within the field's, tagged
 * fields after the untagged ones and in the order of their tags, values
 * and counts within the C struct, arrays with a count, structs with a
 * schema
 */
static void
check_schema(const KafkaMessage *m, const KafkaSchema *s, int depth)
{
	int64		last_tag = -1;
	bool		tagged_seen = false;

	CHECK(depth < 8, "%s: %s nests at most 8 deep", m->name, s->name);
	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];

		CHECK(f->from >= m->min_version && f->from <= f->to &&
			  (f->to == KAFKA_VERSION_MAX || f->to <= m->max_version),
			  "%s: %s.%s has versions within the message's", m->name,
			  s->name, f->name);
		CHECK(!f->nullable || (f->nullable_from >= f->from &&
							   f->nullable_from <= m->max_version),
			  "%s: %s.%s is nullable within its versions", m->name, s->name,
			  f->name);
		CHECK(!f->tagged || (f->tagged_from >= f->from &&
							 m->first_flexible >= 0 &&
							 f->tagged_from >= m->first_flexible),
			  "%s: %s.%s is tagged in flexible versions it has", m->name,
			  s->name, f->name);
		CHECK(f->tagged || !tagged_seen, "%s: %s.%s: untagged after tagged",
			  m->name, s->name, f->name);
		if (f->tagged)
		{
			CHECK((int64) f->tag > last_tag, "%s: %s.%s: tags in order",
				  m->name, s->name, f->name);
			last_tag = f->tag;
			tagged_seen = true;
		}
		CHECK(f->offset < s->size && (!f->array || f->count_offset < s->size),
			  "%s: %s.%s lies within the struct", m->name, s->name, f->name);
		CHECK(!f->array || f->count_offset != f->offset,
			  "%s: %s.%s has a count", m->name, s->name, f->name);
		CHECK((f->type == KAFKA_TYPE_STRUCT) == (f->schema != NULL),
			  "%s: %s.%s: a schema if and only if a struct", m->name, s->name,
			  f->name);
		if (f->type == KAFKA_TYPE_STRUCT && f->schema != NULL)
			check_schema(m, f->schema, depth + 1);
	}
}

/* buf holds exactly the len bytes of expected */
static bool
bytes_are(StringInfo buf, const char *expected, int len)
{
	if (buf->len != len || memcmp(buf->data, expected, len) != 0)
	{
		fprintf(stderr, "got:");
		for (int i = 0; i < buf->len; i++)
			fprintf(stderr, " %02x", (uint8) buf->data[i]);
		fprintf(stderr, "\n");
		return false;
	}
	return true;
}

#define BYTES(s) (s), (int) sizeof(s) - 1

static void
decode_bytes(KafkaReader *r, const char *data, int len)
{
	kafka_reader_init(r, data, len);
}

/* Metadata requests, byte by byte */
static void
check_metadata_request(void)
{
	KafkaMetadataRequest mr;
	KafkaMetadataRequestTopic t = {{{0}}, {"ab", 2}};
	StringInfoData buf;
	KafkaReader r;

	/* v1: topics ["ab"] (int32 count, int16 length) */
	static const char v1[] = "\x00\x00\x00\x01" "\x00\x02" "ab";

	/* v4: the same, then allow_auto_topic_creation */
	static const char v4[] = "\x00\x00\x00\x01" "\x00\x02" "ab" "\x00";

	/*
	 * v9, flexible: a compact array (count+1) of topics, each a compact
	 * string (length+1) and its empty tagged fields; allow_auto 0, the two
	 * include_*_authorized_operations 1 0; the body's empty tagged fields
	 */
	static const char v9[] = "\x02" "\x03" "ab" "\x00" "\x00" "\x01" "\x00" "\x00";

	/*
	 * v12: a null topic list (every topic: compact 0), allow_auto 1,
	 * include_topic_authorized_operations 1 (v11 dropped the cluster's)
	 */
	static const char v12_all[] = "\x00" "\x01" "\x01" "\x00";

	/* v1: a null list asks for every topic */
	static const char v1_all[] = "\xff\xff\xff\xff";

	/* v0: null is not a list (an empty one asks for every topic) */
	static const char v0_null[] = "\xff\xff\xff\xff";

	/* v9: a topic's name may be null only from v10 on */
	static const char v9_null_name[] = "\x02" "\x00" "\x00" "\x00\x00\x00" "\x00";

	/*
	 * v10: a topic by id (16 bytes) with a null name; an unknown tagged
	 * field (tag 7, 3 bytes) in the topic, skipped
	 */
	static const char v10_id[] =
		"\x02"
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
		"\x00"					/* name null */
		"\x01" "\x07" "\x03" "xyz"	/* one tagged field: tag 7, 3 bytes */
		"\x01" "\x00" "\x00" "\x00";

	initStringInfo(&buf);
	mr.ntopics = 1;
	mr.topics = &t;
	mr.allow_auto_topic_creation = false;
	mr.include_cluster_authorized_operations = true;
	mr.include_topic_authorized_operations = false;
	kafka_encode(&buf, &kafka_metadata_request, 1, &mr);
	CHECK(bytes_are(&buf, BYTES(v1)), "Metadata v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_metadata_request, 4, &mr);
	CHECK(bytes_are(&buf, BYTES(v4)), "Metadata v4 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_metadata_request, 9, &mr);
	CHECK(bytes_are(&buf, BYTES(v9)), "Metadata v9 request's bytes");

	decode_bytes(&r, BYTES(v9));
	CHECK(kafka_decode(&r, &kafka_metadata_request, 9, &mr) &&
		  r.pos == r.len && mr.ntopics == 1 &&
		  kafka_bytes_equal(mr.topics[0].name, "ab") &&
		  !mr.allow_auto_topic_creation &&
		  mr.include_cluster_authorized_operations &&
		  !mr.include_topic_authorized_operations,
		  "Metadata v9 request decodes");
	decode_bytes(&r, BYTES(v1));
	CHECK(kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  mr.allow_auto_topic_creation,
		  "allow_auto_topic_creation defaults to true before v4");
	decode_bytes(&r, BYTES(v12_all));
	CHECK(kafka_decode(&r, &kafka_metadata_request, 12, &mr) &&
		  r.pos == r.len && mr.ntopics == -1 && mr.topics == NULL &&
		  mr.include_topic_authorized_operations,
		  "Metadata v12 request for every topic decodes");
	decode_bytes(&r, BYTES(v1_all));
	CHECK(kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  mr.ntopics == -1, "Metadata v1: a null list");
	decode_bytes(&r, BYTES(v0_null));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 0, &mr),
		  "Metadata v0: a null list fails");
	decode_bytes(&r, BYTES(v9_null_name));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 9, &mr),
		  "Metadata v9: a null topic name fails");
	decode_bytes(&r, BYTES(v10_id));
	CHECK(kafka_decode(&r, &kafka_metadata_request, 10, &mr) &&
		  r.pos == r.len && mr.ntopics == 1 &&
		  mr.topics[0].name.len == -1 &&
		  mr.topics[0].topic_id.data[0] == 0 &&
		  mr.topics[0].topic_id.data[15] == 15,
		  "Metadata v10: a topic by id, an unknown tagged field skipped");
	pfree(buf.data);
}

/* Metadata responses, byte by byte */
static void
check_metadata_response(void)
{
	KafkaMetadataResponse m = {0};
	KafkaMetadataResponseBroker broker = {1, {"h", 1}, 9092, {NULL, -1}};
	int32		node = 1;
	KafkaMetadataResponsePartition part = {0, 0, 1, 5, 1, &node, 1, &node, 0, NULL};
	KafkaMetadataResponseTopic topic;
	StringInfoData buf;

	/*
	 * v0: brokers [1 "h" 9092], topics [error 0, "t", partitions [error 0,
	 * index 0, leader 1, replicas [1], isr [1]]]
	 */
	static const char v0[] =
		"\x00\x00\x00\x01" "\x00\x00\x00\x01" "\x00\x01" "h" "\x00\x00\x23\x84"
		"\x00\x00\x00\x01" "\x00\x00" "\x00\x01" "t"
		"\x00\x00\x00\x01" "\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x01"
		"\x00\x00\x00\x01" "\x00\x00\x00\x01"
		"\x00\x00\x00\x01" "\x00\x00\x00\x01";

	/*
	 * v12: throttle 0; brokers (compact) [1, "h", 9092, rack null, tagged
	 * 0]; cluster_id "c"; controller 1; topics [error 0, "t", topic id
	 * (16 bytes), is_internal 0, partitions [error 0, index 0, leader 1,
	 * leader epoch 5, replicas [1], isr [1], offline [], tagged 0],
	 * authorized operations 0x108 (READ, DESCRIBE), tagged 0]; tagged 0
	 */
	static const char v12[] =
		"\x00\x00\x00\x00"
		"\x02" "\x00\x00\x00\x01" "\x02" "h" "\x00\x00\x23\x84" "\x00" "\x00"
		"\x02" "c"
		"\x00\x00\x00\x01"
		"\x02" "\x00\x00" "\x02" "t"
		"\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf"
		"\x00"
		"\x02" "\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x01"
		"\x00\x00\x00\x05" "\x02" "\x00\x00\x00\x01" "\x02" "\x00\x00\x00\x01"
		"\x01" "\x00"
		"\x00\x00\x01\x08" "\x00"
		"\x00";

	memset(&topic, 0, sizeof(topic));
	topic.name = kafka_bytes_of("t");
	for (int i = 0; i < 16; i++)
		topic.topic_id.data[i] = (uint8) (0xa0 + i);
	topic.npartitions = 1;
	topic.partitions = &part;
	topic.topic_authorized_operations = 0x108;
	m.nbrokers = 1;
	m.brokers = &broker;
	m.cluster_id = kafka_bytes_of("c");
	m.controller_id = 1;
	m.ntopics = 1;
	m.topics = &topic;
	m.cluster_authorized_operations = KAFKA_AUTHORIZED_OPERATIONS_OMITTED;
	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_metadata_response, 0, &m);
	CHECK(bytes_are(&buf, BYTES(v0)), "Metadata v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_metadata_response, 12, &m);
	CHECK(bytes_are(&buf, BYTES(v12)), "Metadata v12 response's bytes");
	pfree(buf.data);
}

/* ApiVersions and FindCoordinator, byte by byte */
static void
check_other_messages(void)
{
	KafkaApiVersion api = {KAFKA_API_API_VERSIONS, 0, 4};
	KafkaApiVersionsResponse av = {0};
	KafkaFindCoordinatorResponse fc = {0};
	KafkaCoordinator coordinators[2];
	KafkaFindCoordinatorRequest fr;
	StringInfoData buf;
	KafkaReader r;

	/*
	 * ApiVersions v3: error 0, api keys (compact) [18 0 4, tagged 0],
	 * throttle 0, then the tagged fields: one, ZkMigrationReady (tag 3, 1
	 * byte, true); FinalizedFeaturesEpoch at its default -1 is left out
	 */
	static const char av_v3[] =
		"\x00\x00" "\x02" "\x00\x12" "\x00\x00" "\x00\x04" "\x00"
		"\x00\x00\x00\x00" "\x01" "\x03" "\x01" "\x01";

	/* v0 of the same: no throttle, no tagged fields */
	static const char av_v0[] =
		"\x00\x00" "\x00\x00\x00\x01" "\x00\x12" "\x00\x00" "\x00\x04";

	/* FindCoordinator v1: throttle 0, error 0, message null, 1 "h" 9092 */
	static const char fc_v1[] =
		"\x00\x00\x00\x00" "\x00\x00" "\xff\xff" "\x00\x00\x00\x01"
		"\x00\x01" "h" "\x00\x00\x23\x84";

	/*
	 * FindCoordinator v4: throttle 0, coordinators (compact) ["g1" 1 "h"
	 * 9092 error 0 message null, tagged 0; "g2" -1 "" -1 error 15 message
	 * null, tagged 0], tagged 0
	 */
	static const char fc_v4[] =
		"\x00\x00\x00\x00" "\x03"
		"\x03" "g1" "\x00\x00\x00\x01" "\x02" "h" "\x00\x00\x23\x84"
		"\x00\x00" "\x00" "\x00"
		"\x03" "g2" "\xff\xff\xff\xff" "\x01" "\xff\xff\xff\xff"
		"\x00\x0f" "\x00" "\x00"
		"\x00";

	/* FindCoordinator v4 request: key type 0, keys ["g1", "g2"], tagged 0 */
	static const char fr_v4[] = "\x00" "\x03" "\x03" "g1" "\x03" "g2" "\x00";

	/* FindCoordinator v3 request: key "g1", key type 0, tagged 0 */
	static const char fr_v3[] = "\x03" "g1" "\x00" "\x00";

	av.error_code = 0;
	av.napi_keys = 1;
	av.api_keys = &api;
	av.finalized_features_epoch = -1;
	av.zk_migration_ready = true;
	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_api_versions_response, 3, &av);
	CHECK(bytes_are(&buf, BYTES(av_v3)), "ApiVersions v3 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_api_versions_response, 0, &av);
	CHECK(bytes_are(&buf, BYTES(av_v0)), "ApiVersions v0 response's bytes");

	fc.error_message = kafka_bytes_of(NULL);
	fc.node_id = 1;
	fc.host = kafka_bytes_of("h");
	fc.port = 9092;
	coordinators[0] = (KafkaCoordinator) {{"g1", 2}, 1, {"h", 1}, 9092, 0, {NULL, -1}};
	coordinators[1] = (KafkaCoordinator) {{"g2", 2}, -1, {"", 0}, -1, 15, {NULL, -1}};
	fc.ncoordinators = 2;
	fc.coordinators = coordinators;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_find_coordinator_response, 1, &fc);
	CHECK(bytes_are(&buf, BYTES(fc_v1)), "FindCoordinator v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_find_coordinator_response, 4, &fc);
	CHECK(bytes_are(&buf, BYTES(fc_v4)), "FindCoordinator v4 response's bytes");

	decode_bytes(&r, BYTES(fr_v4));
	CHECK(kafka_decode(&r, &kafka_find_coordinator_request, 4, &fr) &&
		  r.pos == r.len && fr.key_type == 0 && fr.key.len == 0 &&
		  fr.ncoordinator_keys == 2 &&
		  kafka_bytes_equal(fr.coordinator_keys[0], "g1") &&
		  kafka_bytes_equal(fr.coordinator_keys[1], "g2"),
		  "FindCoordinator v4 request decodes");
	decode_bytes(&r, BYTES(fr_v3));
	CHECK(kafka_decode(&r, &kafka_find_coordinator_request, 3, &fr) &&
		  r.pos == r.len && kafka_bytes_equal(fr.key, "g1") &&
		  fr.ncoordinator_keys == 0,
		  "FindCoordinator v3 request decodes");
	pfree(buf.data);
}

/* Hostile bodies: each fails, with the reader's flags where they apply */
static void
check_hostile(void)
{
	KafkaMetadataRequest mr;
	KafkaFindCoordinatorRequest fr;
	KafkaReader r;

	/* v1: a topic name of length -2 */
	static const char negative_string[] = "\x00\x00\x00\x01" "\xff\xfe";

	/* v1: a count of -2 */
	static const char negative_count[] = "\xff\xff\xff\xfe";

	/* v1: two billion topics announced by four bytes */
	static const char huge_count[] = "\x7f\xff\xff\xff" "\x00\x01" "a";

	/* v9: a compact count of 2^32-2 (a five-byte uvarint) */
	static const char huge_compact[] = "\xff\xff\xff\xff\x0f" "\x00";

	/* v9: a varint of six bytes */
	static const char long_varint[] = "\x80\x80\x80\x80\x80\x00";

	/* v9: a tagged field whose size runs past the body */
	static const char tag_overrun[] = "\x01" "\x00" "\x00" "\x00" "\x01" "\x07" "\x09" "ab";

	/* v9: a billion tagged fields */
	static const char many_tags[] = "\x01" "\x00" "\x00" "\x00" "\x80\x94\xeb\xdc\x03";

	/* v3 FindCoordinator: a known tag? none; a string of length -1 (null) */
	static const char null_key[] = "\x00" "\x00" "\x00";

	/* v1: three topics of one byte each */
	static const char three[] = "\x00\x00\x00\x03" "\x00\x01" "a" "\x00\x01" "b" "\x00\x01" "c";

	decode_bytes(&r, BYTES(negative_string));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 1, &mr),
		  "a negative string length fails");
	decode_bytes(&r, BYTES(negative_count));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 1, &mr),
		  "a negative array count fails");
	decode_bytes(&r, BYTES(huge_count));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  mr.ntopics == 0 && mr.topics == NULL,
		  "a count that cannot fit fails before allocating");
	decode_bytes(&r, BYTES(huge_compact));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 9, &mr) &&
		  mr.ntopics == 0, "a compact count that cannot fit fails");
	decode_bytes(&r, BYTES(long_varint));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 9, &mr),
		  "a varint longer than five bytes fails");
	decode_bytes(&r, BYTES(tag_overrun));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 9, &mr),
		  "a tagged field past the end fails");
	decode_bytes(&r, BYTES(many_tags));
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 9, &mr),
		  "more tagged fields than bytes fails");
	decode_bytes(&r, BYTES(null_key));
	CHECK(!kafka_decode(&r, &kafka_find_coordinator_request, 3, &fr),
		  "a null key where none is allowed fails");

	decode_bytes(&r, BYTES(three));
	r.alloc_left = 2 * sizeof(KafkaMetadataRequestTopic);
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  r.over_budget && !r.too_many && mr.ntopics == 0,
		  "an array over alloc_left fails, over budget");
	decode_bytes(&r, BYTES(three));
	r.alloc_left = 3 * sizeof(KafkaMetadataRequestTopic);
	CHECK(kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  r.alloc_left == 0, "an array within alloc_left decodes");
	decode_bytes(&r, BYTES(three));
	r.elements_left = 2;
	CHECK(!kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  r.too_many && !r.over_budget,
		  "a counted array over elements_left fails, too many");
	decode_bytes(&r, BYTES(three));
	r.elements_left = 3;
	CHECK(kafka_decode(&r, &kafka_metadata_request, 1, &mr) &&
		  r.elements_left == 0, "a counted array within elements_left decodes");
}

/* what records_writer appends */
static bool
records_writer(StringInfo buf, void *arg)
{
	int			n = *(int *) arg;

	if (n < 0)
		return false;
	for (int i = 0; i < n; i++)
		kafka_write_int8(buf, (int8) i);
	return true;
}

/* Every type: golden bytes of v0 and v3 of test_message, records by callback */
static void
check_every_type(void)
{
	TestMessage m;
	TestMessage d;
	TestInner inner = {65535, {"i", 1}};
	int32		ints[2] = {1, -1};
	int			nrecords = 200;
	StringInfoData buf;
	KafkaReader r;

	/*
	 * v0: i8 -1, i16 2, i32 3, i64 4, u16 65535, f64 1.5, true, uuid 0..15,
	 * "s", bytes null, records (200 bytes from the callback), ints [1 -1],
	 * strings [] , inner {65535 "i"}, inners [{65535 "i"}]
	 */
	static const char v0_head[] =
		"\xff" "\x00\x02" "\x00\x00\x00\x03" "\x00\x00\x00\x00\x00\x00\x00\x04"
		"\xff\xff" "\x3f\xf8\x00\x00\x00\x00\x00\x00" "\x01"
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
		"\x00\x01" "s" "\xff\xff\xff\xff" "\x00\x00\x00\xc8";
	static const char v0_tail[] =
		"\x00\x00\x00\x02" "\x00\x00\x00\x01" "\xff\xff\xff\xff"
		"\x00\x00\x00\x00"
		"\xff\xff" "\x00\x01" "i"
		"\x00\x00\x00\x01" "\xff\xff" "\x00\x01" "i";

	/*
	 * v3, flexible: the same in compact forms (records' length a padded
	 * five-byte uvarint of 201: c9 81 80 80 00), strings null (v2+:
	 * compact 0), inner and inners with their empty tagged fields, then
	 * the tagged fields in tag order: Tagged (tag 0) [{1 "x"}], 8 bytes;
	 * TaggedInt (tag 5) 0x12345678, 4 bytes; TaggedInner (tag 9) at its
	 * default left out
	 */
	static const char v3_head[] =
		"\xff" "\x00\x02" "\x00\x00\x00\x03" "\x00\x00\x00\x00\x00\x00\x00\x04"
		"\xff\xff" "\x3f\xf8\x00\x00\x00\x00\x00\x00" "\x01"
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
		"\x02" "s" "\x00" "\xc9\x81\x80\x80\x00";
	static const char v3_tail[] =
		"\x03" "\x00\x00\x00\x01" "\xff\xff\xff\xff"
		"\x00"
		"\xff\xff" "\x02" "i" "\x00"
		"\x02" "\xff\xff" "\x02" "i" "\x00"
		"\x02"
		"\x00" "\x06" "\x02" "\x00\x01" "\x02" "x" "\x00"
		"\x05" "\x04" "\x12\x34\x56\x78";
	TestInner tagged = {1, {"x", 1}};

	memset(&m, 0, sizeof(m));
	m.i8 = -1;
	m.i16 = 2;
	m.i32 = 3;
	m.i64 = 4;
	m.u16 = 65535;
	m.f64 = 1.5;
	m.b = true;
	for (int i = 0; i < 16; i++)
		m.id.data[i] = (uint8) i;
	m.str = kafka_bytes_of("s");
	m.bytes = kafka_bytes_of(NULL);
	m.records.write = records_writer;
	m.records.arg = &nrecords;
	m.nints = 2;
	m.ints = ints;
	m.nstrings = 0;
	m.inner = inner;
	m.ninners = 1;
	m.inners = &inner;
	m.only_v1 = 7;
	m.ntagged = 0;
	m.tagged_int = -1;
	m.tagged_inner.s = kafka_bytes_of("");

	initStringInfo(&buf);
	kafka_encode(&buf, &test_message, 0, &m);
	CHECK(buf.len == (int) sizeof(v0_head) - 1 + 200 + (int) sizeof(v0_tail) - 1 &&
		  memcmp(buf.data, v0_head, sizeof(v0_head) - 1) == 0 &&
		  (uint8) buf.data[sizeof(v0_head) - 1 + 199] == 199 &&
		  memcmp(buf.data + sizeof(v0_head) - 1 + 200, v0_tail,
				 sizeof(v0_tail) - 1) == 0,
		  "every type's bytes at v0");
	kafka_reader_init(&r, buf.data, buf.len);
	CHECK(kafka_decode(&r, &test_message, 0, &d) && r.pos == r.len &&
		  d.records.bytes.len == 200 &&
		  d.records.bytes.data == buf.data + sizeof(v0_head) - 1 &&
		  d.f64 == 1.5 && d.u16 == 65535 && d.only_v1 == 7 &&
		  d.tagged_int == -1 && d.inners[0].u == 65535,
		  "every type decodes at v0, records a slice of the body");

	m.nstrings = -1;
	m.ntagged = 1;
	m.tagged = &tagged;
	m.tagged_int = 0x12345678;
	resetStringInfo(&buf);
	kafka_encode(&buf, &test_message, 3, &m);
	CHECK(buf.len == (int) sizeof(v3_head) - 1 + 200 + (int) sizeof(v3_tail) - 1 &&
		  memcmp(buf.data, v3_head, sizeof(v3_head) - 1) == 0 &&
		  memcmp(buf.data + sizeof(v3_head) - 1 + 200, v3_tail,
				 sizeof(v3_tail) - 1) == 0,
		  "every type's bytes at v3");
	kafka_reader_init(&r, buf.data, buf.len);
	CHECK(kafka_decode(&r, &test_message, 3, &d) && r.pos == r.len &&
		  d.records.bytes.len == 200 && d.nstrings == -1 &&
		  d.ntagged == 1 && d.tagged[0].u == 1 &&
		  kafka_bytes_equal(d.tagged[0].s, "x") &&
		  d.tagged_int == 0x12345678 && d.only_v1 == 7,
		  "every type decodes at v3, tagged fields included");

	/* a callback that writes nothing: null records */
	nrecords = -1;
	m.nstrings = 0;
	resetStringInfo(&buf);
	kafka_encode(&buf, &test_message, 1, &m);
	kafka_reader_init(&r, buf.data, buf.len);
	CHECK(kafka_decode(&r, &test_message, 1, &d) && r.pos == r.len &&
		  d.records.bytes.len == -1, "a callback's refusal writes null records");

	/* a known tagged field whose value runs past its size fails */
	{
		static const char short_tag[] = "\x01" "\x05" "\x02" "\x12\x34\x56\x78";
		KafkaReader tr;
		int			at;

		resetStringInfo(&buf);
		m.ntagged = 0;
		m.tagged_int = -1;
		nrecords = 0;
		kafka_encode(&buf, &test_message, 2, &m);
		/* replace the empty tagged section (the last byte) */
		at = buf.len - 1;
		buf.len = at;
		appendBinaryStringInfo(&buf, short_tag, sizeof(short_tag) - 1);
		kafka_reader_init(&tr, buf.data, buf.len);
		CHECK(!kafka_decode(&tr, &test_message, 2, &d),
			  "a tagged value longer than its size fails");
	}
	pfree(buf.data);
}

/* OffsetCommit and OffsetFetch, byte by byte */
static void
check_offsets(void)
{
	KafkaOffsetCommitRequest cr;
	KafkaOffsetCommitResponse co = {0};
	KafkaOffsetCommitResponseTopic cot = {{"t", 1}, 0, NULL};
	KafkaOffsetCommitResponsePartition cop = {2, 0};
	KafkaOffsetFetchRequest fr;
	KafkaOffsetFetchResponse fo = {0};
	KafkaOffsetFetchResponseGroup fog = {{"g", 1}, 0, NULL, 0};
	KafkaOffsetFetchResponseTopic fot = {{"t", 1}, 0, NULL};
	KafkaOffsetFetchResponsePartition fop = {0, 42, -1, {"", 0}, 0};
	StringInfoData buf;
	KafkaReader r;

	/*
	 * OffsetCommit v0 (sarama's default): group "g", topics ["t" [2 42
	 * "md"]]: no generation, member or retention
	 */
	static const char oc_v0[] =
		"\x00\x01" "g" "\x00\x00\x00\x01" "\x00\x01" "t"
		"\x00\x00\x00\x01" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00\x00\x00\x00\x2a" "\x00\x02" "md";

	/* v1: generation 7, member "m", each partition's commit timestamp 5 */
	static const char oc_v1[] =
		"\x00\x01" "g" "\x00\x00\x00\x07" "\x00\x01" "m"
		"\x00\x00\x00\x01" "\x00\x01" "t"
		"\x00\x00\x00\x01" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00\x00\x00\x00\x2a"
		"\x00\x00\x00\x00\x00\x00\x00\x05" "\xff\xff";

	/*
	 * v8, flexible: "g", generation 7, "m", instance "i", topics (compact)
	 * ["t" [2 42 epoch 3 metadata null, tagged 0], tagged 0], tagged 0
	 */
	static const char oc_v8[] =
		"\x02" "g" "\x00\x00\x00\x07" "\x02" "m" "\x02" "i"
		"\x02" "\x02" "t" "\x02" "\x00\x00\x00\x02"
		"\x00\x00\x00\x00\x00\x00\x00\x2a" "\x00\x00\x00\x03" "\x00" "\x00"
		"\x00" "\x00";

	/* responses: v0 [t [2 0]]; v8 throttle 0, compact, tagged */
	static const char oco_v0[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00\x00\x02" "\x00\x00";
	static const char oco_v8[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "t" "\x02"
		"\x00\x00\x00\x02" "\x00\x00" "\x00" "\x00" "\x00";

	/* OffsetFetch v0 (sarama's default): group "g", topics ["t" [0]] */
	static const char of_v0[] =
		"\x00\x01" "g" "\x00\x00\x00\x01" "\x00\x01" "t"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00";

	/* v1: no null topic list yet (v2+) */
	static const char of_v1_all[] = "\x00\x01" "g" "\xff\xff\xff\xff";

	/*
	 * v8: groups (compact) ["g" topics null (every topic), tagged 0],
	 * require_stable 1, tagged 0
	 */
	static const char of_v8[] = "\x02" "\x02" "g" "\x00" "\x00" "\x01" "\x00";

	/* responses: v0 [t [0 42 "" 0]]; v8 throttle 0 [g [t [0 42 -1 "" 0]] 0] */
	static const char ofo_v0[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x2a"
		"\x00\x00" "\x00\x00";
	static const char ofo_v8[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "g" "\x02" "\x02" "t" "\x02"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x2a"
		"\xff\xff\xff\xff" "\x01" "\x00\x00" "\x00" "\x00"
		"\x00\x00" "\x00" "\x00";

	initStringInfo(&buf);
	decode_bytes(&r, BYTES(oc_v0));
	CHECK(kafka_decode(&r, &kafka_offset_commit_request, 0, &cr) &&
		  r.pos == r.len && kafka_bytes_equal(cr.group_id, "g") &&
		  cr.generation_id_or_member_epoch == -1 && cr.member_id.len == 0 &&
		  cr.group_instance_id.len == -1 && cr.retention_time_ms == -1 &&
		  cr.ntopics == 1 && cr.topics[0].npartitions == 1 &&
		  cr.topics[0].partitions[0].partition_index == 2 &&
		  cr.topics[0].partitions[0].committed_offset == 42 &&
		  cr.topics[0].partitions[0].committed_leader_epoch == -1 &&
		  kafka_bytes_equal(cr.topics[0].partitions[0].committed_metadata, "md"),
		  "OffsetCommit v0 request decodes, defaults for what v0 lacks");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_commit_request, 0, &cr);
	CHECK(bytes_are(&buf, BYTES(oc_v0)), "OffsetCommit v0 request's bytes");
	decode_bytes(&r, BYTES(oc_v1));
	CHECK(kafka_decode(&r, &kafka_offset_commit_request, 1, &cr) &&
		  r.pos == r.len && cr.generation_id_or_member_epoch == 7 &&
		  kafka_bytes_equal(cr.member_id, "m") &&
		  cr.topics[0].partitions[0].commit_timestamp == 5 &&
		  cr.topics[0].partitions[0].committed_metadata.len == -1,
		  "OffsetCommit v1 request decodes, its commit timestamp and null metadata");
	decode_bytes(&r, BYTES(oc_v1));
	CHECK(!kafka_decode(&r, &kafka_offset_commit_request, 2, &cr) ||
		  r.pos != r.len, "OffsetCommit v1's bytes are not a v2 request");
	decode_bytes(&r, BYTES(oc_v8));
	CHECK(kafka_decode(&r, &kafka_offset_commit_request, 8, &cr) &&
		  r.pos == r.len && kafka_bytes_equal(cr.group_instance_id, "i") &&
		  cr.topics[0].partitions[0].committed_leader_epoch == 3 &&
		  cr.topics[0].partitions[0].committed_metadata.len == -1,
		  "OffsetCommit v8 request decodes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_commit_request, 8, &cr);
	CHECK(bytes_are(&buf, BYTES(oc_v8)), "OffsetCommit v8 request's bytes");

	cot.npartitions = 1;
	cot.partitions = &cop;
	co.ntopics = 1;
	co.topics = &cot;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_commit_response, 0, &co);
	CHECK(bytes_are(&buf, BYTES(oco_v0)), "OffsetCommit v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_commit_response, 8, &co);
	CHECK(bytes_are(&buf, BYTES(oco_v8)), "OffsetCommit v8 response's bytes");

	decode_bytes(&r, BYTES(of_v0));
	CHECK(kafka_decode(&r, &kafka_offset_fetch_request, 0, &fr) &&
		  r.pos == r.len && kafka_bytes_equal(fr.group_id, "g") &&
		  fr.ntopics == 1 && fr.topics[0].npartition_indexes == 1 &&
		  fr.topics[0].partition_indexes[0] == 0 && fr.ngroups == 0,
		  "OffsetFetch v0 request decodes");
	decode_bytes(&r, BYTES(of_v1_all));
	CHECK(!kafka_decode(&r, &kafka_offset_fetch_request, 1, &fr),
		  "OffsetFetch v1 cannot ask for every topic");
	decode_bytes(&r, BYTES(of_v1_all));
	CHECK(kafka_decode(&r, &kafka_offset_fetch_request, 2, &fr) &&
		  fr.ntopics == -1 && fr.topics == NULL,
		  "OffsetFetch v2 asks for every topic with null");
	decode_bytes(&r, BYTES(of_v8));
	CHECK(kafka_decode(&r, &kafka_offset_fetch_request, 8, &fr) &&
		  r.pos == r.len && fr.ngroups == 1 &&
		  kafka_bytes_equal(fr.groups[0].group_id, "g") &&
		  fr.groups[0].ntopics == -1 && fr.groups[0].member_epoch == -1 &&
		  fr.groups[0].member_id.len == -1 && fr.require_stable &&
		  fr.ntopics == 0 && fr.group_id.len == 0,
		  "OffsetFetch v8 request of a group's every topic decodes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_fetch_request, 8, &fr);
	CHECK(bytes_are(&buf, BYTES(of_v8)), "OffsetFetch v8 request's bytes");

	fot.npartitions = 1;
	fot.partitions = &fop;
	fo.ntopics = 1;
	fo.topics = &fot;
	fog.ntopics = 1;
	fog.topics = &fot;
	fo.ngroups = 1;
	fo.groups = &fog;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_fetch_response, 0, &fo);
	CHECK(bytes_are(&buf, BYTES(ofo_v0)), "OffsetFetch v0 response's bytes");
	resetStringInfo(&buf);
	fop.metadata = kafka_bytes_of("");
	kafka_encode(&buf, &kafka_offset_fetch_response, 8, &fo);
	CHECK(bytes_are(&buf, BYTES(ofo_v8)), "OffsetFetch v8 response's bytes");
	pfree(buf.data);
}

/* The group coordinator's messages, byte by byte */
static void
check_groups(void)
{
	KafkaJoinGroupRequest jr;
	KafkaJoinGroupResponse jo = {0};
	KafkaJoinGroupResponseMember jm = {{"m", 1}, {"i", 1}, {"x", 1}};
	KafkaSyncGroupRequest sr;
	KafkaLeaveGroupRequest lr;
	KafkaListGroupsRequest gr;
	KafkaListGroupsResponse go = {0};
	KafkaListedGroup lg = {{"g", 1}, {"consumer", 8}, {"Stable", 6}, {"classic", 7}};
	KafkaDeleteGroupsRequest dr;
	KafkaDeleteGroupsResponse dgo = {0};
	KafkaDeletableGroupResult dres = {{"g", 1}, KAFKA_NON_EMPTY_GROUP};
	KafkaOffsetDeleteResponse odo = {0};
	KafkaOffsetDeleteResponseTopic odt = {{"t", 1}, 0, NULL};
	KafkaOffsetDeleteResponsePartition odp = {1, KAFKA_GROUP_SUBSCRIBED_TO_TOPIC};
	StringInfoData buf;
	KafkaReader r;

	/*
	 * JoinGroup v5: "g", session 10000, rebalance 30000, member "",
	 * instance "i", type "consumer", protocols ["range" "x"]
	 */
	static const char jr_v5[] =
		"\x00\x01" "g" "\x00\x00\x27\x10" "\x00\x00\x75\x30" "\x00\x00"
		"\x00\x01" "i" "\x00\x08" "consumer"
		"\x00\x00\x00\x01" "\x00\x05" "range" "\x00\x00\x00\x01" "x";

	/* v6, flexible: the same compact, each protocol's and the body's tags */
	static const char jr_v6[] =
		"\x02" "g" "\x00\x00\x27\x10" "\x00\x00\x75\x30" "\x01"
		"\x02" "i" "\x09" "consumer"
		"\x02" "\x06" "range" "\x02" "x" "\x00" "\x00";

	/* v0: no rebalance timeout, no instance (its default: null) */
	static const char jr_v0[] =
		"\x00\x01" "g" "\x00\x00\x27\x10" "\x00\x00" "\x00\x08" "consumer"
		"\x00\x00\x00\x00";

	/*
	 * JoinGroup v7 response: throttle 0, error 0, generation 3, type
	 * "consumer", protocol "range", leader "m", member "m", members ["m"
	 * "i" "x", tagged 0], tagged 0
	 */
	static const char jo_v7[] =
		"\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x03" "\x09" "consumer"
		"\x06" "range" "\x02" "m" "\x02" "m"
		"\x02" "\x02" "m" "\x02" "i" "\x02" "x" "\x00" "\x00";

	/* v1 of the same: generation, protocol, leader, member, [m x] */
	static const char jo_v1[] =
		"\x00\x00" "\x00\x00\x00\x03" "\x00\x05" "range" "\x00\x01" "m"
		"\x00\x01" "m" "\x00\x00\x00\x01" "\x00\x01" "m" "\x00\x00\x00\x01" "x";

	/*
	 * SyncGroup v5: "g", generation 3, "m", instance null, type
	 * "consumer", protocol "range", assignments [], tagged 0
	 */
	static const char sr_v5[] =
		"\x02" "g" "\x00\x00\x00\x03" "\x02" "m" "\x00" "\x09" "consumer"
		"\x06" "range" "\x01" "\x00";

	/*
	 * LeaveGroup v3: "g", members ["m" null, "" "i"] (by member id, by
	 * instance id)
	 */
	static const char lr_v3[] =
		"\x00\x01" "g" "\x00\x00\x00\x02" "\x00\x01" "m" "\xff\xff"
		"\x00\x00" "\x00\x01" "i";

	/* LeaveGroup v2: one member */
	static const char lr_v2[] = "\x00\x01" "g" "\x00\x01" "m";

	/* ListGroups v5: states ["Stable"], types ["classic"], tagged 0 */
	static const char gr_v5[] = "\x02" "\x07" "Stable" "\x02" "\x08" "classic" "\x00";

	/* ListGroups v5 response: throttle 0, error 0, [g consumer Stable classic] */
	static const char go_v5[] =
		"\x00\x00\x00\x00" "\x00\x00" "\x02" "\x02" "g" "\x09" "consumer"
		"\x07" "Stable" "\x08" "classic" "\x00" "\x00";

	/* v0: error 0, [g consumer] */
	static const char go_v0[] =
		"\x00\x00" "\x00\x00\x00\x01" "\x00\x01" "g" "\x00\x08" "consumer";

	/* DeleteGroups v0 ["g"], v2 the same compact */
	static const char dr_v0[] = "\x00\x00\x00\x01" "\x00\x01" "g";
	static const char dr_v2[] = "\x02" "\x02" "g" "\x00";

	/* DeleteGroups responses: throttle 0, [g 68] */
	static const char dgo_v0[] =
		"\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x01" "g" "\x00\x44";
	static const char dgo_v2[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "g" "\x00\x44" "\x00" "\x00";

	/* OffsetDelete v0 response: error 0, throttle 0, [t [1 86]] */
	static const char odo_v0[] =
		"\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x01" "t"
		"\x00\x00\x00\x01" "\x00\x00\x00\x01" "\x00\x56";

	initStringInfo(&buf);
	decode_bytes(&r, BYTES(jr_v5));
	CHECK(kafka_decode(&r, &kafka_join_group_request, 5, &jr) &&
		  r.pos == r.len && kafka_bytes_equal(jr.group_id, "g") &&
		  jr.session_timeout_ms == 10000 && jr.rebalance_timeout_ms == 30000 &&
		  jr.member_id.len == 0 && kafka_bytes_equal(jr.group_instance_id, "i") &&
		  kafka_bytes_equal(jr.protocol_type, "consumer") &&
		  jr.nprotocols == 1 && kafka_bytes_equal(jr.protocols[0].name, "range") &&
		  jr.protocols[0].metadata.len == 1 && jr.reason.len == -1,
		  "JoinGroup v5 request decodes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_join_group_request, 6, &jr);
	CHECK(bytes_are(&buf, BYTES(jr_v6)), "JoinGroup v6 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_join_group_request, 5, &jr);
	CHECK(bytes_are(&buf, BYTES(jr_v5)), "JoinGroup v5 request's bytes");
	decode_bytes(&r, BYTES(jr_v0));
	CHECK(kafka_decode(&r, &kafka_join_group_request, 0, &jr) &&
		  r.pos == r.len && jr.rebalance_timeout_ms == -1 &&
		  jr.group_instance_id.len == -1 && jr.nprotocols == 0,
		  "JoinGroup v0 request decodes, without rebalance timeout or instance");

	jo.generation_id = 3;
	jo.protocol_type = kafka_bytes_of("consumer");
	jo.protocol_name = kafka_bytes_of("range");
	jo.leader = kafka_bytes_of("m");
	jo.member_id = kafka_bytes_of("m");
	jo.nmembers = 1;
	jo.members = &jm;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_join_group_response, 7, &jo);
	CHECK(bytes_are(&buf, BYTES(jo_v7)), "JoinGroup v7 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_join_group_response, 1, &jo);
	CHECK(bytes_are(&buf, BYTES(jo_v1)), "JoinGroup v1 response's bytes");

	decode_bytes(&r, BYTES(sr_v5));
	CHECK(kafka_decode(&r, &kafka_sync_group_request, 5, &sr) &&
		  r.pos == r.len && sr.generation_id == 3 &&
		  kafka_bytes_equal(sr.member_id, "m") && sr.group_instance_id.len == -1 &&
		  kafka_bytes_equal(sr.protocol_type, "consumer") &&
		  kafka_bytes_equal(sr.protocol_name, "range") && sr.nassignments == 0,
		  "SyncGroup v5 request decodes");
	decode_bytes(&r, BYTES(sr_v5));
	CHECK(!kafka_decode(&r, &kafka_sync_group_request, 6, &sr),
		  "SyncGroup v6 is not a version");

	decode_bytes(&r, BYTES(lr_v3));
	CHECK(kafka_decode(&r, &kafka_leave_group_request, 3, &lr) &&
		  r.pos == r.len && lr.nmembers == 2 &&
		  kafka_bytes_equal(lr.members[0].member_id, "m") &&
		  lr.members[0].group_instance_id.len == -1 &&
		  lr.members[1].member_id.len == 0 &&
		  kafka_bytes_equal(lr.members[1].group_instance_id, "i") &&
		  lr.member_id.len == 0,
		  "LeaveGroup v3 request of two members decodes");
	decode_bytes(&r, BYTES(lr_v2));
	CHECK(kafka_decode(&r, &kafka_leave_group_request, 2, &lr) &&
		  r.pos == r.len && kafka_bytes_equal(lr.member_id, "m") &&
		  lr.nmembers == 0, "LeaveGroup v2 request of one member decodes");

	decode_bytes(&r, BYTES(gr_v5));
	CHECK(kafka_decode(&r, &kafka_list_groups_request, 5, &gr) &&
		  r.pos == r.len && gr.nstates_filter == 1 &&
		  kafka_bytes_equal(gr.states_filter[0], "Stable") &&
		  gr.ntypes_filter == 1 && kafka_bytes_equal(gr.types_filter[0], "classic"),
		  "ListGroups v5 request decodes");
	decode_bytes(&r, "", 0);
	CHECK(kafka_decode(&r, &kafka_list_groups_request, 0, &gr) &&
		  gr.nstates_filter == 0 && gr.ntypes_filter == 0,
		  "ListGroups v0 request is empty");
	go.ngroups = 1;
	go.groups = &lg;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_list_groups_response, 5, &go);
	CHECK(bytes_are(&buf, BYTES(go_v5)), "ListGroups v5 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_list_groups_response, 0, &go);
	CHECK(bytes_are(&buf, BYTES(go_v0)), "ListGroups v0 response's bytes");

	decode_bytes(&r, BYTES(dr_v0));
	CHECK(kafka_decode(&r, &kafka_delete_groups_request, 0, &dr) &&
		  r.pos == r.len && dr.ngroups_names == 1 &&
		  kafka_bytes_equal(dr.groups_names[0], "g"),
		  "DeleteGroups v0 request decodes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_groups_request, 2, &dr);
	CHECK(bytes_are(&buf, BYTES(dr_v2)), "DeleteGroups v2 request's bytes");
	dgo.nresults = 1;
	dgo.results = &dres;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_groups_response, 0, &dgo);
	CHECK(bytes_are(&buf, BYTES(dgo_v0)), "DeleteGroups v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_groups_response, 2, &dgo);
	CHECK(bytes_are(&buf, BYTES(dgo_v2)), "DeleteGroups v2 response's bytes");

	odt.npartitions = 1;
	odt.partitions = &odp;
	odo.ntopics = 1;
	odo.topics = &odt;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_delete_response, 0, &odo);
	CHECK(bytes_are(&buf, BYTES(odo_v0)), "OffsetDelete v0 response's bytes");
	pfree(buf.data);
}

/* Produce requests and responses, byte by byte */
static void
check_produce(void)
{
	KafkaPartitionProduceData pd = {0, {{"xyz", 3}, NULL, NULL}};
	KafkaTopicProduceData td = {{"ab", 2}, 1, &pd};
	KafkaProduceRequest pr = {{NULL, -1}, 1, 30000, 1, &td};
	KafkaPartitionProduceResponse pres = {
		0, 0, 5, 1000, 2, 0, NULL, {NULL, -1}, {-1, -1}
	};
	KafkaTopicProduceResponse tres = {{"ab", 2}, 1, &pres};
	KafkaProduceResponse resp = {1, &tres, 0, 0, NULL};
	StringInfoData buf;
	KafkaReader r;

	/* v2: acks, timeout, topics [name, partitions [index, records]] */
	static const char req_v2[] =
		"\x00\x01" "\x00\x00\x75\x30"
		"\x00\x00\x00\x01" "\x00\x02" "ab"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00" "\x00\x00\x00\x03" "xyz";

	/*
	 * v9, flexible: transactional_id null (compact 0), acks, timeout,
	 * compact arrays and strings, records as compact bytes (length+1), the
	 * partition's, topic's and body's empty tagged fields
	 */
	static const char req_v9[] =
		"\x00" "\x00\x01" "\x00\x00\x75\x30"
		"\x02" "\x03" "ab"
		"\x02" "\x00\x00\x00\x00" "\x04" "xyz" "\x00"
		"\x00"
		"\x00";

	/* v2 response: index, error, base offset, log-append time; throttle */
	static const char resp_v2[] =
		"\x00\x00\x00\x01" "\x00\x02" "ab"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00" "\x00\x00"
		"\x00\x00\x00\x00\x00\x00\x00\x05"
		"\x00\x00\x00\x00\x00\x00\x03\xe8"
		"\x00\x00\x00\x00";

	/*
	 * v10: log start offset, record errors (empty compact array), error
	 * message null; current leader at its default (-1, -1) is not written
	 */
	static const char resp_v10[] =
		"\x02" "\x03" "ab"
		"\x02" "\x00\x00\x00\x00" "\x00\x00"
		"\x00\x00\x00\x00\x00\x00\x00\x05"
		"\x00\x00\x00\x00\x00\x00\x03\xe8"
		"\x00\x00\x00\x00\x00\x00\x00\x02"
		"\x01" "\x00" "\x00"
		"\x00"
		"\x00\x00\x00\x00"
		"\x00";

	/*
	 * v10 with a current leader: the partition's tagged field 0, of 9 bytes
	 * (the struct's two int32s and its own empty tagged fields)
	 */
	static const char resp_v10_leader[] =
		"\x02" "\x03" "ab"
		"\x02" "\x00\x00\x00\x00" "\x00\x06"
		"\xff\xff\xff\xff\xff\xff\xff\xff"
		"\xff\xff\xff\xff\xff\xff\xff\xff"
		"\xff\xff\xff\xff\xff\xff\xff\xff"
		"\x01" "\x00"
		"\x01" "\x00" "\x09" "\x00\x00\x00\x01" "\x00\x00\x00\x07" "\x00"
		"\x00"
		"\x00\x00\x00\x00"
		"\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_produce_request, 2, &pr);
	CHECK(bytes_are(&buf, BYTES(req_v2)), "Produce v2 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_produce_request, 9, &pr);
	CHECK(bytes_are(&buf, BYTES(req_v9)), "Produce v9 request's bytes");

	decode_bytes(&r, BYTES(req_v9));
	CHECK(kafka_decode(&r, &kafka_produce_request, 9, &pr) && r.pos == r.len &&
		  pr.transactional_id.len == -1 && pr.acks == 1 &&
		  pr.timeout_ms == 30000 && pr.ntopic_data == 1 &&
		  kafka_bytes_equal(pr.topic_data[0].name, "ab") &&
		  pr.topic_data[0].npartition_data == 1 &&
		  pr.topic_data[0].partition_data[0].records.bytes.len == 3 &&
		  memcmp(pr.topic_data[0].partition_data[0].records.bytes.data, "xyz", 3) == 0 &&
		  pr.topic_data[0].partition_data[0].records.bytes.data == req_v9 + 17,
		  "Produce v9 request decodes, its records a slice of the request");
	decode_bytes(&r, BYTES(req_v2));
	CHECK(kafka_decode(&r, &kafka_produce_request, 0, &pr) && r.pos == r.len &&
		  pr.transactional_id.len == -1 && pr.acks == 1,
		  "Produce v0 has no transactional id (null)");
	decode_bytes(&r, BYTES(req_v2));
	CHECK(!kafka_decode(&r, &kafka_produce_request, 12, &pr),
		  "Produce v12 is not a version described");

	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_produce_response, 2, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v2)), "Produce v2 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_produce_response, 10, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v10)), "Produce v10 response's bytes");
	pres.error_code = 6;
	pres.base_offset = -1;
	pres.log_append_time_ms = -1;
	pres.log_start_offset = -1;
	pres.current_leader.leader_id = 1;
	pres.current_leader.leader_epoch = 7;
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_produce_response, 10, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v10_leader)),
		  "Produce v10 response with a current leader (tagged)");
	pfree(buf.data);
}

/* Fetch requests, byte by byte; the limits of a request's arrays */
static void
check_fetch(void)
{
	KafkaFetchRequest fr;
	KafkaReader r;

	/* v11, with a forgotten topic and a rack */
	static const char v11[] =
		"\xff\xff\xff\xff"		/* replica_id */
		"\x00\x00\x01\xf4"		/* max_wait_ms 500 */
		"\x00\x00\x00\x01"		/* min_bytes */
		"\x00\x00\x10\x00"		/* max_bytes 4096 */
		"\x01"					/* read_committed */
		"\x00\x00\x00\x00" "\xff\xff\xff\xff"	/* session 0, epoch -1 */
		"\x00\x00\x00\x01" "\x00\x01t"
		"\x00\x00\x00\x01"
		"\x00\x00\x00\x03"		/* partition 3 */
		"\x00\x00\x00\x09"		/* current_leader_epoch 9 */
		"\x00\x00\x00\x00\x00\x00\x00\x63"	/* fetch_offset 99 */
		"\xff\xff\xff\xff\xff\xff\xff\xff"	/* log_start_offset -1 */
		"\x00\x00\x04\x00"		/* partition_max_bytes 1024 */
		"\x00\x00\x00\x01" "\x00\x01u" "\x00\x00\x00\x01" "\x00\x00\x00\x04"
		"\x00\x02r1";

	/*
	 * v13, flexible: the topic by id, the partition with last_fetched_epoch
	 * and its tagged fields, an empty forgotten list, an empty rack, and
	 * the body's tagged fields with the cluster id (tag 0: "c")
	 */
	static const char v13[] =
		"\xff\xff\xff\xff" "\x00\x00\x01\xf4" "\x00\x00\x00\x01"
		"\x00\x00\x10\x00" "\x00" "\x00\x00\x00\x00" "\xff\xff\xff\xff"
		"\x02"
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
		"\x02" "\x00\x00\x00\x00" "\xff\xff\xff\xff"
		"\x00\x00\x00\x00\x00\x00\x00\x07" "\xff\xff\xff\xff"
		"\xff\xff\xff\xff\xff\xff\xff\xff" "\x00\x10\x00\x00" "\x00"
		"\x00"
		"\x01" "\x01"
		"\x01" "\x00" "\x02" "\x02" "c";

	decode_bytes(&r, BYTES(v11));
	CHECK(kafka_decode(&r, &kafka_fetch_request, 11, &fr) && r.pos == r.len,
		  "Fetch v11 decodes to its last byte");
	CHECK(fr.replica_id == -1 && fr.max_wait_ms == 500 && fr.min_bytes == 1 &&
		  fr.max_bytes == 4096 && fr.isolation_level == KAFKA_READ_COMMITTED &&
		  fr.session_epoch == -1 && fr.ntopics == 1 &&
		  kafka_bytes_equal(fr.topics[0].topic, "t") &&
		  fr.topics[0].partitions[0].partition == 3 &&
		  fr.topics[0].partitions[0].current_leader_epoch == 9 &&
		  fr.topics[0].partitions[0].fetch_offset == 99 &&
		  fr.topics[0].partitions[0].last_fetched_epoch == -1 &&
		  fr.topics[0].partitions[0].log_start_offset == -1 &&
		  fr.topics[0].partitions[0].partition_max_bytes == 1024 &&
		  fr.nforgotten_topics_data == 1 &&
		  kafka_bytes_equal(fr.forgotten_topics_data[0].topic, "u") &&
		  fr.forgotten_topics_data[0].partitions[0] == 4 &&
		  kafka_bytes_equal(fr.rack_id, "r1") && fr.cluster_id.len == -1,
		  "Fetch v11's fields");
	decode_bytes(&r, BYTES(v13));
	CHECK(kafka_decode(&r, &kafka_fetch_request, 13, &fr) && r.pos == r.len &&
		  fr.ntopics == 1 && fr.topics[0].topic.len == 0 &&
		  fr.topics[0].topic_id.data[1] == 1 &&
		  fr.topics[0].topic_id.data[15] == 15 &&
		  fr.topics[0].npartitions == 1 &&
		  fr.topics[0].partitions[0].fetch_offset == 7 &&
		  fr.topics[0].partitions[0].partition_max_bytes == 1048576 &&
		  fr.nforgotten_topics_data == 0 && fr.rack_id.len == 0 &&
		  kafka_bytes_equal(fr.cluster_id, "c") && fr.replica_id == -1,
		  "Fetch v13 (flexible, a topic by id, a tagged cluster id) decodes");

	/* what a Fetch may allocate: the reader's alloc_left */
	decode_bytes(&r, BYTES(v11));
	r.alloc_left = sizeof(KafkaFetchTopic) + sizeof(KafkaFetchPartition) +
		sizeof(KafkaForgottenTopic);
	CHECK(!kafka_decode(&r, &kafka_fetch_request, 11, &fr) && r.over_budget &&
		  fr.nforgotten_topics_data == 1 &&
		  fr.forgotten_topics_data[0].npartitions == 0 &&
		  fr.forgotten_topics_data[0].partitions == NULL,
		  "a Fetch whose forgotten topics' partitions do not fit: the count is 0");
	/* how many elements: topics, partitions and forgotten ones all count */
	decode_bytes(&r, BYTES(v11));
	r.elements_left = 3;
	CHECK(!kafka_decode(&r, &kafka_fetch_request, 11, &fr) && r.too_many,
		  "a Fetch's topics, partitions and forgotten topics all count");
	decode_bytes(&r, BYTES(v11));
	r.elements_left = 4;
	CHECK(kafka_decode(&r, &kafka_fetch_request, 11, &fr),
		  "and four are enough");
}

/* ListOffsets, byte by byte: v0's list of offsets, v6 flexible */
static void
check_list_offsets(void)
{
	KafkaListOffsetsPartition part = {0, -1, -1, 1};
	KafkaListOffsetsTopic topic = {{"t", 1}, 1, &part};
	KafkaListOffsetsRequest lr = {-1, 0, 1, &topic};
	int64		offsets[1] = {5};
	KafkaListOffsetsPartitionResponse rp = {0, 0, 1, offsets, -1, 5, -1};
	KafkaListOffsetsTopicResponse rt = {{"t", 1}, 1, &rp};
	KafkaListOffsetsResponse resp = {0, 1, &rt};
	StringInfoData buf;
	KafkaReader r;

	/* v0: replica -1, topics ["t" [0, time -1, max_num_offsets 1]] */
	static const char req_v0[] =
		"\xff\xff\xff\xff" "\x00\x00\x00\x01" "\x00\x01" "t"
		"\x00\x00\x00\x01" "\x00\x00\x00\x00"
		"\xff\xff\xff\xff\xff\xff\xff\xff" "\x00\x00\x00\x01";

	/*
	 * v6: replica -1, isolation 0, compact topics ["t" [0, epoch -1, time
	 * -1, tagged 0], tagged 0], tagged 0
	 */
	static const char req_v6[] =
		"\xff\xff\xff\xff" "\x00" "\x02" "\x02" "t" "\x02"
		"\x00\x00\x00\x00" "\xff\xff\xff\xff"
		"\xff\xff\xff\xff\xff\xff\xff\xff" "\x00" "\x00" "\x00";

	/* v0: topics ["t" [0, error 0, offsets [5]]] */
	static const char resp_v0[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x01"
		"\x00\x00\x00\x00\x00\x00\x00\x05";

	/*
	 * v6: throttle 0, compact topics ["t" [0, error 0, time -1, offset 5,
	 * epoch -1, tagged 0], tagged 0], tagged 0
	 */
	static const char resp_v6[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "t" "\x02"
		"\x00\x00\x00\x00" "\x00\x00"
		"\xff\xff\xff\xff\xff\xff\xff\xff"
		"\x00\x00\x00\x00\x00\x00\x00\x05" "\xff\xff\xff\xff"
		"\x00" "\x00" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_list_offsets_request, 0, &lr);
	CHECK(bytes_are(&buf, BYTES(req_v0)), "ListOffsets v0 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_list_offsets_request, 6, &lr);
	CHECK(bytes_are(&buf, BYTES(req_v6)), "ListOffsets v6 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_list_offsets_response, 0, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v0)), "ListOffsets v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_list_offsets_response, 6, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v6)), "ListOffsets v6 response's bytes");

	decode_bytes(&r, BYTES(req_v6));
	CHECK(kafka_decode(&r, &kafka_list_offsets_request, 6, &lr) &&
		  r.pos == r.len && lr.ntopics == 1 &&
		  kafka_bytes_equal(lr.topics[0].name, "t") &&
		  lr.topics[0].npartitions == 1 &&
		  lr.topics[0].partitions[0].timestamp == -1 &&
		  lr.topics[0].partitions[0].max_num_offsets == 1,
		  "ListOffsets v6 request decodes, max_num_offsets at its default");
	decode_bytes(&r, BYTES(resp_v0));
	CHECK(kafka_decode(&r, &kafka_list_offsets_response, 0, &resp) &&
		  r.pos == r.len && resp.topics[0].partitions[0].nold_style_offsets == 1 &&
		  resp.topics[0].partitions[0].old_style_offsets[0] == 5 &&
		  resp.topics[0].partitions[0].offset == -1 &&
		  resp.topics[0].partitions[0].timestamp == -1,
		  "ListOffsets v0 response decodes, offset and timestamp at -1");
	pfree(buf.data);
}

/* OffsetForLeaderEpoch, byte by byte: v1, and v4 flexible */
static void
check_offset_for_leader_epoch(void)
{
	KafkaOffsetForLeaderPartition part = {2, -1, 0};
	KafkaOffsetForLeaderTopic topic = {{"t", 1}, 1, &part};
	KafkaOffsetForLeaderEpochRequest er = {-1, 1, &topic};
	KafkaEpochEndOffset end = {0, 2, 0, 7};
	KafkaOffsetForLeaderTopicResult rt = {{"t", 1}, 1, &end};
	KafkaOffsetForLeaderEpochResponse resp = {0, 1, &rt};
	StringInfoData buf;
	KafkaReader r;

	/* v1: topics ["t" [partition 2, epoch 0]] (no replica, no current) */
	static const char req_v1[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00\x00\x02" "\x00\x00\x00\x00";

	/*
	 * v4: replica -1, compact topics ["t" [2, current -1, epoch 0, tagged
	 * 0], tagged 0], tagged 0
	 */
	static const char req_v4[] =
		"\xff\xff\xff\xff" "\x02" "\x02" "t" "\x02"
		"\x00\x00\x00\x02" "\xff\xff\xff\xff" "\x00\x00\x00\x00"
		"\x00" "\x00" "\x00";

	/* v1: topics ["t" [error 0, partition 2, epoch 0, end 7]] */
	static const char resp_v1[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00" "\x00\x00\x00\x02" "\x00\x00\x00\x00"
		"\x00\x00\x00\x00\x00\x00\x00\x07";

	/* v4: throttle 0, then v1's, compact, each struct's tagged 0 */
	static const char resp_v4[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "t" "\x02"
		"\x00\x00" "\x00\x00\x00\x02" "\x00\x00\x00\x00"
		"\x00\x00\x00\x00\x00\x00\x00\x07" "\x00" "\x00" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_for_leader_epoch_request, 1, &er);
	CHECK(bytes_are(&buf, BYTES(req_v1)), "OffsetForLeaderEpoch v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_for_leader_epoch_request, 4, &er);
	CHECK(bytes_are(&buf, BYTES(req_v4)), "OffsetForLeaderEpoch v4 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_for_leader_epoch_response, 1, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v1)), "OffsetForLeaderEpoch v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_offset_for_leader_epoch_response, 4, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v4)), "OffsetForLeaderEpoch v4 response's bytes");

	decode_bytes(&r, BYTES(req_v1));
	CHECK(kafka_decode(&r, &kafka_offset_for_leader_epoch_request, 1, &er) &&
		  r.pos == r.len && er.replica_id == -2 && er.ntopics == 1 &&
		  er.topics[0].partitions[0].partition == 2 &&
		  er.topics[0].partitions[0].current_leader_epoch == -1,
		  "OffsetForLeaderEpoch v1 request decodes, replica -2 and current epoch -1 by default");
	pfree(buf.data);
}

/* DeleteRecords and CreatePartitions, byte by byte: v1, and v2 flexible */
static void
check_partition_admin(void)
{
	KafkaDeleteRecordsPartition dp = {0, -1};
	KafkaDeleteRecordsTopic dt = {{"t", 1}, 1, &dp};
	KafkaDeleteRecordsRequest dr = {1, &dt, 1000};
	KafkaDeleteRecordsPartitionResult dpr = {0, 4, 0};
	KafkaDeleteRecordsTopicResult dtr = {{"t", 1}, 1, &dpr};
	KafkaDeleteRecordsResponse dresp = {0, 1, &dtr};
	KafkaCreatePartitionsTopic ct = {{"t", 1}, 3, -1, NULL};
	KafkaCreatePartitionsRequest cr = {1, &ct, 1000, true};
	KafkaCreatePartitionsTopicResult ctr = {{"t", 1}, 37, {"m", 1}};
	KafkaCreatePartitionsResponse cresp = {0, 1, &ctr};
	StringInfoData buf;
	KafkaReader r;

	/* DeleteRecords v1: topics ["t" [0, offset -1]], timeout 1000 */
	static const char dr_v1[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00\x00\x00" "\xff\xff\xff\xff\xff\xff\xff\xff"
		"\x00\x00\x03\xe8";

	/* v2: compact, each struct's tagged fields */
	static const char dr_v2[] =
		"\x02" "\x02" "t" "\x02" "\x00\x00\x00\x00"
		"\xff\xff\xff\xff\xff\xff\xff\xff" "\x00" "\x00"
		"\x00\x00\x03\xe8" "\x00";

	/* DeleteRecords v2 response: throttle 0, ["t" [0, low 4, error 0]] */
	static const char dresp_v2[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "t" "\x02" "\x00\x00\x00\x00"
		"\x00\x00\x00\x00\x00\x00\x00\x04" "\x00\x00" "\x00" "\x00" "\x00";

	/*
	 * CreatePartitions v1: topics ["t" count 3, assignments null], timeout
	 * 1000, validate_only
	 */
	static const char cr_v1[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x03"
		"\xff\xff\xff\xff" "\x00\x00\x03\xe8" "\x01";

	/* v2: compact (a null compact array is 0), tagged fields */
	static const char cr_v2[] =
		"\x02" "\x02" "t" "\x00\x00\x00\x03" "\x00" "\x00"
		"\x00\x00\x03\xe8" "\x01" "\x00";

	/* CreatePartitions v1 response: throttle 0, ["t" 37 "m"] */
	static const char cresp_v1[] =
		"\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x01" "t"
		"\x00\x25" "\x00\x01" "m";

	/* v3 (flexible): compact, tagged fields */
	static const char cresp_v3[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "t" "\x00\x25" "\x02" "m"
		"\x00" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_records_request, 1, &dr);
	CHECK(bytes_are(&buf, BYTES(dr_v1)), "DeleteRecords v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_records_request, 2, &dr);
	CHECK(bytes_are(&buf, BYTES(dr_v2)), "DeleteRecords v2 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_records_response, 2, &dresp);
	CHECK(bytes_are(&buf, BYTES(dresp_v2)), "DeleteRecords v2 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_create_partitions_request, 1, &cr);
	CHECK(bytes_are(&buf, BYTES(cr_v1)), "CreatePartitions v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_create_partitions_request, 2, &cr);
	CHECK(bytes_are(&buf, BYTES(cr_v2)), "CreatePartitions v2 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_create_partitions_response, 1, &cresp);
	CHECK(bytes_are(&buf, BYTES(cresp_v1)), "CreatePartitions v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_create_partitions_response, 3, &cresp);
	CHECK(bytes_are(&buf, BYTES(cresp_v3)), "CreatePartitions v3 response's bytes");

	decode_bytes(&r, BYTES(cr_v2));
	CHECK(kafka_decode(&r, &kafka_create_partitions_request, 2, &cr) &&
		  r.pos == r.len && cr.ntopics == 1 && cr.topics[0].count == 3 &&
		  cr.topics[0].nassignments == -1 && cr.validate_only,
		  "CreatePartitions v2 request decodes, null assignments");
	pfree(buf.data);
}

/*
 * The config APIs, CreateTopics and DeleteTopics, byte by byte: a version
 * before and one from the first flexible
 */
static void
check_topic_admin(void)
{
	KafkaDescribeConfigsResource dres = {2, {"t", 1}, -1, NULL};
	KafkaDescribeConfigsRequest dreq = {1, &dres, true, false};
	KafkaDescribeConfigsSynonym syn = {{"a", 1}, {"1", 1}, 1};
	KafkaDescribeConfigsResourceResult dcfg = {{"a", 1}, {"1", 1}, false, true,
	1, false, 1, &syn, 3, {NULL, -1}};
	KafkaDescribeConfigsResult dresult = {0, {NULL, -1}, 2, {"t", 1}, 1, &dcfg};
	KafkaDescribeConfigsResponse dresp = {0, 1, &dresult};
	KafkaIncrementalAlterableConfig icfg = {{"a", 1}, 1, {NULL, -1}};
	KafkaIncrementalAlterConfigsResource ires = {2, {"t", 1}, 1, &icfg};
	KafkaIncrementalAlterConfigsRequest ireq = {1, &ires, true};
	KafkaAlterConfigsResourceResponse ares = {40, {"m", 1}, 2, {"t", 1}};
	KafkaAlterConfigsResponse aresp = {0, 1, &ares};
	KafkaCreatableTopicResult ctr = {{"t", 1}, {{0}}, 0, {NULL, -1}, 40, 3, 1, -1, NULL};
	KafkaCreateTopicsResponse cresp = {0, 1, &ctr};
	KafkaBytes	names[1] = {{"t", 1}};
	KafkaDeleteTopicState state = {{NULL, -1}, {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}};
	KafkaDeleteTopicsRequest delreq = {1, &state, 1, names, 1000};
	StringInfoData buf;
	KafkaReader r;

	/* DescribeConfigs v1: [topic "t", every key (null)], synonyms */
	static const char dreq_v1[] =
		"\x00\x00\x00\x01" "\x02" "\x00\x01" "t" "\xff\xff\xff\xff" "\x01";

	/* v4: compact, tagged fields; IncludeDocumentation (v3+) false */
	static const char dreq_v4[] =
		"\x02" "\x02" "\x02" "t" "\x00" "\x00" "\x01" "\x00" "\x00";

	/* DescribeConfigs v0 response: IsDefault, no source, no synonyms */
	static const char dresp_v0[] =
		"\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x00" "\xff\xff" "\x02"
		"\x00\x01" "t" "\x00\x00\x00\x01" "\x00\x01" "a" "\x00\x01" "1"
		"\x00" "\x01" "\x00";

	/* v4: source 1, synonyms [a 1 1], type 3, documentation null */
	static const char dresp_v4[] =
		"\x00\x00\x00\x00" "\x02" "\x00\x00" "\x00" "\x02" "\x02" "t" "\x02"
		"\x02" "a" "\x02" "1" "\x00" "\x01" "\x00" "\x02" "\x02" "a" "\x02" "1"
		"\x01" "\x00" "\x03" "\x00" "\x00" "\x00" "\x00";

	/* IncrementalAlterConfigs v0: [topic "t" [a DELETE null]], validate */
	static const char ireq_v0[] =
		"\x00\x00\x00\x01" "\x02" "\x00\x01" "t" "\x00\x00\x00\x01" "\x00\x01" "a"
		"\x01" "\xff\xff" "\x01";

	/* v1: flexible */
	static const char ireq_v1[] =
		"\x02" "\x02" "\x02" "t" "\x02" "\x02" "a" "\x01" "\x00" "\x00" "\x00"
		"\x01" "\x00";

	/* AlterConfigs v1 response: [INVALID_CONFIG "m" topic "t"] */
	static const char aresp_v1[] =
		"\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x28" "\x00\x01" "m" "\x02"
		"\x00\x01" "t";

	/* v2: flexible */
	static const char aresp_v2[] =
		"\x00\x00\x00\x00" "\x02" "\x00\x28" "\x02" "m" "\x02" "\x02" "t" "\x00"
		"\x00";

	/* CreateTopics v4 response: ["t" 0 null] */
	static const char cresp_v4[] =
		"\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00" "\xff\xff";

	/*
	 * v5: partitions 3, factor 1, configs null, and TopicConfigErrorCode
	 * 40 as tagged field 0
	 */
	static const char cresp_v5[] =
		"\x00\x00\x00\x00" "\x02" "\x02" "t" "\x00\x00" "\x00"
		"\x00\x00\x00\x03" "\x00\x01" "\x00" "\x01" "\x00" "\x02" "\x00\x28"
		"\x00";

	/* DeleteTopics v3: TopicNames ["t"], timeout 1000 */
	static const char delreq_v3[] =
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x03\xe8";

	/* v6: Topics [name null, id 1..16] */
	static const char delreq_v6[] =
		"\x02" "\x00" "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"
		"\x00" "\x00\x00\x03\xe8" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_configs_request, 1, &dreq);
	CHECK(bytes_are(&buf, BYTES(dreq_v1)), "DescribeConfigs v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_configs_request, 4, &dreq);
	CHECK(bytes_are(&buf, BYTES(dreq_v4)), "DescribeConfigs v4 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_configs_response, 0, &dresp);
	CHECK(bytes_are(&buf, BYTES(dresp_v0)), "DescribeConfigs v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_configs_response, 4, &dresp);
	CHECK(bytes_are(&buf, BYTES(dresp_v4)), "DescribeConfigs v4 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_incremental_alter_configs_request, 0, &ireq);
	CHECK(bytes_are(&buf, BYTES(ireq_v0)), "IncrementalAlterConfigs v0 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_incremental_alter_configs_request, 1, &ireq);
	CHECK(bytes_are(&buf, BYTES(ireq_v1)), "IncrementalAlterConfigs v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_alter_configs_response, 1, &aresp);
	CHECK(bytes_are(&buf, BYTES(aresp_v1)), "AlterConfigs v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_alter_configs_response, 2, &aresp);
	CHECK(bytes_are(&buf, BYTES(aresp_v2)), "AlterConfigs v2 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_create_topics_response, 4, &cresp);
	CHECK(bytes_are(&buf, BYTES(cresp_v4)), "CreateTopics v4 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_create_topics_response, 5, &cresp);
	CHECK(bytes_are(&buf, BYTES(cresp_v5)), "CreateTopics v5 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_topics_request, 3, &delreq);
	CHECK(bytes_are(&buf, BYTES(delreq_v3)), "DeleteTopics v3 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_delete_topics_request, 6, &delreq);
	CHECK(bytes_are(&buf, BYTES(delreq_v6)), "DeleteTopics v6 request's bytes");

	decode_bytes(&r, BYTES(ireq_v1));
	CHECK(kafka_decode(&r, &kafka_incremental_alter_configs_request, 1, &ireq) &&
		  r.pos == r.len && ireq.nresources == 1 &&
		  ireq.resources[0].configs[0].config_operation == 1 &&
		  ireq.resources[0].configs[0].value.len == -1 && ireq.validate_only,
		  "IncrementalAlterConfigs v1 request decodes, DELETE with a null value");
	decode_bytes(&r, BYTES(delreq_v6));
	CHECK(kafka_decode(&r, &kafka_delete_topics_request, 6, &delreq) &&
		  r.pos == r.len && delreq.ntopics == 1 && delreq.ntopic_names == 0 &&
		  delreq.topics[0].name.len == -1 && delreq.topics[0].topic_id.data[15] == 16,
		  "DeleteTopics v6 request decodes, a topic by id only");
	pfree(buf.data);
}

/* DescribeCluster (flexible only) and DescribeLogDirs, byte by byte */
static void
check_describe_cluster(void)
{
	KafkaDescribeClusterRequest cr = {true, 1};
	KafkaDescribeClusterBroker broker = {1, {"h", 1}, 9092, {NULL, -1}};
	KafkaDescribeClusterResponse cresp = {0, 0, {NULL, -1}, 1, {"c", 1}, 1,
	1, &broker, PG_INT32_MIN};
	int32		parts[1] = {0};
	KafkaDescribableLogDirTopic dt = {{"t", 1}, 1, parts};
	KafkaDescribeLogDirsRequest dr = {1, &dt};
	KafkaDescribeLogDirsPartition dp = {0, 10, 0, false};
	KafkaDescribeLogDirsTopic dtr = {{"t", 1}, 1, &dp};
	KafkaDescribeLogDirsResult dres = {0, {"d", 1}, 1, &dtr, 100, 50};
	KafkaDescribeLogDirsResponse dresp = {0, 0, 1, &dres};
	StringInfoData buf;
	KafkaReader r;

	/* DescribeCluster v0: include_cluster_authorized_operations, tagged 0 */
	static const char cr_v0[] = "\x01" "\x00";

	/* v1: then endpoint type 1 */
	static const char cr_v1[] = "\x01" "\x01" "\x00";

	/*
	 * v1 response: throttle 0, error 0, message null, endpoint 1, cluster
	 * "c", controller 1, brokers [1 "h" 9092 rack null, tagged 0], no
	 * authorized operations (INT32_MIN), tagged 0
	 */
	static const char cresp_v1[] =
		"\x00\x00\x00\x00" "\x00\x00" "\x00" "\x01" "\x02" "c"
		"\x00\x00\x00\x01" "\x02" "\x00\x00\x00\x01" "\x02" "h"
		"\x00\x00\x23\x84" "\x00" "\x00" "\x80\x00\x00\x00" "\x00";

	/* DescribeLogDirs v1 request: every topic (null) */
	static const char dr_v1_all[] = "\xff\xff\xff\xff";

	/* v2: compact ["t" [0], tagged 0], tagged 0 */
	static const char dr_v2[] = "\x02" "\x02" "t" "\x02" "\x00\x00\x00\x00" "\x00" "\x00";

	/* v0 response: throttle 0, [error 0, "d", ["t" [0, 10, lag 0, false]]] */
	static const char dresp_v0[] =
		"\x00\x00\x00\x00" "\x00\x00\x00\x01" "\x00\x00" "\x00\x01" "d"
		"\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x0a"
		"\x00\x00\x00\x00\x00\x00\x00\x00" "\x00";

	/*
	 * v4: throttle 0, error 0 (v3+), compact, total 100 and usable 50
	 * bytes after each directory's topics
	 */
	static const char dresp_v4[] =
		"\x00\x00\x00\x00" "\x00\x00" "\x02" "\x00\x00" "\x02" "d"
		"\x02" "\x02" "t" "\x02"
		"\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x0a"
		"\x00\x00\x00\x00\x00\x00\x00\x00" "\x00" "\x00" "\x00"
		"\x00\x00\x00\x00\x00\x00\x00\x64"
		"\x00\x00\x00\x00\x00\x00\x00\x32" "\x00" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_cluster_request, 0, &cr);
	CHECK(bytes_are(&buf, BYTES(cr_v0)), "DescribeCluster v0 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_cluster_request, 1, &cr);
	CHECK(bytes_are(&buf, BYTES(cr_v1)), "DescribeCluster v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_cluster_response, 1, &cresp);
	CHECK(bytes_are(&buf, BYTES(cresp_v1)), "DescribeCluster v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_log_dirs_request, 2, &dr);
	CHECK(bytes_are(&buf, BYTES(dr_v2)), "DescribeLogDirs v2 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_log_dirs_response, 0, &dresp);
	CHECK(bytes_are(&buf, BYTES(dresp_v0)), "DescribeLogDirs v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_log_dirs_response, 4, &dresp);
	CHECK(bytes_are(&buf, BYTES(dresp_v4)), "DescribeLogDirs v4 response's bytes");

	decode_bytes(&r, BYTES(cr_v0));
	CHECK(kafka_decode(&r, &kafka_describe_cluster_request, 0, &cr) &&
		  r.pos == r.len && cr.endpoint_type == 1,
		  "DescribeCluster v0 request decodes, endpoint type 1 by default");
	decode_bytes(&r, BYTES(dr_v1_all));
	CHECK(kafka_decode(&r, &kafka_describe_log_dirs_request, 1, &dr) &&
		  r.pos == r.len && dr.ntopics == -1 && dr.topics == NULL,
		  "DescribeLogDirs v1 request for every topic decodes");
	pfree(buf.data);
}

/* DescribeAcls, byte by byte: v1, and v2 flexible */
static void
check_describe_acls(void)
{
	KafkaDescribeAclsRequest ar = {2, {"t", 1}, 3, {NULL, -1}, {NULL, -1}, 1, 1};
	KafkaAclDescription acl = {{"User:a", 6}, {"*", 1}, 3, 3};
	KafkaDescribeAclsResource res = {2, {"t", 1}, 3, 1, &acl};
	KafkaDescribeAclsResponse resp = {0, 0, {NULL, -1}, 1, &res};
	StringInfoData buf;
	KafkaReader r;

	/*
	 * v1: topic (2) "t", literal (3), any principal and host (null), any
	 * operation and permission (1 1)
	 */
	static const char ar_v1[] =
		"\x02" "\x00\x01" "t" "\x03" "\xff\xff" "\xff\xff" "\x01" "\x01";

	/* v2: compact strings (null 0), tagged 0 */
	static const char ar_v2[] = "\x02" "\x02" "t" "\x03" "\x00" "\x00" "\x01" "\x01" "\x00";

	/* v0 response: throttle 0, error 0, null, [topic "t" [User:a * READ ALLOW]] */
	static const char resp_v0[] =
		"\x00\x00\x00\x00" "\x00\x00" "\xff\xff" "\x00\x00\x00\x01"
		"\x02" "\x00\x01" "t" "\x00\x00\x00\x01"
		"\x00\x06" "User:a" "\x00\x01" "*" "\x03" "\x03";

	/* v2: with the pattern type (v1+), compact, tagged fields */
	static const char resp_v2[] =
		"\x00\x00\x00\x00" "\x00\x00" "\x00" "\x02"
		"\x02" "\x02" "t" "\x03" "\x02"
		"\x07" "User:a" "\x02" "*" "\x03" "\x03" "\x00" "\x00" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_acls_request, 1, &ar);
	CHECK(bytes_are(&buf, BYTES(ar_v1)), "DescribeAcls v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_acls_request, 2, &ar);
	CHECK(bytes_are(&buf, BYTES(ar_v2)), "DescribeAcls v2 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_acls_response, 0, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v0)), "DescribeAcls v0 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_describe_acls_response, 2, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v2)), "DescribeAcls v2 response's bytes");

	decode_bytes(&r, BYTES(ar_v2));
	CHECK(kafka_decode(&r, &kafka_describe_acls_request, 2, &ar) &&
		  r.pos == r.len && ar.resource_type_filter == 2 &&
		  kafka_bytes_equal(ar.resource_name_filter, "t") &&
		  ar.principal_filter.len == -1 && ar.host_filter.len == -1,
		  "DescribeAcls v2 request decodes, null filters");
	pfree(buf.data);
}

/* SaslHandshake and SaslAuthenticate, byte by byte */
static void
check_sasl(void)
{
	KafkaBytes	mechanism = {"PLAIN", 5};
	KafkaSaslHandshakeResponse hs = {0, 1, &mechanism};
	KafkaSaslAuthenticateResponse au = {0, {NULL, -1}, {"ok", 2}, 0};
	KafkaSaslAuthenticateRequest ar;
	StringInfoData buf;
	KafkaReader r;

	/* SaslHandshake v1 response: error 0, mechanisms ["PLAIN"] */
	static const char hs_v1[] = "\x00\x00" "\x00\x00\x00\x01" "\x00\x05" "PLAIN";

	/* SaslAuthenticate v1 response: error 0, message null, "ok", lifetime 0 */
	static const char au_v1[] =
		"\x00\x00" "\xff\xff" "\x00\x00\x00\x02" "ok"
		"\x00\x00\x00\x00\x00\x00\x00\x00";

	/* v2: compact, tagged 0 */
	static const char au_v2[] =
		"\x00\x00" "\x00" "\x03" "ok" "\x00\x00\x00\x00\x00\x00\x00\x00" "\x00";

	/* SaslAuthenticate v2 request: compact bytes "tok", tagged 0 */
	static const char ar_v2[] = "\x04" "tok" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_sasl_handshake_response, 1, &hs);
	CHECK(bytes_are(&buf, BYTES(hs_v1)), "SaslHandshake v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_sasl_authenticate_response, 1, &au);
	CHECK(bytes_are(&buf, BYTES(au_v1)), "SaslAuthenticate v1 response's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_sasl_authenticate_response, 2, &au);
	CHECK(bytes_are(&buf, BYTES(au_v2)), "SaslAuthenticate v2 response's bytes");
	decode_bytes(&r, BYTES(ar_v2));
	CHECK(kafka_decode(&r, &kafka_sasl_authenticate_request, 2, &ar) &&
		  r.pos == r.len && kafka_bytes_equal(ar.auth_bytes, "tok"),
		  "SaslAuthenticate v2 request decodes");
	pfree(buf.data);
}

/* InitProducerId, byte by byte: v1, and v4 flexible */
static void
check_init_producer_id(void)
{
	KafkaInitProducerIdRequest ir = {{NULL, -1}, 60000, -1, -1};
	KafkaInitProducerIdResponse resp = {0, 0, 5, 0};
	StringInfoData buf;
	KafkaReader r;

	/* v1: transactional id null, timeout 60000 */
	static const char ir_v1[] = "\xff\xff" "\x00\x00\xea\x60";

	/* v4: compact null, timeout, producer id -1 and epoch -1 (v3+), tagged 0 */
	static const char ir_v4[] =
		"\x00" "\x00\x00\xea\x60" "\xff\xff\xff\xff\xff\xff\xff\xff"
		"\xff\xff" "\x00";

	/* v4 response: throttle 0, error 0, producer id 5, epoch 0, tagged 0 */
	static const char resp_v4[] =
		"\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x05"
		"\x00\x00" "\x00";

	initStringInfo(&buf);
	kafka_encode(&buf, &kafka_init_producer_id_request, 1, &ir);
	CHECK(bytes_are(&buf, BYTES(ir_v1)), "InitProducerId v1 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_init_producer_id_request, 4, &ir);
	CHECK(bytes_are(&buf, BYTES(ir_v4)), "InitProducerId v4 request's bytes");
	resetStringInfo(&buf);
	kafka_encode(&buf, &kafka_init_producer_id_response, 4, &resp);
	CHECK(bytes_are(&buf, BYTES(resp_v4)), "InitProducerId v4 response's bytes");
	decode_bytes(&r, BYTES(ir_v1));
	CHECK(kafka_decode(&r, &kafka_init_producer_id_request, 1, &ir) &&
		  r.pos == r.len && ir.transactional_id.len == -1 &&
		  ir.producer_id == -1 && ir.producer_epoch == -1,
		  "InitProducerId v1 request decodes, producer id and epoch -1 by default");
	pfree(buf.data);
}

int
main(int argc, char **argv)
{
	for (int i = 0; i < lengthof(messages); i++)
	{
		check_schema(messages[i], messages[i]->body, 0);
		check_round_trips(messages[i]);
		CHECK(messages[i] == (i % 2 == 0 ?
							  kafka_request_message(messages[i]->api_key) :
							  kafka_response_message(messages[i]->api_key)),
			  "%s is listed in wire/messages.c", messages[i]->name);
	}
	check_schema(&test_message, test_message.body, 0);
	check_round_trips(&test_message);
	check_metadata_request();
	check_metadata_response();
	check_other_messages();
	check_offsets();
	check_groups();
	check_produce();
	check_fetch();
	check_list_offsets();
	check_offset_for_leader_epoch();
	check_partition_admin();
	check_topic_admin();
	check_describe_cluster();
	check_describe_acls();
	check_sasl();
	check_init_producer_id();
	check_hostile();
	check_every_type();
	return unit_check_summary("schema_test");
}
