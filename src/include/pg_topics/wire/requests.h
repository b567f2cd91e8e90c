/*-------------------------------------------------------------------------
 *
 * requests.h
 *	  The bodies of the Kafka requests pg_topics serves, parsed: one
 *	  function per API, from the request (after its header) to a struct
 *	  that the API's handler (src/kafka/) then serves.
 *
 * Each parser reads every field Kafka's message definition has for the
 * version asked for, in order, including the fields pg_topics ignores,
 * and returns false when the body does not parse (a truncated body, a
 * negative length, an array count that cannot fit in what is left), when
 * its arrays would take more than the reader's alloc_left or its topics,
 * partitions and names would be more than its elements_left (then with the
 * reader's over_budget or too_many set), when
 * a field is outside its domain, or when the version is not one the
 * parser reads; the caller then closes the connection, as Kafka does.
 * What the struct holds is palloc'd into the current memory context and
 * never freed here: the server resets that context after each request.
 * Arrays are filled in order and their counts set before their elements
 * are read, so even after a failure every array a struct points to is one
 * of that many elements, zeroed where not yet read (NULL when empty).
 * Strings and byte strings are KafkaBytes pointing into the request
 * (len -1: null); nothing points outside it.
 *
 * Bytes after the last field are not an error (they never were here): a
 * parser stops after the fields of its version.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_REQUESTS_H
#define TOPIC_WIRE_REQUESTS_H

#include "pg_topics/wire/codec.h"

/*
 * The versions each parser reads, which are the versions offered
 * (kafka/request.c).  None reaches the first flexible version of its API.
 * The APIs described for the schema codec (messages.h) are not parsed here.
 */
#define KAFKA_CREATE_TOPICS_VERSIONS	0, 4
#define KAFKA_DELETE_TOPICS_VERSIONS	0, 1

/*
 * One partition of a topic of a request.  Which fields an API fills (the
 * others stay 0, or -1 for leader_epoch, as Kafka's defaults):
 *
 */
typedef struct KafkaPartitionRequest
{
	int32		partition;
	int32		leader_epoch;
	int64		offset;
	int64		timestamp;
	int64		log_start_offset;
	int32		max_bytes;
	KafkaBytes	data;
} KafkaPartitionRequest;

/* A topic of a request and its partitions */
typedef struct KafkaTopicRequest
{
	KafkaBytes	name;
	int32		npartitions;
	KafkaPartitionRequest *partitions;
} KafkaTopicRequest;


/* A partition's replicas as CreateTopics assigns them by hand */
typedef struct KafkaReplicaAssignment
{
	int32		partition;
	int32		nbrokers;
	int32	   *broker_ids;
} KafkaReplicaAssignment;

/* A config of a topic to create (CreateTopics) */
typedef struct KafkaConfigRequest
{
	KafkaBytes	name;
	KafkaBytes	value;			/* may be null */
} KafkaConfigRequest;

/* A topic to create (CreateTopics) */
typedef struct KafkaNewTopicRequest
{
	KafkaBytes	name;
	int32		num_partitions; /* -1: by the assignments, or the default */
	int16		replication_factor; /* -1: the default */
	int32		nassignments;
	KafkaReplicaAssignment *assignments;
	int32		nconfigs;
	KafkaConfigRequest *configs;
} KafkaNewTopicRequest;

/* CreateTopics v0-4 */
typedef struct KafkaCreateTopicsRequest
{
	int32		ntopics;
	KafkaNewTopicRequest *topics;
	int32		timeout_ms;
	bool		validate_only;	/* v1+ */
} KafkaCreateTopicsRequest;

/* DeleteTopics v0-1 */
typedef struct KafkaDeleteTopicsRequest
{
	int32		ntopics;
	KafkaBytes *topics;
	int32		timeout_ms;
} KafkaDeleteTopicsRequest;

/*
 * A request's header, up to its client id (v1; a flexible version's v2
 * header has tagged fields after it, which the caller skips once it knows
 * the API's flexible versions)
 */
typedef struct KafkaRequestHeader
{
	int16		api_key;
	int16		api_version;
	int32		correlation_id;
	KafkaBytes	client_id;		/* null allowed */
} KafkaRequestHeader;

extern bool kafka_parse_request_header(KafkaReader *r, KafkaRequestHeader *out);
extern bool kafka_parse_create_topics_request(KafkaReader *r, int16 version,
											  KafkaCreateTopicsRequest *out);
extern bool kafka_parse_delete_topics_request(KafkaReader *r, int16 version,
											  KafkaDeleteTopicsRequest *out);

#endif							/* TOPIC_WIRE_REQUESTS_H */
