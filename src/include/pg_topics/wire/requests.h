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
 * (kafka/request.c).  Only ApiVersions v3 is flexible: no other range
 * reaches the first flexible version of its API.
 */
#define KAFKA_PRODUCE_VERSIONS			3, 7
/* Produce versions read only to be refused (UNSUPPORTED_VERSION) */
#define KAFKA_LEGACY_PRODUCE_VERSIONS	0, 2
#define KAFKA_FETCH_VERSIONS			4, 11
#define KAFKA_METADATA_VERSIONS			0, 4
#define KAFKA_OFFSET_COMMIT_VERSIONS	2, 7
#define KAFKA_OFFSET_FETCH_VERSIONS		1, 5
#define KAFKA_FIND_COORDINATOR_VERSIONS 0, 2
#define KAFKA_JOIN_GROUP_VERSIONS		0, 5
#define KAFKA_HEARTBEAT_VERSIONS		0, 3
#define KAFKA_LEAVE_GROUP_VERSIONS		0, 1
#define KAFKA_SYNC_GROUP_VERSIONS		0, 3
#define KAFKA_DESCRIBE_GROUPS_VERSIONS	0, 4
#define KAFKA_LIST_GROUPS_VERSIONS		0, 2
#define KAFKA_API_VERSIONS_VERSIONS		0, 3
#define KAFKA_CREATE_TOPICS_VERSIONS	0, 4
#define KAFKA_DELETE_TOPICS_VERSIONS	0, 1

/* ApiVersions' first flexible version */
#define KAFKA_API_VERSIONS_FIRST_FLEXIBLE	3

/*
 * One partition of a topic of a request.  Which fields an API fills (the
 * others stay 0, or -1 for leader_epoch, as Kafka's defaults):
 *
 *	Produce			partition, data (its records: RecordBatches, or null)
 *	Fetch			partition, leader_epoch (current_leader_epoch, v9+),
 *					offset (fetch_offset), log_start_offset (a follower's,
 *					v5+), max_bytes (partition_max_bytes)
 *	Fetch's forgotten topics (v7+)	partition
 *	OffsetCommit	partition, offset (committed_offset), leader_epoch
 *					(committed_leader_epoch, v6+), data (committed_metadata,
 *					a string or null)
 *	OffsetFetch		partition
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

/* Produce v3-7 (and v0-2, read to be refused) */
typedef struct KafkaProduceRequest
{
	KafkaBytes	transactional_id;	/* null unless transactional */
	int16		acks;			/* -1 (all), 0 or 1: anything else fails */
	int32		timeout_ms;
	int32		ntopics;
	KafkaTopicRequest *topics;
} KafkaProduceRequest;

/* Fetch v4-11 */
typedef struct KafkaFetchRequest
{
	int32		replica_id;		/* -1 for a consumer */
	int32		max_wait_ms;
	int32		min_bytes;
	int32		max_bytes;		/* v3+ */
	int8		isolation_level;	/* v4+: KAFKA_READ_* */
	int32		session_id;		/* v7+: incremental fetch sessions */
	int32		session_epoch;	/* v7+ */
	int32		ntopics;
	KafkaTopicRequest *topics;
	int32		nforgotten;		/* v7+: a session's partitions to drop */
	KafkaTopicRequest *forgotten;
	KafkaBytes	rack_id;		/* v11+ */
} KafkaFetchRequest;

/* Metadata v0-4 */
typedef struct KafkaMetadataRequest
{
	bool		all_topics;		/* every topic: a null list (v1+), or an
								 * empty one (v0) */
	int32		ntopics;
	KafkaBytes *topics;
	bool		allow_auto_topic_creation;	/* v4+ */
} KafkaMetadataRequest;

/* OffsetCommit v2-7 */
typedef struct KafkaOffsetCommitRequest
{
	KafkaBytes	group_id;
	int32		generation_id;	/* v1+ */
	KafkaBytes	member_id;		/* v1+ */
	KafkaBytes	group_instance_id;	/* v7+ */
	int64		retention_time_ms;	/* v2-4 */
	int32		ntopics;
	KafkaTopicRequest *topics;
} KafkaOffsetCommitRequest;

/* OffsetFetch v1-5 */
typedef struct KafkaOffsetFetchRequest
{
	KafkaBytes	group_id;
	bool		all_topics;		/* v2+: a null list, every topic */
	int32		ntopics;
	KafkaTopicRequest *topics;
} KafkaOffsetFetchRequest;

/* FindCoordinator v0-2 */
typedef struct KafkaFindCoordinatorRequest
{
	KafkaBytes	key;			/* the group (or transactional id) */
	int8		key_type;		/* v1+: 0 group, 1 transaction */
} KafkaFindCoordinatorRequest;

