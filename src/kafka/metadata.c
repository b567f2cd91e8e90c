/*-------------------------------------------------------------------------
 *
 * metadata.c
 *	  Metadata (v0-4) and FindCoordinator (v0-2): the cluster as Kafka
 *	  clients see it.
 *
 * The brokers are the nodes of the formation (brokers.c).  A writable
 * primary leads every partition, is its only replica and in-sync replica,
 * is the controller (where the admin client sends CreateTopics) and
 * coordinates every group.  A fenced node (fence.c) leads nothing
 * (LEADER_NOT_AVAILABLE, leader -1, for each partition), is no controller
 * (-1) and coordinates nothing (COORDINATOR_NOT_AVAILABLE): its clients ask
 * again, until the fence lifts or another node is the primary.  The topics
 * are the topics of pg_topics.kafka_schema, by name.  A client asking for
 * every topic sees those it may SELECT; a client naming a topic also gets
 * it if it may INSERT (a producer needs the partitions), and
 * TOPIC_AUTHORIZATION_FAILED if it may do neither.  A topic named that
 * does not exist is created first if pg_topics.kafka_auto_create_topics
 * says so (auto_create.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/auto_create.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"

/*
 * Write one topic's entry: its partitions, or an error.  leader is this
 * node's id, or -1 while it is fenced.
 */
static void
write_topic(KafkaRequest *req, const char *name, int namelen, int16 error,
			int32 nparts, int32 leader)
{
	StringInfo	out = req->response;

	kafka_write_int16(out, error);
	kafka_write_string_len(out, name, namelen);
	if (req->api_version >= 1)
		kafka_write_int8(out, 0);	/* is_internal */
	kafka_write_array_len(out, nparts);
	for (int32 p = 0; p < nparts; p++)
	{
		kafka_write_int16(out, leader >= 0 ? KAFKA_NONE : KAFKA_LEADER_NOT_AVAILABLE);
		kafka_write_int32(out, p);
		kafka_write_int32(out, leader);
		if (leader >= 0)
		{
			kafka_write_array_len(out, 1);	/* replicas */
			kafka_write_int32(out, leader);
			kafka_write_array_len(out, 1);	/* in-sync replicas */
			kafka_write_int32(out, leader);
		}
		else
		{
			kafka_write_array_len(out, 0);
			kafka_write_array_len(out, 0);
		}
	}
}

/* Write the entry of a topic a client named */
static void
write_named_topic(KafkaRequest *req, KafkaBytes name, int32 leader)
{
	int16		error;
	Relation	topic = kafka_open_topic_nowait(name, AccessShareLock,
												TOPIC_NO_ACL_CHECK, &error);

	/*
	 * Held locked by a SQL session: ask again later.  Metadata never waits,
	 * since clients ask for it all the time and name many topics.
	 */
	if (error == KAFKA_REQUEST_TIMED_OUT)
		error = KAFKA_LEADER_NOT_AVAILABLE;

	if (topic != NULL &&
		!kafka_topic_allowed(RelationGetRelid(topic), ACL_SELECT | ACL_INSERT))
	{
		relation_close(topic, AccessShareLock);
		topic = NULL;
		error = KAFKA_TOPIC_AUTHORIZATION_FAILED;
	}
	write_topic(req, name.data, Max(name.len, 0), error,
				topic ? topic_partition_count(topic) : 0, leader);
	if (topic != NULL)
		relation_close(topic, AccessShareLock);
}

