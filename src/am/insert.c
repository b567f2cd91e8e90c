/*-------------------------------------------------------------------------
 *
 * insert.c
 *	  The table AM's inserts, adapted to the partition writer
 *	  (writer/writer.c): an INSERT's rows, a COPY's or a logical apply's.
 *
 * A call's rows become one writer's one append, in preserve mode when the
 * session is in it (session_replication_role = replica).  A logical
 * apply's removal rows are no records: they are set aside first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/hio.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "replication/logicalworker.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "pg_topics/am/insert.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/writer/record.h"
#include "pg_topics/writer/writer.h"

/*
 * The half-open offset ranges of a removal row (a publisher's log cleaner
 * removed those records, docs/replication.md) as an int8multirange's text,
 * or NULL if slot is no removal row.  A removal row is a marker row whose
 * headers have "pg_topics.removed": an array of offsets, first and end of
 * each range, ascending.
 */
static char *
removal_ranges(TupleTableSlot *slot)
{
	Jsonb	   *headers;
	JsonbValue	key;
	JsonbValue *found;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	v;
	StringInfoData text;
	int64		last = -1;
	int			n = 0;

	slot_getallattrs(slot);
	if (slot->tts_isnull[Anum_topic_timestamp - 1] ||
		DatumGetTimestampTz(slot->tts_values[Anum_topic_timestamp - 1]) !=
		TOPIC_MARKER_TIMESTAMP ||
		!slot->tts_isnull[Anum_topic_key - 1] ||
		!slot->tts_isnull[Anum_topic_value - 1] ||
		slot->tts_isnull[Anum_topic_headers - 1])
		return NULL;
	headers = DatumGetJsonbP(slot->tts_values[Anum_topic_headers - 1]);
	if (!JB_ROOT_IS_OBJECT(headers))
		return NULL;
	key.type = jbvString;
	key.val.string.val = "pg_topics.removed";
	key.val.string.len = strlen(key.val.string.val);
	found = findJsonbValueFromContainer(&headers->root, JB_FOBJECT, &key);
	if (found == NULL || found->type != jbvBinary ||
		!JsonContainerIsArray(found->val.binary.data))
		return NULL;

	initStringInfo(&text);
	appendStringInfoChar(&text, '{');
	it = JsonbIteratorInit(found->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		int64		offset;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("removal row of a publisher's log cleaner holds a value that is no offset")));
		offset = DatumGetInt64(DirectFunctionCall1(numeric_int8,
												   NumericGetDatum(v.val.numeric)));
		/* first < end, each range after the one before */
		if (offset < 0 || offset >= TOPIC_OFFSET_MAX ||
			(n % 2 == 1 ? offset <= last : offset < last))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("removal row of a publisher's log cleaner has offset %lld out of order",
							(long long) offset)));
		if (n % 2 == 0)
			appendStringInfo(&text, "%s[" INT64_FORMAT, n > 0 ? "," : "", offset);
		else
			appendStringInfo(&text, "," INT64_FORMAT ")", offset);
		last = offset;
		n++;
	}
	if (n == 0 || n % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("removal row of a publisher's log cleaner has %d offsets, not pairs", n)));
	appendStringInfoChar(&text, '}');
	return text.data;
}

/*
 * A subscription worker's insert: the removal rows among slots go to
 * topics.replica_removals, for the worker to remove the same records from
 * this log (worker/replica_cleaner.c), in the apply's transaction, so that
 * they are kept exactly when the apply is.  The other slots, in order.
 */
static TupleTableSlot **
take_removals(Relation rel, TupleTableSlot **slots, int *nslots)
{
	TupleTableSlot **rest = NULL;
	int			kept = 0;

	for (int i = 0; i < *nslots; i++)
	{
		char	   *ranges = removal_ranges(slots[i]);
		Oid			argtypes[2] = {REGCLASSOID, TEXTOID};
		Datum		args[2];

		if (ranges == NULL)
		{
			if (rest != NULL)
				rest[kept] = slots[i];
			kept++;
			continue;
		}
		if (rest == NULL)
		{
			rest = palloc(sizeof(TupleTableSlot *) * *nslots);
			memcpy(rest, slots, sizeof(TupleTableSlot *) * i);
		}
		args[0] = ObjectIdGetDatum(RelationGetRelid(rel));
		args[1] = CStringGetTextDatum(ranges);
		if (topic_internal_sql_exec("INSERT INTO topics.replica_removals AS r "
									"VALUES ($1, $2::pg_catalog.int8multirange) "
									"ON CONFLICT (\"partition\") DO UPDATE "
									"SET removed = r.removed OPERATOR(pg_catalog.+) excluded.removed",
									2, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not record the removals of \"%s\"",
				 RelationGetRelationName(rel));
	}
	*nslots = kept;
	return rest != NULL ? rest : slots;
}

/*
 * Insert nslots records into rel, in order, as command cid of the current
 * (sub)transaction; preserve: keep supplied offsets and timestamps.  Each
 * row has passed topic_record_check_row, once: the insert buffer checks
 * its rows when they are inserted, not again when they are written.
 */
void
topic_insert_rows(Relation rel, TupleTableSlot **slots, int nslots,
				  CommandId cid, bool preserve, BulkInsertState bistate)
{
	TopicWriterOptions options;

	if (preserve && IsLogicalWorker())
		slots = take_removals(rel, slots, &nslots);
	topic_writer_options_init(&options, cid);
	options.preserve = preserve;
	options.checked = true;
	options.strategy = bistate ? bistate->strategy : NULL;
	topic_writer_write(rel, slots, nslots, &options);
}

/*
 * Insert nslots records into rel (a partition's log), in order, as
 * command cid of the current (sub)transaction, in preserve mode if the
 * session is in it (session_replication_role = replica)
 */
void
topic_insert(Relation rel, TupleTableSlot **slots, int nslots, CommandId cid,
			 BulkInsertState bistate)
{
	TopicWriterOptions options;

	topic_writer_options_init(&options, cid);
	topic_record_check_rows(rel, slots, nslots, options.preserve);
	topic_insert_rows(rel, slots, nslots, cid, options.preserve, bistate);
}
