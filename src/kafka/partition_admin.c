/*-------------------------------------------------------------------------
 *
 * partition_admin.c
 *	  DeleteRecords (v0-2) and CreatePartitions (v0-3): what Kafka's admin
 *	  clients do to a topic's partitions.
 *
 * Each is the SQL function of the same effect, run as the connection's
 * role in a subtransaction of the request's, so that its rules and
 * privileges are SQL's and its errors come back as Kafka error codes:
 *
 * DeleteRecords is topics.delete_records: DELETE on the topic, an offset
 * up to the high watermark (-1: the high watermark itself), the new log
 * start answered as the low watermark.  An offset outside the log is
 * OFFSET_OUT_OF_RANGE, as in Kafka.  A node that refuses writes (fence.c)
 * answers NOT_LEADER_OR_FOLLOWER, as Produce does.
 *
 * CreatePartitions is topics.add_partitions: ownership of the topic, and
 * a count that grows it (Kafka refuses the same count too:
 * INVALID_PARTITIONS).  Assignments, if given, must name this broker only
 * (INVALID_REPLICA_ASSIGNMENT), one per new partition.  validate_only runs
 * the change and rolls it back, so it fails exactly as the change would.
 * A node that refuses writes is no controller: NOT_CONTROLLER for every
 * topic, as CreateTopics answers.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/msg_create_partitions.h"
#include "pg_topics/wire/msg_delete_records.h"
#include "pg_topics/wire/protocol.h"

/* Kafka's INVALID_REPLICA_ASSIGNMENT */
#define KAFKA_INVALID_REPLICA_ASSIGNMENT	39

/* the SQL functions (worker/retention.c, api/topics.c) */
extern Datum topic_delete_records(PG_FUNCTION_ARGS);
extern Datum topic_add_partitions(PG_FUNCTION_ARGS);

/* The schema-qualified, quoted name of topic, as the SQL functions take */
static text *
qualified_name(Relation topic)
{
	return cstring_to_text(quote_qualified_identifier(get_namespace_name(RelationGetNamespace(topic)),
													  RelationGetRelationName(topic)));
}

/* One partition's deletion */
typedef struct Deletion
{
	text	   *topic;
	int32		partition;
	int64		before;
	int64		log_start;		/* the answer */
} Deletion;

static void
delete_records(void *arg)
{
	Deletion   *d = (Deletion *) arg;

	d->log_start = DatumGetInt64(DirectFunctionCall3(topic_delete_records,
													 PointerGetDatum(d->topic),
													 Int32GetDatum(d->partition),
													 Int64GetDatum(d->before)));
}

/* Delete below in->offset in partition in of topic (open) */
static void
delete_partition(KafkaDeleteRecordsPartitionResult *out, Relation topic,
				 const KafkaDeleteRecordsPartition *in)
{
	Relation	router;
	TopicPartitionBounds bounds;
	Deletion	d;
	int16		error;

	router = kafka_open_partition(topic, in->partition_index, &error);
	if (router == NULL)
	{
		out->error_code = error;
		return;
	}
	topic_partition_bounds(router, RelationGetRelid(topic), &bounds);
	table_close(router, NoLock);
	d.before = in->offset == KAFKA_DELETE_TO_HIGH_WATERMARK ?
		bounds.high_watermark : in->offset;
	if (d.before < 0 || d.before > bounds.high_watermark)
	{
		out->error_code = KAFKA_OFFSET_OUT_OF_RANGE;
		return;
	}
	d.topic = qualified_name(topic);
	d.partition = in->partition_index;
	out->error_code = kafka_run_guarded(delete_records, &d, NULL);
	if (out->error_code == KAFKA_NONE)
		out->low_watermark = d.log_start;
}

