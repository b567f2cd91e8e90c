/*-------------------------------------------------------------------------
 *
 * msg_describe_log_dirs.h
 *	  DescribeLogDirs (API key 35), versions 0-4, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_describe_log_dirs.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DESCRIBE_LOG_DIRS_H
#define TOPIC_WIRE_MSG_DESCRIBE_LOG_DIRS_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_DESCRIBE_LOG_DIRS_VERSIONS		0, 4
#define KAFKA_DESCRIBE_LOG_DIRS_FIRST_FLEXIBLE	2

/* the partitions of a topic to describe */
typedef struct KafkaDescribableLogDirTopic
{
	KafkaBytes	topic;
	int32		npartitions;
	int32	   *partitions;
} KafkaDescribableLogDirTopic;

typedef struct KafkaDescribeLogDirsRequest
{
	int32		ntopics;		/* -1 (null): every topic */
	KafkaDescribableLogDirTopic *topics;
} KafkaDescribeLogDirsRequest;

typedef struct KafkaDescribeLogDirsPartition
{
	int32		partition_index;
	int64		partition_size;
	int64		offset_lag;
	bool		is_future_key;
} KafkaDescribeLogDirsPartition;

typedef struct KafkaDescribeLogDirsTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaDescribeLogDirsPartition *partitions;
} KafkaDescribeLogDirsTopic;

typedef struct KafkaDescribeLogDirsResult
{
	int16		error_code;
	KafkaBytes	log_dir;
	int32		ntopics;
	KafkaDescribeLogDirsTopic *topics;
	int64		total_bytes;	/* v4+, default -1 */
	int64		usable_bytes;	/* v4+, default -1 */
} KafkaDescribeLogDirsResult;

typedef struct KafkaDescribeLogDirsResponse
{
	int32		throttle_time_ms;
	int16		error_code;		/* v3+ */
	int32		nresults;
	KafkaDescribeLogDirsResult *results;
} KafkaDescribeLogDirsResponse;

extern const KafkaMessage kafka_describe_log_dirs_request;
extern const KafkaMessage kafka_describe_log_dirs_response;

#endif							/* TOPIC_WIRE_MSG_DESCRIBE_LOG_DIRS_H */
