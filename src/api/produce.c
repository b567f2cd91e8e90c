/*-------------------------------------------------------------------------
 *
 * produce.c
 *	  topics.produce() and topics.produce_batch(): the fast produce paths.
 *
 * Both route in C (partitioner.c) and open only the partitions they write,
 * skipping the executor's tuple routing.  Topics have no triggers, rules,
 * indexes or constraints beyond NOT NULL (ddl.c refuses them), so handing
 * the slots straight to the partition writer (writer/writer.c), as the
 * access method's multi_insert does, does everything INSERT would.
 * produce_batch reads its arrays in chunks, groups each chunk's records by
 * partition and hands each group to one write, so a call writes
 * about one batch per page it fills, in memory that does not grow with
 * the arrays.
 *
 * Typing: a value or key is accepted with the topic's own type, as an
 * untyped literal, or as text (converted with the type's input function,
 * so '{"a":1}' goes into a jsonb topic and '\x01' into a bytea one); any
 * other type is 42804.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/partitioner.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/writer/record.h"
#include "pg_topics/writer/writer.h"

/*
 * Start a materialized set-returning function.  The executor's expected
 * row type, when it has one, saves building the result type from the
 * catalog on every call (a tenth of a single-record produce).
 */
static inline void
topic_init_srf(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, rsinfo && rsinfo->expectedDesc ?
						MAT_SRF_USE_EXPECTED_DESC : 0);
}

PG_FUNCTION_INFO_V1(topic_produce);
PG_FUNCTION_INFO_V1(topic_produce_batch);

/* Refuse an argument (array, if is_array) of a type the topic does not take (42804) */
static void
refuse_type(Oid argtype, Oid coltype, const char *what, Relation topic,
			bool is_array)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s of type %s cannot be produced to topic \"%s\"",
					what, format_type_be(argtype), RelationGetRelationName(topic)),
			 errdetail("The topic's %s type is %s.", what, format_type_be(coltype)),
			 is_array ?
			 errhint("Pass an array of %s or of text.", format_type_be(coltype)) :
			 coltype == TEXTOID ?
			 errhint("Pass text or an untyped literal.") :
			 errhint("Pass %s, text, or an untyped literal.", format_type_be(coltype))));
}

/* Convert an argument of type argtype to the topic column's type */
static Datum
coerce_payload(Datum value, Oid argtype, Oid coltype, const char *what,
			   Relation topic)
{
	Oid			typinput;
	Oid			typioparam;
	char	   *cstring;

	if (argtype == coltype)
		return value;
	if (argtype == UNKNOWNOID)
		cstring = DatumGetCString(value);
	else if (argtype == TEXTOID)
		cstring = TextDatumGetCString(value);
	else
		refuse_type(argtype, coltype, what, topic, false);
	getTypeInputInfo(coltype, &typinput, &typioparam);
	return OidInputFunctionCall(typinput, cstring, typioparam, -1);
}

/*
 * topics.produce(topic text, value "any", key "any", partition int,
 *		headers jsonb) RETURNS TABLE(partition int, "offset" bigint)
 */
Datum
topic_produce(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic;
	Relation	router;
	TupleTableSlot *slot;
	int32		partition;
	Datum		key = (Datum) 0;
	Datum		value = (Datum) 0;
	bool		key_null = PG_ARGISNULL(2);
	bool		value_null = PG_ARGISNULL(1);
	Datum		result[2];
	bool		result_null[2] = {false, false};
	TopicWriterOptions options;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("topic must not be null")));
	PreventCommandIfReadOnly("produce");
	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), RowExclusiveLock, ACL_INSERT);

	if (!value_null)
		value = coerce_payload(PG_GETARG_DATUM(1),
							   get_fn_expr_argtype(fcinfo->flinfo, 1),
							   topic_column_type(topic, Anum_topic_value),
							   "value", topic);
	if (!key_null)
		key = coerce_payload(PG_GETARG_DATUM(2),
							 get_fn_expr_argtype(fcinfo->flinfo, 2),
							 topic_column_type(topic, Anum_topic_key),
							 "key", topic);

	if (!PG_ARGISNULL(3))
	{
		partition = PG_GETARG_INT32(3);
		topic_check_partition(topic, partition);
	}
	else
	{
		TopicPartitioner part;

		topic_partitioner_init(&part, RelationGetRelid(topic),
							   topic_column_type(topic, Anum_topic_key),
							   topic_partition_count(topic));
		partition = topic_partition_choose(&part, key, key_null);
	}

	router = topic_open_partition_for_insert(topic, partition);
	slot = table_slot_create(router, NULL);
	topic_fill_record_slot(slot, partition, key, key_null, value, value_null,
					 PG_ARGISNULL(4) ? (Datum) 0 : PG_GETARG_DATUM(4),
					 PG_ARGISNULL(4));
	/*
	 * Written now, for its offset: an INSERT's rows may wait, this must
	 * not; after the rows an INSERT of this statement left waiting, which
	 * came first
	 */
	topic_writer_options_init(&options, GetCurrentCommandId(true));
	topic_buffer_flush();
	topic_writer_write(router, &slot, 1, &options);

	topic_init_srf(fcinfo);
	result[0] = Int32GetDatum(partition);
	result[1] = slot->tts_values[Anum_topic_offset - 1];
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, result, result_null);

	ExecDropSingleTupleTableSlot(slot);
	table_close(router, NoLock);
	relation_close(topic, NoLock);
	return (Datum) 0;
}

