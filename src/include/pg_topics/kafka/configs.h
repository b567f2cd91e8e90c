/*-------------------------------------------------------------------------
 *
 * configs.h
 *	  DescribeConfigs, AlterConfigs and IncrementalAlterConfigs
 *	  (kafka/configs.c), and Kafka's source of a topic config's value,
 *	  which CreateTopics answers too.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_CONFIGS_H
#define TOPIC_KAFKA_CONFIGS_H

#include "pg_topics/base/topic_config.h"
#include "pg_topics/kafka/request.h"

extern KafkaOutcome kafka_describe_configs(KafkaRequest *req,
										   TimestampTz *deadline);
extern KafkaOutcome kafka_alter_configs(KafkaRequest *req,
										TimestampTz *deadline);
extern KafkaOutcome kafka_incremental_alter_configs(KafkaRequest *req,
													TimestampTz *deadline);

/* DescribeConfigs' ConfigSource of a value from source */
extern int8 kafka_config_source(TopicConfigSource source);

#endif							/* TOPIC_KAFKA_CONFIGS_H */
