/*-------------------------------------------------------------------------
 *
 * msg_offset_commit.h
 *	  OffsetCommit (API key 8), versions 0-9, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_offset_commit.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_OFFSET_COMMIT_H
#define TOPIC_WIRE_MSG_OFFSET_COMMIT_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaOffsetCommitRequestPartition
{
	int32		partition_index;
	int64		committed_offset;
	int32		committed_leader_epoch; /* v6+, default -1 */
	int64		commit_timestamp;	/* v1 only, default -1 */
	KafkaBytes	committed_metadata; /* null allowed */
} KafkaOffsetCommitRequestPartition;

typedef struct KafkaOffsetCommitRequestTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaOffsetCommitRequestPartition *partitions;
} KafkaOffsetCommitRequestTopic;

typedef struct KafkaOffsetCommitRequest
{
	KafkaBytes	group_id;
	int32		generation_id_or_member_epoch;	/* v1+, default -1 */
	KafkaBytes	member_id;		/* v1+ */
	KafkaBytes	group_instance_id;	/* v7+, null */
	int64		retention_time_ms;	/* v2-4, default -1 */
	int32		ntopics;
	KafkaOffsetCommitRequestTopic *topics;
} KafkaOffsetCommitRequest;

typedef struct KafkaOffsetCommitResponsePartition
{
	int32		partition_index;
	int16		error_code;
} KafkaOffsetCommitResponsePartition;

typedef struct KafkaOffsetCommitResponseTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaOffsetCommitResponsePartition *partitions;
} KafkaOffsetCommitResponseTopic;

typedef struct KafkaOffsetCommitResponse
{
	int32		throttle_time_ms;	/* v3+ */
	int32		ntopics;
	KafkaOffsetCommitResponseTopic *topics;
} KafkaOffsetCommitResponse;

extern const KafkaMessage kafka_offset_commit_request;
extern const KafkaMessage kafka_offset_commit_response;

#endif							/* TOPIC_WIRE_MSG_OFFSET_COMMIT_H */
