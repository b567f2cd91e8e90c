/*-------------------------------------------------------------------------
 *
 * subscription.h
 *	  Is a partition fed by logical replication?
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SUBSCRIPTION_H
#define TOPIC_SUBSCRIPTION_H

extern bool topic_partition_is_replica(Oid router, Oid topic);

#endif							/* TOPIC_SUBSCRIPTION_H */
