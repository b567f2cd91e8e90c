/*-------------------------------------------------------------------------
 *
 * fence.h
 *	  Whether this node takes Kafka writes (fence.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_FENCE_H
#define TOPIC_KAFKA_FENCE_H

extern void kafka_fence_reload(bool say);
extern bool kafka_node_fenced(void);
extern bool kafka_writes_refused(void);

#endif							/* TOPIC_KAFKA_FENCE_H */
