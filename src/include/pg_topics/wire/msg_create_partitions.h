/*-------------------------------------------------------------------------
 *
 * msg_create_partitions.h
 *	  CreatePartitions (API key 37), versions 0-3, as structs for the
 *	  schema codec (schema.h; the field tables are in
 *	  wire/msg_create_partitions.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_CREATE_PARTITIONS_H
#define TOPIC_WIRE_MSG_CREATE_PARTITIONS_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_CREATE_PARTITIONS_VERSIONS		0, 3
#define KAFKA_CREATE_PARTITIONS_FIRST_FLEXIBLE	2

typedef struct KafkaCreatePartitionsAssignment
{
	int32		nbroker_ids;
	int32	   *broker_ids;
} KafkaCreatePartitionsAssignment;

typedef struct KafkaCreatePartitionsTopic
{
	KafkaBytes	name;
	int32		count;			/* the new partition count */
	int32		nassignments;	/* -1: null (the broker's choice) */
	KafkaCreatePartitionsAssignment *assignments;
} KafkaCreatePartitionsTopic;

typedef struct KafkaCreatePartitionsRequest
{
	int32		ntopics;
	KafkaCreatePartitionsTopic *topics;
	int32		timeout_ms;
	bool		validate_only;
} KafkaCreatePartitionsRequest;

typedef struct KafkaCreatePartitionsTopicResult
{
	KafkaBytes	name;
	int16		error_code;
	KafkaBytes	error_message;	/* null */
} KafkaCreatePartitionsTopicResult;

typedef struct KafkaCreatePartitionsResponse
{
	int32		throttle_time_ms;
	int32		nresults;
	KafkaCreatePartitionsTopicResult *results;
} KafkaCreatePartitionsResponse;

extern const KafkaMessage kafka_create_partitions_request;
extern const KafkaMessage kafka_create_partitions_response;

#endif							/* TOPIC_WIRE_MSG_CREATE_PARTITIONS_H */
