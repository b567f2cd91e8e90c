/*-------------------------------------------------------------------------
 *
 * msg_sasl_authenticate.h
 *	  SaslAuthenticate (API key 36), versions 0-2, as structs for the
 *	  schema codec (schema.h; the field tables are in
 *	  wire/msg_sasl_authenticate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_SASL_AUTHENTICATE_H
#define TOPIC_WIRE_MSG_SASL_AUTHENTICATE_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_SASL_AUTHENTICATE_VERSIONS		0, 2
#define KAFKA_SASL_AUTHENTICATE_FIRST_FLEXIBLE	2

typedef struct KafkaSaslAuthenticateRequest
{
	KafkaBytes	auth_bytes;
} KafkaSaslAuthenticateRequest;

typedef struct KafkaSaslAuthenticateResponse
{
	int16		error_code;
	KafkaBytes	error_message;	/* null */
	KafkaBytes	auth_bytes;
	int64		session_lifetime_ms;	/* v1+; 0: no limit */
} KafkaSaslAuthenticateResponse;

extern const KafkaMessage kafka_sasl_authenticate_request;
extern const KafkaMessage kafka_sasl_authenticate_response;

#endif							/* TOPIC_WIRE_MSG_SASL_AUTHENTICATE_H */
