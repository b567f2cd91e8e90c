/*-------------------------------------------------------------------------
 *
 * consumer_offsets_topic.h
 *	  Kafka's read-only __consumer_offsets topic, served from
 *	  topics.consumer_offsets (consumer_offsets_topic.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_CONSUMER_OFFSETS_TOPIC_H
#define TOPIC_KAFKA_CONSUMER_OFFSETS_TOPIC_H

#include "lib/stringinfo.h"

#include "pg_topics/kafka/request.h"
#include "pg_topics/wire/codec.h"

extern bool kafka_is_offsets_topic(KafkaBytes name);
extern bool kafka_offsets_topic_listed(void);
extern bool kafka_offsets_topic_check_offset(KafkaRequest *req,
											 int64 fetch_offset,
											 int64 *log_start,
											 int64 *last_stable);
extern void kafka_offsets_topic_read(StringInfo out, int magic,
									 int64 fetch_offset, Size budget,
									 bool min_one, int64 *last_stable);

#endif							/* TOPIC_KAFKA_CONSUMER_OFFSETS_TOPIC_H */
