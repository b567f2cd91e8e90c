/*-------------------------------------------------------------------------
 *
 * msg_describe_cluster.h
 *	  DescribeCluster (API key 60), versions 0-1, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_describe_cluster.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DESCRIBE_CLUSTER_H
#define TOPIC_WIRE_MSG_DESCRIBE_CLUSTER_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_DESCRIBE_CLUSTER_VERSIONS			0, 1
#define KAFKA_DESCRIBE_CLUSTER_FIRST_FLEXIBLE	0

/* DescribeCluster's endpoint types (v1+) */
#define KAFKA_ENDPOINT_BROKERS		1
#define KAFKA_ENDPOINT_CONTROLLERS	2

typedef struct KafkaDescribeClusterRequest
{
	bool		include_cluster_authorized_operations;
	int8		endpoint_type;	/* v1+, default 1 (brokers) */
} KafkaDescribeClusterRequest;

typedef struct KafkaDescribeClusterBroker
{
	int32		broker_id;
	KafkaBytes	host;
	int32		port;
	KafkaBytes	rack;			/* null */
} KafkaDescribeClusterBroker;

typedef struct KafkaDescribeClusterResponse
{
	int32		throttle_time_ms;
	int16		error_code;
	KafkaBytes	error_message;	/* null */
	int8		endpoint_type;	/* v1+, default 1 */
	KafkaBytes	cluster_id;
	int32		controller_id;	/* default -1 */
	int32		nbrokers;
	KafkaDescribeClusterBroker *brokers;
	int32		cluster_authorized_operations;	/* default INT32_MIN */
} KafkaDescribeClusterResponse;

extern const KafkaMessage kafka_describe_cluster_request;
extern const KafkaMessage kafka_describe_cluster_response;

#endif							/* TOPIC_WIRE_MSG_DESCRIBE_CLUSTER_H */
