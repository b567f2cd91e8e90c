/*-------------------------------------------------------------------------
 *
 * msg_sasl_authenticate.c
 *	  SaslAuthenticate's request and response (Kafka 3.9: versions 0-2,
 *	  flexible from 2), for the schema codec (schema.h).
 *
 * v1 adds the session's lifetime to the response, v2 is flexible.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_sasl_authenticate.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"AuthBytes", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSaslAuthenticateRequest, auth_bytes)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("SaslAuthenticateRequest", KafkaSaslAuthenticateRequest,
			 request_fields);

static const KafkaField response_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSaslAuthenticateResponse, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(0),
	KAFKA_AT(KafkaSaslAuthenticateResponse, error_message), .def_null = true},
	{"AuthBytes", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSaslAuthenticateResponse, auth_bytes)},
	{"SessionLifetimeMs", KAFKA_TYPE_INT64, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaSaslAuthenticateResponse, session_lifetime_ms)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("SaslAuthenticateResponse", KafkaSaslAuthenticateResponse,
			 response_fields);

const KafkaMessage kafka_sasl_authenticate_request = {
	"SaslAuthenticateRequest", KAFKA_API_SASL_AUTHENTICATE, 0, 2, 2,
	&request_schema
};

const KafkaMessage kafka_sasl_authenticate_response = {
	"SaslAuthenticateResponse", KAFKA_API_SASL_AUTHENTICATE, 0, 2, 2,
	&response_schema
};
