/*-------------------------------------------------------------------------
 *
 * msg_produce.h
 *	  Produce (API key 0), versions 0-11, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_produce.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_PRODUCE_H
#define TOPIC_WIRE_MSG_PRODUCE_H

#include "pg_topics/wire/schema.h"

/* the versions described, and the first flexible one */
#define KAFKA_PRODUCE_MIN_VERSION		0
#define KAFKA_PRODUCE_MAX_VERSION		11
#define KAFKA_PRODUCE_FIRST_FLEXIBLE	9
/* the first version whose records are RecordBatches (magic 2) only */
#define KAFKA_PRODUCE_FIRST_BATCH_VERSION	3

typedef struct KafkaPartitionProduceData
{
	int32		index;
	KafkaRecords records;		/* v0-2: a MessageSet; v3+: RecordBatches */
} KafkaPartitionProduceData;

typedef struct KafkaTopicProduceData
{
	KafkaBytes	name;
	int32		npartition_data;
	KafkaPartitionProduceData *partition_data;
} KafkaTopicProduceData;

typedef struct KafkaProduceRequest
{
	KafkaBytes	transactional_id;	/* v3+, null unless transactional */
	int16		acks;
	int32		timeout_ms;
	int32		ntopic_data;
	KafkaTopicProduceData *topic_data;
} KafkaProduceRequest;

typedef struct KafkaBatchIndexAndErrorMessage
{
	int32		batch_index;
	KafkaBytes	batch_index_error_message;	/* null */
} KafkaBatchIndexAndErrorMessage;

typedef struct KafkaLeaderIdAndEpoch
{
	int32		leader_id;		/* default -1 */
	int32		leader_epoch;	/* default -1 */
} KafkaLeaderIdAndEpoch;

typedef struct KafkaPartitionProduceResponse
{
	int32		index;
	int16		error_code;
	int64		base_offset;
	int64		log_append_time_ms; /* v2+, default -1 */
	int64		log_start_offset;	/* v5+, default -1 */
	int32		nrecord_errors; /* v8+ */
	KafkaBatchIndexAndErrorMessage *record_errors;
	KafkaBytes	error_message;	/* v8+, null */
	KafkaLeaderIdAndEpoch current_leader;	/* v10+, tagged 0 */
} KafkaPartitionProduceResponse;

typedef struct KafkaTopicProduceResponse
{
	KafkaBytes	name;
	int32		npartition_responses;
	KafkaPartitionProduceResponse *partition_responses;
} KafkaTopicProduceResponse;

/* a broker that leads a partition answered NOT_LEADER_OR_FOLLOWER (v10+) */
typedef struct KafkaProduceNodeEndpoint
{
	int32		node_id;
	KafkaBytes	host;
	int32		port;
	KafkaBytes	rack;			/* null */
} KafkaProduceNodeEndpoint;

typedef struct KafkaProduceResponse
{
	int32		nresponses;
	KafkaTopicProduceResponse *responses;
	int32		throttle_time_ms;	/* v1+ */
	int32		nnode_endpoints;	/* v10+, tagged 0 */
	KafkaProduceNodeEndpoint *node_endpoints;
} KafkaProduceResponse;

extern const KafkaMessage kafka_produce_request;
extern const KafkaMessage kafka_produce_response;

#endif							/* TOPIC_WIRE_MSG_PRODUCE_H */
