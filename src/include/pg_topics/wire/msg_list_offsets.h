/*-------------------------------------------------------------------------
 *
 * msg_list_offsets.h
 *	  ListOffsets (API key 2), versions 0-9, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_list_offsets.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_LIST_OFFSETS_H
#define TOPIC_WIRE_MSG_LIST_OFFSETS_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_LIST_OFFSETS_VERSIONS			0, 9
#define KAFKA_LIST_OFFSETS_FIRST_FLEXIBLE	6

/* ListOffsets' special timestamps (KIP-734, KIP-405, KIP-1005) */
#define KAFKA_LATEST_TIMESTAMP			(-1)
#define KAFKA_EARLIEST_TIMESTAMP		(-2)
#define KAFKA_MAX_TIMESTAMP				(-3)	/* v7+ */
#define KAFKA_EARLIEST_LOCAL_TIMESTAMP	(-4)	/* v8+ */
#define KAFKA_LATEST_TIERED_TIMESTAMP	(-5)	/* v9+ */

typedef struct KafkaListOffsetsPartition
{
	int32		partition_index;
	int32		current_leader_epoch;	/* v4+, default -1 */
	int64		timestamp;		/* a time, or one of the special ones */
	int32		max_num_offsets;	/* v0 only, default 1 */
} KafkaListOffsetsPartition;

typedef struct KafkaListOffsetsTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaListOffsetsPartition *partitions;
} KafkaListOffsetsTopic;

typedef struct KafkaListOffsetsRequest
{
	int32		replica_id;		/* -1 for a consumer */
	int8		isolation_level;	/* v2+: KAFKA_READ_* */
	int32		ntopics;
	KafkaListOffsetsTopic *topics;
} KafkaListOffsetsRequest;

typedef struct KafkaListOffsetsPartitionResponse
{
	int32		partition_index;
	int16		error_code;
	int32		nold_style_offsets;	/* v0 only */
	int64	   *old_style_offsets;
	int64		timestamp;		/* v1+, default -1 */
	int64		offset;			/* v1+, default -1 */
	int32		leader_epoch;	/* v4+, default -1 */
} KafkaListOffsetsPartitionResponse;

typedef struct KafkaListOffsetsTopicResponse
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaListOffsetsPartitionResponse *partitions;
} KafkaListOffsetsTopicResponse;

typedef struct KafkaListOffsetsResponse
{
	int32		throttle_time_ms;	/* v2+ */
	int32		ntopics;
	KafkaListOffsetsTopicResponse *topics;
} KafkaListOffsetsResponse;

extern const KafkaMessage kafka_list_offsets_request;
extern const KafkaMessage kafka_list_offsets_response;

#endif							/* TOPIC_WIRE_MSG_LIST_OFFSETS_H */
