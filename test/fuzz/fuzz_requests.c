/*-------------------------------------------------------------------------
 *
 * fuzz_requests.c
 *	  libFuzzer target over the parsers of Kafka request bodies
 *	  (wire/requests.c, and the schema codec's decoder of the requests it
 *	  describes, wire/schema.c; make fuzz-wire).
 *
 * An input is what follows a request's size up to its correlation id (the
 * API key and version, int16 each, as a request header starts), then the
 * body.  Versions outside a parser's range must be refused.  The body is
 * copied to an allocation of its own size, so that AddressSanitizer
 * catches a read on either side of it.  Whatever the parser returns, every
 * string and byte string its struct holds is checked to lie in the body
 * and read byte by byte, and every array it allocated is freed: the
 * parsers leave their memory to the server's per-request context, which
 * frontend code does not have, so the walk frees it instead, and
 * LeakSanitizer then reports anything a parser allocated and did not hang
 * on its struct.  Each input is parsed twice: without a limit on what the
 * parser may allocate, and within one of up to three times the body's size
 * (the reader's alloc_left, as the server sets it from its memory budget).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

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
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"
#include "pg_topics/wire/schema.h"

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

/* the body being parsed, for the walk's bounds */
static const char *body;
static int	body_len;
static volatile uint8 sink;

/* A string or byte string must be null or lie in the body: read it all */
static void
touch(KafkaBytes b)
{
	uint8		sum = 0;

	if (b.len == -1 && b.data == NULL)
		return;
	if (b.len < 0 || (b.len > 0 && (b.data < body || b.data > body + body_len ||
									b.len > body + body_len - b.data)))
		abort();
	for (int32 i = 0; i < b.len; i++)
		sum += (uint8) b.data[i];
	sink += sum;
}

static void
free_array(void *array, int32 n)
{
	if ((array == NULL) != (n == 0) || n < 0)
		abort();
	if (array != NULL)
		pfree(array);
}

static void
walk_strings(KafkaBytes *strings, int32 n)
{
	for (int32 i = 0; i < n; i++)
		touch(strings[i]);
	free_array(strings, n);
}

static void
walk_topics(KafkaTopicRequest *topics, int32 n)
{
	for (int32 t = 0; t < n; t++)
	{
		touch(topics[t].name);
		for (int32 p = 0; p < topics[t].npartitions; p++)
			touch(topics[t].partitions[p].data);
		free_array(topics[t].partitions, topics[t].npartitions);
	}
	free_array(topics, n);
}

/* The requests the schema codec decodes (kafka_decode), by API key */
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

static void walk_struct(const KafkaSchema *s, const char *p);

/* One value of field f (one element, if an array) at p */
static void
walk_value(const KafkaField *f, const char *p)
{
	switch (f->type)
	{
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			touch(*(const KafkaBytes *) p);
			break;
		case KAFKA_TYPE_RECORDS:
			touch(((const KafkaRecords *) p)->bytes);
			break;
		case KAFKA_TYPE_STRUCT:
			walk_struct(f->schema, p);
			break;
		default:
			sink += (uint8) p[0];
			break;
	}
}

/*
 * Every field of a decoded struct, whatever the version (absent ones hold
 * their defaults): strings lie in the body, arrays are freed
 */
static void
walk_struct(const KafkaSchema *s, const char *p)
{
	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];

		if (f->array)
		{
			int32		n = *(const int32 *) (p + f->count_offset);
			char	   *elements = *(char *const *) (p + f->offset);
			Size		size;

			if (n == -1 && elements == NULL)
				continue;		/* a null array */
			switch (f->type)
			{
				case KAFKA_TYPE_INT8:
				case KAFKA_TYPE_BOOL:
					size = 1;
					break;
				case KAFKA_TYPE_INT16:
				case KAFKA_TYPE_UINT16:
					size = 2;
					break;
				case KAFKA_TYPE_INT32:
					size = 4;
					break;
				case KAFKA_TYPE_INT64:
				case KAFKA_TYPE_FLOAT64:
					size = 8;
					break;
				case KAFKA_TYPE_UUID:
					size = sizeof(KafkaUuid);
					break;
				case KAFKA_TYPE_STRING:
				case KAFKA_TYPE_BYTES:
					size = sizeof(KafkaBytes);
					break;
				case KAFKA_TYPE_RECORDS:
					size = sizeof(KafkaRecords);
					break;
				default:
					size = f->schema->size;
					break;
			}
			for (int32 e = 0; e < n; e++)
				walk_value(f, elements + e * size);
			free_array(elements, n);
		}
		else
			walk_value(f, p + f->offset);
	}
}

