/*-------------------------------------------------------------------------
 *
 * msg_delete_records.h
 *	  DeleteRecords (API key 21), versions 0-2, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_delete_records.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DELETE_RECORDS_H
#define TOPIC_WIRE_MSG_DELETE_RECORDS_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_DELETE_RECORDS_VERSIONS		0, 2
#define KAFKA_DELETE_RECORDS_FIRST_FLEXIBLE	2

/* an offset of -1 deletes up to the high watermark */
#define KAFKA_DELETE_TO_HIGH_WATERMARK		(-1)

typedef struct KafkaDeleteRecordsPartition
{
	int32		partition_index;
	int64		offset;			/* records below it go */
} KafkaDeleteRecordsPartition;

typedef struct KafkaDeleteRecordsTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaDeleteRecordsPartition *partitions;
} KafkaDeleteRecordsTopic;

typedef struct KafkaDeleteRecordsRequest
{
	int32		ntopics;
	KafkaDeleteRecordsTopic *topics;
	int32		timeout_ms;
} KafkaDeleteRecordsRequest;

typedef struct KafkaDeleteRecordsPartitionResult
{
	int32		partition_index;
	int64		low_watermark;
	int16		error_code;
} KafkaDeleteRecordsPartitionResult;

typedef struct KafkaDeleteRecordsTopicResult
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaDeleteRecordsPartitionResult *partitions;
} KafkaDeleteRecordsTopicResult;

typedef struct KafkaDeleteRecordsResponse
{
	int32		throttle_time_ms;
	int32		ntopics;
	KafkaDeleteRecordsTopicResult *topics;
} KafkaDeleteRecordsResponse;

extern const KafkaMessage kafka_delete_records_request;
extern const KafkaMessage kafka_delete_records_response;

#endif							/* TOPIC_WIRE_MSG_DELETE_RECORDS_H */
