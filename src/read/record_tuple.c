/*-------------------------------------------------------------------------
 *
 * record_tuple.c
 *	  A record as a row of its topic, put into a result tuplestore.
 *
 * fetch and poll return thousands of rows per call, and a profile put a
 * quarter of a fetch in heap_form_minimal_tuple: the generic former walks
 * the descriptor twice per row (sizes, then fill) and zeroes the tuple
 * first.  A topic's row is always (partition int4, offset int8, timestamp
 * int8, key, value, headers) with three packable, int-aligned varlena
 * columns whatever the key and value types, and the record's images are
 * already stored the way heap_fill_tuple stores them (record.c), so the
 * row is laid out here directly, with the same bytes heap_form_tuple
 * would produce: a short header kept as it is, a 4-byte header that fits
 * in one byte shortened, any other 4-byte header aligned to 4 with zero
 * padding.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "utils/tuplestore.h"

#include "pg_topics/log/topic_log.h"
#include "pg_topics/read/read.h"

/* Rows up to this size are laid out on the stack */
#define RECORD_TUPLE_STACK_BYTES 1024

/*
 * Where the fixed columns go in the row's data: int8 and timestamptz are
 * aligned as double (8 bytes on 64-bit platforms, giving 0, 8, 16, 24)
 */
#define ROW_OFFSET_AT		TYPEALIGN(ALIGNOF_DOUBLE, sizeof(int32))
#define ROW_TIMESTAMP_AT	TYPEALIGN(ALIGNOF_DOUBLE, ROW_OFFSET_AT + sizeof(int64))
#define ROW_VARLENA_AT		(ROW_TIMESTAMP_AT + sizeof(TimestampTz))

/* Bytes varlena v takes in a row starting at data offset pos, padding included */
static inline Size
varlena_row_end(Size pos, Pointer v)
{
	Assert(!VARATT_IS_EXTERNAL(v));
	if (VARATT_IS_1B(v))
		return pos + VARSIZE_ANY(v);
	if (VARATT_CAN_MAKE_SHORT(v))
		return pos + VARATT_CONVERTED_SHORT_SIZE(v);
	return INTALIGN(pos) + VARSIZE(v);
}

/* Store v at data + pos as heap_fill_tuple would; returns the end */
static inline Size
varlena_row_put(char *data, Size pos, Pointer v)
{
	Size		size;

	if (VARATT_IS_1B(v))
	{
		size = VARSIZE_ANY(v);
		memcpy(data + pos, v, size);
		return pos + size;
	}
	if (VARATT_CAN_MAKE_SHORT(v))
	{
		size = VARATT_CONVERTED_SHORT_SIZE(v);
		SET_VARSIZE_SHORT(data + pos, size);
		memcpy(data + pos + 1, VARDATA(v), size - 1);
		return pos + size;
	}
	while (pos != INTALIGN(pos))
		data[pos++] = 0;
	size = VARSIZE(v);
	memcpy(data + pos, v, size);
	return pos + size;
}

#if defined(USE_ASSERT_CHECKING) || defined(TOPIC_CHECK_ROW_LAYOUT)
/* The row laid out here must be the one heap_form_minimal_tuple makes */
static void
check_row_layout(TupleDesc desc, HeapTuple tuple, int32 partition,
				 const TopicRecord *rec, Pointer fields[3])
{
	Datum		values[Natts_topic];
	bool		nulls[Natts_topic] = {false};
	MinimalTuple expected;
	Size		from = offsetof(MinimalTupleData, t_infomask2);
	char	   *ours = (char *) tuple->t_data + MINIMAL_TUPLE_OFFSET;
	int			f;

	values[Anum_topic_partition - 1] = Int32GetDatum(partition);
	values[Anum_topic_offset - 1] = Int64GetDatum(rec->offset);
	values[Anum_topic_timestamp - 1] = TimestampTzGetDatum(rec->timestamp);
	for (f = 0; f < 3; f++)
	{
		nulls[Anum_topic_key - 1 + f] = (fields[f] == NULL);
		values[Anum_topic_key - 1 + f] = PointerGetDatum(fields[f]);
	}
	expected = heap_form_minimal_tuple(desc, values, nulls);
	if (expected->t_len != tuple->t_len - MINIMAL_TUPLE_OFFSET ||
		memcmp((char *) expected + from, ours + from, expected->t_len - from) != 0)
		elog(ERROR, "row of offset %lld is laid out unlike heap_form_minimal_tuple's",
			 (long long) rec->offset);
	pfree(expected);
}
#endif

/*
 * Lay out the row of record rec of partition partition as a heap tuple in
 * buf, which has room for topic_record_row_size() bytes; fields are its
 * key, value and headers, none external.
 */
