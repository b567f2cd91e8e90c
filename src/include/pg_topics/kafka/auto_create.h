/*-------------------------------------------------------------------------
 *
 * auto_create.h
 *	  Topics created on first use, by Metadata (auto_create.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_AUTO_CREATE_H
#define TOPIC_KAFKA_AUTO_CREATE_H

#include "pg_topics/wire/codec.h"

extern int16 kafka_auto_create_topic(KafkaBytes name, int64 *locks_left);

#endif							/* TOPIC_KAFKA_AUTO_CREATE_H */
