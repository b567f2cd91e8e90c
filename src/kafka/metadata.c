/*-------------------------------------------------------------------------
 *
 * metadata.c
 *	  Metadata (v0-12) and FindCoordinator (v0-5): the cluster as Kafka
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
 * A topic has a topic id (v10+, topic_id.c); a client may ask for a topic
 * by id alone (v10+, name null), and an id no topic it may see has is
 * UNKNOWN_TOPIC_ID.  Authorized operations (v8+) are answered from the
 * role's privileges (acl_operations.c) when the client asks for them, and
 * are Kafka's "not requested" otherwise.  Partitions have no leader epoch
 * (-1): pg_topics has no leader elections, and a client given none does
 * not ask OffsetForLeaderEpoch to validate its positions.
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
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/acl_operations.h"
#include "pg_topics/kafka/auto_create.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/consumer_offsets_topic.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/topic_id.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/msg_find_coordinator.h"
#include "pg_topics/wire/msg_metadata.h"
#include "pg_topics/wire/protocol.h"

/* What the topics of one answer share */
typedef struct MetadataFill
{
	int32		leader;			/* this node's id, or -1 while it is fenced */
	bool		operations;		/* the client asked for authorized operations */

	/*
	 * Partition p of every topic is the same but for its topic: the
	 * partitions of every topic point into one array, at least as long as
	 * the widest topic's (a wider one makes a new array of twice the
	 * length, the narrower topics keeping the old one), so that the answer
	 * takes memory for the widest topic, not for every partition listed
	 */
	KafkaMetadataResponsePartition *partitions;
	int32		npartitions;
} MetadataFill;

/* the first nparts partitions, shared by every topic of the answer */
static KafkaMetadataResponsePartition *
partitions_of(MetadataFill *fill, int32 nparts)
{
	if (nparts <= fill->npartitions)
		return fill->partitions;
	nparts = Max(nparts, Min(fill->npartitions * 2, PG_INT32_MAX / 2));
	fill->partitions = palloc(sizeof(KafkaMetadataResponsePartition) * nparts);
	for (int32 p = 0; p < nparts; p++)
	{
		KafkaMetadataResponsePartition *part = &fill->partitions[p];

		memset(part, 0, sizeof(*part));
		part->error_code = fill->leader >= 0 ? KAFKA_NONE : KAFKA_LEADER_NOT_AVAILABLE;
		part->partition_index = p;
		part->leader_id = fill->leader;
		part->leader_epoch = -1;
		if (fill->leader >= 0)
		{
			part->nreplica_nodes = part->nisr_nodes = 1;
			part->replica_nodes = part->isr_nodes = &fill->leader;
		}
	}
	fill->npartitions = nparts;
	return fill->partitions;
}

/* One topic's entry: its partitions, or an error (relid invalid then) */
static void
fill_topic(MetadataFill *fill, KafkaMetadataResponseTopic *t, KafkaBytes name,
		   Oid relid, int16 error, int32 nparts)
{
	memset(t, 0, sizeof(*t));
	t->error_code = error;
	t->name = name;
	t->topic_authorized_operations = KAFKA_AUTHORIZED_OPERATIONS_OMITTED;
	if (OidIsValid(relid))
	{
		t->topic_id = kafka_topic_id(relid);
		if (fill->operations)
			t->topic_authorized_operations =
				kafka_topic_authorized_operations(relid);
	}
	t->npartitions = nparts;
	t->partitions = nparts > 0 ? partitions_of(fill, nparts) : NULL;
}

/* The entry of a topic a client named */
static void
fill_named_topic(MetadataFill *fill, KafkaMetadataResponseTopic *t,
				 KafkaBytes name)
{
	int16		error;
	Relation	topic;

	/* __consumer_offsets: one partition, whose records each role may read */
	if (kafka_is_offsets_topic(name))
	{
		fill_topic(fill, t, name, InvalidOid, KAFKA_NONE, 1);
		t->is_internal = true;
		return;
	}
	topic = kafka_open_topic_nowait(name, AccessShareLock, TOPIC_NO_ACL_CHECK,
									&error);

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
	fill_topic(fill, t, name, topic ? RelationGetRelid(topic) : InvalidOid,
			   error, topic ? topic_partition_count(topic) : 0);
	if (topic != NULL)
		relation_close(topic, AccessShareLock);
}

