/*-------------------------------------------------------------------------
 *
 * consumer_protocol.h
 *	  What Kafka consumers put in a group's opaque bytes: a member's
 *	  subscription (JoinGroup metadata) and assignment (SyncGroup), as the
 *	  "consumer" protocol type encodes them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_CONSUMER_PROTOCOL_H
#define TOPIC_WIRE_CONSUMER_PROTOCOL_H

#include "pg_topics/wire/codec.h"

/* One topic of an assignment, and its partitions */
typedef struct KafkaTopicPartitions
{
	KafkaBytes	topic;
	int32		npartitions;
	int32	   *partitions;		/* palloc'd */
} KafkaTopicPartitions;

/* The topics of a subscription (palloc'd); -1, allocating nothing, if malformed */
extern int	kafka_subscription_topics(const char *data, int len,
									  KafkaBytes **topics);

/*
 * The topic-partitions of an assignment (palloc'd; none for an empty one);
 * -1, allocating nothing, if malformed
 */
extern int	kafka_assignment_partitions(const char *data, int len,
										KafkaTopicPartitions **assigned);

/* Free an assignment's n topic-partitions (NULL is none) */
extern void kafka_assignment_free(KafkaTopicPartitions *assigned, int n);

#endif							/* TOPIC_WIRE_CONSUMER_PROTOCOL_H */
