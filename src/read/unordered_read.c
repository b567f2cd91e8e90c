/*-------------------------------------------------------------------------
 *
 * unordered_read.c
 *	  Consumer reads of a logical subscriber's partition: bounded by the
 *	  publisher's markers, and in offset order over a log that is not.
 *
 * A subscription applies the publisher's transactions in commit order, so
 * a transaction that took offsets 0-9 but committed after one that took
 * 10-19 lands after it in the subscriber's log, and the publisher's
 * running transactions are not there at all.  Two facts make reading it
 * safe (docs/architecture.md section 6):
 *
 * - A marker batch with offset M (markers.c) says that every record below
 *   M is in the log before it, committed with it or earlier.  The newest
 *   marker a reader's snapshot sees is therefore its last stable offset:
 *   nothing below it can still arrive.
 * - Page summaries are running values: a page's next_offset is one past
 *   the highest offset on it or any page before it.  The first page whose
 *   next_offset is above the position is the first that may hold a record
 *   at or after it (a binary search, as on an ordered log).
 *
 * So a read starts at that page, collects the records at or after its
 * position, keeps the max_records lowest, and stops at the first visible
 * marker above all of them: everything lower has been seen.  It sorts
 * what it kept and returns it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/relation.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"

#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"

/* A record that may be returned, copied out of its page */
typedef struct Candidate
{
	TopicRecord rec;
} Candidate;

typedef struct UnorderedRead
{
	TopicStableRead *read;
	Snapshot	snapshot;
	int32		partition;
	int64		from;
	int64		cutoff;			/* nothing at or above it is returned */
	Candidate  *cands;
	int			ncands;
	int			maxcands;
} UnorderedRead;

static int
candidate_cmp(const void *a, const void *b)
{
	int64		x = ((const Candidate *) a)->rec.offset;
	int64		y = ((const Candidate *) b)->rec.offset;

	return (x > y) - (x < y);
}

/* Keep only the max_records lowest candidates, sorted, each once */
static void
prune(UnorderedRead *u)
{
	int			i;
	int			n = 0;

	qsort(u->cands, u->ncands, sizeof(Candidate), candidate_cmp);
	for (i = 0; i < u->ncands; i++)
		if (n == 0 || u->cands[i].rec.offset != u->cands[n - 1].rec.offset)
			u->cands[n++] = u->cands[i];
	u->ncands = n;
	if (u->ncands > u->read->max_records)
	{
		u->ncands = (int) u->read->max_records;
		u->cutoff = Min(u->cutoff, u->cands[u->ncands - 1].rec.offset + 1);
	}
}

static Pointer
copy_field(Pointer p)
{
	struct varlena *copy;

	if (p == NULL)
		return NULL;
	/* the result outlives the page and retention: take TOAST along */
	if (VARATT_IS_EXTERNAL(p))
		return (Pointer) detoast_external_attr((struct varlena *) p);
	copy = palloc(VARSIZE_ANY(p));
	memcpy(copy, p, VARSIZE_ANY(p));
	return (Pointer) copy;
}

static void
add_candidate(UnorderedRead *u, const TopicRecord *rec)
{
	Candidate  *c;

	if (rec->offset < u->from || rec->offset >= u->cutoff)
		return;
	if (u->ncands == u->maxcands)
	{
		u->maxcands *= 2;
		u->cands = repalloc(u->cands, sizeof(Candidate) * u->maxcands);
	}
	c = &u->cands[u->ncands++];
	c->rec = *rec;
	if (u->read->sink)
	{
		c->rec.key = copy_field(rec->key);
		c->rec.value = copy_field(rec->value);
		c->rec.headers = copy_field(rec->headers);
	}
	if (u->ncands >= 2 * u->read->max_records)
		prune(u);
}

/* Have we got every record we will return, all below marker m? */
static bool
complete_below(UnorderedRead *u, int64 m)
{
	if (u->ncands < u->read->max_records)
		return false;
	prune(u);
	return u->cands[u->ncands - 1].rec.offset < m;
}

/*
 * Collect from one batch of a segment (a topic_walk_batches visitor); true
 * when the read is complete.  A page read again after a flush offers its
 * records again: prune drops the repeats.
 */