/* A request the codec decodes: decode, walk, free; true if it decoded */
static bool
run_codec(const KafkaMessage *m, int16 version, KafkaReader *r)
{
	char	   *x = palloc(m->body->size);
	bool		ok = kafka_decode(r, m, version, x);

	walk_struct(m->body, x);
	pfree(x);
	return ok;
}

/* One parser: parse, walk what it returned, free it; true if it parsed */
static bool
run(int16 key, int16 version, KafkaReader *r)
{
	bool		ok;

	switch (key)
	{
		case KAFKA_API_PRODUCE:
			{
				KafkaProduceRequest x;

				ok = version < 3 ?
					kafka_parse_legacy_produce_request(r, version, &x) :
					kafka_parse_produce_request(r, version, &x);
				touch(x.transactional_id);
				walk_topics(x.topics, x.ntopics);
				if (ok && (x.acks < -1 || x.acks > 1))
					abort();
				break;
			}
		case KAFKA_API_FETCH:
			{
				KafkaFetchRequest x;

				ok = kafka_parse_fetch_request(r, version, &x);
				walk_topics(x.topics, x.ntopics);
				walk_topics(x.forgotten, x.nforgotten);
				touch(x.rack_id);
				break;
			}
		case KAFKA_API_LIST_OFFSETS:
			{
				KafkaListOffsetsRequest x;

				ok = kafka_parse_list_offsets_request(r, version, &x);
				walk_topics(x.topics, x.ntopics);
				break;
			}
		case KAFKA_API_METADATA:
			{
				KafkaMetadataRequest x;

				ok = kafka_parse_metadata_request(r, version, &x);
				walk_strings(x.topics, x.ntopics);
				break;
			}
		case KAFKA_API_FIND_COORDINATOR:
			{
				KafkaFindCoordinatorRequest x;

				ok = kafka_parse_find_coordinator_request(r, version, &x);
				touch(x.key);
				break;
			}
		case KAFKA_API_SASL_HANDSHAKE:
			{
				KafkaSaslHandshakeRequest x;

				ok = kafka_parse_sasl_handshake_request(r, version, &x);
				touch(x.mechanism);
				break;
			}
		case KAFKA_API_API_VERSIONS:
			{
				KafkaApiVersionsRequest x;

				ok = kafka_parse_api_versions_request(r, version, &x);
				touch(x.client_software_name);
				touch(x.client_software_version);
				break;
			}
		case KAFKA_API_CREATE_TOPICS:
			{
				KafkaCreateTopicsRequest x;

				ok = kafka_parse_create_topics_request(r, version, &x);
				for (int32 i = 0; i < x.ntopics; i++)
				{
					KafkaNewTopicRequest *t = &x.topics[i];

					touch(t->name);
					for (int32 a = 0; a < t->nassignments; a++)
						free_array(t->assignments[a].broker_ids,
								   t->assignments[a].nbrokers);
					free_array(t->assignments, t->nassignments);
					for (int32 c = 0; c < t->nconfigs; c++)
					{
						touch(t->configs[c].name);
						touch(t->configs[c].value);
					}
					free_array(t->configs, t->nconfigs);
				}
				free_array(x.topics, x.ntopics);
				break;
			}
		case KAFKA_API_DELETE_TOPICS:
			{
				KafkaDeleteTopicsRequest x;

				ok = kafka_parse_delete_topics_request(r, version, &x);
				walk_strings(x.topics, x.ntopics);
				break;
			}
		case KAFKA_API_INIT_PRODUCER_ID:
			{
				KafkaInitProducerIdRequest x;

				ok = kafka_parse_init_producer_id_request(r, version, &x);
				touch(x.transactional_id);
				break;
			}
		case KAFKA_API_SASL_AUTHENTICATE:
			{
				KafkaSaslAuthenticateRequest x;

				ok = kafka_parse_sasl_authenticate_request(r, version, &x);
				touch(x.auth_bytes);
				break;
			}
		default:
			return false;
	}
	return ok;
}