/* A protocol a member of a group offers (JoinGroup) */
typedef struct KafkaProtocolRequest
{
	KafkaBytes	name;
	KafkaBytes	metadata;
} KafkaProtocolRequest;

/* JoinGroup v0-5 */
typedef struct KafkaJoinGroupRequest
{
	KafkaBytes	group_id;
	int32		session_timeout_ms;
	int32		rebalance_timeout_ms;	/* v1+; in v0 the session timeout */
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v5+ */
	KafkaBytes	protocol_type;
	int32		nprotocols;
	KafkaProtocolRequest *protocols;
} KafkaJoinGroupRequest;

/* Heartbeat v0-3 */
typedef struct KafkaHeartbeatRequest
{
	KafkaBytes	group_id;
	int32		generation_id;
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v3+ */
} KafkaHeartbeatRequest;

/* LeaveGroup v0-1 */
typedef struct KafkaLeaveGroupRequest
{
	KafkaBytes	group_id;
	KafkaBytes	member_id;
} KafkaLeaveGroupRequest;

/* The assignment the group's leader gives one member (SyncGroup) */
typedef struct KafkaAssignmentRequest
{
	KafkaBytes	member_id;
	KafkaBytes	assignment;
} KafkaAssignmentRequest;

/* SyncGroup v0-3 */
typedef struct KafkaSyncGroupRequest
{
	KafkaBytes	group_id;
	int32		generation_id;
	KafkaBytes	member_id;
	KafkaBytes	group_instance_id;	/* v3+ */
	int32		nassignments;
	KafkaAssignmentRequest *assignments;
} KafkaSyncGroupRequest;

/* DescribeGroups v0-4 */
typedef struct KafkaDescribeGroupsRequest
{
	int32		ngroups;
	KafkaBytes *groups;
	bool		include_authorized_operations;	/* v3+ */
} KafkaDescribeGroupsRequest;

/* ListGroups v0-2: no fields */
typedef struct KafkaListGroupsRequest
{
	char		unused;
} KafkaListGroupsRequest;

/* ApiVersions v0-3 */
typedef struct KafkaApiVersionsRequest
{
	KafkaBytes	client_software_name;	/* v3+ */
	KafkaBytes	client_software_version;	/* v3+ */
} KafkaApiVersionsRequest;

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
/* Produce's fields before its topics (ntopics 0), which decide how it commits */
extern bool kafka_parse_produce_head(KafkaReader *r, int16 version,
									 KafkaProduceRequest *out);
extern bool kafka_parse_produce_request(KafkaReader *r, int16 version,
										KafkaProduceRequest *out);
extern bool kafka_parse_legacy_produce_request(KafkaReader *r, int16 version,
											   KafkaProduceRequest *out);
extern bool kafka_parse_fetch_request(KafkaReader *r, int16 version,
									  KafkaFetchRequest *out);
extern bool kafka_parse_metadata_request(KafkaReader *r, int16 version,
										 KafkaMetadataRequest *out);
extern bool kafka_parse_offset_commit_request(KafkaReader *r, int16 version,
											  KafkaOffsetCommitRequest *out);
extern bool kafka_parse_offset_fetch_request(KafkaReader *r, int16 version,
											 KafkaOffsetFetchRequest *out);
extern bool kafka_parse_find_coordinator_request(KafkaReader *r, int16 version,
												 KafkaFindCoordinatorRequest *out);
extern bool kafka_parse_join_group_request(KafkaReader *r, int16 version,
										   KafkaJoinGroupRequest *out);
extern bool kafka_parse_heartbeat_request(KafkaReader *r, int16 version,
										  KafkaHeartbeatRequest *out);
extern bool kafka_parse_leave_group_request(KafkaReader *r, int16 version,
											KafkaLeaveGroupRequest *out);
extern bool kafka_parse_sync_group_request(KafkaReader *r, int16 version,
										   KafkaSyncGroupRequest *out);
extern bool kafka_parse_describe_groups_request(KafkaReader *r, int16 version,
												KafkaDescribeGroupsRequest *out);
extern bool kafka_parse_list_groups_request(KafkaReader *r, int16 version,
											KafkaListGroupsRequest *out);
extern bool kafka_parse_api_versions_request(KafkaReader *r, int16 version,
											 KafkaApiVersionsRequest *out);
extern bool kafka_parse_create_topics_request(KafkaReader *r, int16 version,
											  KafkaCreateTopicsRequest *out);
extern bool kafka_parse_delete_topics_request(KafkaReader *r, int16 version,
											  KafkaDeleteTopicsRequest *out);

#endif							/* TOPIC_WIRE_REQUESTS_H */
