/*-------------------------------------------------------------------------
 *
 * topic_configs.h
 *	  Setting a topic's configs: topics.alter_topic_configs, the configs of
 *	  create_topic, and the same for the Kafka listener's CreateTopics,
 *	  AlterConfigs and IncrementalAlterConfigs.
 *
 * The keys, their checks and the effective values are in
 * base/topic_config.h; how a Kafka handler uses the two is described
 * there.  Both functions here throw (ereport) on any problem, after which
 * nothing of the changes is applied; a handler that must answer
 * INVALID_CONFIG per resource runs topic_config_check_changes() first.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_TOPIC_CONFIGS_H
#define TOPIC_TOPIC_CONFIGS_H

#include "datatype/timestamp.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "pg_topics/base/topic_config.h"

/*
 * What a topic's row of topics.topic_config holds once changes are
 * applied: the retention and retention_bytes columns (NULL / false: none)
 * and the configs column (a JSON object of every other key set, as text)
 */
typedef struct TopicConfigRow
{
	Interval   *retention;
	bool		has_retention_bytes;
	int64		retention_bytes;
	char	   *configs_json;
} TopicConfigRow;

/*
 * Apply changes (a NULL value resets its key) to current, what a topic
 * sets now (NULL: a new topic), into row.  Throws 22023 (or 0A000, see
 * topic_config_check) on the first bad change, naming its key.
 */
extern void topic_configs_merge(const TopicConfig *current,
								const TopicConfigChange *changes,
								int nchanges, TopicConfigRow *row);

/*
 * Set and reset configs of topic, all or none: the caller must own the
 * topic (42501), the transaction must be read-write (25006), every change
 * must be good (22023 or 0A000, naming the key).  New segment sizes and
 * roll ages apply to the partitions at once; retention is applied by the
 * worker's next round (or topics.enforce_retention).
 */
extern void topic_configs_alter(Oid topic, const TopicConfigChange *changes,
								int nchanges);

/*
 * The changes a jsonb object of key/value pairs asks for (values: JSON
 * strings or numbers); with NULL values for each key of reset, an array of
 * text, if not NULL.  Throws 22023 on anything else.
 */
extern TopicConfigChange *topic_configs_from_jsonb(Jsonb *set, ArrayType *reset,
												   int *nchanges);

#endif							/* TOPIC_TOPIC_CONFIGS_H */
