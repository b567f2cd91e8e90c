/*-------------------------------------------------------------------------
 *
 * msg_sasl_handshake.c
 *	  SaslHandshake's request and response (Kafka 3.9: versions 0-1, none
 *	  flexible), for the schema codec (schema.h).
 *
 * The versions have the same fields: v0's exchange follows as bare tokens,
 * v1's in SaslAuthenticate requests.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_sasl_handshake.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"Mechanism", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSaslHandshakeRequest, mechanism)},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("SaslHandshakeRequest", KafkaSaslHandshakeRequest, request_fields);

static const KafkaField response_fields[] = {
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSaslHandshakeResponse, error_code)},
	{"Mechanisms", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_ARRAY_AT(KafkaSaslHandshakeResponse, mechanisms, nmechanisms)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("SaslHandshakeResponse", KafkaSaslHandshakeResponse,
			 response_fields);

const KafkaMessage kafka_sasl_handshake_request = {
	"SaslHandshakeRequest", KAFKA_API_SASL_HANDSHAKE, 0, 1, -1, &request_schema
};

const KafkaMessage kafka_sasl_handshake_response = {
	"SaslHandshakeResponse", KAFKA_API_SASL_HANDSHAKE, 0, 1, -1, &response_schema
};
