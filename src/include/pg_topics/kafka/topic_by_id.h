/*-------------------------------------------------------------------------
 *
 * topic_by_id.h
 *	  Finding a Kafka topic by its topic id (kafka/topic_by_id.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_TOPIC_BY_ID_H
#define TOPIC_KAFKA_TOPIC_BY_ID_H

#include "pg_topics/wire/schema.h"

/* The topics of pg_topics.kafka_schema and their ids, for one request */
typedef struct KafkaTopicIds KafkaTopicIds;

extern KafkaTopicIds *kafka_topic_ids(void);
extern KafkaBytes kafka_topic_name_of_id(KafkaTopicIds *ids, const KafkaUuid *id);

#endif							/* TOPIC_KAFKA_TOPIC_BY_ID_H */
