/*-------------------------------------------------------------------------
 *
 * msg_produce.c
 *	  Produce's request and response (Kafka 3.9: versions 0-11, flexible
 *	  from 9), for the schema codec (schema.h).
 *
 * v0-2 carry MessageSets (magic 0 or 1: wire/message_set.c), v3+ record
 * batches (magic 2) and a transactional id; the response gains the
 * throttle time in v1, the log-append time in v2, the log start offset in
 * v5, record errors and an error message in v8, and in v10 the current
 * leader of a partition and the leaders' endpoints (tagged, for
 * NOT_LEADER_OR_FOLLOWER).  v4, v6, v7 and v11 change only which errors
 * and codecs a client takes.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField partition_data_fields[] = {
	{"Index", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaPartitionProduceData, index)},
	{"Records", KAFKA_TYPE_RECORDS, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaPartitionProduceData, records)},
};

static const KafkaSchema partition_data_schema =
KAFKA_SCHEMA("PartitionProduceData", KafkaPartitionProduceData,
			 partition_data_fields);

static const KafkaField topic_data_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTopicProduceData, name)},
	{"PartitionData", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaTopicProduceData, partition_data, npartition_data),
	.flags = KAFKA_FIELD_COUNTED, .schema = &partition_data_schema},
};

static const KafkaSchema topic_data_schema =
KAFKA_SCHEMA("TopicProduceData", KafkaTopicProduceData, topic_data_fields);

static const KafkaField request_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaProduceRequest, transactional_id), .def_null = true},
	{"Acks", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaProduceRequest, acks)},
	{"TimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaProduceRequest, timeout_ms)},
	{"TopicData", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaProduceRequest, topic_data, ntopic_data),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_data_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("ProduceRequest", KafkaProduceRequest, request_fields);

static const KafkaField record_error_fields[] = {
	{"BatchIndex", KAFKA_TYPE_INT32, KAFKA_V_FROM(8),
	KAFKA_AT(KafkaBatchIndexAndErrorMessage, batch_index)},
	{"BatchIndexErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(8),
		KAFKA_NULLABLE_FROM(8),
		KAFKA_AT(KafkaBatchIndexAndErrorMessage, batch_index_error_message),
	.def_null = true},
};

static const KafkaSchema record_error_schema =
KAFKA_SCHEMA("BatchIndexAndErrorMessage", KafkaBatchIndexAndErrorMessage,
			 record_error_fields);

static const KafkaField leader_fields[] = {
	{"LeaderId", KAFKA_TYPE_INT32, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaLeaderIdAndEpoch, leader_id), .def = -1},
	{"LeaderEpoch", KAFKA_TYPE_INT32, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaLeaderIdAndEpoch, leader_epoch), .def = -1},
};

static const KafkaSchema leader_schema =
KAFKA_SCHEMA("LeaderIdAndEpoch", KafkaLeaderIdAndEpoch, leader_fields);

static const KafkaField partition_response_fields[] = {
	{"Index", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaPartitionProduceResponse, index)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaPartitionProduceResponse, error_code)},
	{"BaseOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaPartitionProduceResponse, base_offset)},
	{"LogAppendTimeMs", KAFKA_TYPE_INT64, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaPartitionProduceResponse, log_append_time_ms), .def = -1},
	{"LogStartOffset", KAFKA_TYPE_INT64, KAFKA_V_FROM(5),
	KAFKA_AT(KafkaPartitionProduceResponse, log_start_offset), .def = -1},
	{"RecordErrors", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(8),
		KAFKA_ARRAY_AT(KafkaPartitionProduceResponse, record_errors,
					   nrecord_errors),
	.schema = &record_error_schema},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(8), KAFKA_NULLABLE_FROM(8),
	KAFKA_AT(KafkaPartitionProduceResponse, error_message), .def_null = true},
	{"CurrentLeader", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(10), KAFKA_TAGGED(0, 10),
		KAFKA_AT(KafkaPartitionProduceResponse, current_leader),
	.schema = &leader_schema},
};

static const KafkaSchema partition_response_schema =
KAFKA_SCHEMA("PartitionProduceResponse", KafkaPartitionProduceResponse,
			 partition_response_fields);

static const KafkaField topic_response_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaTopicProduceResponse, name)},
	{"PartitionResponses", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaTopicProduceResponse, partition_responses,
					   npartition_responses),
	.flags = KAFKA_FIELD_COUNTED, .schema = &partition_response_schema},
};

static const KafkaSchema topic_response_schema =
KAFKA_SCHEMA("TopicProduceResponse", KafkaTopicProduceResponse,
			 topic_response_fields);

static const KafkaField node_endpoint_fields[] = {
	{"NodeId", KAFKA_TYPE_INT32, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaProduceNodeEndpoint, node_id)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaProduceNodeEndpoint, host)},
	{"Port", KAFKA_TYPE_INT32, KAFKA_V_FROM(10),
	KAFKA_AT(KafkaProduceNodeEndpoint, port)},
	{"Rack", KAFKA_TYPE_STRING, KAFKA_V_FROM(10), KAFKA_NULLABLE_FROM(10),
	KAFKA_AT(KafkaProduceNodeEndpoint, rack), .def_null = true},
};

static const KafkaSchema node_endpoint_schema =
KAFKA_SCHEMA("NodeEndpoint", KafkaProduceNodeEndpoint, node_endpoint_fields);

static const KafkaField response_fields[] = {
	{"Responses", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaProduceResponse, responses, nresponses),
	.flags = KAFKA_FIELD_COUNTED, .schema = &topic_response_schema},
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaProduceResponse, throttle_time_ms)},
	{"NodeEndpoints", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(10), KAFKA_TAGGED(0, 10),
		KAFKA_ARRAY_AT(KafkaProduceResponse, node_endpoints, nnode_endpoints),
	.schema = &node_endpoint_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("ProduceResponse", KafkaProduceResponse, response_fields);

const KafkaMessage kafka_produce_request = {
	"ProduceRequest", KAFKA_API_PRODUCE, KAFKA_PRODUCE_MIN_VERSION,
	KAFKA_PRODUCE_MAX_VERSION, KAFKA_PRODUCE_FIRST_FLEXIBLE, &request_schema
};

const KafkaMessage kafka_produce_response = {
	"ProduceResponse", KAFKA_API_PRODUCE, KAFKA_PRODUCE_MIN_VERSION,
	KAFKA_PRODUCE_MAX_VERSION, KAFKA_PRODUCE_FIRST_FLEXIBLE, &response_schema
};