/*
 * produce_batch hands the log at most this many records, or about this
 * many bytes of keys and values, per write: its memory beyond the
 * input arrays stays the same however long they are.  A chunk still fills
 * many pages, so the per-call work of the log (locks, registry) is spread
 * over thousands of records.
 */
#define PRODUCE_CHUNK_RECORDS	8192
#define PRODUCE_CHUNK_BYTES		(8 * 1024 * 1024)

/* Reads the elements of a keys or values array one at a time */
typedef struct PayloadReader
{
	ArrayIterator iterator;
	Oid			elemtype;
	Oid			coltype;
	const char *what;
	int			nelems;
} PayloadReader;

/*
 * Start reading an array argument whose elements become the topic's column
 * of type coltype; the elements are checked and converted as they are read.
 */
static void
payload_reader_begin(PayloadReader *reader, Datum array, Oid argtype,
					 Oid coltype, const char *what, Relation topic)
{
	ArrayType  *arr;

	if (argtype == UNKNOWNOID)
	{
		/* an untyped array literal: read it as text[] */
		array = OidInputFunctionCall(F_ARRAY_IN, DatumGetCString(array),
									 TEXTOID, -1);
		argtype = TEXTARRAYOID;
	}
	reader->elemtype = get_element_type(argtype);
	if (reader->elemtype != coltype && reader->elemtype != TEXTOID)
		refuse_type(argtype, coltype, what, topic, true);

	arr = DatumGetArrayTypeP(array);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
	reader->coltype = coltype;
	reader->what = what;
	reader->nelems = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	/* by-reference elements come back as pointers into the array: no copies */
	reader->iterator = array_create_iterator(arr, 0, NULL);
}

/*
 * The next element as a datum of the topic's type (converted ones are
 * allocated in the current memory context); false when it is null.
 */
static bool
payload_reader_next(PayloadReader *reader, Relation topic, Datum *value)
{
	bool		isnull;

	if (!array_iterate(reader->iterator, value, &isnull))
		elog(ERROR, "%s array ended early", reader->what);
	if (isnull)
		return false;
	if (reader->elemtype != reader->coltype)
		*value = coerce_payload(*value, reader->elemtype, reader->coltype,
								reader->what, topic);
	return true;
}

/* One chunk of topics.produce_batch's records, and what it reuses for the next */
typedef struct ProduceChunk
{
	Relation	topic;
	int32		nparts;
	int32		fixed_partition;	/* -1: by key, or sticky without one */
	TopicPartitioner part;		/* routes by key, or sticky without one */
	CommandId	cid;
	int			cap;			/* records per chunk at most */
	int			n;				/* records in this chunk */
	Datum	   *keys;
	bool	   *key_nulls;
	Datum	   *values;
	bool	   *value_nulls;
	int32	   *partitions;		/* in input order */
	int64	   *offsets;		/* in input order */
	int		   *order;			/* input place of each slot */
	int		   *starts;			/* per partition, see produce_sort_chunk */
	TupleTableSlot **slots;		/* sorted by partition */
	Relation   *routers;			/* partitions opened so far */
} ProduceChunk;

/*
 * Read the next chunk's records (up to chunk->cap records or about
 * PRODUCE_CHUNK_BYTES, at most remaining) and route each to its partition
 */
