/*-------------------------------------------------------------------------
 *
 * msg_metadata.h
 *	  Metadata (API key 3), versions 0-12, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_metadata.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_METADATA_H
#define TOPIC_WIRE_MSG_METADATA_H

#include "pg_topics/wire/schema.h"

/* Kafka's "not requested" authorized operations (v8+) */
#define KAFKA_AUTHORIZED_OPERATIONS_OMITTED	PG_INT32_MIN

/* A topic a client asks about */
typedef struct KafkaMetadataRequestTopic
{
	KafkaUuid	topic_id;		/* v10+ */
	KafkaBytes	name;			/* null (v10+): by its id */
} KafkaMetadataRequestTopic;

/*
 * ntopics -1 (a null list, v1+) asks for every topic, as an empty list
 * does in v0
 */
typedef struct KafkaMetadataRequest
{
	int32		ntopics;
	KafkaMetadataRequestTopic *topics;
	bool		allow_auto_topic_creation;	/* v4+, default true */
	bool		include_cluster_authorized_operations;	/* v8-10 */
	bool		include_topic_authorized_operations;	/* v8+ */
} KafkaMetadataRequest;

typedef struct KafkaMetadataResponseBroker
{
	int32		node_id;
	KafkaBytes	host;
	int32		port;
	KafkaBytes	rack;			/* v1+, null */
} KafkaMetadataResponseBroker;

typedef struct KafkaMetadataResponsePartition
{
	int16		error_code;
	int32		partition_index;
	int32		leader_id;
	int32		leader_epoch;	/* v7+, default -1 */
	int32		nreplica_nodes;
	int32	   *replica_nodes;
	int32		nisr_nodes;
	int32	   *isr_nodes;
	int32		noffline_replicas;	/* v5+ */
	int32	   *offline_replicas;
} KafkaMetadataResponsePartition;

typedef struct KafkaMetadataResponseTopic
{
	int16		error_code;
	KafkaBytes	name;			/* null allowed v12+ */
	KafkaUuid	topic_id;		/* v10+ */
	bool		is_internal;	/* v1+ */
	int32		npartitions;
	KafkaMetadataResponsePartition *partitions;
	int32		topic_authorized_operations;	/* v8+ */
} KafkaMetadataResponseTopic;

typedef struct KafkaMetadataResponse
{
	int32		throttle_time_ms;	/* v3+ */
	int32		nbrokers;
	KafkaMetadataResponseBroker *brokers;
	KafkaBytes	cluster_id;		/* v2+, null */
	int32		controller_id;	/* v1+, default -1 */
	int32		ntopics;
	KafkaMetadataResponseTopic *topics;
	int32		cluster_authorized_operations;	/* v8-10 */
} KafkaMetadataResponse;

extern const KafkaMessage kafka_metadata_request;
extern const KafkaMessage kafka_metadata_response;

#endif							/* TOPIC_WIRE_MSG_METADATA_H */
