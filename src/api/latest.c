/*-------------------------------------------------------------------------
 *
 * latest.c
 *	  topics.latest(): the newest record of each key of a topic.
 *
 * Each partition is read as fetch reads it (stable_read.c), from its log
 * start up to its last stable offset, so a record that can still be taken
 * back is never shown: rolled-back records are gaps, and a read stops at
 * the first record of a transaction still open.  Per partition, because a
 * partition is Kafka's unit of compaction: a key routes to one partition,
 * but a producer naming the partition can put a key in several, and each
 * of them keeps its own newest record.
 *
 * A key is its bytes as stored, whatever the key type, as the cleaner and
 * Kafka compare keys: for jsonb its binary form, in which '{"a": 1}' and
 * '{ "a" :1 }' are one key.  Records without a key are not returned (they
 * are nobody's newest); a key whose newest record has a NULL value (a
 * tombstone) returns that record.
 *
 * The newest-per-key map is a sort, not a hash in memory: the records go
 * into a tuplesort by (partition, key, offset descending), the first of
 * each (partition, key) is kept, and those go through a second sort by
 * (partition, offset) into the result.  Sorts spill to disk past work_mem,
 * so a topic of any number of keys is answered in bounded memory.  The
 * other way, reading newest-first and keeping a bounded hash of the keys
 * seen, needs a log read backwards (the log is walked forwards, batch by
 * batch) and still a spill for a key space beyond memory.
 *
 * A compacted topic's log is mostly one record per key already, so
 * reading all of it is the cost of the answer; no part of it can be left
 * out, since the one record of a key may be in the oldest segment.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"

PG_FUNCTION_INFO_V1(topic_latest);

/* The records of a topic on their way into the first sort */
typedef struct LatestRead
{
	TupleDesc	desc;			/* the topic's row, its key as bytea */
	Tuplesortstate *by_key;
	TupleTableSlot *slot;
	MemoryContext record_context;	/* one record's row and detoasted fields */
} LatestRead;

/* A sink of the stable read: a keyed record into the sort by key */
static void
latest_sink(TopicStableRead *read, Relation seg, Buffer buffer,
			int32 partition, TopicRecord *rec)
{
	LatestRead *lr = (LatestRead *) read->sink_arg;
	MemoryContext old;

	if (rec->key == NULL)
		return;
	old = MemoryContextSwitchTo(lr->record_context);
	ExecStoreMinimalTuple(topic_record_minimal_tuple(lr->desc, partition, rec),
						  lr->slot, false);
	tuplesort_puttupleslot(lr->by_key, lr->slot);
	ExecClearTuple(lr->slot);
	MemoryContextSwitchTo(old);
	MemoryContextReset(lr->record_context);
}

/* Read every partition of topic into lr's sort by key */
static void
read_partitions(Relation topic, LatestRead *lr)
{
	int32		npartitions = topic_partition_count(topic);

	for (int32 p = 0; p < npartitions; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p),
										AccessShareLock);
		TopicStableRead read;
		TopicLogEnd end;
		int64		from;

		memset(&read, 0, sizeof(read));
		read.sink = latest_sink;
		read.sink_arg = lr;
		read.max_records = PG_INT64_MAX;
		read.passed_ok = true;

		/* the watermark first, then the snapshot (topic_read_partition) */
		topic_log_end(router, &end);
		from = end.log_start_offset;
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			topic_read_partition(router, p, from, &end, &read);
			if (!read.passed)
				break;

			/*
			 * Retention moved the log start past where the read was: what
			 * is below it is gone from the log, so the newest of each key
			 * is among what is left, and the read goes on from there
			 */
			topic_log_end(router, &end);
			from = Max(read.position, end.log_start_offset);
		}
		table_close(router, NoLock);
	}
}

/* Are the keys in slots a and b (both set, not external) the same bytes? */
static bool
same_key(TupleTableSlot *a, TupleTableSlot *b, MemoryContext scratch)
{
	MemoryContext old = MemoryContextSwitchTo(scratch);
	bytea	   *ka = DatumGetByteaPP(a->tts_values[Anum_topic_key - 1]);
	bytea	   *kb = DatumGetByteaPP(b->tts_values[Anum_topic_key - 1]);
	bool		same;

	/* an inline-compressed key is compared by what it decompresses to */
	same = VARSIZE_ANY_EXHDR(ka) == VARSIZE_ANY_EXHDR(kb) &&
		memcmp(VARDATA_ANY(ka), VARDATA_ANY(kb), VARSIZE_ANY_EXHDR(ka)) == 0;
	MemoryContextSwitchTo(old);
	MemoryContextReset(scratch);
	return same;
}

