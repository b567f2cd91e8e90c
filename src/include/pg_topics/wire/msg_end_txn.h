/*-------------------------------------------------------------------------
 *
 * msg_end_txn.h
 *	  EndTxn (API key 26), versions 0-4, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_end_txn.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_END_TXN_H
#define TOPIC_WIRE_MSG_END_TXN_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaEndTxnRequest
{
	KafkaBytes	transactional_id;
	int64		producer_id;
	int16		producer_epoch;
	bool		committed;		/* false: abort */
} KafkaEndTxnRequest;

typedef struct KafkaEndTxnResponse
{
	int32		throttle_time_ms;
	int16		error_code;
} KafkaEndTxnResponse;

extern const KafkaMessage kafka_end_txn_request;
extern const KafkaMessage kafka_end_txn_response;

#endif							/* TOPIC_WIRE_MSG_END_TXN_H */
