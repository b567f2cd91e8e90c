/*-------------------------------------------------------------------------
 *
 * requests.c
 *	  Parsing the bodies of the Kafka requests pg_topics serves (see
 *	  requests.h), field by field as Kafka's message definitions have them
 *	  (Kafka's clients/src/main/resources/common/message/, one JSON file
 *	  per request).
 *
 * The topic -> partitions lists of Produce, Fetch, OffsetCommit and
 * OffsetFetch are read by one loop (read_topics), the
 * API giving what follows each partition's index; lists of strings
 * (Metadata's topics, DescribeGroups' groups, DeleteTopics' topics) by
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
 * versions only (OffsetCommit v1's commit_timestamp, Fetch v12's
 * last_fetched_epoch...) are not read here: offering more versions means
 * adding them.
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

/* A string of a flexible version (compact) or of an older one */
static KafkaBytes
read_string(KafkaReader *r, bool flexible)
{
	return flexible ? kafka_read_compact_string(r) : kafka_read_string(r);
}

/* A boolean: any byte but 0 is true, as Kafka reads it */
static bool
read_bool(KafkaReader *r)
{
	return kafka_read_int8(r) != 0;
}

/*
 * A list of topics, each with its partitions: the partition's index, then
 * what read_fields reads.  min_partition_size is the smallest a partition
 * can be on the wire.  A null list (-1) sets *isnull if isnull is given,
 * and reads as empty either way.
 */
static void
read_topics(KafkaReader *r, int16 version, int min_partition_size,
			PartitionFieldsReader read_fields, bool *isnull,
			int32 *ntopics, KafkaTopicRequest **topics)
{
	*ntopics = kafka_read_array_len(r, TOPIC_MIN_SIZE, isnull);
	take_elements(r, ntopics);
	*topics = alloc_array(r, ntopics, sizeof(KafkaTopicRequest));
	for (int32 t = 0; t < *ntopics && !r->error; t++)
	{
		KafkaTopicRequest *topic = &(*topics)[t];

		topic->name = kafka_read_string(r);
		topic->npartitions = kafka_read_array_len(r, min_partition_size, NULL);
		take_elements(r, &topic->npartitions);
		topic->partitions = alloc_array(r, &topic->npartitions,
										sizeof(KafkaPartitionRequest));
		for (int32 p = 0; p < topic->npartitions && !r->error; p++)
		{
			KafkaPartitionRequest *part = &topic->partitions[p];

			part->leader_epoch = -1;
			part->partition = kafka_read_int32(r);
			if (read_fields)
				read_fields(r, version, part);
		}
	}
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

/* Produce's partition: its records */
static void
read_produce_partition(KafkaReader *r, int16 version, KafkaPartitionRequest *p)
{
	p->data = kafka_read_bytes(r);
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
kafka_parse_produce_head(KafkaReader *r, int16 version,
						 KafkaProduceRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_PRODUCE_VERSIONS))
		return false;
	out->transactional_id = kafka_read_string(r);	/* v3+ */
	out->acks = kafka_read_int16(r);
	out->timeout_ms = kafka_read_int32(r);
	return !r->error && out->acks >= -1 && out->acks <= 1;
}

bool
kafka_parse_produce_request(KafkaReader *r, int16 version,
							KafkaProduceRequest *out)
{
	if (!kafka_parse_produce_head(r, version, out))
		return false;
	read_topics(r, version, 8, read_produce_partition, NULL,
				&out->ntopics, &out->topics);
	return !r->error;
}

/*
 * Produce v0-2 (message sets of format v0 or v1), which have no
 * transactional id: read only to be answered UNSUPPORTED_VERSION
 */
bool
kafka_parse_legacy_produce_request(KafkaReader *r, int16 version,
								   KafkaProduceRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_LEGACY_PRODUCE_VERSIONS))
		return false;
	out->transactional_id.len = -1;
	out->acks = kafka_read_int16(r);
	out->timeout_ms = kafka_read_int32(r);
	if (r->error || out->acks < -1 || out->acks > 1)
		return false;
	read_topics(r, version, 8, read_produce_partition, NULL,
				&out->ntopics, &out->topics);
	return !r->error;
}

