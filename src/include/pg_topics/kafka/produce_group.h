/*-------------------------------------------------------------------------
 *
 * produce_group.h
 *	  Which Produce requests a connection sent back to back share one
 *	  transaction (kafka/produce_group.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_PRODUCE_GROUP_H
#define TOPIC_KAFKA_PRODUCE_GROUP_H

#include "pg_topics/kafka/request.h"

extern int	kafka_group_frames(KafkaConn *conn, int32 first_len,
							   KafkaFrame *frames, int *used);

#endif							/* TOPIC_KAFKA_PRODUCE_GROUP_H */
