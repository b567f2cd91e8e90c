/*-------------------------------------------------------------------------
 *
 * lost_transactions.h
 *	  Ending the Kafka transactions that lost their PostgreSQL transaction.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_LOST_TRANSACTIONS_H
#define TOPIC_LOST_TRANSACTIONS_H

extern void topic_end_lost_kafka_transactions(void);

#endif							/* TOPIC_LOST_TRANSACTIONS_H */
