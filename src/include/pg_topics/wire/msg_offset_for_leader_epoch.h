/*-------------------------------------------------------------------------
 *
 * msg_offset_for_leader_epoch.h
 *	  OffsetForLeaderEpoch (API key 23), versions 0-4, as structs for the
 *	  schema codec (schema.h; the field tables are in
 *	  wire/msg_offset_for_leader_epoch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_OFFSET_FOR_LEADER_EPOCH_H
#define TOPIC_WIRE_MSG_OFFSET_FOR_LEADER_EPOCH_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_OFFSET_FOR_LEADER_EPOCH_VERSIONS			0, 4
#define KAFKA_OFFSET_FOR_LEADER_EPOCH_FIRST_FLEXIBLE	4

typedef struct KafkaOffsetForLeaderPartition
{
	int32		partition;
	int32		current_leader_epoch;	/* v2+, default -1 */
	int32		leader_epoch;	/* the epoch whose end is asked for */
} KafkaOffsetForLeaderPartition;

typedef struct KafkaOffsetForLeaderTopic
{
	KafkaBytes	topic;
	int32		npartitions;
	KafkaOffsetForLeaderPartition *partitions;
} KafkaOffsetForLeaderTopic;

typedef struct KafkaOffsetForLeaderEpochRequest
{
	int32		replica_id;		/* v3+, default -2 (a debugging consumer) */
	int32		ntopics;
	KafkaOffsetForLeaderTopic *topics;
} KafkaOffsetForLeaderEpochRequest;

typedef struct KafkaEpochEndOffset
{
	int16		error_code;
	int32		partition;
	int32		leader_epoch;	/* v1+, default -1 */
	int64		end_offset;
} KafkaEpochEndOffset;

typedef struct KafkaOffsetForLeaderTopicResult
{
	KafkaBytes	topic;
	int32		npartitions;
	KafkaEpochEndOffset *partitions;
} KafkaOffsetForLeaderTopicResult;

typedef struct KafkaOffsetForLeaderEpochResponse
{
	int32		throttle_time_ms;	/* v2+ */
	int32		ntopics;
	KafkaOffsetForLeaderTopicResult *topics;
} KafkaOffsetForLeaderEpochResponse;

extern const KafkaMessage kafka_offset_for_leader_epoch_request;
extern const KafkaMessage kafka_offset_for_leader_epoch_response;

#endif							/* TOPIC_WIRE_MSG_OFFSET_FOR_LEADER_EPOCH_H */