/*
 * topics.latest(topic anyelement) RETURNS SETOF anyelement: the newest
 * record of each key in each partition, in (partition, offset) order
 */
Datum
topic_latest(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic;
	MemoryContext call_context;
	MemoryContext old;
	LatestRead	lr;
	AttrNumber	key_cols[3] = {Anum_topic_partition, Anum_topic_key, Anum_topic_offset};
	Oid			key_ops[3];
	AttrNumber	order_cols[2] = {Anum_topic_partition, Anum_topic_offset};
	Oid			order_ops[2];
	Oid			collations[3] = {InvalidOid, InvalidOid, InvalidOid};
	bool		nulls_first[3] = {false, false, false};
	Tuplesortstate *by_offset;
	TupleTableSlot *slots[2];
	int			cur = 0;
	bool		have_prev = false;
	MemoryContext scratch;

	/* the row type must be a topic's before anything else looks at it */
	topic = topic_open_by_rowtype(get_fn_expr_argtype(fcinfo->flinfo, 0),
								  ACL_SELECT);
	topic_init_record_srf(fcinfo);

	call_context = AllocSetContextCreate(CurrentMemoryContext,
										 "topics.latest",
										 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(call_context);

	/*
	 * The sorts' rows are the topic's, their key column taken as bytea: the
	 * key types are varlenas aligned alike, so the rows are laid out the
	 * same, and bytea's order compares the bytes
	 */
	lr.desc = CreateTupleDescCopy(rsinfo->setDesc);
	TupleDescAttr(lr.desc, Anum_topic_key - 1)->atttypid = BYTEAOID;
	TupleDescAttr(lr.desc, Anum_topic_key - 1)->atttypmod = -1;
	key_ops[0] = lookup_type_cache(INT4OID, TYPECACHE_LT_OPR)->lt_opr;
	key_ops[1] = lookup_type_cache(BYTEAOID, TYPECACHE_LT_OPR)->lt_opr;
	key_ops[2] = lookup_type_cache(INT8OID, TYPECACHE_GT_OPR)->gt_opr;
	order_ops[0] = key_ops[0];
	order_ops[1] = lookup_type_cache(INT8OID, TYPECACHE_LT_OPR)->lt_opr;

	lr.by_key = tuplesort_begin_heap(lr.desc, 3, key_cols, key_ops, collations,
									 nulls_first, work_mem, NULL, TUPLESORT_NONE);
	lr.slot = MakeSingleTupleTableSlot(lr.desc, &TTSOpsMinimalTuple);
	lr.record_context = AllocSetContextCreate(call_context,
											  "topics.latest record",
											  ALLOCSET_DEFAULT_SIZES);
	read_partitions(topic, &lr);
	tuplesort_performsort(lr.by_key);

	/* the first of each (partition, key) is its newest: into offset order */
	by_offset = tuplesort_begin_heap(lr.desc, 2, order_cols, order_ops,
									 collations, nulls_first, work_mem, NULL,
									 TUPLESORT_NONE);
	slots[0] = MakeSingleTupleTableSlot(lr.desc, &TTSOpsMinimalTuple);
	slots[1] = MakeSingleTupleTableSlot(lr.desc, &TTSOpsMinimalTuple);
	scratch = lr.record_context;
	while (tuplesort_gettupleslot(lr.by_key, true, true, slots[cur], NULL))
	{
		TupleTableSlot *slot = slots[cur];
		TupleTableSlot *prev = slots[1 - cur];

		CHECK_FOR_INTERRUPTS();
		slot_getallattrs(slot);
		if (have_prev &&
			DatumGetInt32(slot->tts_values[Anum_topic_partition - 1]) ==
			DatumGetInt32(prev->tts_values[Anum_topic_partition - 1]) &&
			same_key(slot, prev, scratch))
			continue;			/* an older record of the same key */
		tuplesort_puttupleslot(by_offset, slot);
		have_prev = true;
		cur = 1 - cur;
	}
	tuplesort_end(lr.by_key);
	tuplesort_performsort(by_offset);

	/* the result's rows are laid out as the sort's */
	while (tuplesort_gettupleslot(by_offset, true, false, slots[0], NULL))
	{
		CHECK_FOR_INTERRUPTS();
		tuplestore_puttupleslot(rsinfo->setResult, slots[0]);
	}
	tuplesort_end(by_offset);

	ExecDropSingleTupleTableSlot(lr.slot);
	ExecDropSingleTupleTableSlot(slots[0]);
	ExecDropSingleTupleTableSlot(slots[1]);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(call_context);
	relation_close(topic, NoLock);
	return (Datum) 0;
}
