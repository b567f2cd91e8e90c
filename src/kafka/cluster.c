/*-------------------------------------------------------------------------
 *
 * cluster.c
 *	  DescribeCluster (v0-1) and DescribeLogDirs (v0-4): the cluster's
 *	  brokers and identity, and where the partitions' logs are and how
 *	  large, as admin tools (kafka-ui, AKHQ, Kafka's AdminClient) ask.
 *
 * DescribeCluster answers what Metadata answers: the brokers of
 * pg_topics.kafka_brokers (or this node alone), the same cluster id, and
 * this node as the controller unless it refuses writes (fence.c; then
 * none, -1).  Asked for controllers (endpoint type 2) it answers
 * MISMATCHED_ENDPOINT_TYPE, as a Kafka broker does: there is no separate
 * controller endpoint.  Asked for the cluster's authorized operations, it
 * answers DESCRIBE and IDEMPOTENT_WRITE, which every role may do, and
 * CREATE for a role that may create topics (CREATE on
 * pg_topics.kafka_schema).
 *
 * DescribeLogDirs answers one log directory, the server's data directory
 * (its path for a role that may read the data_directory setting, as SHOW
 * shows it; otherwise the words "data directory"), holding every partition
 * of the topics the role may SELECT (the topics asked for, or all), each
 * with its size on disk, as topics.partitions.bytes counts it.  Offset lag is 0 (no log
 * follows another) and no log is a future one.  Version 4's total and
 * usable bytes are those of the data directory's file system.  A topic or
 * partition that is not there, not readable or held by DDL is left out,
 * as Kafka leaves out what a broker does not hold.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/statvfs.h>

#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid_d.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/acl_operations.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/wire/msg_describe_cluster.h"
#include "pg_topics/wire/msg_describe_log_dirs.h"
#include "pg_topics/wire/protocol.h"

/* Kafka's errors of a request sent to the wrong kind of endpoint */
#define KAFKA_MISMATCHED_ENDPOINT_TYPE		114
#define KAFKA_UNSUPPORTED_ENDPOINT_TYPE		115

