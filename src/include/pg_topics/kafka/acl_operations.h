/*-------------------------------------------------------------------------
 *
 * acl_operations.h
 *	  Kafka's authorized operations of a topic and of the cluster, from
 *	  GRANTs (acl_operations.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_ACL_OPERATIONS_H
#define TOPIC_KAFKA_ACL_OPERATIONS_H

/* Kafka's AclOperation codes: bit (1 << code) of an authorized set */
#define KAFKA_ACL_READ				3
#define KAFKA_ACL_WRITE				4
#define KAFKA_ACL_CREATE			5
#define KAFKA_ACL_DELETE			6
#define KAFKA_ACL_ALTER				7
#define KAFKA_ACL_DESCRIBE			8
#define KAFKA_ACL_DESCRIBE_CONFIGS	10
#define KAFKA_ACL_ALTER_CONFIGS		11
#define KAFKA_ACL_IDEMPOTENT_WRITE	12

extern int32 kafka_topic_authorized_operations(Oid relid);
extern int32 kafka_cluster_authorized_operations(void);

#endif							/* TOPIC_KAFKA_ACL_OPERATIONS_H */
