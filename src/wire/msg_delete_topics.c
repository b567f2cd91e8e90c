/*-------------------------------------------------------------------------
 *
 * msg_delete_topics.c
 *	  DeleteTopics' request and response (Kafka 3.9: versions 0-6, flexible
 *	  from 4), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v2 and v3 change only throttling and error
 * codes, v4 is flexible, v5 adds each topic's error message, v6 names
 * topics by name or topic id (Topics instead of TopicNames).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_delete_topics.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField state_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(6), KAFKA_NULLABLE_FROM(6),
	KAFKA_AT(KafkaDeleteTopicState, name)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(6),
	KAFKA_AT(KafkaDeleteTopicState, topic_id)},
};

static const KafkaSchema state_schema =
KAFKA_SCHEMA("DeleteTopicState", KafkaDeleteTopicState, state_fields);

static const KafkaField request_fields[] = {
	{"Topics", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(6),
		KAFKA_ARRAY_AT(KafkaDeleteTopicsRequest, topics, ntopics),
	.flags = KAFKA_FIELD_COUNTED, .schema = &state_schema},
	{"TopicNames", KAFKA_TYPE_STRING, KAFKA_V(0, 5),
		KAFKA_ARRAY_AT(KafkaDeleteTopicsRequest, topic_names, ntopic_names),
	.flags = KAFKA_FIELD_COUNTED},
	{"TimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeleteTopicsRequest, timeout_ms)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("DeleteTopicsRequest", KafkaDeleteTopicsRequest, request_fields);

static const KafkaField result_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(6),
	KAFKA_AT(KafkaDeletableTopicResult, name)},
	{"TopicId", KAFKA_TYPE_UUID, KAFKA_V_FROM(6),
	KAFKA_AT(KafkaDeletableTopicResult, topic_id)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaDeletableTopicResult, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaDeletableTopicResult, error_message), .def_null = true},
};

static const KafkaSchema result_schema =
KAFKA_SCHEMA("DeletableTopicResult", KafkaDeletableTopicResult, result_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaDeleteTopicsResponse, throttle_time_ms)},
	{"Responses", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaDeleteTopicsResponse, responses, nresponses),
	.schema = &result_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("DeleteTopicsResponse", KafkaDeleteTopicsResponse,
			 response_fields);

const KafkaMessage kafka_delete_topics_request = {
	"DeleteTopicsRequest", KAFKA_API_DELETE_TOPICS, 0, 6, 4,
	&request_schema
};

const KafkaMessage kafka_delete_topics_response = {
	"DeleteTopicsResponse", KAFKA_API_DELETE_TOPICS, 0, 6, 4,
	&response_schema
};