/* Fetch's partition */
static void
read_fetch_partition(KafkaReader *r, int16 version, KafkaPartitionRequest *p)
{
	if (version >= 9)
		p->leader_epoch = kafka_read_int32(r);	/* current_leader_epoch */
	p->offset = kafka_read_int64(r);	/* fetch_offset */
	p->log_start_offset = version >= 5 ? kafka_read_int64(r) : -1;
	p->max_bytes = kafka_read_int32(r);
}

bool
kafka_parse_fetch_request(KafkaReader *r, int16 version, KafkaFetchRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_FETCH_VERSIONS))
		return false;
	out->replica_id = kafka_read_int32(r);
	out->max_wait_ms = kafka_read_int32(r);
	out->min_bytes = kafka_read_int32(r);
	out->max_bytes = kafka_read_int32(r);
	out->isolation_level = kafka_read_int8(r);
	out->session_epoch = -1;
	if (version >= 7)
	{
		out->session_id = kafka_read_int32(r);
		out->session_epoch = kafka_read_int32(r);
	}
	read_topics(r, version, 16, read_fetch_partition, NULL,
				&out->ntopics, &out->topics);
	if (version >= 7)
		read_topics(r, version, 4, NULL, NULL,
					&out->nforgotten, &out->forgotten);
	if (version >= 11)
		out->rack_id = kafka_read_string(r);
	return !r->error;
}

bool
kafka_parse_metadata_request(KafkaReader *r, int16 version,
							 KafkaMetadataRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_METADATA_VERSIONS))
		return false;
	/* null is every topic from v1; v0 has no null, and asks with [] */
	read_strings(r, &out->all_topics, &out->ntopics, &out->topics);
	if (version == 0 && out->ntopics == 0)
		out->all_topics = true;
	out->allow_auto_topic_creation = true;	/* Kafka's default before v4 */
	if (version >= 4)
		out->allow_auto_topic_creation = read_bool(r);
	return !r->error;
}

/* OffsetCommit's partition */
static void
read_offset_commit_partition(KafkaReader *r, int16 version,
							 KafkaPartitionRequest *p)
{
	p->offset = kafka_read_int64(r);	/* committed_offset */
	if (version >= 6)
		p->leader_epoch = kafka_read_int32(r);	/* committed_leader_epoch */
	p->data = kafka_read_string(r); /* committed_metadata */
}

bool
kafka_parse_offset_commit_request(KafkaReader *r, int16 version,
								  KafkaOffsetCommitRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_OFFSET_COMMIT_VERSIONS))
		return false;
	out->group_id = kafka_read_string(r);
	out->generation_id = kafka_read_int32(r);
	out->member_id = kafka_read_string(r);
	out->group_instance_id.len = -1;
	if (version >= 7)
		out->group_instance_id = kafka_read_string(r);
	out->retention_time_ms = -1;
	if (version <= 4)
		out->retention_time_ms = kafka_read_int64(r);
	read_topics(r, version, 14, read_offset_commit_partition, NULL,
				&out->ntopics, &out->topics);
	return !r->error;
}

bool
kafka_parse_offset_fetch_request(KafkaReader *r, int16 version,
								 KafkaOffsetFetchRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_OFFSET_FETCH_VERSIONS))
		return false;
	out->group_id = kafka_read_string(r);
	read_topics(r, version, 4, NULL, &out->all_topics,
				&out->ntopics, &out->topics);
	/* every topic (a null list) is asked for from v2 on */
	return !r->error && !(out->all_topics && version < 2);
}

bool
kafka_parse_find_coordinator_request(KafkaReader *r, int16 version,
									 KafkaFindCoordinatorRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_FIND_COORDINATOR_VERSIONS))
		return false;
	out->key = kafka_read_string(r);
	if (version >= 1)
		out->key_type = kafka_read_int8(r);
	return !r->error;
}

