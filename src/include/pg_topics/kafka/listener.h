/*-------------------------------------------------------------------------
 *
 * listener.h
 *	  The Kafka listener's processes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_LISTENER_H
#define TOPIC_KAFKA_LISTENER_H

#include "pg_topics/kafka/request.h"

extern void topic_kafka_init(void);
extern char *kafka_advertised_host(KafkaConn *conn);

#endif							/* TOPIC_KAFKA_LISTENER_H */