/* Write every topic of the schema the role may SELECT */
static void
write_all_topics(KafkaRequest *req, int32 leader)
{
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	List	   *topics = OidIsValid(nspid) ? topic_list_topics() : NIL;
	int			count_at = req->response->len;
	int32		n = 0;
	ListCell   *lc;

	kafka_write_array_len(req->response, 0);	/* patched below */
	foreach(lc, topics)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	topic;
		KafkaBytes	name;

		if (get_rel_namespace(relid) != nspid ||
			!kafka_topic_allowed(relid, ACL_SELECT))
			continue;
		if (!ConditionalLockRelationOid(relid, AccessShareLock))
		{
			/*
			 * Held by DDL: listed, for the client to ask again, without
			 * waiting (one topic's lock must not hold up the whole list)
			 */
			name.data = get_rel_name(relid);
			name.len = name.data ? strlen(name.data) : 0;
			if (name.data != NULL && kafka_topic_name_valid(name))
			{
				write_topic(req, name.data, name.len,
							KAFKA_LEADER_NOT_AVAILABLE, 0, leader);
				n++;
			}
			continue;
		}
		topic = topic_try_open(relid, AccessShareLock, TOPIC_NO_ACL_CHECK);
		UnlockRelationOid(relid, AccessShareLock);
		if (topic == NULL)
			continue;
		name.data = RelationGetRelationName(topic);
		name.len = strlen(name.data);
		/* a name Kafka cannot have is not offered */
		if (kafka_topic_name_valid(name))
		{
			write_topic(req, name.data, name.len, KAFKA_NONE,
						topic_partition_count(topic), leader);
			n++;
		}
		relation_close(topic, AccessShareLock);
	}
	kafka_patch_int32(req->response, count_at, n);
}

/* Metadata v0-4 */
KafkaOutcome
kafka_metadata(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaMetadataRequest mr;
	char		cluster_id[64];
	KafkaBroker *brokers;
	int			self;
	int			nbrokers;
	int32		leader;

	if (!kafka_parse_metadata_request(&req->body, req->api_version, &mr))
		return KAFKA_CLOSE;
	nbrokers = kafka_brokers(req->conn, &brokers, &self);
	leader = kafka_node_fenced() ? -1 : brokers[self].node_id;

	if (req->api_version >= 3)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, nbrokers);
	for (int i = 0; i < nbrokers; i++)
	{
		kafka_write_int32(out, brokers[i].node_id);
		kafka_write_string(out, brokers[i].host);
		kafka_write_int32(out, brokers[i].port);
		if (req->api_version >= 1)
			kafka_write_string(out, NULL);	/* rack */
	}
	if (req->api_version >= 2)
	{
		snprintf(cluster_id, sizeof(cluster_id), "pg_topics-" UINT64_FORMAT,
				 GetSystemIdentifier());
		kafka_write_string(out, cluster_id);
	}
	if (req->api_version >= 1)
		kafka_write_int32(out, leader); /* controller */

	if (mr.all_topics)
		write_all_topics(req, leader);
	else
	{
		int64		locks_left = -1;

		kafka_write_array_len(out, mr.ntopics);
		for (int32 i = 0; i < mr.ntopics; i++)
		{
			int16		error = mr.allow_auto_topic_creation ?
				kafka_auto_create_topic(mr.topics[i], &locks_left) : KAFKA_NONE;

			if (error != KAFKA_NONE)
				write_topic(req, mr.topics[i].data, mr.topics[i].len, error, 0,
							leader);
			else
				write_named_topic(req, mr.topics[i], leader);
		}
	}
	return KAFKA_ANSWER;
}

/*
 * FindCoordinator v0-2: a writable primary coordinates every group, a
 * fenced node none
 */
KafkaOutcome
kafka_find_coordinator(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaFindCoordinatorRequest fr;
	int16		error = KAFKA_NONE;
	KafkaBroker self = kafka_self_broker(req->conn);

	if (!kafka_parse_find_coordinator_request(&req->body, req->api_version, &fr))
		return KAFKA_CLOSE;
	/*
	 * Groups only.  Transactions are not offered: a transactional id's
	 * coordinator is refused as Kafka refuses a transactional id the
	 * principal may not use, which clients take as final at once
	 * (librdkafka's init_transactions() fails instead of looking for a
	 * coordinator until its timeout)
	 */
	if (fr.key_type == KAFKA_COORDINATOR_TRANSACTION)
		error = KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
	else if (fr.key_type != KAFKA_COORDINATOR_GROUP)
		error = KAFKA_INVALID_REQUEST;
	else if (kafka_node_fenced())
		error = KAFKA_COORDINATOR_NOT_AVAILABLE;
	if (req->api_version >= 1)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_int16(out, error);
	if (req->api_version >= 1)
		kafka_write_string(out, NULL);	/* error_message */
	kafka_write_int32(out, error == KAFKA_NONE ? self.node_id : -1);
	kafka_write_string(out, error == KAFKA_NONE ? self.host : "");
	kafka_write_int32(out, error == KAFKA_NONE ? self.port : -1);
	return KAFKA_ANSWER;
}
