/*-------------------------------------------------------------------------
 *
 * produce.c
 *	  topics.produce() and topics.produce_batch(): the fast produce paths.
 *
 * Both route in C (partitioner.c) and open only the partitions they write,
 * skipping the executor's tuple routing.  Topics have no triggers, rules,
 * indexes or constraints beyond NOT NULL (ddl.c refuses them), so handing
 * the slots straight to the access method does everything INSERT would.
 * produce_batch groups the records by partition and hands each group to
 * one multi_insert, so a call writes one batch per page it fills.
 *
 * Typing: a value or key is accepted with the topic's own type, as an
 * untyped literal, or as text (converted with the type's input function,
 * so '{"a":1}' goes into a jsonb topic and '\x01' into a bytea one); any
 * other type is 42804.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

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
#include "utils/lsyscache.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"

#include "catalog.h"
#include "partitioner.h"
#include "pg_topics.h"
#include "topic_log.h"

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

/* Fill a partition's slot with one record; the log fills the rest */
static void
fill_record_slot(TupleTableSlot *slot, int32 partition, Datum key,
				 bool key_null, Datum value, bool value_null, Datum headers,
				 bool headers_null)
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
static Relation
open_partition(Relation topic, int32 partition)
{
	Oid			relid = topic_partition_relid(topic, partition);

	if (!OidIsValid(relid))
		elog(ERROR, "topic \"%s\" has no relation for partition %d",
			 RelationGetRelationName(topic), partition);
	return table_open(relid, RowExclusiveLock);
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
	Relation	leaf;
	TupleTableSlot *slot;
	int32		partition;
	Datum		key = (Datum) 0;
	Datum		value = (Datum) 0;
	bool		key_null = PG_ARGISNULL(2);
	bool		value_null = PG_ARGISNULL(1);
	Datum		result[2];
	bool		result_null[2] = {false, false};

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
	else if (!key_null)
		partition = topic_partition_for_key(key, topic_column_type(topic, Anum_topic_key),
											topic_partition_count(topic));
	else
		partition = topic_partition_sticky(RelationGetRelid(topic),
										   topic_partition_count(topic));

	leaf = open_partition(topic, partition);
	slot = table_slot_create(leaf, NULL);
	fill_record_slot(slot, partition, key, key_null, value, value_null,
					 PG_ARGISNULL(4) ? (Datum) 0 : PG_GETARG_DATUM(4),
					 PG_ARGISNULL(4));
	table_tuple_insert(leaf, slot, GetCurrentCommandId(true), 0, NULL);

	topic_init_srf(fcinfo);
	result[0] = Int32GetDatum(partition);
	result[1] = slot->tts_values[Anum_topic_offset - 1];
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, result, result_null);

	ExecDropSingleTupleTableSlot(slot);
	table_close(leaf, NoLock);
	relation_close(topic, NoLock);
	return (Datum) 0;
}

/* The elements of an array argument as datums of the topic's type */
static void
deconstruct_payloads(Datum array, Oid argtype, Oid coltype, const char *what,
					 Relation topic, Datum **elems, bool **nulls, int *n)
{
	Oid			elemtype;
	ArrayType  *arr;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			i;

	if (argtype == UNKNOWNOID)
	{
		/* an untyped array literal: read it as text[] */
		array = OidInputFunctionCall(F_ARRAY_IN, DatumGetCString(array),
									 TEXTOID, -1);
		argtype = TEXTARRAYOID;
	}
	elemtype = get_element_type(argtype);
	if (elemtype != coltype && elemtype != TEXTOID)
		refuse_type(argtype, coltype, what, topic, true);

	arr = DatumGetArrayTypeP(array);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign, elems, nulls, n);
	if (elemtype != coltype)
		for (i = 0; i < *n; i++)
			if (!(*nulls)[i])
				(*elems)[i] = coerce_payload((*elems)[i], elemtype, coltype, what, topic);
}

