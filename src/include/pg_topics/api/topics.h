/*-------------------------------------------------------------------------
 *
 * topics.h
 *	  Creating and dropping topics, for create_topic and drop_topic and for
 *	  the Kafka listener's CreateTopics and DeleteTopics.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_TOPICS_H
#define TOPIC_TOPICS_H

#include "datatype/timestamp.h"

#include "pg_topics/base/topic_config.h"

extern void topic_refuse_undumped_schema(Oid nspid);
extern Oid	topic_create(text *name, int32 partitions, Oid key_type,
						 Oid value_type, Interval *retention,
						 bool has_retention_bytes, int64 retention_bytes);
extern Oid	topic_create_configured(text *name, int32 partitions,
									Oid key_type, Oid value_type,
									Interval *retention,
									bool has_retention_bytes,
									int64 retention_bytes,
									const TopicConfigChange *changes,
									int nchanges);
extern void topic_drop(text *name);
extern int64 topic_width_limit(void);

#endif							/* TOPIC_TOPICS_H */
