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

#include "pg_topics/base/compat.h"
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

/*
 * Copy the n bytes of a short varlena in 8-byte moves.  Knowing that n is
 * below 128, GCC inlines memcpy as "rep movsq", whose start-up cost made
 * that one instruction a sixth of a fetch in a CTE (perf annotate).
 */
static inline void
copy_small(char *dst, const char *src, Size n)
{
	for (; n >= sizeof(uint64); n -= sizeof(uint64))
	{
		uint64		word;

		memcpy(&word, src, sizeof(uint64));
		memcpy(dst, &word, sizeof(uint64));
		dst += sizeof(uint64);
		src += sizeof(uint64);
	}
	while (n-- > 0)
		*dst++ = *src++;
}

/* Store v at data + pos as heap_fill_tuple would; returns the end */
static inline Size
varlena_row_put(char *data, Size pos, Pointer v)
{
	Size		size;

	if (VARATT_IS_1B(v))
	{
		size = VARSIZE_ANY(v);
		copy_small(data + pos, v, size);
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
#if PG_VERSION_NUM >= 180000
	expected = heap_form_minimal_tuple(desc, values, nulls, 0);
#else
	expected = heap_form_minimal_tuple(desc, values, nulls);
#endif
	if (expected->t_len != tuple->t_len - MINIMAL_TUPLE_OFFSET ||
		memcmp((char *) expected + from, ours + from, expected->t_len - from) != 0)
		elog(ERROR, "row of offset %lld is laid out unlike heap_form_minimal_tuple's",
			 (long long) rec->offset);
	pfree_current(expected);
}
#endif

/* A row being laid out: its key, value and headers, and its sizes */
typedef struct RecordRow
{
	Pointer		fields[3];		/* none external */
	bool		hasnull;
	Size		hoff;
	Size		len;			/* as a heap tuple */
} RecordRow;

/*
 * The row's fields (TOAST taken along: the row outlives the page and
 * retention), its header size and its whole size as a heap tuple
 */
static void
row_size(const TopicRecord *rec, RecordRow *row)
{
	Size		pos = ROW_VARLENA_AT;
	int			f;

	row->fields[0] = rec->key;
	row->fields[1] = rec->value;
	row->fields[2] = rec->headers;
	row->hasnull = false;
	for (f = 0; f < 3; f++)
	{
		if (row->fields[f] != NULL && VARATT_IS_EXTERNAL(row->fields[f]))
			row->fields[f] = (Pointer) detoast_external_attr((struct varlena *) row->fields[f]);
		row->hasnull |= (row->fields[f] == NULL);
	}
	row->hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
						 (row->hasnull ? BITMAPLEN(Natts_topic) : 0));
	for (f = 0; f < 3; f++)
		if (row->fields[f] != NULL)
			pos = varlena_row_end(pos, row->fields[f]);
	row->len = row->hoff + pos;
}

/*
 * Lay out row, of record rec of partition partition, as a heap tuple at
 * buf, leaving its first skip bytes alone (a minimal tuple has none of
 * them, see topic_record_minimal_tuple)
 */
static void
lay_out_row(char *buf, Size skip, const RecordRow *row, int32 partition,
			const TopicRecord *rec)
{
	HeapTupleHeader header = (HeapTupleHeader) buf;
	char	   *data;
	Size		pos;
	int			f;

	Assert(skip <= offsetof(HeapTupleHeaderData, t_infomask2));
	memset(buf + skip, 0, row->hoff + ROW_VARLENA_AT - skip);
	/* not HeapTupleHeaderSetNatts: reading back what memset just wrote stalls */
	header->t_infomask2 = Natts_topic;
	header->t_hoff = row->hoff;
	header->t_infomask = HEAP_HASVARWIDTH;

	data = buf + row->hoff;
	*(int32 *) data = partition;
	*(int64 *) (data + ROW_OFFSET_AT) = rec->offset;
	*(TimestampTz *) (data + ROW_TIMESTAMP_AT) = rec->timestamp;
	pos = ROW_VARLENA_AT;
	for (f = 0; f < 3; f++)
		if (row->fields[f] != NULL)
			pos = varlena_row_put(data, pos, row->fields[f]);
	Assert(row->hoff + pos == row->len);

	if (row->hasnull)
	{
		bits8		bits = 0x07;	/* partition, offset, timestamp */

		for (f = 0; f < 3; f++)
			if (row->fields[f] != NULL)
				bits |= 1 << (3 + f);
		header->t_bits[0] = bits;
		header->t_infomask |= HEAP_HASNULL;
	}
	if (row->fields[0] == NULL && row->fields[1] == NULL && row->fields[2] == NULL)
		header->t_infomask &= ~HEAP_HASVARWIDTH;
}

/* Room for the rows of most records, on the stack */
typedef union RowBuffer
{
	char		data[RECORD_TUPLE_STACK_BYTES];
	int64		align_int64;
	double		align_double;
} RowBuffer;

/*
 * The row of record rec of partition partition, of the topic's row type
 * desc, as a heap tuple in *tuple: laid out in stack if it fits, else in
 * palloc'd memory the caller frees (tuple->t_data != stack->data)
 */
static void
form_row(TupleDesc desc, int32 partition, const TopicRecord *rec,
		 RowBuffer *stack, HeapTuple tuple)
{
	RecordRow	row;
	char	   *buf;

	row_size(rec, &row);
	buf = row.len <= sizeof(stack->data) ? stack->data : palloc(row.len);
	lay_out_row(buf, 0, &row, partition, rec);
	tuple->t_len = row.len;
	tuple->t_data = (HeapTupleHeader) buf;
	ItemPointerSetInvalid(&tuple->t_self);
	tuple->t_tableOid = InvalidOid;
#if defined(USE_ASSERT_CHECKING) || defined(TOPIC_CHECK_ROW_LAYOUT)
	check_row_layout(desc, tuple, partition, rec, row.fields);
#endif
}

/*
 * Put the row of record rec of partition partition into store, whose rows
 * have the topic's row type desc.
 */
void
topic_record_tuple_put(Tuplestorestate *store, TupleDesc desc, int32 partition,
					   const TopicRecord *rec)
{
	RowBuffer	stack;
	HeapTupleData tuple;

	form_row(desc, partition, rec, &stack, &tuple);
	tuplestore_puttuple(store, &tuple);
	if ((char *) tuple.t_data != stack.data)
		pfree(tuple.t_data);
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
	RecordRow	row;
	HeapTupleData tuple;
	MinimalTuple result;

	/*
	 * A minimal tuple is a heap tuple without its first MINIMAL_TUPLE_OFFSET
	 * bytes: the row is laid out in place, addressed as a heap tuple the way
	 * tts_minimal_store_tuple addresses one, and without those bytes
	 */
	row_size(rec, &row);
	result = palloc(row.len - MINIMAL_TUPLE_OFFSET);
	tuple.t_data = (HeapTupleHeader) ((char *) result - MINIMAL_TUPLE_OFFSET);
	tuple.t_len = row.len;
	lay_out_row((char *) tuple.t_data, MINIMAL_TUPLE_OFFSET, &row, partition, rec);
	result->t_len = row.len - MINIMAL_TUPLE_OFFSET;
#if defined(USE_ASSERT_CHECKING) || defined(TOPIC_CHECK_ROW_LAYOUT)
	check_row_layout(desc, &tuple, partition, rec, row.fields);
#endif
	return result;
}