/* DeleteRecords v0-2 */
KafkaOutcome
kafka_delete_records(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDeleteRecordsRequest dr;
	KafkaDeleteRecordsResponse resp = {0};
	bool		refused = kafka_writes_refused();

	/* timeout_ms: the deletion is done when the answer goes out */
	if (!kafka_decode(&req->body, &kafka_delete_records_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;

	resp.ntopics = dr.ntopics;
	resp.topics = palloc0(sizeof(KafkaDeleteRecordsTopicResult) *
						  Max(dr.ntopics, 1));
	for (int32 t = 0; t < dr.ntopics; t++)
	{
		KafkaDeleteRecordsTopic *tr = &dr.topics[t];
		KafkaDeleteRecordsTopicResult *rt = &resp.topics[t];
		int16		error = KAFKA_NOT_LEADER_OR_FOLLOWER;
		Relation	topic = NULL;

		CHECK_FOR_INTERRUPTS();
		if (!refused)
			topic = kafka_open_topic(tr->name, AccessShareLock, ACL_DELETE,
									 &error);
		rt->name = tr->name;
		rt->npartitions = tr->npartitions;
		rt->partitions = palloc0(sizeof(KafkaDeleteRecordsPartitionResult) *
								 Max(tr->npartitions, 1));
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			KafkaDeleteRecordsPartitionResult *rp = &rt->partitions[p];

			rp->partition_index = tr->partitions[p].partition_index;
			rp->low_watermark = -1;
			if (topic == NULL)
				rp->error_code = error;
			else
				delete_partition(rp, topic, &tr->partitions[p]);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	kafka_encode(req->response, &kafka_delete_records_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/* One topic's new partition count */
typedef struct Growth
{
	text	   *topic;
	int32		count;
} Growth;

static void
add_partitions(void *arg)
{
	Growth	   *g = (Growth *) arg;

	DirectFunctionCall2(topic_add_partitions, PointerGetDatum(g->topic),
						Int32GetDatum(g->count));
}

/* Grow the topic in to in->count partitions; error and message in out */
static void
grow_topic(KafkaCreatePartitionsTopicResult *out,
		   const KafkaCreatePartitionsTopic *in, bool validate_only,
		   int32 node_id)
{
	Relation	topic;
	Growth		g;
	int32		current;
	char	   *message = NULL;

	topic = kafka_open_topic(in->name, AccessShareLock, TOPIC_NO_ACL_CHECK,
							 &out->error_code);
	if (topic == NULL)
		return;
	current = topic_partition_count(topic);
	g.topic = qualified_name(topic);
	g.count = in->count;
	relation_close(topic, NoLock);

	if (in->count <= current)
	{
		out->error_code = KAFKA_INVALID_PARTITIONS;
		message = psprintf("topic has %d partitions: the count can only grow",
						   current);
	}
	else if (in->nassignments >= 0 && in->nassignments != in->count - current)
	{
		out->error_code = KAFKA_INVALID_REPLICA_ASSIGNMENT;
		message = psprintf("%d assignments for %d new partitions",
						   in->nassignments, in->count - current);
	}
	else
	{
		for (int32 a = 0; a < Max(in->nassignments, 0); a++)
			for (int32 b = 0; b < in->assignments[a].nbroker_ids; b++)
				if (in->assignments[a].broker_ids[b] != node_id)
				{
					out->error_code = KAFKA_INVALID_REPLICA_ASSIGNMENT;
					message = "pg_topics is one broker: a partition's only replica is this node";
				}
	}
	if (out->error_code == KAFKA_NONE)
	{
		out->error_code = validate_only ?
			kafka_run_trial(add_partitions, &g, &message) :
			kafka_run_guarded(add_partitions, &g, &message);
		/* a count beyond what a topic may have */
		if (out->error_code == KAFKA_INVALID_RECORD ||
			out->error_code == KAFKA_MESSAGE_TOO_LARGE)
			out->error_code = KAFKA_INVALID_PARTITIONS;
	}
	out->error_message = out->error_code == KAFKA_NONE ?
		kafka_bytes_of(NULL) : kafka_bytes_of(message);
}

/* CreatePartitions v0-3 */
KafkaOutcome
kafka_create_partitions(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaCreatePartitionsRequest cr;
	KafkaCreatePartitionsResponse resp = {0};
	bool		refused = kafka_writes_refused();
	int32		node_id = kafka_self_broker(req->conn).node_id;

	/* timeout_ms: the partitions are there when the answer goes out */
	if (!kafka_decode(&req->body, &kafka_create_partitions_request,
					  req->api_version, &cr))
		return KAFKA_CLOSE;

	resp.nresults = cr.ntopics;
	resp.results = palloc0(sizeof(KafkaCreatePartitionsTopicResult) *
						   Max(cr.ntopics, 1));
	for (int32 t = 0; t < cr.ntopics; t++)
	{
		KafkaCreatePartitionsTopicResult *r = &resp.results[t];

		CHECK_FOR_INTERRUPTS();
		r->name = cr.topics[t].name;
		r->error_message = kafka_bytes_of(NULL);
		if (refused)
			r->error_code = KAFKA_NOT_CONTROLLER;
		else
			grow_topic(r, &cr.topics[t], cr.validate_only, node_id);
	}
	kafka_encode(req->response, &kafka_create_partitions_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
