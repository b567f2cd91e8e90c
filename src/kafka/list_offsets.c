/*-------------------------------------------------------------------------
 *
 * list_offsets.c
 *	  ListOffsets (v0-9): a partition's earliest and latest offsets, the
 *	  first offset at or after a time, or the record of the newest time.
 *
 * Earliest is the log start, and so is the earliest local offset (-4):
 * nothing is tiered.  Latest is the last stable offset for both isolation
 * levels, since no consumer reads beyond it (fetch.c).  The latest tiered
 * offset (-5) is -1, as Kafka answers for a topic without tiered storage.
 * By time it is topics.offsets_for_times' answer: the earliest offset
 * whose timestamp is at or after the one asked for, with that timestamp;
 * -1 and -1 when there is none yet.  The newest time (-3) is the earliest
 * record of the log's newest timestamp (a log's timestamps never go back),
 * with that timestamp; -1 and -1 on an empty log.
 *
 * Version 0 asks for up to max_num_offsets offsets and gets a list: the
 * one offset above (none if it asked for none), and for a time no record
 * has reached yet, the latest offset, as Kafka's list then ends with its
 * log end.  Kafka lists there its segments' first offsets too, which mean
 * nothing to a client of pg_topics.
 *
 * The leader epoch answered (v4+) is -1, as Metadata's: pg_topics has no
 * leader elections, and a client that knows no epoch validates none.  The
 * current_leader_epoch asked with is therefore not checked.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/kafka/consumer_offsets_topic.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/wire/msg_list_offsets.h"
#include "pg_topics/wire/protocol.h"

/* The earliest offset at or after ts, its time in *found_ms; -1 if none */
static int64
offset_for_time(Relation router, TimestampTz ts, int64 *found_ms)
{
	TimestampTz found;
	int64		offset = topic_partition_offset_for_time(router, ts, &found);

	if (offset >= 0)
		*found_ms = kafka_timestamp_ms(found);
	return offset;
}

/*
 * Answer from one partition's log (router, of the topic relid), asked for
 * by in, into out
 */
static void
list_log(KafkaListOffsetsPartitionResponse *out, Relation router, Oid relid,
		 const KafkaListOffsetsPartition *in, int16 version)
{
	TopicPartitionBounds bounds;
	int64		when = in->timestamp;
	int64		offset = -1;
	int64		found_ms = -1;

	topic_partition_bounds(router, relid, &bounds);
	switch (when)
	{
		case KAFKA_LATEST_TIMESTAMP:
			offset = bounds.last_stable;
			break;
		case KAFKA_EARLIEST_TIMESTAMP:
		case KAFKA_EARLIEST_LOCAL_TIMESTAMP:
			offset = bounds.log_start;
			break;
		case KAFKA_LATEST_TIERED_TIMESTAMP:
			break;
		case KAFKA_MAX_TIMESTAMP:
			{
				TopicLogEnd end;

				topic_log_end(router, &end);
				offset = offset_for_time(router, end.max_timestamp, &found_ms);
				break;
			}
		default:
			{
				TimestampTz ts;

				/* Kafka's times start in 1970; beyond PostgreSQL's, nothing is */
				when = Max(when, 0) - KAFKA_UNIX_EPOCH_MS;
				ts = when > END_TIMESTAMP / 1000 ? DT_NOEND : when * 1000;
				offset = offset_for_time(router, ts, &found_ms);
				/* v0: a time no record reached is the log's end */
				if (version == 0 && offset < 0)
					offset = bounds.last_stable;
				break;
			}
	}
	out->error_code = KAFKA_NONE;
	out->timestamp = found_ms;
	out->offset = offset;
	if (version == 0 && in->max_num_offsets > 0 && offset >= 0)
	{
		out->nold_style_offsets = 1;
		out->old_style_offsets = palloc(sizeof(int64));
		out->old_style_offsets[0] = offset;
	}
}

/* Answer one partition of topic (open), asked for by in, into out */
static void
list_partition(KafkaListOffsetsPartitionResponse *out, Relation topic,
			   const KafkaListOffsetsPartition *in, int16 version)
{
	int16		error;
	Relation	router = kafka_open_partition(topic, in->partition_index,
											  &error);

	if (router == NULL)
	{
		out->error_code = error;
		return;
	}
	list_log(out, router, RelationGetRelid(topic), in, version);
	table_close(router, NoLock);
}

/*
 * Answer one partition of __consumer_offsets: its one partition is
 * topics.consumer_offsets' log (consumer_offsets_topic.c)
 */
static void
list_offsets_topic_partition(KafkaListOffsetsPartitionResponse *out,
							 const KafkaListOffsetsPartition *in,
							 int16 version)
{
	Oid			logid = topic_offsets_log_relid();
	Relation	log;

	if (in->partition_index != 0)
	{
		out->error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		return;
	}
	log = table_open(logid, AccessShareLock);
	list_log(out, log, logid, in, version);
	table_close(log, AccessShareLock);
}

/* ListOffsets v0-9 */
KafkaOutcome
kafka_list_offsets(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaListOffsetsRequest lr;
	KafkaListOffsetsResponse resp = {0};

	/* replica_id: only consumers ask; isolation_level: see above */
	if (!kafka_decode(&req->body, &kafka_list_offsets_request,
					  req->api_version, &lr))
		return KAFKA_CLOSE;

	resp.ntopics = lr.ntopics;
	resp.topics = palloc0(sizeof(KafkaListOffsetsTopicResponse) *
						  Max(lr.ntopics, 1));
	for (int32 t = 0; t < lr.ntopics; t++)
	{
		KafkaListOffsetsTopic *tr = &lr.topics[t];
		KafkaListOffsetsTopicResponse *rt = &resp.topics[t];
		int16		error;
		Relation	topic;
		bool		offsets_topic;

		CHECK_FOR_INTERRUPTS();
		offsets_topic = kafka_is_offsets_topic(tr->name);
		topic = offsets_topic ? NULL :
			kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT, &error);
		rt->name = tr->name;
		rt->npartitions = tr->npartitions;
		rt->partitions = palloc0(sizeof(KafkaListOffsetsPartitionResponse) *
								 Max(tr->npartitions, 1));
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			KafkaListOffsetsPartitionResponse *rp = &rt->partitions[p];

			rp->partition_index = tr->partitions[p].partition_index;
			rp->timestamp = -1;
			rp->offset = -1;
			rp->leader_epoch = -1;
			if (offsets_topic)
				list_offsets_topic_partition(rp, &tr->partitions[p],
											 req->api_version);
			else if (topic == NULL)
				rp->error_code = error;
			else
				list_partition(rp, topic, &tr->partitions[p],
							   req->api_version);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	kafka_encode(req->response, &kafka_list_offsets_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
