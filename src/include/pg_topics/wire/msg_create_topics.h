/*-------------------------------------------------------------------------
 *
 * msg_create_topics.h
 *	  CreateTopics (API key 19), versions 0-7, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_create_topics.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_CREATE_TOPICS_H
#define TOPIC_WIRE_MSG_CREATE_TOPICS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaCreatableReplicaAssignment
{
	int32		partition_index;
	int32		nbroker_ids;
	int32	   *broker_ids;
} KafkaCreatableReplicaAssignment;

typedef struct KafkaCreatableTopicConfig
{
	KafkaBytes	name;
	KafkaBytes	value;			/* null allowed */
} KafkaCreatableTopicConfig;

typedef struct KafkaCreatableTopic
{
	KafkaBytes	name;
	int32		num_partitions; /* -1: by the assignments, or the default */
	int16		replication_factor; /* -1: the default */
	int32		nassignments;
	KafkaCreatableReplicaAssignment *assignments;
	int32		nconfigs;
	KafkaCreatableTopicConfig *configs;
} KafkaCreatableTopic;

typedef struct KafkaCreateTopicsRequest
{
	int32		ntopics;
	KafkaCreatableTopic *topics;
	int32		timeout_ms;		/* default 60000 */
	bool		validate_only;	/* v1+ */
} KafkaCreateTopicsRequest;

typedef struct KafkaCreatableTopicConfigs
{
	KafkaBytes	name;
	KafkaBytes	value;			/* null allowed */
	bool		read_only;
	int8		config_source;	/* default -1 */
	bool		is_sensitive;
} KafkaCreatableTopicConfigs;

typedef struct KafkaCreatableTopicResult
{
	KafkaBytes	name;
	KafkaUuid	topic_id;		/* v7+ */
	int16		error_code;
	KafkaBytes	error_message;	/* v1+, null allowed */
	int16		topic_config_error_code;	/* v5+, tagged 0 */
	int32		num_partitions; /* v5+, default -1 */
	int16		replication_factor; /* v5+, default -1 */
	int32		nconfigs;		/* v5+; -1: null */
	KafkaCreatableTopicConfigs *configs;
} KafkaCreatableTopicResult;

typedef struct KafkaCreateTopicsResponse
{
	int32		throttle_time_ms;	/* v2+ */
	int32		ntopics;
	KafkaCreatableTopicResult *topics;
} KafkaCreateTopicsResponse;

extern const KafkaMessage kafka_create_topics_request;
extern const KafkaMessage kafka_create_topics_response;

#endif							/* TOPIC_WIRE_MSG_CREATE_TOPICS_H */
