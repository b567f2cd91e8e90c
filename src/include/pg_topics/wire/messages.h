/*-------------------------------------------------------------------------
 *
 * messages.h
 *	  The Kafka messages described for the schema codec (schema.h), by API
 *	  key: the server takes an API's versions and flexible versions from
 *	  them, the unit tests and the fuzz target their field tables.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MESSAGES_H
#define TOPIC_WIRE_MESSAGES_H

#include "pg_topics/wire/schema.h"

/* The request or response of API key, or NULL if it is not described */
extern const KafkaMessage *kafka_request_message(int16 api_key);
extern const KafkaMessage *kafka_response_message(int16 api_key);

#endif							/* TOPIC_WIRE_MESSAGES_H */
