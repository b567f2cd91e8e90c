/*-------------------------------------------------------------------------
 *
 * msg_fetch.h
 *	  Fetch (API key 1), versions 0-17, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_fetch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_FETCH_H
#define TOPIC_WIRE_MSG_FETCH_H

#include "pg_topics/wire/schema.h"

/* the versions described, and the first flexible one */
#define KAFKA_FETCH_MIN_VERSION		0
#define KAFKA_FETCH_MAX_VERSION		17
#define KAFKA_FETCH_FIRST_FLEXIBLE	12
/* the first version that names topics by id */
#define KAFKA_FETCH_FIRST_TOPIC_ID	13

typedef struct KafkaFetchReplicaState
{
	int32		replica_id;		/* default -1 */
	int64		replica_epoch;	/* default -1 */
} KafkaFetchReplicaState;

typedef struct KafkaFetchPartition
{
	int32		partition;
	int32		current_leader_epoch;	/* v9+, default -1 */
	int64		fetch_offset;
	int32		last_fetched_epoch; /* v12+, default -1 */
	int64		log_start_offset;	/* v5+, default -1 */
	int32		partition_max_bytes;
	KafkaUuid	replica_directory_id;	/* v17+, tagged 0 */
} KafkaFetchPartition;

typedef struct KafkaFetchTopic
{
	KafkaBytes	topic;			/* v0-12 */
	KafkaUuid	topic_id;		/* v13+ */
	int32		npartitions;
	KafkaFetchPartition *partitions;
} KafkaFetchTopic;

typedef struct KafkaForgottenTopic
{
	KafkaBytes	topic;			/* v7-12 */
	KafkaUuid	topic_id;		/* v13+ */
	int32		npartitions;
	int32	   *partitions;
} KafkaForgottenTopic;

typedef struct KafkaFetchRequest
{
	KafkaBytes	cluster_id;		/* v12+, tagged 0, null */
	int32		replica_id;		/* v0-14, default -1 */
	KafkaFetchReplicaState replica_state;	/* v15+, tagged 1 */
	int32		max_wait_ms;
	int32		min_bytes;
	int32		max_bytes;		/* v3+, default 0x7fffffff */
	int8		isolation_level;	/* v4+ */
	int32		session_id;		/* v7+ */
	int32		session_epoch;	/* v7+, default -1 */
	int32		ntopics;
	KafkaFetchTopic *topics;
	int32		nforgotten_topics_data; /* v7+ */
	KafkaForgottenTopic *forgotten_topics_data;
	KafkaBytes	rack_id;		/* v11+ */
} KafkaFetchRequest;

typedef struct KafkaFetchEpochEndOffset
{
	int32		epoch;			/* default -1 */
	int64		end_offset;		/* default -1 */
} KafkaFetchEpochEndOffset;

typedef struct KafkaFetchLeaderIdAndEpoch
{
	int32		leader_id;		/* default -1 */
	int32		leader_epoch;	/* default -1 */
} KafkaFetchLeaderIdAndEpoch;

typedef struct KafkaSnapshotId
{
	int64		end_offset;		/* default -1 */
	int32		epoch;			/* default -1 */
} KafkaSnapshotId;

typedef struct KafkaAbortedTransaction
{
	int64		producer_id;
	int64		first_offset;
} KafkaAbortedTransaction;

typedef struct KafkaFetchPartitionData
{
	int32		partition_index;
	int16		error_code;
	int64		high_watermark;
	int64		last_stable_offset; /* v4+, default -1 */
	int64		log_start_offset;	/* v5+, default -1 */
	KafkaFetchEpochEndOffset diverging_epoch;	/* v12+, tagged 0 */
	KafkaFetchLeaderIdAndEpoch current_leader;	/* v12+, tagged 1 */
	KafkaSnapshotId snapshot_id;	/* v12+, tagged 2 */
	int32		naborted_transactions;	/* v4+, null allowed */
	KafkaAbortedTransaction *aborted_transactions;
	int32		preferred_read_replica; /* v11+, default -1 */
	KafkaRecords records;		/* null allowed */
} KafkaFetchPartitionData;

typedef struct KafkaFetchableTopicResponse
{
	KafkaBytes	topic;			/* v0-12 */
	KafkaUuid	topic_id;		/* v13+ */
	int32		npartitions;
	KafkaFetchPartitionData *partitions;
} KafkaFetchableTopicResponse;

typedef struct KafkaFetchNodeEndpoint
{
	int32		node_id;
	KafkaBytes	host;
	int32		port;
	KafkaBytes	rack;			/* null */
} KafkaFetchNodeEndpoint;

typedef struct KafkaFetchResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int16		error_code;		/* v7+ */
	int32		session_id;		/* v7+ */
	int32		nresponses;
	KafkaFetchableTopicResponse *responses;
	int32		nnode_endpoints;	/* v16+, tagged 0 */
	KafkaFetchNodeEndpoint *node_endpoints;
} KafkaFetchResponse;

extern const KafkaMessage kafka_fetch_request;
extern const KafkaMessage kafka_fetch_response;

#endif							/* TOPIC_WIRE_MSG_FETCH_H */