/*
 * The topics of the schema the role has privilege on (either of its
 * bits): their entries in *topics, how many the result
 */
static int32
fill_schema_topics(MetadataFill *fill, KafkaMetadataResponseTopic **topics,
				   AclMode privilege)
{
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	List	   *list = OidIsValid(nspid) ? topic_list_topics() : NIL;
	int32		n = 0;
	ListCell   *lc;

	/* and one more for __consumer_offsets */
	*topics = palloc(sizeof(KafkaMetadataResponseTopic) * (list_length(list) + 1));
	foreach(lc, list)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	topic;
		KafkaBytes	name;

		if (get_rel_namespace(relid) != nspid ||
			!kafka_topic_allowed(relid, privilege))
			continue;
		/* a topic no Kafka client can name is not offered */
		name.data = topic_kafka_name(relid);
		if (name.data == NULL)
			continue;
		name.len = strlen(name.data);
		if (!ConditionalLockRelationOid(relid, AccessShareLock))
		{
			/*
			 * Held by DDL: listed, for the client to ask again, without
			 * waiting (one topic's lock must not hold up the whole list)
			 */
			fill_topic(fill, &(*topics)[n++], name, relid,
					   KAFKA_LEADER_NOT_AVAILABLE, 0);
			continue;
		}
		topic = topic_try_open(relid, AccessShareLock, TOPIC_NO_ACL_CHECK);
		UnlockRelationOid(relid, AccessShareLock);
		if (topic == NULL)
			continue;
		fill_topic(fill, &(*topics)[n++], name, relid, KAFKA_NONE,
				   topic_partition_count(topic));
		relation_close(topic, AccessShareLock);
	}
	return n;
}

/*
 * The entry of a topic a client asked for by id (v10+, its name null),
 * among the topics it may SELECT or INSERT (known)
 */
static void
fill_topic_by_id(MetadataFill *fill, KafkaMetadataResponseTopic *t,
				 const KafkaUuid *id, const KafkaMetadataResponseTopic *known,
				 int32 nknown, int16 version)
{
	for (int32 i = 0; i < nknown; i++)
		if (memcmp(&known[i].topic_id, id, sizeof(*id)) == 0)
		{
			*t = known[i];
			return;
		}
	/* the name is null where the version allows it */
	fill_topic(fill, t, version >= 12 ? kafka_bytes_of(NULL) : kafka_bytes_of(""),
			   InvalidOid, KAFKA_UNKNOWN_TOPIC_ID, 0);
	t->topic_id = *id;
}