/*
 * topics.produce_batch(topic text, values "any", keys "any",
 *		partition int) RETURNS TABLE(partition int, "offset" bigint)
 *
 * One row per record, in input order.
 */
Datum
topic_produce_batch(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic;
	Oid			key_type;
	int32		nparts;
	Datum	   *values;
	bool	   *value_nulls;
	int			nvalues;
	Datum	   *keys = NULL;
	bool	   *key_nulls = NULL;
	int			nkeys = 0;
	int32	   *partitions;
	int64	   *offsets;
	int32		fixed_partition = -1;
	int32		sticky = -1;
	CommandId	cid = GetCurrentCommandId(true);
	TupleDesc	desc;
	int32		p;
	int			i;

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
	deconstruct_payloads(PG_GETARG_DATUM(1), get_fn_expr_argtype(fcinfo->flinfo, 1),
						 topic_column_type(topic, Anum_topic_value), "values",
						 topic, &values, &value_nulls, &nvalues);
	if (!PG_ARGISNULL(2))
	{
		deconstruct_payloads(PG_GETARG_DATUM(2), get_fn_expr_argtype(fcinfo->flinfo, 2),
							 key_type, "keys", topic, &keys, &key_nulls, &nkeys);
		if (nkeys != nvalues)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("values has %d elements but keys has %d", nvalues, nkeys),
					 errdetail("Each record takes one value and one key (NULL for none).")));
	}
	if (!PG_ARGISNULL(3))
	{
		fixed_partition = PG_GETARG_INT32(3);
		topic_check_partition(topic, fixed_partition);
	}

	/* route every record */
	partitions = palloc(sizeof(int32) * Max(nvalues, 1));
	offsets = palloc(sizeof(int64) * Max(nvalues, 1));
	for (i = 0; i < nvalues; i++)
	{
		if (fixed_partition >= 0)
			partitions[i] = fixed_partition;
		else if (keys != NULL && !key_nulls[i])
			partitions[i] = topic_partition_for_key(keys[i], key_type, nparts);
		else
		{
			if (sticky < 0)
				sticky = topic_partition_sticky(RelationGetRelid(topic), nparts);
			partitions[i] = sticky;
		}
	}

	/*
	 * Slots on an unpinned copy of the row type: a pinned descriptor costs
	 * a resource-owner entry per slot, and forgetting thousands of them is
	 * quadratic.
	 */
	desc = CreateTupleDescCopy(RelationGetDescr(topic));

	/* one multi_insert per partition, records in input order */
	for (p = 0; p < nparts; p++)
	{
		Relation	leaf = NULL;
		TupleTableSlot **slots = NULL;
		int		   *index = NULL;
		int			n = 0;

		for (i = 0; i < nvalues; i++)
		{
			if (partitions[i] != p)
				continue;
			if (leaf == NULL)
			{
				leaf = open_partition(topic, p);
				slots = palloc(sizeof(TupleTableSlot *) * nvalues);
				index = palloc(sizeof(int) * nvalues);
			}
			slots[n] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
			fill_record_slot(slots[n], p,
							 keys ? keys[i] : (Datum) 0, keys ? key_nulls[i] : true,
							 values[i], value_nulls[i], (Datum) 0, true);
			index[n++] = i;
		}
		if (leaf == NULL)
			continue;
		table_multi_insert(leaf, slots, n, cid, 0, NULL);
		for (i = 0; i < n; i++)
		{
			offsets[index[i]] = DatumGetInt64(slots[i]->tts_values[Anum_topic_offset - 1]);
			ExecDropSingleTupleTableSlot(slots[i]);
		}
		table_close(leaf, NoLock);
	}

	for (i = 0; i < nvalues; i++)
	{
		Datum		result[2] = {Int32GetDatum(partitions[i]), Int64GetDatum(offsets[i])};
		bool		result_null[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, result, result_null);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}
