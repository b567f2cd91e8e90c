/*-------------------------------------------------------------------------
 *
 * topic_id.h
 *	  Kafka's topic ids (UUIDs) of topics (topic_id.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_TOPIC_ID_H
#define TOPIC_KAFKA_TOPIC_ID_H

#include "pg_topics/wire/schema.h"

extern KafkaUuid kafka_topic_id(Oid relid);

#endif							/* TOPIC_KAFKA_TOPIC_ID_H */
