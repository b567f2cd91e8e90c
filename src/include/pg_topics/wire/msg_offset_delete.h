/*-------------------------------------------------------------------------
 *
 * msg_offset_delete.h
 *	  OffsetDelete (API key 47), version 0, as structs for the schema codec
 *	  (schema.h; the field tables are in wire/msg_offset_delete.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_OFFSET_DELETE_H
#define TOPIC_WIRE_MSG_OFFSET_DELETE_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaOffsetDeleteRequestPartition
{
	int32		partition_index;
} KafkaOffsetDeleteRequestPartition;

typedef struct KafkaOffsetDeleteRequestTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaOffsetDeleteRequestPartition *partitions;
} KafkaOffsetDeleteRequestTopic;

typedef struct KafkaOffsetDeleteRequest
{
	KafkaBytes	group_id;
	int32		ntopics;
	KafkaOffsetDeleteRequestTopic *topics;
} KafkaOffsetDeleteRequest;

typedef struct KafkaOffsetDeleteResponsePartition
{
	int32		partition_index;
	int16		error_code;
} KafkaOffsetDeleteResponsePartition;

typedef struct KafkaOffsetDeleteResponseTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaOffsetDeleteResponsePartition *partitions;
} KafkaOffsetDeleteResponseTopic;

typedef struct KafkaOffsetDeleteResponse
{
	int16		error_code;
	int32		throttle_time_ms;
	int32		ntopics;
	KafkaOffsetDeleteResponseTopic *topics;
} KafkaOffsetDeleteResponse;

extern const KafkaMessage kafka_offset_delete_request;
extern const KafkaMessage kafka_offset_delete_response;

#endif							/* TOPIC_WIRE_MSG_OFFSET_DELETE_H */
