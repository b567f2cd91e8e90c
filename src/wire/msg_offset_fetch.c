/*-------------------------------------------------------------------------
 *
 * msg_offset_fetch.c
 *	  OffsetFetch's request and response (Kafka 3.9: versions 0-9, flexible
 *	  from 6), for the schema codec (schema.h).
 *
 * v2 lets a null topic list ask for every topic and adds the response's
 * error code, v5 the leader epoch, v7 require_stable, v8 asks for many
 * groups at once (KIP-709), v9 adds KIP-848's member id and epoch.  The
 * topic and partition structs of v0-7 and of v8+'s groups have the same
 * fields: one table each serves both.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_offset_fetch.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetFetchRequestTopic, name)},
	{"PartitionIndexes", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetFetchRequestTopic, partition_indexes,
					   npartition_indexes),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("OffsetFetchRequestTopic", KafkaOffsetFetchRequestTopic,
			 request_topic_fields);

static const KafkaField request_group_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(8),
	KAFKA_AT(KafkaOffsetFetchRequestGroup, group_id)},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(9), KAFKA_NULLABLE_FROM(9),
	KAFKA_AT(KafkaOffsetFetchRequestGroup, member_id), .def_null = true},
	{"MemberEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(9),
	KAFKA_AT(KafkaOffsetFetchRequestGroup, member_epoch), .def = -1},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(8), KAFKA_NULLABLE_FROM(8),
		KAFKA_ARRAY_AT(KafkaOffsetFetchRequestGroup, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
};

static const KafkaSchema request_group_schema =
KAFKA_SCHEMA("OffsetFetchRequestGroup", KafkaOffsetFetchRequestGroup,
			 request_group_fields);

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V(0, 7),
	KAFKA_AT(KafkaOffsetFetchRequest, group_id)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V(0, 7), KAFKA_NULLABLE_FROM(2),
		KAFKA_ARRAY_AT(KafkaOffsetFetchRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
	{"Groups", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(8),
		KAFKA_ARRAY_AT(KafkaOffsetFetchRequest, groups, ngroups),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_group_schema},
	{"RequireStable", KAFKA_TYPE_BOOL, KAFKA_V_FROM(7),
	KAFKA_AT(KafkaOffsetFetchRequest, require_stable)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("OffsetFetchRequest", KafkaOffsetFetchRequest, request_fields);

static const KafkaField response_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetFetchResponsePartition, partition_index)},
	{"CommittedOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetFetchResponsePartition, committed_offset)},
	{"CommittedLeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaOffsetFetchResponsePartition, committed_leader_epoch), .def = -1},
	{"Metadata", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaOffsetFetchResponsePartition, metadata)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetFetchResponsePartition, error_code)},
};

static const KafkaSchema response_partition_schema =
KAFKA_SCHEMA("OffsetFetchResponsePartition", KafkaOffsetFetchResponsePartition,
			 response_partition_fields);

static const KafkaField response_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetFetchResponseTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetFetchResponseTopic, partitions, npartitions),
	.schema = &response_partition_schema},
};

static const KafkaSchema response_topic_schema =
KAFKA_SCHEMA("OffsetFetchResponseTopic", KafkaOffsetFetchResponseTopic,
			 response_topic_fields);

static const KafkaField response_group_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(8),
	KAFKA_AT(KafkaOffsetFetchResponseGroup, group_id)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(8),
		KAFKA_ARRAY_AT(KafkaOffsetFetchResponseGroup, topics, ntopics),
	.schema = &response_topic_schema},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(8),
	KAFKA_AT(KafkaOffsetFetchResponseGroup, error_code)},
};

static const KafkaSchema response_group_schema =
KAFKA_SCHEMA("OffsetFetchResponseGroup", KafkaOffsetFetchResponseGroup,
			 response_group_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaOffsetFetchResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V(0, 7),
		KAFKA_ARRAY_AT(KafkaOffsetFetchResponse, topics, ntopics),
	.schema = &response_topic_schema},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V(2, 7),
	KAFKA_AT(KafkaOffsetFetchResponse, error_code)},
	{"Groups", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(8),
		KAFKA_ARRAY_AT(KafkaOffsetFetchResponse, groups, ngroups),
	.schema = &response_group_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("OffsetFetchResponse", KafkaOffsetFetchResponse, response_fields);

const KafkaMessage kafka_offset_fetch_request = {
	"OffsetFetchRequest", KAFKA_API_OFFSET_FETCH, 0, 9, 6, &request_schema
};

const KafkaMessage kafka_offset_fetch_response = {
	"OffsetFetchResponse", KAFKA_API_OFFSET_FETCH, 0, 9, 6, &response_schema
};
