/*-------------------------------------------------------------------------
 *
 * msg_init_producer_id.h
 *	  InitProducerId (API key 22), versions 0-5, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_init_producer_id.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_INIT_PRODUCER_ID_H
#define TOPIC_WIRE_MSG_INIT_PRODUCER_ID_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_INIT_PRODUCER_ID_VERSIONS			0, 5
#define KAFKA_INIT_PRODUCER_ID_FIRST_FLEXIBLE	2

typedef struct KafkaInitProducerIdRequest
{
	KafkaBytes	transactional_id;	/* null unless transactional */
	int32		transaction_timeout_ms;
	int64		producer_id;	/* v3+, default -1: the producer's own */
	int16		producer_epoch; /* v3+, default -1 */
} KafkaInitProducerIdRequest;

typedef struct KafkaInitProducerIdResponse
{
	int32		throttle_time_ms;
	int16		error_code;
	int64		producer_id;	/* default -1 */
	int16		producer_epoch;
} KafkaInitProducerIdResponse;

extern const KafkaMessage kafka_init_producer_id_request;
extern const KafkaMessage kafka_init_producer_id_response;

#endif							/* TOPIC_WIRE_MSG_INIT_PRODUCER_ID_H */
