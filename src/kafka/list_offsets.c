/*-------------------------------------------------------------------------
 *
 * list_offsets.c
 *	  ListOffsets (v1-2): a partition's earliest and latest offsets, or the
 *	  first offset at or after a time.
 *
 * Earliest is the log start.  Latest is the last stable offset for both
 * isolation levels, since no consumer reads beyond it (fetch.c).  By time
 * it is topics.offsets_for_times' answer: the earliest offset whose
 * timestamp is at or after the one asked for, with that timestamp; -1 and
 * -1 when there is none yet.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/kafka/consumer_offsets_topic.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"

/* Answer one partition */
static void
list_partition(StringInfo out, Relation topic, int32 partition, int64 when)
{
	Relation	router;
	TopicPartitionBounds bounds;
	int64		offset;
	int64		found_ms = -1;
	int16		error;

	kafka_write_int32(out, partition);
	router = kafka_open_partition(topic, partition, &error);
	if (router == NULL)
	{
		kafka_write_int16(out, error);
		kafka_write_int64(out, -1);
		kafka_write_int64(out, -1);
		return;
	}
	if (when == KAFKA_EARLIEST_TIMESTAMP || when == KAFKA_LATEST_TIMESTAMP)
	{
		topic_partition_bounds(router, RelationGetRelid(topic), &bounds);
		offset = when == KAFKA_EARLIEST_TIMESTAMP ? bounds.log_start :
			bounds.last_stable;
	}
	else
	{
		TimestampTz found;
		TimestampTz ts;

		/* Kafka's times start in 1970; beyond PostgreSQL's, nothing is */
		when = Max(when, 0) - KAFKA_UNIX_EPOCH_MS;
		ts = when > END_TIMESTAMP / 1000 ? DT_NOEND : when * 1000;
		offset = topic_partition_offset_for_time(router, ts, &found);
		if (offset >= 0)
			found_ms = kafka_timestamp_ms(found);
	}
	table_close(router, NoLock);
	kafka_write_int16(out, KAFKA_NONE);
	kafka_write_int64(out, found_ms);
	kafka_write_int64(out, offset);
}

/* ListOffsets v1-2 */
KafkaOutcome
kafka_list_offsets(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaListOffsetsRequest lr;

	/* isolation_level (v2) gives the same answer (see above) */
	if (!kafka_parse_list_offsets_request(&req->body, req->api_version, &lr))
		return KAFKA_CLOSE;

	if (req->api_version >= 2)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, lr.ntopics);
	for (int32 t = 0; t < lr.ntopics; t++)
	{
		KafkaTopicRequest *tr = &lr.topics[t];
		int16		error;
		Relation	topic;

		if (kafka_is_offsets_topic(tr->name))
		{
			kafka_offsets_topic_list_offsets(out, tr);
			continue;
		}
		topic = kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT, &error);
		kafka_write_string_len(out, tr->name.data, Max(tr->name.len, 0));
		kafka_write_array_len(out, tr->npartitions);
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			KafkaPartitionRequest *part = &tr->partitions[p];

			if (topic == NULL)
			{
				kafka_write_int32(out, part->partition);
				kafka_write_int16(out, error);
				kafka_write_int64(out, -1);
				kafka_write_int64(out, -1);
			}
			else
				list_partition(out, topic, part->partition, part->timestamp);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	return KAFKA_ANSWER;
}