static void
lay_out_row(char *buf, Size len, Size hoff, int32 partition,
			const TopicRecord *rec, Pointer fields[3])
{
	HeapTupleHeader header = (HeapTupleHeader) buf;
	bool		hasnull = false;
	char	   *data;
	Size		pos;
	int			f;

	for (f = 0; f < 3; f++)
		hasnull |= (fields[f] == NULL);
	memset(buf, 0, hoff + ROW_VARLENA_AT);
	HeapTupleHeaderSetNatts(header, Natts_topic);
	header->t_hoff = hoff;
	header->t_infomask = HEAP_HASVARWIDTH;

	data = buf + hoff;
	*(int32 *) data = partition;
	*(int64 *) (data + ROW_OFFSET_AT) = rec->offset;
	*(TimestampTz *) (data + ROW_TIMESTAMP_AT) = rec->timestamp;
	pos = ROW_VARLENA_AT;
	for (f = 0; f < 3; f++)
		if (fields[f] != NULL)
			pos = varlena_row_put(data, pos, fields[f]);
	Assert(hoff + pos == len);

	if (hasnull)
	{
		bits8		bits = 0x07;	/* partition, offset, timestamp */

		for (f = 0; f < 3; f++)
			if (fields[f] != NULL)
				bits |= 1 << (3 + f);
		header->t_bits[0] = bits;
		header->t_infomask |= HEAP_HASNULL;
	}
	if (fields[0] == NULL && fields[1] == NULL && fields[2] == NULL)
		header->t_infomask &= ~HEAP_HASVARWIDTH;
}

/*
 * The row's fields (TOAST taken along: the row outlives the page and
 * retention), its header size and its whole size as a heap tuple
 */
static Size
row_size(const TopicRecord *rec, Pointer fields[3], Size *hoff)
{
	bool		hasnull = false;
	Size		pos = ROW_VARLENA_AT;
	int			f;

	fields[0] = rec->key;
	fields[1] = rec->value;
	fields[2] = rec->headers;
	for (f = 0; f < 3; f++)
	{
		if (fields[f] != NULL && VARATT_IS_EXTERNAL(fields[f]))
			fields[f] = (Pointer) detoast_external_attr((struct varlena *) fields[f]);
		hasnull |= (fields[f] == NULL);
	}
	*hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					 (hasnull ? BITMAPLEN(Natts_topic) : 0));
	for (f = 0; f < 3; f++)
		if (fields[f] != NULL)
			pos = varlena_row_end(pos, fields[f]);
	return *hoff + pos;
}

/*
 * Put the row of record rec of partition partition into store, whose rows
 * have the topic's row type desc.
 */
void
topic_record_tuple_put(Tuplestorestate *store, TupleDesc desc, int32 partition,
					   const TopicRecord *rec)
{
	Pointer		fields[3];
	union
	{
		char		data[RECORD_TUPLE_STACK_BYTES];
		int64		align_int64;
		double		align_double;
	}			stack;
	Size		hoff;
	Size		len = row_size(rec, fields, &hoff);
	char	   *buf = len <= sizeof(stack.data) ? stack.data : palloc(len);
	HeapTupleData tuple;

	lay_out_row(buf, len, hoff, partition, rec, fields);
	tuple.t_len = len;
	tuple.t_data = (HeapTupleHeader) buf;
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
#if defined(USE_ASSERT_CHECKING) || defined(TOPIC_CHECK_ROW_LAYOUT)
	check_row_layout(desc, &tuple, partition, rec, fields);
#endif
	tuplestore_puttuple(store, &tuple);
	if (buf != stack.data)
		pfree(buf);
}

/*
 * The row of record rec of partition partition as a minimal tuple in the
 * current memory context, as heap_form_minimal_tuple would make it from
 * the row's values: what a tuplestore, sort or hash keeps of a row.
 */
MinimalTuple
topic_record_minimal_tuple(TupleDesc desc, int32 partition,
						   const TopicRecord *rec)
{
	Pointer		fields[3];
	Size		hoff;
	Size		len = row_size(rec, fields, &hoff);
	MinimalTuple result = palloc(len - MINIMAL_TUPLE_OFFSET);
	union
	{
		char		data[RECORD_TUPLE_STACK_BYTES];
		int64		align_int64;
		double		align_double;
	}			stack;
	char	   *buf;

	/*
	 * A minimal tuple is a heap tuple without its first MINIMAL_TUPLE_OFFSET
	 * bytes: lay the heap tuple out, then copy all but those
	 */
	buf = len <= sizeof(stack.data) ? stack.data : palloc(len);
	lay_out_row(buf, len, hoff, partition, rec, fields);
#if defined(USE_ASSERT_CHECKING) || defined(TOPIC_CHECK_ROW_LAYOUT)
	{
		HeapTupleData tuple;

		tuple.t_len = len;
		tuple.t_data = (HeapTupleHeader) buf;
		check_row_layout(desc, &tuple, partition, rec, fields);
	}
#endif
	memcpy(result, buf + MINIMAL_TUPLE_OFFSET, len - MINIMAL_TUPLE_OFFSET);
	result->t_len = len - MINIMAL_TUPLE_OFFSET;
	if (buf != stack.data)
		pfree(buf);
	return result;
}
