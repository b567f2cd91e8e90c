/*-------------------------------------------------------------------------
 *
 * msg_sasl_handshake.h
 *	  SaslHandshake (API key 17), versions 0-1, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_sasl_handshake.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_SASL_HANDSHAKE_H
#define TOPIC_WIRE_MSG_SASL_HANDSHAKE_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c); none is flexible */
#define KAFKA_SASL_HANDSHAKE_VERSIONS			0, 1
#define KAFKA_SASL_HANDSHAKE_FIRST_FLEXIBLE		(-1)

typedef struct KafkaSaslHandshakeRequest
{
	KafkaBytes	mechanism;
} KafkaSaslHandshakeRequest;

typedef struct KafkaSaslHandshakeResponse
{
	int16		error_code;
	int32		nmechanisms;
	KafkaBytes *mechanisms;
} KafkaSaslHandshakeResponse;

extern const KafkaMessage kafka_sasl_handshake_request;
extern const KafkaMessage kafka_sasl_handshake_response;

#endif							/* TOPIC_WIRE_MSG_SASL_HANDSHAKE_H */