/* the first and second of a *_VERSIONS pair */
#define FIRST_OF(...)	first_of_(__VA_ARGS__)
#define first_of_(a, b)	(a)
#define SECOND_OF(...)	second_of_(__VA_ARGS__)
#define second_of_(a, b)	(b)

/* Each parser's versions (requests.h) */
static const struct
{
	int16		key;
	int16		min;
	int16		max;
}			ranges[] = {
	/* Produce: v0-2 read by the legacy parser (to be refused), v3-7 served */
	{KAFKA_API_PRODUCE, FIRST_OF(KAFKA_LEGACY_PRODUCE_VERSIONS),
	SECOND_OF(KAFKA_PRODUCE_VERSIONS)},
	{KAFKA_API_FETCH, KAFKA_FETCH_VERSIONS},
	{KAFKA_API_LIST_OFFSETS, KAFKA_LIST_OFFSETS_VERSIONS},
	{KAFKA_API_METADATA, KAFKA_METADATA_VERSIONS},
	{KAFKA_API_FIND_COORDINATOR, KAFKA_FIND_COORDINATOR_VERSIONS},
	{KAFKA_API_SASL_HANDSHAKE, KAFKA_SASL_HANDSHAKE_VERSIONS},
	{KAFKA_API_API_VERSIONS, KAFKA_API_VERSIONS_VERSIONS},
	{KAFKA_API_CREATE_TOPICS, KAFKA_CREATE_TOPICS_VERSIONS},
	{KAFKA_API_DELETE_TOPICS, KAFKA_DELETE_TOPICS_VERSIONS},
	{KAFKA_API_INIT_PRODUCER_ID, KAFKA_INIT_PRODUCER_ID_VERSIONS},
	{KAFKA_API_SASL_AUTHENTICATE, KAFKA_SASL_AUTHENTICATE_VERSIONS},
};

/* As below, for a request the schema codec decodes */
static int
fuzz_codec(const KafkaMessage *m, int16 version, const uint8 *data, size_t size)
{
	char	   *copy;
	KafkaReader r;
	bool		ok;

	body_len = (int) size - 4;
	copy = palloc(Max(body_len, 1));
	memcpy(copy, data + 4, body_len);
	body = copy;

	kafka_reader_init(&r, body, body_len);
	ok = run_codec(m, version, &r);
	if (ok && (version < m->min_version || version > m->max_version))
		abort();				/* a version not described */
	if (ok && (r.error || r.pos > r.len))
		abort();
	if (r.over_budget)
		abort();				/* no limit was set */
	kafka_reader_init(&r, body, body_len);
	r.alloc_left = (Size) body_len * (data[size - 1] % 4);
	ok = run_codec(m, version, &r);
	if (ok && (r.error || r.over_budget))
		abort();
	pfree(copy);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	int16		key;
	int16		version;
	int16		min;
	int16		max;
	char	   *copy;
	KafkaReader r;
	bool		ok;
	int			i;

	if (size < 4 || size > 1024 * 1024)
		return 0;
	key = (int16) ((data[0] << 8) | data[1]);
	version = (int16) ((data[2] << 8) | data[3]);
	for (i = 0; i < lengthof(codec_requests); i++)
		if (codec_requests[i]->api_key == key)
			return fuzz_codec(codec_requests[i], version, data, size);
	for (i = 0; i < lengthof(ranges) && ranges[i].key != key; i++)
		;
	if (i == lengthof(ranges))
		return 0;
	min = ranges[i].min;
	max = ranges[i].max;
	body_len = (int) size - 4;
	copy = palloc(Max(body_len, 1));
	memcpy(copy, data + 4, body_len);
	body = copy;

	kafka_reader_init(&r, body, body_len);
	ok = run(key, version, &r);
	if (ok && (version < min || version > max))
		abort();				/* a version no parser reads */
	if (ok && (r.error || r.pos > r.len))
		abort();
	if (r.over_budget)
		abort();				/* no limit was set */

	/*
	 * Again within a memory budget of about the body's size, as the server
	 * sets one: a parse that runs out of it fails, its struct as walkable
	 * as after any failure
	 */
	kafka_reader_init(&r, body, body_len);
	r.alloc_left = (Size) body_len * (data[size - 1] % 4);
	ok = run(key, version, &r);
	if (ok && (r.error || r.over_budget))
		abort();
	pfree(copy);
	return 0;
}
