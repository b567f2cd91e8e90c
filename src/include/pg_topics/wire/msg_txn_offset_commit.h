/*-------------------------------------------------------------------------
 *
 * msg_txn_offset_commit.h
 *	  TxnOffsetCommit (API key 28), versions 0-4, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_txn_offset_commit.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_TXN_OFFSET_COMMIT_H
#define TOPIC_WIRE_MSG_TXN_OFFSET_COMMIT_H

#include "pg_topics/wire/msg_offset_commit.h"
#include "pg_topics/wire/schema.h"

typedef struct KafkaTxnOffsetCommitRequestPartition
{
	int32		partition_index;
	int64		committed_offset;
	int32		committed_leader_epoch; /* v2+, default -1 */
	KafkaBytes	committed_metadata; /* null allowed */
} KafkaTxnOffsetCommitRequestPartition;

typedef struct KafkaTxnOffsetCommitRequestTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaTxnOffsetCommitRequestPartition *partitions;
} KafkaTxnOffsetCommitRequestTopic;

typedef struct KafkaTxnOffsetCommitRequest
{
	KafkaBytes	transactional_id;
	KafkaBytes	group_id;
	int64		producer_id;
	int16		producer_epoch;
	int32		generation_id;	/* v3+, default -1 */
	KafkaBytes	member_id;		/* v3+, default "" */
	KafkaBytes	group_instance_id;	/* v3+, default null */
	int32		ntopics;
	KafkaTxnOffsetCommitRequestTopic *topics;
} KafkaTxnOffsetCommitRequest;

/*
 * The answer's topics and partitions are OffsetCommit's, field for field:
 * the two commits share one answer (kafka/offsets.c)
 */
typedef KafkaOffsetCommitResponsePartition KafkaTxnOffsetCommitResponsePartition;
typedef KafkaOffsetCommitResponseTopic KafkaTxnOffsetCommitResponseTopic;

typedef struct KafkaTxnOffsetCommitResponse
{
	int32		throttle_time_ms;
	int32		ntopics;
	KafkaTxnOffsetCommitResponseTopic *topics;
} KafkaTxnOffsetCommitResponse;

extern const KafkaMessage kafka_txn_offset_commit_request;
extern const KafkaMessage kafka_txn_offset_commit_response;

#endif							/* TOPIC_WIRE_MSG_TXN_OFFSET_COMMIT_H */