bool
kafka_parse_join_group_request(KafkaReader *r, int16 version,
							   KafkaJoinGroupRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_JOIN_GROUP_VERSIONS))
		return false;
	out->group_id = kafka_read_string(r);
	out->session_timeout_ms = kafka_read_int32(r);
	/* without one, the rebalance timeout is the session timeout */
	out->rebalance_timeout_ms = version >= 1 ? kafka_read_int32(r) :
		out->session_timeout_ms;
	out->member_id = kafka_read_string(r);
	out->group_instance_id.len = -1;
	if (version >= 5)
		out->group_instance_id = kafka_read_string(r);
	out->protocol_type = kafka_read_string(r);
	out->nprotocols = kafka_read_array_len(r, 6, NULL);
	out->protocols = alloc_array(r, &out->nprotocols,
								 sizeof(KafkaProtocolRequest));
	for (int32 i = 0; i < out->nprotocols && !r->error; i++)
	{
		out->protocols[i].name = kafka_read_string(r);
		out->protocols[i].metadata = kafka_read_bytes(r);
	}
	return !r->error;
}

bool
kafka_parse_heartbeat_request(KafkaReader *r, int16 version,
							  KafkaHeartbeatRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_HEARTBEAT_VERSIONS))
		return false;
	out->group_id = kafka_read_string(r);
	out->generation_id = kafka_read_int32(r);
	out->member_id = kafka_read_string(r);
	out->group_instance_id.len = -1;
	if (version >= 3)
		out->group_instance_id = kafka_read_string(r);
	return !r->error;
}

bool
kafka_parse_leave_group_request(KafkaReader *r, int16 version,
								KafkaLeaveGroupRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_LEAVE_GROUP_VERSIONS))
		return false;
	out->group_id = kafka_read_string(r);
	out->member_id = kafka_read_string(r);	/* v0-2 */
	return !r->error;
}

bool
kafka_parse_sync_group_request(KafkaReader *r, int16 version,
							   KafkaSyncGroupRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_SYNC_GROUP_VERSIONS))
		return false;
	out->group_id = kafka_read_string(r);
	out->generation_id = kafka_read_int32(r);
	out->member_id = kafka_read_string(r);
	out->group_instance_id.len = -1;
	if (version >= 3)
		out->group_instance_id = kafka_read_string(r);
	out->nassignments = kafka_read_array_len(r, 6, NULL);
	out->assignments = alloc_array(r, &out->nassignments,
								   sizeof(KafkaAssignmentRequest));
	for (int32 i = 0; i < out->nassignments && !r->error; i++)
	{
		out->assignments[i].member_id = kafka_read_string(r);
		out->assignments[i].assignment = kafka_read_bytes(r);
	}
	return !r->error;
}

bool
kafka_parse_describe_groups_request(KafkaReader *r, int16 version,
									KafkaDescribeGroupsRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_DESCRIBE_GROUPS_VERSIONS))
		return false;
	read_strings(r, NULL, &out->ngroups, &out->groups);
	if (version >= 3)
		out->include_authorized_operations = read_bool(r);
	return !r->error;
}

bool
kafka_parse_list_groups_request(KafkaReader *r, int16 version,
								KafkaListGroupsRequest *out)
{
	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_LIST_GROUPS_VERSIONS))
		return false;
	return !r->error;
}

bool
kafka_parse_api_versions_request(KafkaReader *r, int16 version,
								 KafkaApiVersionsRequest *out)
{
	bool		flexible = version >= KAFKA_API_VERSIONS_FIRST_FLEXIBLE;

	memset(out, 0, sizeof(*out));
	if (!version_in(version, KAFKA_API_VERSIONS_VERSIONS))
		return false;
	if (version >= 3)
	{
		out->client_software_name = read_string(r, flexible);
		out->client_software_version = read_string(r, flexible);
	}
	if (flexible)
		kafka_skip_tagged_fields(r);
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