static bool
collect_batch(void *arg, Relation seg, BlockNumber blkno, Buffer buffer,
			  TopicBatchHeader hdr, TopicLogPosition resolved,
			  XLogRecPtr *flush_to)
{
	UnorderedRead *u = (UnorderedRead *) arg;
	TopicBatchFate	fate = topic_batch_fate(buffer, hdr, u->snapshot, resolved,
										flush_to);
	Size		rpos = topic_batch_records_start(hdr);
	const char *bytes;
	Size		end;
	int			i;

	if (*flush_to != InvalidXLogRecPtr || fate == TOPIC_BATCH_SKIP)
		return false;
	if (fate == TOPIC_BATCH_STOP)
	{
		/* not stable: neither it nor anything above it */
		if (!TopicBatchIsMarker(hdr))
			u->cutoff = Min(u->cutoff, hdr->base_offset);
		return false;
	}
	if (TopicBatchIsMarker(hdr))
		return complete_below(u, hdr->base_offset);
	/* every record below the read: not worth inflating */
	if (topic_batch_last_offset(seg, blkno, hdr) < u->from)
		return false;
	bytes = topic_batch_walk_records(seg, blkno, hdr, &end);
	for (i = 0; i < hdr->nrecords; i++)
	{
		TopicRecord rec;

		topic_decode_batch_record(seg, blkno, hdr, bytes, end, &rpos, i, &rec);
		add_candidate(u, &rec);
	}
	return false;
}

/* Collect from one segment (a topic_segdir_foreach visitor) */
static bool
collect_segment(void *arg, Relation seg, const TopicSegmentEntry *entry, int i)
{
	UnorderedRead *u = (UnorderedRead *) arg;

	return topic_walk_batches(seg, u->from, collect_batch, u);
}

/*
 * Read partition rel (number partition) below bound, from read->position,
 * in offset order; the segment directory is dir.
 */
void
topic_read_unordered(Relation rel, TopicSegmentDir *dir, int32 partition,
					 int64 bound, Snapshot snapshot, TopicStableRead *read)
{
	UnorderedRead u;
	int			i;

	u.read = read;
	u.snapshot = snapshot;
	u.partition = partition;
	u.from = read->position;
	u.cutoff = bound;
	u.maxcands = (int) Min(read->max_records * 2 + 1, 1024 * 1024);
	u.cands = palloc(sizeof(Candidate) * u.maxcands);
	u.ncands = 0;

	(void) topic_segdir_foreach(dir, u.from, 0, AccessShareLock,
								collect_segment, &u);

	prune(&u);
	for (i = 0; i < u.ncands && u.cands[i].rec.offset < u.cutoff; i++)
	{
		if (read->first_returned < 0)
			read->first_returned = u.cands[i].rec.offset;
		if (read->sink)
			read->sink(read, NULL, InvalidBuffer, partition, &u.cands[i].rec);
		read->returned++;
		read->position = u.cands[i].rec.offset + 1;
	}
	if (read->returned < read->max_records)
		read->position = Max(read->position, u.cutoff);
	pfree(u.cands);
}

/* topic_replicated_bound's search, segment after segment */
typedef struct ReplicatedBound
{
	Snapshot	snapshot;
	int64		bound;			/* -1 until a marker is found */
} ReplicatedBound;

/*
 * The highest marker snapshot sees on the last page of seg that has one
 * (a topic_segdir_foreach visitor): true when found.
 */
static bool
segment_bound(void *arg, Relation seg, const TopicSegmentEntry *entry, int i)
{
	ReplicatedBound *rb = (ReplicatedBound *) arg;
	TopicLogPosition resolved = topic_storage_resolved(seg);
	TopicBatchIter it;

	topic_batch_iter_begin(&it, seg, TOPIC_LOG_FIRST_DATA_BLKNO,
						   topic_storage_last_block(seg) + 1, NULL,
						   TOPIC_BATCH_ITER_BACKWARD);
	while (rb->bound < 0 && topic_batch_iter_next_page(&it))
	{
		TopicBatchHeader hdr;
		XLogRecPtr	flush_to = InvalidXLogRecPtr;

		while ((hdr = topic_batch_iter_page_next(&it)) != NULL)
		{
			if (!TopicBatchIsMarker(hdr))
				continue;
			if (topic_batch_fate(it.buffer, hdr, rb->snapshot, resolved,
								 &flush_to) == TOPIC_BATCH_READ)
				rb->bound = Max(rb->bound, hdr->base_offset);
			else if (flush_to != InvalidXLogRecPtr)
				break;
		}
		if (flush_to != InvalidXLogRecPtr)
		{
			rb->bound = -1;
			topic_batch_iter_flush_retry(&it, flush_to);
		}
	}
	topic_batch_iter_end(&it);
	return rb->bound >= 0;
}

/*
 * The last stable offset of replica rel for snapshot: the highest marker
 * on the last page that has a marker the snapshot sees.  Without one,
 * nothing is known to be complete: the log start.
 */
int64
topic_replicated_bound(Relation rel, Snapshot snapshot, const TopicLogEnd *end)
{
	TopicSegmentDir *dir = topic_segdir_read(rel);
	ReplicatedBound rb = {snapshot, -1};

	(void) topic_segdir_foreach(dir, -1, TOPIC_SEGDIR_BACKWARD,
								AccessShareLock, segment_bound, &rb);
	pfree(dir);
	return rb.bound >= 0 ? rb.bound : end->log_start_offset;
}
