/*-------------------------------------------------------------------------
 *
 * metadata.c
 *	  Metadata (v0-4) and FindCoordinator (v0-2): the cluster as Kafka
 *	  clients see it.
 *
 * pg_topics is a one-broker cluster: node 0, at the address the listener
 * advertises, leads every partition, is its only replica and in-sync
 * replica, is the controller (where the admin client sends CreateTopics)
 * and coordinates every group.  The topics are the topics of
 * pg_topics.kafka_schema, by name.  A client asking for every topic sees
 * those it may SELECT; a client naming a topic also gets it if it may
 * INSERT (a producer needs the partitions), and TOPIC_AUTHORIZATION_FAILED
 * if it may do neither.  Topics are never created by asking for them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <netdb.h>
#include <sys/socket.h>

#include "access/relation.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/varlena.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"

/*
 * The host name the broker advertises in Metadata and FindCoordinator: the
 * first of pg_topics.kafka_listen_addresses, unless that is every address
 * (*), then the address this client reached (palloc'd)
 */
static char *
advertised_host(KafkaConn *conn)
{
	char	   *raw = pstrdup(pg_topics_kafka_listen_addresses);
	List	   *hosts;
	struct sockaddr_storage addr;
	socklen_t	len = sizeof(addr);
	char		host[NI_MAXHOST];

	if (SplitGUCList(raw, ',', &hosts) && hosts != NIL &&
		strcmp((char *) linitial(hosts), "*") != 0 &&
		strcmp((char *) linitial(hosts), "0.0.0.0") != 0 &&
		strcmp((char *) linitial(hosts), "::") != 0)
		return pstrdup((char *) linitial(hosts));
	if (getsockname(conn->fd, (struct sockaddr *) &addr, &len) == 0 &&
		getnameinfo((struct sockaddr *) &addr, len, host, sizeof(host), NULL, 0,
					NI_NUMERICHOST) == 0)
		return pstrdup(host);
	return pstrdup("localhost");
}

/* Write one topic's entry: its partitions, or an error */
static void
write_topic(KafkaRequest *req, const char *name, int namelen, int16 error,
			int32 nparts)
{
	StringInfo	out = req->response;

	kafka_write_int16(out, error);
	kafka_write_string_len(out, name, namelen);
	if (req->api_version >= 1)
		kafka_write_int8(out, 0);	/* is_internal */
	kafka_write_array_len(out, nparts);
	for (int32 p = 0; p < nparts; p++)
	{
		kafka_write_int16(out, KAFKA_NONE);
		kafka_write_int32(out, p);
		kafka_write_int32(out, KAFKA_NODE_ID);	/* leader */
		kafka_write_array_len(out, 1);	/* replicas */
		kafka_write_int32(out, KAFKA_NODE_ID);
		kafka_write_array_len(out, 1);	/* in-sync replicas */
		kafka_write_int32(out, KAFKA_NODE_ID);
	}
}

/* Write the entry of a topic a client named */
static void
write_named_topic(KafkaRequest *req, KafkaBytes name)
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
				topic ? topic_partition_count(topic) : 0);
	if (topic != NULL)
		relation_close(topic, AccessShareLock);
}

/* Write every topic of the schema the role may SELECT */
static void
write_all_topics(KafkaRequest *req)
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
							KAFKA_LEADER_NOT_AVAILABLE, 0);
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
						topic_partition_count(topic));
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

	/* allow_auto_topic_creation (v4): topics are never created by asking */
	if (!kafka_parse_metadata_request(&req->body, req->api_version, &mr))
		return KAFKA_CLOSE;

	if (req->api_version >= 3)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, 1);	/* brokers */
	kafka_write_int32(out, KAFKA_NODE_ID);
	kafka_write_string(out, advertised_host(req->conn));
	kafka_write_int32(out, pg_topics_kafka_port);
	if (req->api_version >= 1)
		kafka_write_string(out, NULL);	/* rack */
	if (req->api_version >= 2)
	{
		snprintf(cluster_id, sizeof(cluster_id), "pg_topics-" UINT64_FORMAT,
				 GetSystemIdentifier());
		kafka_write_string(out, cluster_id);
	}
	if (req->api_version >= 1)
		kafka_write_int32(out, KAFKA_NODE_ID);	/* controller */

	if (mr.all_topics)
		write_all_topics(req);
	else
	{
		kafka_write_array_len(out, mr.ntopics);
		for (int32 i = 0; i < mr.ntopics; i++)
			write_named_topic(req, mr.topics[i]);
	}
	return KAFKA_ANSWER;
}

/* FindCoordinator v0-2: this broker coordinates every group */
KafkaOutcome
kafka_find_coordinator(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaFindCoordinatorRequest fr;

	if (!kafka_parse_find_coordinator_request(&req->body, req->api_version, &fr))
		return KAFKA_CLOSE;
	if (req->api_version >= 1)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	/*
	 * Groups only.  Transactions are not offered: a transactional id's
	 * coordinator is refused as Kafka refuses a transactional id the
	 * principal may not use, which clients take as final at once
	 * (librdkafka's init_transactions() fails instead of looking for a
	 * coordinator until its timeout)
	 */
	kafka_write_int16(out, fr.key_type == KAFKA_COORDINATOR_GROUP ? KAFKA_NONE :
					  fr.key_type == KAFKA_COORDINATOR_TRANSACTION ?
					  KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED :
					  KAFKA_INVALID_REQUEST);
	if (req->api_version >= 1)
		kafka_write_string(out, NULL);	/* error_message */
	kafka_write_int32(out, KAFKA_NODE_ID);
	kafka_write_string(out, advertised_host(req->conn));
	kafka_write_int32(out, pg_topics_kafka_port);
	return KAFKA_ANSWER;
}
