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
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/wire/protocol.h"

/* Answer one partition */
static void
list_partition(StringInfo out, Relation topic, int32 partition, int64 when)
{
	Relation	router;
	TopicPartitionBounds bounds;
	int64		offset;
	int64		found_ms = -1;

	kafka_write_int32(out, partition);
	if (partition < 0 || partition >= topic_partition_count(topic))
	{
		kafka_write_int16(out, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
		kafka_write_int64(out, -1);
		kafka_write_int64(out, -1);
		return;
	}
	router = table_open(topic_partition_relid(topic, partition), AccessShareLock);
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
	KafkaReader *in = &req->body;
	StringInfo	out = req->response;
	int32		ntopics;

	(void) kafka_read_int32(in);	/* replica_id */
	if (req->api_version >= 2)
		(void) kafka_read_int8(in); /* isolation_level: the same answer */
	ntopics = kafka_read_array_len(in, 6, NULL);
	if (in->error)
		return KAFKA_CLOSE;

	if (req->api_version >= 2)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, ntopics);
	for (int32 t = 0; t < ntopics; t++)
	{
		KafkaBytes	name = kafka_read_string(in);
		int32		nparts = kafka_read_array_len(in, 12, NULL);
		int16		error;
		Relation	topic;

		if (in->error)
			return KAFKA_CLOSE;
		topic = kafka_open_topic(name, AccessShareLock, ACL_SELECT, &error);
		kafka_write_string_len(out, name.data, Max(name.len, 0));
		kafka_write_array_len(out, nparts);
		for (int32 p = 0; p < nparts; p++)
		{
			int32		partition = kafka_read_int32(in);
			int64		when = kafka_read_int64(in);

			if (in->error)
				return KAFKA_CLOSE;
			if (topic == NULL)
			{
				kafka_write_int32(out, partition);
				kafka_write_int16(out, error);
				kafka_write_int64(out, -1);
				kafka_write_int64(out, -1);
			}
			else
				list_partition(out, topic, partition, when);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	return KAFKA_ANSWER;
}
