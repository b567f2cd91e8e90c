/*-------------------------------------------------------------------------
 *
 * expired_transactional_ids.h
 *	  Deleting the Kafka transactional ids unused for longer than
 *	  pg_topics.kafka_transactional_id_expiration.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_EXPIRED_TRANSACTIONAL_IDS_H
#define TOPIC_EXPIRED_TRANSACTIONAL_IDS_H

extern void topic_expire_kafka_transactional_ids(void);

#endif							/* TOPIC_EXPIRED_TRANSACTIONAL_IDS_H */
