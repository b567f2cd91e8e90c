/*-------------------------------------------------------------------------
 *
 * requests.c
 *	  Parsing the bodies of the Kafka requests pg_topics serves (see
 *	  requests.h), field by field as Kafka's message definitions have them
 *	  (Kafka's clients/src/main/resources/common/message/, one JSON file
 *	  per request).
 *
 * The topic -> partitions lists are
 * read by one loop (read_topics), the
 * API giving what follows each partition's index; lists of strings
 * (DescribeGroups' groups, DeleteTopics' topics) by
 * another.  Every array count is checked against the bytes left, at the
 * smallest size an element can have on the wire, before anything is
 * allocated for it (kafka_read_array_len), so what a parser allocates is
 * bounded by a small multiple of the request's size; and all of its arrays
 * together by the reader's alloc_left, which the server sets from the
 * memory its listener process has left; and the topics, partitions and
 * names it lists, each a lookup or a read for the server, by the reader's
 * elements_left (20 million topic names, 300 MB as an array, fail there
 * before anything is allocated for them).
 *
 * A parser reads only the versions offered, so fields that exist in other
 * versions only (Fetch v12's last_fetched_epoch...) are not read here:
 * offering more versions means adding them.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/requests.h"

/*
 * The smallest a topic of a topic list can be on the wire (a name and a
 * partition count), and a string of a string list
 */
#define TOPIC_MIN_SIZE		6
#define STRING_MIN_SIZE		2

/* Reads what follows a partition's index, for the version asked for */
typedef void (*PartitionFieldsReader) (KafkaReader *r, int16 version,
									   KafkaPartitionRequest *p);

/* Is version within min..max (one of the *_VERSIONS pairs)? */
static inline bool
version_in(int16 version, int16 min, int16 max)
{
	return version >= min && version <= max;
}

/*
 * *n zeroed elements of size bytes each, or NULL for none.  Beyond what r
 * may still allocate, none: *n becomes 0 and r fails, over budget.
 */
static void *
alloc_array(KafkaReader *r, int32 *n, Size size)
{
	Size		bytes = size * (Size) Max(*n, 0);

	if (*n <= 0)
		return NULL;
	if (bytes > r->alloc_left)
	{
		r->error = true;
		r->over_budget = true;
		*n = 0;
		return NULL;
	}
	r->alloc_left -= bytes;
	return palloc0(bytes);
}

/*
 * *n more elements of a list whose elements cost a lookup or a read each
 * (topics, partitions, topic and group names): within r's elements_left,
 * or *n becomes 0 and r fails, with too many.  The other lists (a
 * SyncGroup's assignments, a JoinGroup's protocols, configs) cost what
 * their bytes cost.
 */
static void
take_elements(KafkaReader *r, int32 *n)
{
	if (r->elements_left < 0 || *n <= 0)
		return;
	if (*n > r->elements_left)
	{
		r->error = true;
		r->too_many = true;
		*n = 0;
		return;
	}
	r->elements_left -= *n;
}

/* A boolean: any byte but 0 is true, as Kafka reads it */
static bool
read_bool(KafkaReader *r)
{
	return kafka_read_int8(r) != 0;
}

/* A list of strings; null reads as empty, with *isnull set if given */
static void
read_strings(KafkaReader *r, bool *isnull, int32 *n, KafkaBytes **strings)
{
	*n = kafka_read_array_len(r, STRING_MIN_SIZE, isnull);
	take_elements(r, n);
	*strings = alloc_array(r, n, sizeof(KafkaBytes));
	for (int32 i = 0; i < *n && !r->error; i++)
		(*strings)[i] = kafka_read_string(r);
}

/* A list of int32s */
static void
read_int32s(KafkaReader *r, int32 *n, int32 **values)
{
	*n = kafka_read_array_len(r, 4, NULL);
	*values = alloc_array(r, n, sizeof(int32));
	for (int32 i = 0; i < *n && !r->error; i++)
		(*values)[i] = kafka_read_int32(r);
}

bool
kafka_parse_request_header(KafkaReader *r, KafkaRequestHeader *out)
{
	out->api_key = kafka_read_int16(r);
	out->api_version = kafka_read_int16(r);
	out->correlation_id = kafka_read_int32(r);
	out->client_id = kafka_read_string(r);
	return !r->error;
}

bool
kafka_parse_create_topics_request(KafkaReader *r, int16 version,
								  KafkaCreateTopicsRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_CREATE_TOPICS_VERSIONS))
		return false;
	/* name, partitions, replication factor, assignments, configs */
	out->ntopics = kafka_read_array_len(r, 16, NULL);
	take_elements(r, &out->ntopics);
	out->topics = alloc_array(r, &out->ntopics, sizeof(KafkaNewTopicRequest));
	for (int32 i = 0; i < out->ntopics && !r->error; i++)
	{
		KafkaNewTopicRequest *t = &out->topics[i];

		t->name = kafka_read_string(r);
		t->num_partitions = kafka_read_int32(r);
		t->replication_factor = kafka_read_int16(r);
		t->nassignments = kafka_read_array_len(r, 8, NULL);
		t->assignments = alloc_array(r, &t->nassignments,
									 sizeof(KafkaReplicaAssignment));
		for (int32 a = 0; a < t->nassignments && !r->error; a++)
		{
			t->assignments[a].partition = kafka_read_int32(r);
			read_int32s(r, &t->assignments[a].nbrokers,
						&t->assignments[a].broker_ids);
		}
		t->nconfigs = kafka_read_array_len(r, 4, NULL);
		t->configs = alloc_array(r, &t->nconfigs, sizeof(KafkaConfigRequest));
		for (int32 c = 0; c < t->nconfigs && !r->error; c++)
		{
			t->configs[c].name = kafka_read_string(r);
			t->configs[c].value = kafka_read_string(r);
		}
	}
	out->timeout_ms = kafka_read_int32(r);
	if (version >= 1)
		out->validate_only = read_bool(r);
	return !r->error;
}

bool
kafka_parse_delete_topics_request(KafkaReader *r, int16 version,
								  KafkaDeleteTopicsRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_DELETE_TOPICS_VERSIONS))
		return false;
	read_strings(r, NULL, &out->ntopics, &out->topics);
	out->timeout_ms = kafka_read_int32(r);
	return !r->error;
}
