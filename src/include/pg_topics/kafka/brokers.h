/*-------------------------------------------------------------------------
 *
 * brokers.h
 *	  The brokers Kafka clients see, and their node ids (brokers.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_BROKERS_H
#define TOPIC_KAFKA_BROKERS_H

#include "pg_topics/kafka/request.h"

/* One broker: a node of the formation, at its Kafka listener's address */
typedef struct KafkaBroker
{
	int32		node_id;
	const char *host;
	int32		port;
} KafkaBroker;

extern int	kafka_brokers(KafkaConn *conn, KafkaBroker **brokers, int *self);
extern KafkaBroker kafka_self_broker(KafkaConn *conn);
extern void kafka_brokers_init(const int *fds, int n);
extern void kafka_brokers_reload(void);

/* cluster.c: the cluster id of Metadata and DescribeCluster */
extern const char *kafka_cluster_id(void);

#endif							/* TOPIC_KAFKA_BROKERS_H */
