/*-------------------------------------------------------------------------
 *
 * msg_init_producer_id.c
 *	  InitProducerId's request and response (Kafka 3.9: versions 0-5,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * v1 changed how quotas throttle, v2 is flexible, v3 sends the producer's
 * id and epoch (KIP-360), v4 and v5 only allow new error codes.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_init_producer_id.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaInitProducerIdRequest, transactional_id)},
	{"TransactionTimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaInitProducerIdRequest, transaction_timeout_ms)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaInitProducerIdRequest, producer_id), .def = -1},
	{"ProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaInitProducerIdRequest, producer_epoch), .def = -1},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("InitProducerIdRequest", KafkaInitProducerIdRequest,
			 request_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaInitProducerIdResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaInitProducerIdResponse, error_code)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaInitProducerIdResponse, producer_id), .def = -1},
	{"ProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaInitProducerIdResponse, producer_epoch)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("InitProducerIdResponse", KafkaInitProducerIdResponse,
			 response_fields);

const KafkaMessage kafka_init_producer_id_request = {
	"InitProducerIdRequest", KAFKA_API_INIT_PRODUCER_ID, 0, 5, 2,
	&request_schema
};

const KafkaMessage kafka_init_producer_id_response = {
	"InitProducerIdResponse", KAFKA_API_INIT_PRODUCER_ID, 0, 5, 2,
	&response_schema
};
