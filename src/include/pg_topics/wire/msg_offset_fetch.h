/*-------------------------------------------------------------------------
 *
 * msg_offset_fetch.h
 *	  OffsetFetch (API key 9), versions 0-9, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_offset_fetch.c).
 *
 * Versions 0-7 ask for one group's positions (topics, null from v2: every
 * topic); v8+ ask for many groups at once, each answered on its own.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_OFFSET_FETCH_H
#define TOPIC_WIRE_MSG_OFFSET_FETCH_H

#include "pg_topics/wire/schema.h"

/* A topic asked for (v0-7 and, in a group, v8+) */
typedef struct KafkaOffsetFetchRequestTopic
{
	KafkaBytes	name;
	int32		npartition_indexes;
	int32	   *partition_indexes;
} KafkaOffsetFetchRequestTopic;

/* A group asked for (v8+) */
typedef struct KafkaOffsetFetchRequestGroup
{
	KafkaBytes	group_id;
	KafkaBytes	member_id;		/* v9+, null */
	int32		member_epoch;	/* v9+, default -1 */
	int32		ntopics;		/* -1: every topic */
	KafkaOffsetFetchRequestTopic *topics;
} KafkaOffsetFetchRequestGroup;

typedef struct KafkaOffsetFetchRequest
{
	KafkaBytes	group_id;		/* v0-7 */
	int32		ntopics;		/* v0-7; -1 (v2+): every topic */
	KafkaOffsetFetchRequestTopic *topics;
	int32		ngroups;		/* v8+ */
	KafkaOffsetFetchRequestGroup *groups;
	bool		require_stable; /* v7+ */
} KafkaOffsetFetchRequest;

/* A partition's position: the same struct in v0-7 and in v8+'s groups */
typedef struct KafkaOffsetFetchResponsePartition
{
	int32		partition_index;
	int64		committed_offset;
	int32		committed_leader_epoch; /* v5+, default -1 */
	KafkaBytes	metadata;		/* null allowed */
	int16		error_code;
} KafkaOffsetFetchResponsePartition;

typedef struct KafkaOffsetFetchResponseTopic
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaOffsetFetchResponsePartition *partitions;
} KafkaOffsetFetchResponseTopic;

typedef struct KafkaOffsetFetchResponseGroup
{
	KafkaBytes	group_id;
	int32		ntopics;
	KafkaOffsetFetchResponseTopic *topics;
	int16		error_code;
} KafkaOffsetFetchResponseGroup;

typedef struct KafkaOffsetFetchResponse
{
	int32		throttle_time_ms;	/* v3+ */
	int32		ntopics;		/* v0-7 */
	KafkaOffsetFetchResponseTopic *topics;
	int16		error_code;		/* v2-7 */
	int32		ngroups;		/* v8+ */
	KafkaOffsetFetchResponseGroup *groups;
} KafkaOffsetFetchResponse;

extern const KafkaMessage kafka_offset_fetch_request;
extern const KafkaMessage kafka_offset_fetch_response;

#endif							/* TOPIC_WIRE_MSG_OFFSET_FETCH_H */
