/*-------------------------------------------------------------------------
 *
 * producer_log.h
 *	  An idempotent Kafka producer's last batches, read back from a
 *	  partition's log.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_PRODUCER_LOG_H
#define TOPIC_KAFKA_PRODUCER_LOG_H

#include "utils/rel.h"

#include "pg_topics/shared/kafka_producers.h"

extern void kafka_producer_history(Relation router, int64 producer_id,
								   KafkaProducerHistory *history);

#endif							/* TOPIC_KAFKA_PRODUCER_LOG_H */