static void
produce_read_chunk(ProduceChunk *chunk, PayloadReader *values,
				   PayloadReader *keys, int remaining)
{
	Size		bytes = 0;
	int			n = 0;

	while (n < remaining && n < chunk->cap && bytes < PRODUCE_CHUNK_BYTES)
	{
		chunk->value_nulls[n] = !payload_reader_next(values, chunk->topic,
													 &chunk->values[n]);
		if (!chunk->value_nulls[n])
			bytes += VARSIZE_ANY(DatumGetPointer(chunk->values[n]));
		chunk->key_nulls[n] = keys == NULL ||
			!payload_reader_next(keys, chunk->topic, &chunk->keys[n]);
		if (!chunk->key_nulls[n])
			bytes += VARSIZE_ANY(DatumGetPointer(chunk->keys[n]));
		else
			chunk->keys[n] = (Datum) 0;

		if (chunk->fixed_partition >= 0)
			chunk->partitions[n] = chunk->fixed_partition;
		else
			chunk->partitions[n] = topic_partition_choose(&chunk->part,
														  chunk->keys[n],
														  chunk->key_nulls[n]);
		n++;
	}
	chunk->n = n;
}

/*
 * Fill the chunk's slots sorted by partition (a stable counting sort):
 * afterwards starts[p] is the end of p's slots, and order[] the input
 * place of each slot
 */
static void
produce_sort_chunk(ProduceChunk *chunk)
{
	int		   *starts = chunk->starts;
	int			i;

	/* starts[p] is p's first place */
	memset(starts, 0, sizeof(int) * (chunk->nparts + 1));
	for (i = 0; i < chunk->n; i++)
		starts[chunk->partitions[i] + 1]++;
	for (int32 p = 0; p < chunk->nparts; p++)
		starts[p + 1] += starts[p];
	for (i = 0; i < chunk->n; i++)
	{
		int			place = starts[chunk->partitions[i]]++;

		chunk->order[place] = i;
		topic_fill_record_slot(chunk->slots[place], chunk->partitions[i],
						 chunk->keys[i], chunk->key_nulls[i],
						 chunk->values[i], chunk->value_nulls[i],
						 (Datum) 0, true);
	}
}

/* Write the sorted chunk, one write per partition, and note the offsets */
static void
produce_write_chunk(ProduceChunk *chunk)
{
	TopicWriterOptions options;

	topic_writer_options_init(&options, chunk->cid);
	for (int32 p = 0; p < chunk->nparts; p++)
	{
		int			first = p == 0 ? 0 : chunk->starts[p - 1];
		int			count = chunk->starts[p] - first;

		if (count == 0)
			continue;
		if (chunk->routers[p] == NULL)
			chunk->routers[p] = topic_open_partition_for_insert(chunk->topic, p);
		/* after the rows an INSERT of this statement left waiting */
		topic_buffer_flush();
		topic_writer_write(chunk->routers[p], chunk->slots + first, count,
						   &options);
		for (int i = first; i < first + count; i++)
			chunk->offsets[chunk->order[i]] =
				DatumGetInt64(chunk->slots[i]->tts_values[Anum_topic_offset - 1]);
	}
}

/*
 * Set up the chunk buffers for nvalues records.  Slots on an unpinned copy
 * of the row type: a pinned descriptor costs a resource-owner entry per
 * slot.  One set of slots serves every chunk.
 */
static void
produce_chunk_begin(ProduceChunk *chunk, Relation topic, Oid key_type,
					int32 nparts, int32 fixed_partition, int nvalues)
{
	TupleDesc	desc = CreateTupleDescCopy(RelationGetDescr(topic));
	int			cap = Min(nvalues, PRODUCE_CHUNK_RECORDS);

	chunk->topic = topic;
	chunk->nparts = nparts;
	chunk->fixed_partition = fixed_partition;
	topic_partitioner_init(&chunk->part, RelationGetRelid(topic), key_type,
						   nparts);
	chunk->cid = GetCurrentCommandId(true);
	chunk->cap = cap;
	chunk->n = 0;
	chunk->keys = palloc(sizeof(Datum) * cap);
	chunk->key_nulls = palloc(sizeof(bool) * cap);
	chunk->values = palloc(sizeof(Datum) * cap);
	chunk->value_nulls = palloc(sizeof(bool) * cap);
	chunk->partitions = palloc(sizeof(int32) * cap);
	chunk->offsets = palloc(sizeof(int64) * cap);
	chunk->order = palloc(sizeof(int) * cap);
	chunk->starts = palloc(sizeof(int) * (nparts + 1));
	chunk->slots = palloc(sizeof(TupleTableSlot *) * cap);
	for (int i = 0; i < cap; i++)
		chunk->slots[i] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	chunk->routers = palloc0(sizeof(Relation) * nparts);
}

