/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  The pg_topics.* settings.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SETTINGS_H
#define TOPIC_SETTINGS_H

#include "storage/block.h"

/*
 * TIDs of a router name the segment in the block number's high bits, so
 * that they stay unique across segments: 2^17 blocks (1 GB) per segment.
 * That bounds pg_topics.segment_size.
 */
#define TOPIC_SEGMENT_TID_BITS		17
#define TOPIC_SEGMENT_MAX_BLOCKS	((BlockNumber) ((1 << TOPIC_SEGMENT_TID_BITS) - 1))
/* the largest size a segment rolls at: room for one more insert call */
#define TOPIC_SEGMENT_MAX_ROLL_BLOCKS	(TOPIC_SEGMENT_MAX_BLOCKS - 4096)

/* every pg_topics.* setting (settings.c) */
extern int	pg_topics_max_message_bytes;
extern int	pg_topics_max_partitions_per_transaction;
extern int	pg_topics_auto_offset_reset;
extern int	pg_topics_session_timeout;
extern int	pg_topics_max_groups;
extern int	pg_topics_segment_size;
extern int	pg_topics_worker_naptime;
extern int	pg_topics_compaction_buffer_size;
extern double pg_topics_compaction_cost_delay;
extern int	pg_topics_compaction_cost_limit;
extern int	pg_topics_max_producer_transaction_age;
extern int	pg_topics_max_group_partitions;
extern int	pg_topics_max_groups_per_role;
extern int	pg_topics_max_group_partitions_per_role;
extern int	pg_topics_kafka_port;
extern char *pg_topics_kafka_listen_addresses;
extern char *pg_topics_kafka_database;
extern char *pg_topics_kafka_schema;
extern int	pg_topics_kafka_workers;
extern int	pg_topics_kafka_auth;
extern char *pg_topics_kafka_trust_role;
extern int	pg_topics_kafka_group_initial_rebalance_delay;
extern int	pg_topics_kafka_max_connections;
extern int	pg_topics_kafka_idle_timeout;
extern int	pg_topics_kafka_max_transactions;
extern int	pg_topics_kafka_max_transactions_per_role;
extern int	pg_topics_kafka_transaction_max_timeout;
extern int	pg_topics_kafka_transaction_worker_idle_timeout;
extern int	pg_topics_kafka_transactional_id_expiration;
extern int	pg_topics_kafka_max_request_bytes;
extern char *pg_topics_kafka_brokers;
extern int	pg_topics_kafka_listener_memory;
extern bool pg_topics_kafka_auto_create_topics;
extern int	pg_topics_kafka_default_partitions;

/* pg_topics.kafka_auth */
typedef enum TopicKafkaAuth
{
	TOPIC_KAFKA_AUTH_TRUST,
	TOPIC_KAFKA_AUTH_SCRAM,
	TOPIC_KAFKA_AUTH_PLAIN
} TopicKafkaAuth;

/* pg_topics.auto_offset_reset */
typedef enum TopicOffsetReset
{
	TOPIC_RESET_EARLIEST,
	TOPIC_RESET_LATEST,
	TOPIC_RESET_ERROR
} TopicOffsetReset;
extern void topic_guc_init(void);
extern bool topic_kafka_broker_parse(const char *entry, char **host, int *port);

#endif							/* TOPIC_SETTINGS_H */