/* DescribeCluster v0-1 */
KafkaOutcome
kafka_describe_cluster(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDescribeClusterRequest dr;
	KafkaDescribeClusterResponse resp = {0};
	KafkaBroker *brokers;
	int			self;
	int			nbrokers;

	if (!kafka_decode(&req->body, &kafka_describe_cluster_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;

	resp.error_message = kafka_bytes_of(NULL);
	resp.endpoint_type = KAFKA_ENDPOINT_BROKERS;
	resp.cluster_id = kafka_bytes_of(kafka_cluster_id());
	resp.controller_id = -1;
	resp.cluster_authorized_operations = PG_INT32_MIN;
	if (dr.endpoint_type != KAFKA_ENDPOINT_BROKERS)
	{
		resp.error_code = dr.endpoint_type == KAFKA_ENDPOINT_CONTROLLERS ?
			KAFKA_MISMATCHED_ENDPOINT_TYPE : KAFKA_UNSUPPORTED_ENDPOINT_TYPE;
		resp.error_message = kafka_bytes_of("pg_topics has broker endpoints only");
		kafka_encode(req->response, &kafka_describe_cluster_response,
					 req->api_version, &resp);
		return KAFKA_ANSWER;
	}

	nbrokers = kafka_brokers(req->conn, &brokers, &self);
	resp.nbrokers = nbrokers;
	resp.brokers = palloc0(sizeof(KafkaDescribeClusterBroker) * Max(nbrokers, 1));
	for (int i = 0; i < nbrokers; i++)
	{
		resp.brokers[i].broker_id = brokers[i].node_id;
		resp.brokers[i].host = kafka_bytes_of(brokers[i].host);
		resp.brokers[i].port = brokers[i].port;
		resp.brokers[i].rack = kafka_bytes_of(NULL);
	}
	if (!kafka_node_fenced())
		resp.controller_id = brokers[self].node_id;
	if (dr.include_cluster_authorized_operations)
		resp.cluster_authorized_operations = kafka_cluster_authorized_operations();
	kafka_encode(req->response, &kafka_describe_cluster_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/*
 * The bytes of partition p of topic on disk; false if it is not there.
 * As topics.partitions.bytes counts them (api/views.c): the partition's
 * relation and every segment still there, spares and retired ones too,
 * each with its TOAST table and indexes.
 */
static bool
partition_size(Relation topic, int32 p, int64 *bytes)
{
	Relation	router;
	TopicSegmentDir *dir;
	int16		error;

	router = kafka_open_partition(topic, p, &error);
	if (router == NULL)
		return false;
	dir = topic_segdir_read(router);
	*bytes = DatumGetInt64(DirectFunctionCall1(pg_total_relation_size,
											   ObjectIdGetDatum(RelationGetRelid(router))));
	for (int i = 0; i < dir->nentries; i++)
	{
		Relation	seg = topic_segment_open(dir->router, &dir->entries[i],
											 AccessShareLock);

		if (seg == NULL)
			continue;
		*bytes += DatumGetInt64(DirectFunctionCall1(pg_total_relation_size,
													ObjectIdGetDatum(dir->entries[i].relid)));
		relation_close(seg, AccessShareLock);
	}
	pfree(dir);
	table_close(router, NoLock);
	return true;
}

/*
 * Describe topic's partitions (all of them if npartitions is -1) into t;
 * false if none is there
 */
static bool
describe_topic(KafkaDescribeLogDirsTopic *t, Relation topic, KafkaBytes name,
			   const int32 *partitions, int32 npartitions)
{
	int32		count = topic_partition_count(topic);
	int32		n = npartitions < 0 ? count : npartitions;

	t->name = name;
	t->npartitions = 0;
	t->partitions = palloc0(sizeof(KafkaDescribeLogDirsPartition) * Max(n, 1));
	for (int32 i = 0; i < n; i++)
	{
		int32		p = npartitions < 0 ? i : partitions[i];
		KafkaDescribeLogDirsPartition *out = &t->partitions[t->npartitions];

		CHECK_FOR_INTERRUPTS();
		if (p < 0 || p >= count || !partition_size(topic, p, &out->partition_size))
			continue;
		out->partition_index = p;
		t->npartitions++;
	}
	return t->npartitions > 0;
}

/* Every topic of the schema the role may SELECT, into dir */
static void
describe_all_topics(KafkaDescribeLogDirsResult *dir)
{
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	List	   *topics = OidIsValid(nspid) ? topic_list_topics() : NIL;
	ListCell   *lc;

	dir->topics = palloc0(sizeof(KafkaDescribeLogDirsTopic) *
						  Max(list_length(topics), 1));
	foreach(lc, topics)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	topic;
		KafkaBytes	name;

		/*
		 * by its Kafka name: a topic with a name over 63 bytes has a
		 * shortened table name, which is no Kafka name of it
		 */
		if (get_rel_namespace(relid) != nspid ||
			!kafka_topic_allowed(relid, ACL_SELECT))
			continue;
		/* held by DDL: left out rather than waited for */
		if (!ConditionalLockRelationOid(relid, AccessShareLock))
			continue;
		topic = topic_try_open(relid, AccessShareLock, TOPIC_NO_ACL_CHECK);
		UnlockRelationOid(relid, AccessShareLock);
		if (topic == NULL)
			continue;
		name = kafka_bytes_of(topic_kafka_name(relid));
		if (name.len >= 0 && kafka_topic_name_valid(name) &&
			describe_topic(&dir->topics[dir->ntopics], topic, name, NULL, -1))
			dir->ntopics++;
		relation_close(topic, AccessShareLock);
	}
}

/* DescribeLogDirs v0-4 */
KafkaOutcome
kafka_describe_log_dirs(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDescribeLogDirsRequest dr;
	KafkaDescribeLogDirsResponse resp = {0};
	KafkaDescribeLogDirsResult *dir;
	struct statvfs fs;

	if (!kafka_decode(&req->body, &kafka_describe_log_dirs_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;

	dir = palloc0(sizeof(KafkaDescribeLogDirsResult));
	resp.nresults = 1;
	resp.results = dir;
	dir->log_dir = kafka_bytes_of(superuser() ||
								  has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_SETTINGS) ?
								  DataDir : "data directory");
	dir->total_bytes = -1;
	dir->usable_bytes = -1;
	if (statvfs(DataDir, &fs) == 0)
	{
		dir->total_bytes = (int64) fs.f_blocks * fs.f_frsize;
		dir->usable_bytes = (int64) fs.f_bavail * fs.f_frsize;
	}

	if (dr.ntopics < 0)
		describe_all_topics(dir);
	else
	{
		dir->topics = palloc0(sizeof(KafkaDescribeLogDirsTopic) *
							  Max(dr.ntopics, 1));
		for (int32 t = 0; t < dr.ntopics; t++)
		{
			int16		error;
			Relation	topic;

			CHECK_FOR_INTERRUPTS();
			topic = kafka_open_topic_nowait(dr.topics[t].topic, AccessShareLock,
											ACL_SELECT, &error);
			if (topic == NULL)
				continue;
			if (describe_topic(&dir->topics[dir->ntopics], topic,
							   dr.topics[t].topic, dr.topics[t].partitions,
							   dr.topics[t].npartitions))
				dir->ntopics++;
			relation_close(topic, NoLock);
		}
	}
	kafka_encode(req->response, &kafka_describe_log_dirs_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
