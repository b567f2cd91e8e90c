/*-------------------------------------------------------------------------
 *
 * msg_delete_topics.h
 *	  DeleteTopics (API key 20), versions 0-6, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_delete_topics.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DELETE_TOPICS_H
#define TOPIC_WIRE_MSG_DELETE_TOPICS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaDeleteTopicState
{
	KafkaBytes	name;			/* null: by topic_id */
	KafkaUuid	topic_id;
} KafkaDeleteTopicState;

typedef struct KafkaDeleteTopicsRequest
{
	int32		ntopics;		/* v6+ */
	KafkaDeleteTopicState *topics;
	int32		ntopic_names;	/* v0-5 */
	KafkaBytes *topic_names;
	int32		timeout_ms;
} KafkaDeleteTopicsRequest;

typedef struct KafkaDeletableTopicResult
{
	KafkaBytes	name;			/* null allowed v6+ */
	KafkaUuid	topic_id;		/* v6+ */
	int16		error_code;
	KafkaBytes	error_message;	/* v5+, null allowed */
} KafkaDeletableTopicResult;

typedef struct KafkaDeleteTopicsResponse
{
	int32		throttle_time_ms;	/* v1+ */
	int32		nresponses;
	KafkaDeletableTopicResult *responses;
} KafkaDeleteTopicsResponse;

extern const KafkaMessage kafka_delete_topics_request;
extern const KafkaMessage kafka_delete_topics_response;

#endif							/* TOPIC_WIRE_MSG_DELETE_TOPICS_H */
