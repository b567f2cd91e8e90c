/*-------------------------------------------------------------------------
 *
 * record_prepare.c
 *	  A checked row made into a record ready to encode: its fields read
 *	  from the slot and brought inline, compressed or moved to the
 *	  segment's TOAST table as heap does, and a replica's stable-offset
 *	  markers recognized.
 *
 * All of this can fail or allocate, so the writer does it before it
 * locks the tail page; TOAST values go into the segment the records go
 * to, so a record is prepared again when that segment rolled meanwhile.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/relation.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/writer/record.h"

/*
 * Keep the record's inline image below the TOAST threshold: compress the
 * largest field, then move the largest to the TOAST table, as heap does.
 */
void
topic_record_toast(Relation rel, PreparedRecord *rec)
{
	bool		tried_compress[3] = {false, false, false};

	while (topic_record_inline_size(rec) > TOPIC_LOG_TOAST_THRESHOLD)
	{
		int			largest = -1;
		int			f;
		bool		compress;

		/* first pass: compress; second: move out */
		for (compress = true;; compress = false)
		{
			Size		largest_size = 0;

			for (f = 0; f < 3; f++)
			{
				struct varlena *v = rec->field[f];

				if (v == NULL || VARATT_IS_EXTERNAL(v))
					continue;
				if (compress && (tried_compress[f] || VARATT_IS_COMPRESSED(v)))
					continue;
				if (VARSIZE_ANY(v) > largest_size && VARSIZE_ANY(v) > 64)
				{
					largest = f;
					largest_size = VARSIZE_ANY(v);
				}
			}
			if (largest >= 0 || !compress)
				break;
		}
		if (largest < 0)
			elog(ERROR, "topic record cannot be made small enough for a page");

		if (compress)
		{
			Form_pg_attribute att =
				TupleDescAttr(RelationGetDescr(rel), Anum_topic_key - 1 + largest);
			char		cmethod = att->attcompression;
			Datum		compressed;

			if (!CompressionMethodIsValid(cmethod))
				cmethod = default_toast_compression;
			tried_compress[largest] = true;
			compressed = toast_compress_datum(PointerGetDatum(rec->field[largest]),
											  cmethod);
			if (DatumGetPointer(compressed) != NULL)
				rec->field[largest] = (struct varlena *) DatumGetPointer(compressed);
		}
		else
			rec->field[largest] = (struct varlena *)
				DatumGetPointer(toast_save_datum(rel,
												 PointerGetDatum(rec->field[largest]),
												 NULL, 0));
	}
}

/* The numeric value of header name in headers, or NULL */
static JsonbValue *
marker_header(Jsonb *headers, const char *name)
{
	JsonbValue	key;
	JsonbValue *value;

	key.type = jbvString;
	key.val.string.val = (char *) name;
	key.val.string.len = strlen(name);
	value = findJsonbValueFromContainer(&headers->root, JB_FOBJECT, &key);
	return value != NULL && value->type == jbvNumeric ? value : NULL;
}

/*
 * A marker row from a publisher (docs/replication.md): its headers carry the
 * publisher's partition count, which must be ours, or keys would land in
 * different partitions on the two sides, and the publisher's log start,
 * which becomes ours.
 */
static void
check_marker(Relation rel, PreparedRecord *rec)
{
	Jsonb	   *headers = DatumGetJsonbP(PointerGetDatum(rec->field[2]));
	JsonbValue *count;
	JsonbValue *start;
	Oid			topic_oid;
	Relation	topic;
	int32		ours;

	count = marker_header(headers, "pg_topics.partitions");
	if (count == NULL)
	{
		rec->marker = false;	/* an ordinary record after all */
		return;
	}
	rec->npartitions = DatumGetInt32(DirectFunctionCall1(numeric_int4,
														 NumericGetDatum(count->val.numeric)));
	start = marker_header(headers, "pg_topics.log_start");
	rec->log_start = -1;
	if (start != NULL)
	{
		rec->log_start = DatumGetInt64(DirectFunctionCall1(numeric_int8,
														   NumericGetDatum(start->val.numeric)));
		if (rec->log_start < 0 || rec->log_start >= TOPIC_OFFSET_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("log start %lld of a stable-offset marker is out of range",
							(long long) rec->log_start),
					 errdetail("Offsets run from 0 to %lld.",
							   (long long) TOPIC_OFFSET_MAX - 1)));
	}
	topic_oid = topic_registry_topic_of(rel);
	if (!OidIsValid(topic_oid))
		return;
	topic = relation_open(topic_oid, AccessShareLock);
	ours = topic_partition_count(topic);
	if (ours != rec->npartitions)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("topic \"%s\" has %d partitions here but %d on its publisher",
						RelationGetRelationName(topic), ours, rec->npartitions),
				 errdetail("Logical replication of a topic needs the same partition count on both sides, so that every key stays in its partition."),
				 errhint("Give both topics the same number of partitions with topics.add_partitions(), then let the subscription retry.")));
	relation_close(topic, AccessShareLock);
}

/* Read one slot into rec; topic_record_check_rows has passed it */
void
topic_record_prepare(Relation rel, TupleTableSlot *slot, bool any_order,
					 PreparedRecord *rec)
{
	int			f;

	slot_getallattrs(slot);

	rec->partition = DatumGetInt32(slot->tts_values[Anum_topic_partition - 1]);
	rec->offset = TOPIC_OFFSET_PLACEHOLDER;
	if (!slot->tts_isnull[Anum_topic_offset - 1])
		rec->offset = DatumGetInt64(slot->tts_values[Anum_topic_offset - 1]);
	rec->timestamp = TOPIC_TIMESTAMP_PLACEHOLDER;
	if (!slot->tts_isnull[Anum_topic_timestamp - 1])
		rec->timestamp = DatumGetTimestampTz(slot->tts_values[Anum_topic_timestamp - 1]);

	for (f = 0; f < 3; f++)
	{
		int			attno = Anum_topic_key + f;
		struct varlena *v;

		if (slot->tts_isnull[attno - 1])
		{
			rec->field[f] = NULL;
			continue;
		}
		v = (struct varlena *) DatumGetPointer(slot->tts_values[attno - 1]);
		/* values toasted elsewhere, indirect or expanded: bring them inline */
		if (VARATT_IS_EXTERNAL(v))
			v = detoast_external_attr(v);
		rec->field[f] = v;
	}

	/* only a subscription's worker receives markers */
	rec->log_start = -1;
	rec->marker = any_order && rec->timestamp == TOPIC_MARKER_TIMESTAMP &&
		rec->field[0] == NULL && rec->field[1] == NULL &&
		rec->field[2] != NULL && rec->offset >= 0;
	if (rec->marker)
		check_marker(rel, rec);
}
