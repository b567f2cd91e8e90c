/*-------------------------------------------------------------------------
 *
 * record.h
 *	  A producer's row as the partition writer takes it: the producer
 *	  rules it must pass (record_check.c) and the record prepared from it,
 *	  ready to encode (record_prepare.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WRITER_RECORD_H
#define TOPIC_WRITER_RECORD_H

#include "executor/tuptable.h"
#include "utils/rel.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/topic_log.h"

/* One record, ready to encode */
typedef struct PreparedRecord
{
	bool		marker;			/* a replicated stable-offset marker */
	int32		npartitions;	/* of a marker: the publisher's topic */
	int64		log_start;		/* of a marker: the publisher's, or -1 */
	int32		partition;
	int64		offset;			/* supplied (preserve mode) or placeholder */
	TimestampTz timestamp;		/* supplied (preserve mode) or placeholder */
	struct varlena *field[3];	/* key, value, headers; NULL when NULL */
} PreparedRecord;

/* Bytes of the record's fields as stored inline (an upper bound) */
static inline Size
topic_record_inline_size(const PreparedRecord *rec)
{
	Size		size = TOPIC_RECORD_MAX_OVERHEAD;
	int			f;

	for (f = 0; f < 3; f++)
		if (rec->field[f])
			size += VARSIZE_ANY(rec->field[f]) + sizeof(int32);
	return size;
}

/* Did preparing rec move a field out to the TOAST table? */
static inline bool
topic_record_moved_to_toast(const PreparedRecord *rec)
{
	int			f;

	for (f = 0; f < 3; f++)
		if (rec->field[f] != NULL && VARATT_IS_EXTERNAL_ONDISK(rec->field[f]))
			return true;
	return false;
}

/* record_check.c */
pg_noreturn extern void topic_record_refuse_keyless(Relation rel) pg_attribute_noreturn();
extern void topic_record_check_rows(Relation rel, TupleTableSlot **slots,
									int nslots, bool preserve);
extern void topic_record_check_row(Relation rel, TupleTableSlot *slot,
								   bool preserve);

/* record_prepare.c */
extern void topic_record_prepare(Relation rel, TupleTableSlot *slot,
								 bool any_order, PreparedRecord *rec);
extern void topic_record_toast(Relation rel, PreparedRecord *rec);

#endif							/* TOPIC_WRITER_RECORD_H */
