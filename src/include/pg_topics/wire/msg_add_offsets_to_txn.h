/*-------------------------------------------------------------------------
 *
 * msg_add_offsets_to_txn.h
 *	  AddOffsetsToTxn (API key 25), versions 0-4, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_add_offsets_to_txn.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_ADD_OFFSETS_TO_TXN_H
#define TOPIC_WIRE_MSG_ADD_OFFSETS_TO_TXN_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaAddOffsetsToTxnRequest
{
	KafkaBytes	transactional_id;
	int64		producer_id;
	int16		producer_epoch;
	KafkaBytes	group_id;
} KafkaAddOffsetsToTxnRequest;

typedef struct KafkaAddOffsetsToTxnResponse
{
	int32		throttle_time_ms;
	int16		error_code;
} KafkaAddOffsetsToTxnResponse;

extern const KafkaMessage kafka_add_offsets_to_txn_request;
extern const KafkaMessage kafka_add_offsets_to_txn_response;

#endif							/* TOPIC_WIRE_MSG_ADD_OFFSETS_TO_TXN_H */
