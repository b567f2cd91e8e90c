/*-------------------------------------------------------------------------
 *
 * leader_epoch.c
 *	  OffsetForLeaderEpoch (v0-4): where a leader epoch of a partition
 *	  ends, which a consumer asks after a leader change to learn whether
 *	  the log it read was cut back under it.
 *
 * pg_topics has no leader elections: a partition's log has one epoch, 0,
 * from its first record on, and a failover does not change it (a standby
 * holds the same log).  Metadata and ListOffsets answer the epoch -1
 * ("unknown"), so that clients do not ask; one that asks all the same for
 * epoch 0 is answered 0 and the last stable offset, the end of what any
 * consumer can have read (fetch.c), which Kafka answers for its current
 * epoch too (its log end).  Any other epoch is not one of the log's:
 * -1 and -1, Kafka's answer for an epoch it does not know.  A current
 * leader epoch above 0 is UNKNOWN_LEADER_EPOCH, as Kafka answers a client
 * that is ahead of it.
 *
 * It reads, as ListOffsets does: SELECT on the topic, and a node that
 * refuses writes answers it all the same (fence.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/msg_offset_for_leader_epoch.h"
#include "pg_topics/wire/protocol.h"

/* the one epoch of every partition's log */
#define LOG_EPOCH	0

/* Answer one partition of topic (open, or NULL and error) */
static void
epoch_end(KafkaEpochEndOffset *out, Relation topic, int16 error,
		  const KafkaOffsetForLeaderPartition *in)
{
	Relation	router;
	TopicPartitionBounds bounds;

	out->partition = in->partition;
	out->leader_epoch = -1;
	out->end_offset = -1;
	if (topic == NULL)
	{
		out->error_code = error;
		return;
	}
	router = kafka_open_partition(topic, in->partition, &error);
	if (router == NULL)
	{
		out->error_code = error;
		return;
	}
	if (in->current_leader_epoch > LOG_EPOCH)
		out->error_code = KAFKA_UNKNOWN_LEADER_EPOCH;
	else if (in->leader_epoch == LOG_EPOCH)
	{
		topic_partition_bounds(router, RelationGetRelid(topic), &bounds);
		out->leader_epoch = LOG_EPOCH;
		out->end_offset = bounds.last_stable;
	}
	table_close(router, NoLock);
}

/* OffsetForLeaderEpoch v0-4 */
KafkaOutcome
kafka_offset_for_leader_epoch(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaOffsetForLeaderEpochRequest er;
	KafkaOffsetForLeaderEpochResponse resp = {0};

	/* replica_id: only consumers ask (no broker follows pg_topics) */
	if (!kafka_decode(&req->body, &kafka_offset_for_leader_epoch_request,
					  req->api_version, &er))
		return KAFKA_CLOSE;

	resp.ntopics = er.ntopics;
	resp.topics = palloc0(sizeof(KafkaOffsetForLeaderTopicResult) *
						  Max(er.ntopics, 1));
	for (int32 t = 0; t < er.ntopics; t++)
	{
		KafkaOffsetForLeaderTopic *tr = &er.topics[t];
		KafkaOffsetForLeaderTopicResult *rt = &resp.topics[t];
		int16		error;
		Relation	topic;

		CHECK_FOR_INTERRUPTS();
		topic = kafka_open_topic(tr->topic, AccessShareLock, ACL_SELECT, &error);
		rt->topic = tr->topic;
		rt->npartitions = tr->npartitions;
		rt->partitions = palloc0(sizeof(KafkaEpochEndOffset) *
								 Max(tr->npartitions, 1));
		for (int32 p = 0; p < tr->npartitions; p++)
			epoch_end(&rt->partitions[p], topic, error, &tr->partitions[p]);
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	kafka_encode(req->response, &kafka_offset_for_leader_epoch_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
