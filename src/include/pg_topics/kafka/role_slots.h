/*-------------------------------------------------------------------------
 *
 * role_slots.h
 *	  The Kafka connections a role may hold: its CONNECTION LIMIT and a
 *	  share of pg_topics.kafka_max_connections.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_ROLE_SLOTS_H
#define TOPIC_KAFKA_ROLE_SLOTS_H

#include "pg_topics/kafka/request.h"

/* This listener process (number worker) counts connections from now on */
extern void kafka_role_slots_start(int worker);

/* conn authenticated as conn->role: may it stay?  (in a transaction) */
extern bool kafka_role_slot_claim(KafkaConn *conn);

/* conn closes: its role holds one connection less */
extern void kafka_role_slot_release(KafkaConn *conn);

#endif							/* TOPIC_KAFKA_ROLE_SLOTS_H */
