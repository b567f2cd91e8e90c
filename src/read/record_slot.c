/*-------------------------------------------------------------------------
 *
 * record_slot.c
 *	  A slot that hands out a record as a row of its topic, and copies
 *	  itself by laying the row out directly.
 *
 * The TopicFetch and TopicPoll scans return each record as a virtual
 * tuple whose key, value and headers point into its pinned page.  A node
 * above that keeps rows (a CTE, Material, Sort, Hash) copies each one as a
 * minimal tuple, and a virtual slot copies through
 * heap_form_minimal_tuple(), which walks the descriptor twice per row:
 * that copy cost several times the whole read.  This slot is a virtual
 * slot that also knows which record it holds, and copies it with the
 * direct layout of record_tuple.c instead, byte for byte the same row.
 * Everything else (values, materializing, copying from another slot) is
 * the virtual slot's; once materialized or filled from elsewhere it no
 * longer knows a record and copies as a virtual slot does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/read/read.h"

typedef struct TopicRecordSlot
{
	VirtualTupleTableSlot base;
	const TopicRecord *record;	/* the record held, or NULL */
	int32		partition;
} TopicRecordSlot;

static TupleTableSlotOps record_slot_ops;
static bool record_slot_ops_ready = false;

static void
record_slot_clear(TupleTableSlot *slot)
{
	((TopicRecordSlot *) slot)->record = NULL;
	TTSOpsVirtual.clear(slot);
}

static void
record_slot_materialize(TupleTableSlot *slot)
{
	/* the values are the slot's own from here on: the page may go */
	((TopicRecordSlot *) slot)->record = NULL;
	TTSOpsVirtual.materialize(slot);
}

static void
record_slot_copyslot(TupleTableSlot *dstslot, TupleTableSlot *srcslot)
{
	((TopicRecordSlot *) dstslot)->record = NULL;
	TTSOpsVirtual.copyslot(dstslot, srcslot);
}

/*
 * 18 lets the caller ask for extra zeroed bytes before the tuple (a hash
 * join keeps its own header there).
 */
#if PG_VERSION_NUM >= 180000
static MinimalTuple
record_slot_copy_minimal_tuple(TupleTableSlot *slot, Size extra)
{
	TopicRecordSlot *rslot = (TopicRecordSlot *) slot;
	MinimalTuple tuple;
	MinimalTuple copy;

	if (rslot->record == NULL)
		return TTSOpsVirtual.copy_minimal_tuple(slot, extra);
	tuple = topic_record_minimal_tuple(slot->tts_tupleDescriptor,
									   rslot->partition, rslot->record);
	if (extra == 0)
		return tuple;
	copy = heap_copy_minimal_tuple(tuple, extra);
	pfree_current(tuple);
	return copy;
}
#else
static MinimalTuple
record_slot_copy_minimal_tuple(TupleTableSlot *slot)
{
	TopicRecordSlot *rslot = (TopicRecordSlot *) slot;

	if (rslot->record == NULL)
		return TTSOpsVirtual.copy_minimal_tuple(slot);
	return topic_record_minimal_tuple(slot->tts_tupleDescriptor,
									  rslot->partition, rslot->record);
}
#endif

/* The slot type, for MakeTupleTableSlot() and ExecInitExtraTupleSlot() */
const TupleTableSlotOps *
topic_record_slot_ops(void)
{
	if (!record_slot_ops_ready)
	{
		record_slot_ops = TTSOpsVirtual;
		record_slot_ops.base_slot_size = sizeof(TopicRecordSlot);
		record_slot_ops.clear = record_slot_clear;
		record_slot_ops.materialize = record_slot_materialize;
		record_slot_ops.copyslot = record_slot_copyslot;
		record_slot_ops.copy_minimal_tuple = record_slot_copy_minimal_tuple;
		record_slot_ops_ready = true;
	}
	return &record_slot_ops;
}

/*
 * Store record rec of partition partition in slot, a slot of this type,
 * whose values the caller has set (they point into the record); the
 * record must stay where it is while the slot holds it.
 */
TupleTableSlot *
topic_record_slot_store(TupleTableSlot *slot, int32 partition,
						const TopicRecord *rec)
{
	TopicRecordSlot *rslot = (TopicRecordSlot *) slot;

	Assert(slot->tts_ops == &record_slot_ops);
	ExecStoreVirtualTuple(slot);
	rslot->record = rec;
	rslot->partition = partition;
	return slot;
}