/* Metadata v0-12 */
KafkaOutcome
kafka_metadata(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaMetadataRequest mr;
	KafkaMetadataResponse resp;
	MetadataFill fill;
	KafkaBroker *brokers;
	int			self;
	int			nbrokers;
	bool		all_topics;

	if (!kafka_decode(&req->body, &kafka_metadata_request, req->api_version,
					  &mr))
		return KAFKA_CLOSE;
	/* every topic: an empty list in v0, a null one later */
	all_topics = req->api_version == 0 ? mr.ntopics == 0 : mr.ntopics < 0;

	nbrokers = kafka_brokers(req->conn, &brokers, &self);
	memset(&fill, 0, sizeof(fill));
	fill.leader = kafka_node_fenced() ? -1 : brokers[self].node_id;
	fill.operations = mr.include_topic_authorized_operations;

	memset(&resp, 0, sizeof(resp));
	resp.nbrokers = nbrokers;
	resp.brokers = palloc0(sizeof(KafkaMetadataResponseBroker) * nbrokers);
	for (int i = 0; i < nbrokers; i++)
	{
		resp.brokers[i].node_id = brokers[i].node_id;
		resp.brokers[i].host = kafka_bytes_of(brokers[i].host);
		resp.brokers[i].port = brokers[i].port;
		resp.brokers[i].rack = kafka_bytes_of(NULL);
	}
	resp.cluster_id = kafka_bytes_of(kafka_cluster_id());
	resp.controller_id = fill.leader;
	resp.cluster_authorized_operations =
		mr.include_cluster_authorized_operations ?
		kafka_cluster_authorized_operations() :
		KAFKA_AUTHORIZED_OPERATIONS_OMITTED;

	if (all_topics)
	{
		resp.ntopics = fill_schema_topics(&fill, &resp.topics, ACL_SELECT);
		/* listed only to those who may read every group's positions */
		if (kafka_offsets_topic_listed())
		{
			KafkaMetadataResponseTopic *t = &resp.topics[resp.ntopics++];

			fill_topic(&fill, t, kafka_bytes_of(TOPIC_KAFKA_OFFSETS_TOPIC),
					   InvalidOid, KAFKA_NONE, 1);
			t->is_internal = true;
		}
	}
	else
	{
		KafkaMetadataResponseTopic *known = NULL;
		int32		nknown = -1;
		int64		locks_left = -1;

		resp.ntopics = Max(mr.ntopics, 0);
		resp.topics = resp.ntopics > 0 ?
			palloc(sizeof(KafkaMetadataResponseTopic) * resp.ntopics) : NULL;
		for (int32 i = 0; i < resp.ntopics; i++)
		{
			int16		error = KAFKA_NONE;

			/* a topic not there yet may be created by asking (auto_create.c) */
			if (mr.topics[i].name.len >= 0 && mr.allow_auto_topic_creation)
				error = kafka_auto_create_topic(mr.topics[i].name, &locks_left);
			if (error != KAFKA_NONE)
				fill_topic(&fill, &resp.topics[i], mr.topics[i].name,
						   InvalidOid, error, 0);
			else if (mr.topics[i].name.len >= 0)
				fill_named_topic(&fill, &resp.topics[i], mr.topics[i].name);
			else
			{
				/* the topics an id may name, once */
				if (nknown < 0)
					nknown = fill_schema_topics(&fill, &known,
												ACL_SELECT | ACL_INSERT);
				fill_topic_by_id(&fill, &resp.topics[i],
								 &mr.topics[i].topic_id, known, nknown,
								 req->api_version);
			}
		}
	}
	kafka_encode(req->response, &kafka_metadata_response, req->api_version,
				 &resp);
	return KAFKA_ANSWER;
}

/*
 * The coordinator of one key: a writable primary coordinates every group
 * and every transactional id (kafka/transactions.c), a fenced node none.
 */
static void
fill_coordinator(KafkaRequest *req, int8 key_type, KafkaCoordinator *c)
{
	KafkaBroker self = kafka_self_broker(req->conn);

	c->error_code = KAFKA_NONE;
	if (key_type != KAFKA_COORDINATOR_GROUP &&
		key_type != KAFKA_COORDINATOR_TRANSACTION)
		c->error_code = KAFKA_INVALID_REQUEST;
	else if (kafka_node_fenced())
		c->error_code = KAFKA_COORDINATOR_NOT_AVAILABLE;
	c->error_message = kafka_bytes_of(NULL);
	c->node_id = c->error_code == KAFKA_NONE ? self.node_id : -1;
	c->host = kafka_bytes_of(c->error_code == KAFKA_NONE ? self.host : "");
	c->port = c->error_code == KAFKA_NONE ? self.port : -1;
}

/* FindCoordinator v0-5: one key (v0-3) or many (v4+) */
KafkaOutcome
kafka_find_coordinator(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaFindCoordinatorRequest fr;
	KafkaFindCoordinatorResponse resp;
	KafkaCoordinator one;

	if (!kafka_decode(&req->body, &kafka_find_coordinator_request,
					  req->api_version, &fr))
		return KAFKA_CLOSE;
	memset(&resp, 0, sizeof(resp));
	if (req->api_version < 4)
	{
		fill_coordinator(req, fr.key_type, &one);
		resp.error_code = one.error_code;
		resp.error_message = one.error_message;
		resp.node_id = one.node_id;
		resp.host = one.host;
		resp.port = one.port;
	}
	else
	{
		resp.ncoordinators = Max(fr.ncoordinator_keys, 0);
		resp.coordinators = resp.ncoordinators > 0 ?
			palloc(sizeof(KafkaCoordinator) * resp.ncoordinators) : NULL;
		for (int32 i = 0; i < resp.ncoordinators; i++)
		{
			fill_coordinator(req, fr.key_type, &resp.coordinators[i]);
			resp.coordinators[i].key = fr.coordinator_keys[i];
		}
	}
	kafka_encode(req->response, &kafka_find_coordinator_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
