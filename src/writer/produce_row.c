/*-------------------------------------------------------------------------
 *
 * produce_row.c
 *	  What a producer hands the partition writer: the partition opened for
 *	  writing, and a slot with one record, the log's columns left to the
 *	  log (topics.produce, topics.produce_batch and Kafka Produce).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/writer/writer.h"

/*
 * Fill a partition's slot with one record; the log fills the rest.
 */
void
topic_fill_record_slot(TupleTableSlot *slot, int32 partition, Datum key,
					   bool key_null, Datum value, bool value_null,
					   Datum headers, bool headers_null)
{
	ExecClearTuple(slot);
	slot->tts_values[Anum_topic_partition - 1] = Int32GetDatum(partition);
	slot->tts_isnull[Anum_topic_partition - 1] = false;
	slot->tts_values[Anum_topic_offset - 1] = Int64GetDatum(TOPIC_OFFSET_PLACEHOLDER);
	slot->tts_isnull[Anum_topic_offset - 1] = false;
	slot->tts_values[Anum_topic_timestamp - 1] =
		TimestampTzGetDatum(TOPIC_TIMESTAMP_PLACEHOLDER);
	slot->tts_isnull[Anum_topic_timestamp - 1] = false;
	slot->tts_values[Anum_topic_key - 1] = key;
	slot->tts_isnull[Anum_topic_key - 1] = key_null;
	slot->tts_values[Anum_topic_value - 1] = value;
	slot->tts_isnull[Anum_topic_value - 1] = value_null;
	slot->tts_values[Anum_topic_headers - 1] = headers;
	slot->tts_isnull[Anum_topic_headers - 1] = headers_null;
	ExecStoreVirtualTuple(slot);
}

/* Open partition number partition of topic for inserting */
Relation
topic_open_partition_for_insert(Relation topic, int32 partition)
{
	Oid			relid = topic_partition_relid(topic, partition);

	if (!OidIsValid(relid))
		elog(ERROR, "topic \"%s\" has no relation for partition %d",
			 RelationGetRelationName(topic), partition);
	return table_open(relid, RowExclusiveLock);
}
