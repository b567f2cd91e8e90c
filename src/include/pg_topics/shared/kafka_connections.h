/*-------------------------------------------------------------------------
 *
 * kafka_connections.h
 *	  Authenticated Kafka connections per role, across the listener
 *	  processes, in shared memory.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_CONNECTIONS_H
#define TOPIC_KAFKA_CONNECTIONS_H

extern void kafka_connections_shmem_request(void);
extern void kafka_connections_shmem_startup(void);

/* Forget what listener process worker held (it starts, or exits) */
extern void kafka_connections_reset(int worker);

/*
 * Count one more connection of role for listener process worker, unless
 * role's connections (all processes) would then be more than limit;
 * *count gets role's connections before this one.  True if counted.
 */
extern bool kafka_connections_claim(int worker, Oid role, int limit,
									int *count);

/* One connection of role that worker counted has gone */
extern void kafka_connections_release(int worker, Oid role);

#endif							/* TOPIC_KAFKA_CONNECTIONS_H */
