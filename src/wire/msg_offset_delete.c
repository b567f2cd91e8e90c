/*-------------------------------------------------------------------------
 *
 * msg_offset_delete.c
 *	  OffsetDelete's request and response (Kafka 3.9: version 0, not
 *	  flexible), for the schema codec (schema.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_offset_delete.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteRequestPartition, partition_index)},
};

static const KafkaSchema request_partition_schema =
KAFKA_SCHEMA("OffsetDeleteRequestPartition", KafkaOffsetDeleteRequestPartition,
			 request_partition_fields);

static const KafkaField request_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteRequestTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetDeleteRequestTopic, partitions, npartitions),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_partition_schema},
};

static const KafkaSchema request_topic_schema =
KAFKA_SCHEMA("OffsetDeleteRequestTopic", KafkaOffsetDeleteRequestTopic,
			 request_topic_fields);

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteRequest, group_id)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetDeleteRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &request_topic_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("OffsetDeleteRequest", KafkaOffsetDeleteRequest, request_fields);

static const KafkaField response_partition_fields[] = {
	{"PartitionIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteResponsePartition, partition_index)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteResponsePartition, error_code)},
};

static const KafkaSchema response_partition_schema =
KAFKA_SCHEMA("OffsetDeleteResponsePartition", KafkaOffsetDeleteResponsePartition,
			 response_partition_fields);

static const KafkaField response_topic_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteResponseTopic, name)},
	{"Partitions", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetDeleteResponseTopic, partitions, npartitions),
	.schema = &response_partition_schema},
};

static const KafkaSchema response_topic_schema =
KAFKA_SCHEMA("OffsetDeleteResponseTopic", KafkaOffsetDeleteResponseTopic,
			 response_topic_fields);

static const KafkaField response_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteResponse, error_code)},
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaOffsetDeleteResponse, throttle_time_ms)},
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaOffsetDeleteResponse, topics, ntopics),
	.schema = &response_topic_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("OffsetDeleteResponse", KafkaOffsetDeleteResponse,
			 response_fields);

const KafkaMessage kafka_offset_delete_request = {
	"OffsetDeleteRequest", KAFKA_API_OFFSET_DELETE, 0, 0, -1, &request_schema
};

const KafkaMessage kafka_offset_delete_response = {
	"OffsetDeleteResponse", KAFKA_API_OFFSET_DELETE, 0, 0, -1, &response_schema
};
