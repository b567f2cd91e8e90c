/*-------------------------------------------------------------------------
 *
 * topic_names.h
 *	  Kafka topic names and the tables they name (topic_names.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_NAMES_H
#define TOPIC_NAMES_H

#include "nodes/primnodes.h"
#include "utils/relcache.h"

/* Kafka's longest topic name (its Topic.MAX_NAME_LENGTH) */
#define TOPIC_KAFKA_NAME_MAX	249

/* Kafka's internal topic of group positions (kafka/consumer_offsets_topic.c) */
#define TOPIC_KAFKA_OFFSETS_TOPIC	"__consumer_offsets"

extern bool topic_kafka_name_reserved(const char *name, int len);
extern bool topic_kafka_name_legal(const char *name, int len);
extern char *topic_kafka_table_name(const char *name, int len);
extern Oid	topic_kafka_lookup(const char *name, int len);
extern bool topic_kafka_name_still(Relation rel, const char *name, int len);
extern char *topic_kafka_name(Oid relid);
extern RangeVar *topic_parse_creation_name(text *name, char **kafka_name);
extern void topic_kafka_name_record(Oid relid, const char *kafka_name);

#endif							/* TOPIC_NAMES_H */
