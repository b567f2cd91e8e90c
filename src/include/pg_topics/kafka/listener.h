/*-------------------------------------------------------------------------
 *
 * listener.h
 *	  The Kafka listener's processes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_LISTENER_H
#define TOPIC_KAFKA_LISTENER_H

extern void topic_kafka_init(void);

#endif							/* TOPIC_KAFKA_LISTENER_H */
