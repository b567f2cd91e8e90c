/*-------------------------------------------------------------------------
 *
 * sasl.h
 *	  Authenticating Kafka clients: SaslHandshake, SaslAuthenticate and
 *	  kafka-python's unframed tokens.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_SASL_H
#define TOPIC_KAFKA_SASL_H

#include "pg_topics/kafka/request.h"

extern bool kafka_sasl_authenticated(KafkaConn *conn);
extern KafkaOutcome kafka_sasl_handshake(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_sasl_authenticate(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_sasl_raw_token(KafkaRequest *req, TimestampTz *deadline);

#endif							/* TOPIC_KAFKA_SASL_H */
