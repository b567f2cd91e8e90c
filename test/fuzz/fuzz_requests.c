/*-------------------------------------------------------------------------
 *
 * fuzz_requests.c
 *	  libFuzzer target over the parsers of Kafka request bodies
 *	  (wire/requests.c) and the schema codec's decoder of the requests
 *	  described for it (wire/schema.c, schema_requests below; make
 *	  fuzz-wire).
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

/*
 * A struct the schema codec decoded (schema.h): every string in the body,
 * every array freed, its count telling its elements (-1: null)
 */
static void
walk_struct(const KafkaSchema *s, char *p)
{
	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];
		int32		n = f->array ? *(int32 *) (p + f->count_offset) : 1;
		char	   *elements = f->array ? *(char **) (p + f->offset) : p + f->offset;
		Size		size = f->type == KAFKA_TYPE_STRUCT ? f->schema->size :
			f->type == KAFKA_TYPE_STRING || f->type == KAFKA_TYPE_BYTES ?
			sizeof(KafkaBytes) : f->type == KAFKA_TYPE_RECORDS ?
			sizeof(KafkaRecords) : 0;

		if (f->array && n == -1)
		{
			if (elements != NULL)
				abort();
			continue;
		}
		for (int32 j = 0; j < n; j++)
		{
			if (f->type == KAFKA_TYPE_STRUCT)
				walk_struct(f->schema, elements + j * size);
			else if (f->type == KAFKA_TYPE_STRING || f->type == KAFKA_TYPE_BYTES)
				touch(*(KafkaBytes *) (elements + j * size));
			else if (f->type == KAFKA_TYPE_RECORDS)
				touch(((KafkaRecords *) (elements + j * size))->bytes);
		}
		if (f->array)
			free_array(elements, n);
	}
}

/* The requests the server decodes with the schema codec */
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

static const KafkaMessage *
schema_request(int16 key)
{
	for (int i = 0; i < lengthof(schema_requests); i++)
		if (schema_requests[i]->api_key == key)
			return schema_requests[i];
	return NULL;
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
		case KAFKA_API_METADATA:
			{
				KafkaMetadataRequest x;

				ok = kafka_parse_metadata_request(r, version, &x);
				walk_strings(x.topics, x.ntopics);
				break;
			}
		case KAFKA_API_OFFSET_COMMIT:
			{
				KafkaOffsetCommitRequest x;

				ok = kafka_parse_offset_commit_request(r, version, &x);
				touch(x.group_id);
				touch(x.member_id);
				touch(x.group_instance_id);
				walk_topics(x.topics, x.ntopics);
				break;
			}
		case KAFKA_API_OFFSET_FETCH:
			{
				KafkaOffsetFetchRequest x;

				ok = kafka_parse_offset_fetch_request(r, version, &x);
				touch(x.group_id);
				walk_topics(x.topics, x.ntopics);
				if (ok && x.all_topics && x.ntopics != 0)
					abort();
				break;
			}
		case KAFKA_API_FIND_COORDINATOR:
			{
				KafkaFindCoordinatorRequest x;

				ok = kafka_parse_find_coordinator_request(r, version, &x);
				touch(x.key);
				break;
			}
		case KAFKA_API_JOIN_GROUP:
			{
				KafkaJoinGroupRequest x;

				ok = kafka_parse_join_group_request(r, version, &x);
				touch(x.group_id);
				touch(x.member_id);
				touch(x.group_instance_id);
				touch(x.protocol_type);
				for (int32 i = 0; i < x.nprotocols; i++)
				{
					touch(x.protocols[i].name);
					touch(x.protocols[i].metadata);
				}
				free_array(x.protocols, x.nprotocols);
				break;
			}
		case KAFKA_API_HEARTBEAT:
			{
				KafkaHeartbeatRequest x;

				ok = kafka_parse_heartbeat_request(r, version, &x);
				touch(x.group_id);
				touch(x.member_id);
				touch(x.group_instance_id);
				break;
			}
		case KAFKA_API_LEAVE_GROUP:
			{
				KafkaLeaveGroupRequest x;

				ok = kafka_parse_leave_group_request(r, version, &x);
				touch(x.group_id);
				touch(x.member_id);
				break;
			}
		case KAFKA_API_SYNC_GROUP:
			{
				KafkaSyncGroupRequest x;

				ok = kafka_parse_sync_group_request(r, version, &x);
				touch(x.group_id);
				touch(x.member_id);
				touch(x.group_instance_id);
				for (int32 i = 0; i < x.nassignments; i++)
				{
					touch(x.assignments[i].member_id);
					touch(x.assignments[i].assignment);
				}
				free_array(x.assignments, x.nassignments);
				break;
			}
		case KAFKA_API_DESCRIBE_GROUPS:
			{
				KafkaDescribeGroupsRequest x;

				ok = kafka_parse_describe_groups_request(r, version, &x);
				walk_strings(x.groups, x.ngroups);
				break;
			}
		case KAFKA_API_LIST_GROUPS:
			{
				KafkaListGroupsRequest x;

				ok = kafka_parse_list_groups_request(r, version, &x);
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
		default:
			{
				const KafkaMessage *m = schema_request(key);
				char	   *x;

				if (m == NULL)
					return false;
				x = palloc(m->body->size);
				ok = kafka_decode(r, m, version, x);
				walk_struct(m->body, x);
				pfree(x);
				break;
			}
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
	{KAFKA_API_METADATA, KAFKA_METADATA_VERSIONS},
	{KAFKA_API_OFFSET_COMMIT, KAFKA_OFFSET_COMMIT_VERSIONS},
	{KAFKA_API_OFFSET_FETCH, KAFKA_OFFSET_FETCH_VERSIONS},
	{KAFKA_API_FIND_COORDINATOR, KAFKA_FIND_COORDINATOR_VERSIONS},
	{KAFKA_API_JOIN_GROUP, KAFKA_JOIN_GROUP_VERSIONS},
	{KAFKA_API_HEARTBEAT, KAFKA_HEARTBEAT_VERSIONS},
	{KAFKA_API_LEAVE_GROUP, KAFKA_LEAVE_GROUP_VERSIONS},
	{KAFKA_API_SYNC_GROUP, KAFKA_SYNC_GROUP_VERSIONS},
	{KAFKA_API_DESCRIBE_GROUPS, KAFKA_DESCRIBE_GROUPS_VERSIONS},
	{KAFKA_API_LIST_GROUPS, KAFKA_LIST_GROUPS_VERSIONS},
	{KAFKA_API_API_VERSIONS, KAFKA_API_VERSIONS_VERSIONS},
	{KAFKA_API_CREATE_TOPICS, KAFKA_CREATE_TOPICS_VERSIONS},
	{KAFKA_API_DELETE_TOPICS, KAFKA_DELETE_TOPICS_VERSIONS},
};

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
	for (i = 0; i < lengthof(ranges) && ranges[i].key != key; i++)
		;
	if (i < lengthof(ranges))
	{
		min = ranges[i].min;
		max = ranges[i].max;
	}
	else if (schema_request(key) != NULL)
	{
		min = schema_request(key)->min_version;
		max = schema_request(key)->max_version;
	}
	else
		return 0;
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
