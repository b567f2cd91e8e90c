/*-------------------------------------------------------------------------
 *
 * record_check.c
 *	  The producer rules of a row, checked before it is written: a
 *	  partition, an offset and a timestamp only in preserve mode, a key,
 *	  value and headers within max.message.bytes, a key for a compacted
 *	  topic.
 *
 * The rules are looked up once for a call's rows and checked before any
 * of them is prepared, so that a row that breaks them fails the call
 * before anything is locked or written.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/tupmacs.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/writer/record.h"

/*
 * Refuse a key, value or headers over limit: pg_topics.max_message_bytes,
 * or the lower max.message.bytes of the topic named topic_name
 */
static void
refuse_too_large(int field, Size rawsize, int64 limit, const char *topic_name)
{
	if (topic_name != NULL)
	{
		static const char *const fields[] = {"key", "value", "headers"};

		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %zu bytes is larger than max.message.bytes of topic \"%s\" (" INT64_FORMAT " bytes)",
						fields[field], rawsize, topic_name, limit)));
	}
	switch (field)
	{
		case 0:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("key of %zu bytes is larger than pg_topics.max_message_bytes (%d bytes)",
							rawsize, (int) limit)));
			break;
		case 1:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("value of %zu bytes is larger than pg_topics.max_message_bytes (%d bytes)",
							rawsize, (int) limit)));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("headers of %zu bytes are larger than pg_topics.max_message_bytes (%d bytes)",
							rawsize, (int) limit)));
	}
}

/* Refuse a log-assigned column that the caller supplied */
static void
refuse_supplied_column(const char *column)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("column \"%s\" of a topic is assigned by the log", column),
			 errdetail("Producers supply only key, value and headers."),
			 errhint("Leave out the \"%s\" column.  To restore or replicate records with their offsets and timestamps, set session_replication_role to replica.",
					 column)));
}

/*
 * The producer-facing rules of the row in slot: a partition, an offset and
 * a timestamp only in preserve mode (and then an offset in range), a key,
 * value and headers within limit bytes (from_topic: the topic's
 * max.message.bytes, which topic_record_check_rows found)
 */
static void
check_row(Relation rel, TupleTableSlot *slot, bool preserve, int64 limit,
		  bool from_topic)
{
	int			f;

	slot_getallattrs(slot);

	if (slot->tts_isnull[Anum_topic_partition - 1])
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("null value in column \"partition\" of relation \"%s\" violates not-null constraint",
						RelationGetRelationName(rel)),
				 errtablecol(rel, Anum_topic_partition)));

	if (!preserve)
	{
		if (!slot->tts_isnull[Anum_topic_offset - 1] &&
			DatumGetInt64(slot->tts_values[Anum_topic_offset - 1]) != TOPIC_OFFSET_PLACEHOLDER)
			refuse_supplied_column("offset");
		if (!slot->tts_isnull[Anum_topic_timestamp - 1] &&
			DatumGetTimestampTz(slot->tts_values[Anum_topic_timestamp - 1]) != TOPIC_TIMESTAMP_PLACEHOLDER)
			refuse_supplied_column("timestamp");
	}
	else if (!slot->tts_isnull[Anum_topic_offset - 1])
	{
		int64		offset = DatumGetInt64(slot->tts_values[Anum_topic_offset - 1]);

		if (offset < TOPIC_OFFSET_PLACEHOLDER || offset >= TOPIC_OFFSET_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("offset %lld is out of range", (long long) offset),
					 errdetail("Offsets run from 0 to %lld.",
							   (long long) TOPIC_OFFSET_MAX - 1)));
	}

	for (f = 0; f < 3; f++)
	{
		int			attno = Anum_topic_key + f;
		Size		rawsize;

		if (slot->tts_isnull[attno - 1])
			continue;
		rawsize = toast_raw_datum_size(slot->tts_values[attno - 1]) - VARHDRSZ;
		if (rawsize > (Size) limit)
			refuse_too_large(f, rawsize, limit,
							 from_topic ? get_rel_name(topic_registry_topic_of(rel)) : NULL);
	}
}

/*
 * A record without a key for a compacted topic: refused as Kafka refuses it
 * (INVALID_RECORD, "Compacted topic cannot accept message without key").
 * The cleaner keeps the newest record of each key; a keyless record has no
 * newer one, so it would stay in the log forever.  not_null_violation: the
 * key column is required of this topic's records, as a NOT NULL column's
 * values are.
 */
void
topic_record_refuse_keyless(Relation rel)
{
	Oid			topic = topic_registry_topic_of(rel);

	ereport(ERROR,
			(errcode(ERRCODE_NOT_NULL_VIOLATION),
			 errmsg("a record for compacted topic \"%s\" needs a key",
					OidIsValid(topic) ? get_rel_name(topic) :
					RelationGetRelationName(rel)),
			 errdetail("cleanup.policy includes compact: the log keeps the newest record of each key."),
			 errtablecol(rel, Anum_topic_key)));
}

/*
 * The rules of check_row for nslots rows, within pg_topics.max_message_bytes
 * and, but in preserve mode, the topic's max.message.bytes and its need of
 * a key: looked up once for them all (two hash lookups a row were a few
 * percent of a Kafka Produce's time).  Records restored or replicated
 * (preserve mode) were taken under the rules of their time and place: the
 * publisher's log is what it is.
 */
void
topic_record_check_rows(Relation rel, TupleTableSlot **slots, int nslots,
						bool preserve)
{
	TopicProducerRules rules;

	if (nslots <= 0)
		return;

	if (preserve)
	{
		rules.max_message_bytes = pg_topics_max_message_bytes;
		rules.limit_from_topic = false;
		rules.needs_key = false;
	}
	else
		topic_config_producer_rules(topic_registry_topic_of(rel), &rules);
	for (int i = 0; i < nslots; i++)
		check_row(rel, slots[i], preserve, rules.max_message_bytes,
				  rules.limit_from_topic);
	/* apart, so that the loop above is the same for other topics */
	if (rules.needs_key)
		for (int i = 0; i < nslots; i++)
			if (slots[i]->tts_isnull[Anum_topic_key - 1])
				topic_record_refuse_keyless(rel);
}

/*
 * The rules of check_row for the row in slot.  The insert buffer checks a
 * row here when it is inserted, so that the rules of that moment apply,
 * not those of when it is written.
 */
void
topic_record_check_row(Relation rel, TupleTableSlot *slot, bool preserve)
{
	topic_record_check_rows(rel, &slot, 1, preserve);
}