/* Drop the chunk's slots and close the partitions it wrote to */
static void
produce_chunk_end(ProduceChunk *chunk)
{
	for (int i = 0; i < chunk->cap; i++)
		ExecDropSingleTupleTableSlot(chunk->slots[i]);
	for (int32 p = 0; p < chunk->nparts; p++)
		if (chunk->routers[p] != NULL)
			table_close(chunk->routers[p], NoLock);
}

/*
 * topics.produce_batch(topic text, values "any", keys "any",
 *		partition int) RETURNS TABLE(partition int, "offset" bigint)
 *
 * One row per record, in input order.  The records go in chunks
 * (PRODUCE_CHUNK_*): each is routed, sorted by partition (stably, so each
 * partition gets its records in input order), written with one
 * write per partition, and reported, before the next is read.
 */
Datum
topic_produce_batch(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic;
	Oid			key_type;
	int32		nparts;
	PayloadReader values;
	PayloadReader keys;
	bool		have_keys = !PG_ARGISNULL(2);
	int			nvalues;
	ProduceChunk chunk;
	MemoryContext chunk_context;
	MemoryContext oldcontext;
	int32		fixed_partition = -1;
	int			done;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("topic must not be null")));
	PreventCommandIfReadOnly("produce_batch");
	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), RowExclusiveLock, ACL_INSERT);
	key_type = topic_column_type(topic, Anum_topic_key);
	nparts = topic_partition_count(topic);

	topic_init_srf(fcinfo);
	if (PG_ARGISNULL(1))
	{
		relation_close(topic, NoLock);
		return (Datum) 0;
	}
	payload_reader_begin(&values, PG_GETARG_DATUM(1),
						 get_fn_expr_argtype(fcinfo->flinfo, 1),
						 topic_column_type(topic, Anum_topic_value), "values",
						 topic);
	nvalues = values.nelems;
	if (have_keys)
	{
		payload_reader_begin(&keys, PG_GETARG_DATUM(2),
							 get_fn_expr_argtype(fcinfo->flinfo, 2),
							 key_type, "keys", topic);
		if (keys.nelems != nvalues)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("values has %d elements but keys has %d",
							nvalues, keys.nelems),
					 errdetail("Each record takes one value and one key (NULL for none).")));
	}
	if (!PG_ARGISNULL(3))
	{
		fixed_partition = PG_GETARG_INT32(3);
		topic_check_partition(topic, fixed_partition);
	}
	if (nvalues == 0)
	{
		relation_close(topic, NoLock);
		return (Datum) 0;
	}

	/*
	 * A compacted topic's records need keys.  The write path checks each
	 * row too, but a call's rows go out partition by partition: checked
	 * here, a keyless element refuses the call before any offset is taken.
	 */
	if (topic_config_needs_key(RelationGetRelid(topic)) &&
		(!have_keys || array_contains_nulls(DatumGetArrayTypeP(PG_GETARG_DATUM(2)))))
		topic_record_refuse_keyless(topic);

	produce_chunk_begin(&chunk, topic, key_type, nparts, fixed_partition,
						nvalues);
	chunk_context = AllocSetContextCreate(CurrentMemoryContext,
										  "produce_batch chunk",
										  ALLOCSET_DEFAULT_SIZES);

	for (done = 0; done < nvalues; done += chunk.n)
	{
		MemoryContextReset(chunk_context);
		oldcontext = MemoryContextSwitchTo(chunk_context);
		produce_read_chunk(&chunk, &values, have_keys ? &keys : NULL,
						   nvalues - done);
		produce_sort_chunk(&chunk);
		produce_write_chunk(&chunk);
		MemoryContextSwitchTo(oldcontext);

		for (int i = 0; i < chunk.n; i++)
		{
			Datum		result[2] = {Int32GetDatum(chunk.partitions[i]),
			Int64GetDatum(chunk.offsets[i])};
			bool		result_null[2] = {false, false};

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, result,
								 result_null);
		}
	}

	produce_chunk_end(&chunk);
	MemoryContextDelete(chunk_context);
	relation_close(topic, NoLock);
	return (Datum) 0;
}
