/*-------------------------------------------------------------------------
 *
 * msg_end_txn.c
 *	  EndTxn's request and response (Kafka 3.9: versions 0-4, flexible
 *	  from 3), for the schema codec (schema.h).
 *
 * The fields never changed: v1 changed how quotas throttle, v2 allows
 * PRODUCER_FENCED, v3 is flexible, v4 allows TRANSACTION_ABORTABLE.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_end_txn.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"TransactionalId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEndTxnRequest, transactional_id)},
	{"ProducerId", KAFKA_TYPE_INT64, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEndTxnRequest, producer_id)},
	{"ProducerEpoch", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEndTxnRequest, producer_epoch)},
	{"Committed", KAFKA_TYPE_BOOL, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEndTxnRequest, committed)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("EndTxnRequest", KafkaEndTxnRequest, request_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEndTxnResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaEndTxnResponse, error_code)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("EndTxnResponse", KafkaEndTxnResponse, response_fields);

const KafkaMessage kafka_end_txn_request = {
	"EndTxnRequest", KAFKA_API_END_TXN, 0, 4, 3, &request_schema
};

const KafkaMessage kafka_end_txn_response = {
	"EndTxnResponse", KAFKA_API_END_TXN, 0, 4, 3, &response_schema
};
