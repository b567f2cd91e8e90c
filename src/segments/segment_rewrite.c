/*-------------------------------------------------------------------------
 *
 * segment_rewrite.c
 *	  Rewrite one sealed segment without the records the log cleaner
 *	  removes, every kept record at its offset and timestamp, and swap the
 *	  new file in.
 *
 * The new pages go into a new relfilenode of the same segment relation,
 * written while the segment is held with ShareUpdateExclusiveLock (which
 * readers do not conflict with, and which keeps VACUUM, retention and
 * another cleaner away); then, under AccessExclusiveLock, pg_class points
 * at the new file and the old one is dropped at commit, as
 * RelationSetNewRelfilenode does.  Everything happens in the caller's
 * transaction: a crash or an abort before the commit leaves the old file
 * (the new one is dropped at abort, or left as an orphan file by a crash,
 * as an uncommitted CREATE TABLE's is), a commit the new one.  Standbys
 * get the file's creation (XLOG_SMGR_CREATE), every page as a full-page
 * image, the lock, the catalog change and the commit's drop of the old
 * file: the same segment, byte for byte.
 *
 * What the new file holds: every batch that is settled (every snapshot
 * sees it, or it rolled back for good: rolled-back batches are dropped),
 * with the records the caller's test does not remove.  A batch keeping all
 * its records is copied as it is; one keeping some is written again with
 * per-record offset deltas (the format preserve mode writes), split over
 * pages when needed.  The pages' summaries tile the segment's offsets with
 * no gap (a page's next_offset is the next page's first offset, the last
 * page's the old segment's end), so a seek that lands in a hole finds the
 * page after it.  Their timestamps are the kept batches', running on from
 * the metapage's (the log's newest before the segment), so the segment's
 * newest timestamp becomes its newest kept record's (as in a segment Kafka
 * cleaned, whose time index holds the retained batches only): no later
 * than the removed records' and than the next segment's, so time seeks and
 * offsets_for_times find the next record of the time asked or later, and
 * retention by time may take the segment once what it keeps is old
 * enough.  The metapage is the old one with the resolved mark at the end
 * (every batch is settled) and the cleaner's note (TopicSegmentCleaning).
 * External TOAST values of removed records are deleted from the segment's
 * TOAST table in the same transaction.  The caller gets the offsets
 * removed as ranges, for logical subscribers (the log cleaner logs them:
 * replication/markers.c).
 *
 * The log cleaner never removes two kinds of records, whatever its map
 * says: the records of the last batch each idempotent producer has in the
 * segment (the producer state Kafka clients need after a restart is read
 * back from those batches, kafka/producer_log.c), and the segment's last
 * record when every record would go.  A logical replica's rewrite removes
 * exactly what its publisher removed, whose segments are not its own: a
 * segment may lose every record, and a data page with no batch (or the
 * marker batches it keeps) then says where it ends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "catalog/catalog.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/storage.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_rewrite.h"

/*
 * Is the batch settled?  Resolved batches are (kept unless flagged
 * rolled back); others are when their transaction is older than every
 * snapshot: committed ones are kept, the rest rolled back (a crash
 * counts), as freezing decides (am/freeze.c).
 */
TopicBatchSettled
topic_batch_settled(Buffer buffer, TopicBatchHeader hdr,
					TopicLogPosition resolved, TransactionId oldest_xmin)
{
	TransactionId xid = hdr->xid;

	if (hdr->flags & TB_ABORTED)
		return TOPIC_BATCH_SETTLED_DROP;
	if (topic_batch_is_resolved(buffer, hdr, resolved) ||
		xid == FrozenTransactionId)
		return TOPIC_BATCH_SETTLED_KEEP;
	if (!TransactionIdPrecedes(xid, oldest_xmin))
		return TOPIC_BATCH_UNSETTLED;
	switch (topic_batch_commit_status(hdr))
	{
		case TOPIC_COMMIT_YES:
		case TOPIC_COMMIT_FORGOTTEN:
			return TOPIC_BATCH_SETTLED_KEEP;
		case TOPIC_COMMIT_NO:
			break;
	}
	return TOPIC_BATCH_SETTLED_DROP;
}

/* The newest producer batch of each producer id in the segment */
typedef struct ProducerLast
{
	int64		producer_id;	/* hash key */
	int64		first_offset;
} ProducerLast;

/* The rewrite's state */
typedef struct Rewrite
{
	Relation	seg;
	TopicLogPosition resolved;
	TransactionId oldest_xmin;
	TopicRecordRemovable removable;
	void	   *arg;
	HTAB	   *producers;		/* ProducerLast by producer id */
	int64		last_offset;	/* the segment's last record */
	int64		seg_end;		/* the old segment's end */
	bool		keep_last;		/* every record would go: keep the last */
	bool		replica;		/* a subscriber's: its publisher's removals */
	int			markers;		/* marker batches kept */

	/* writing */
	bool		write;
	SMgrRelation srel;
	RelFileLocator locator;
	bool		wal;
	PGAlignedBlock cur;			/* the page being filled */
	bool		cur_used;
	PGAlignedBlock held;		/* the page before it, to be written */
	bool		held_used;
	BlockNumber next_blkno;		/* of the page being filled */
	xl_topic_log_page_start running;	/* where the next page continues */
	BlockNumber last_blkno;		/* the last page written, and its end */
	Size		last_lower;
	PGAlignedBlock batch;		/* a batch being written again */

	List	   *toast;			/* TOAST pointers of removed records */

	/*
	 * The offsets removed, for subscribers: pairs [first, end) ascending,
	 * a range ending only at a kept record (holes inside it are no
	 * records), so there are at most one more than records kept
	 */
	int64	   *ranges;
	int			nranges;
	int			maxranges;
	bool		range_open;		/* the last range may still grow */

	/* counts */
	int64		removed;
	int64		kept;
	bool		changes;		/* something is removed or dropped */
	bool		unsettled;
} Rewrite;

/* Is the record of a settled batch removed? */
static bool
record_removed(Rewrite *rw, const TopicBatchHeaderData *hdr,
			   const TopicRecord *rec)
{
	if ((hdr->flags & TB_PRODUCER) && !rw->replica)
	{
		TopicBatchProducerData producer;
		ProducerLast *last;

		topic_batch_producer(hdr, &producer);
		last = hash_search(rw->producers, &producer.producer_id, HASH_FIND,
						   NULL);
		if (last != NULL && last->first_offset == producer.first_offset)
			return false;
	}
	if (rw->keep_last && rec->offset == rw->last_offset)
		return false;
	return rw->removable(rw->arg, hdr, rec);
}

/* Write a finished page as block blkno of the new file */
static void
emit_page(Rewrite *rw, Page page, BlockNumber blkno)
{
	if (rw->wal)
		log_newpage(&rw->locator, MAIN_FORKNUM, blkno, page, true);
	PageSetChecksumInplace(page, blkno);
	if (blkno == TOPIC_LOG_METAPAGE_BLKNO)
		smgrwrite(rw->srel, MAIN_FORKNUM, blkno, page, true);
	else
		smgrextend(rw->srel, MAIN_FORKNUM, blkno, page, true);
}

/*
 * The page being filled is done: the one before it can go, now that its
 * summary can end where this one starts.
 */
static void
finish_page(Rewrite *rw)
{
	Page		cur = (Page) rw->cur.data;

	if (!rw->cur_used)
		return;
	if (rw->held_used)
	{
		Page		held = (Page) rw->held.data;

		TopicLogPageGetOpaque(held)->next_offset =
			Max(TopicLogPageGetOpaque(held)->next_offset,
				TopicLogPageGetOpaque(cur)->min_offset);
		emit_page(rw, held, rw->next_blkno - 1);
	}
	rw->running.next_offset = TopicLogPageGetOpaque(cur)->next_offset;
	rw->running.max_timestamp = TopicLogPageGetOpaque(cur)->max_timestamp;
	rw->last_blkno = rw->next_blkno;
	rw->last_lower = ((PageHeader) cur)->pd_lower;
	memcpy(rw->held.data, rw->cur.data, BLCKSZ);
	rw->held_used = true;
	rw->cur_used = false;
	rw->next_blkno++;
	VacuumCostBalance += VacuumCostPageDirty;
}

/* Does a batch of len bytes and n records go on the page being filled? */
static bool
page_takes(Rewrite *rw, Size len, int n)
{
	Page		page = (Page) rw->cur.data;
	Size		lower = MAXALIGN(SizeOfPageHeaderData);
	Size		upper = BLCKSZ - MAXALIGN(sizeof(TopicLogPageOpaqueData));
	int			nrecords = 0;

	if (rw->cur_used)
	{
		lower = ((PageHeader) page)->pd_lower;
		nrecords = TopicLogPageGetOpaque(page)->nrecords;
	}
	return lower + MAXALIGN(len) <= upper &&
		nrecords + n <= TOPIC_LOG_MAX_RECORDS_PER_PAGE;
}

/* Does a batch of len bytes and n records go on an empty page? */
static bool
page_takes_empty(Size len, int n)
{
	return MAXALIGN(SizeOfPageHeaderData) + MAXALIGN(len) <=
		BLCKSZ - MAXALIGN(sizeof(TopicLogPageOpaqueData)) &&
		n <= TOPIC_LOG_MAX_RECORDS_PER_PAGE;
}

/* Put a whole batch on the page being filled, or on a new one */
static void
put_batch(Rewrite *rw, const char *batch, Size len)
{
	const TopicBatchHeaderData *hdr = (const TopicBatchHeaderData *) batch;

	if (!page_takes(rw, len, hdr->nrecords))
	{
		finish_page(rw);
		if (!page_takes(rw, len, hdr->nrecords))
			elog(ERROR, "a batch of %zu bytes does not fit an empty page", len);
	}
	/* topic_page_append_batch PANICs at a malformed batch: not here */
	if (!topic_page_batch_fits((Page) rw->cur.data, batch, len, !rw->cur_used))
		elog(ERROR, "a rewritten batch of segment \"%s\" is malformed",
			 RelationGetRelationName(rw->seg));
	topic_page_append_batch((Page) rw->cur.data, batch, len,
							rw->cur_used ? NULL : &rw->running);
	/* hints are this file's own business: none */
	((TopicBatchHeader) ((char *) rw->cur.data +
						 ((PageHeader) rw->cur.data)->pd_lower -
						 MAXALIGN(len)))->hints = 0;
	rw->cur_used = true;
}

/*
 * Start a page that holds no batch: a replica's segment that lost every
 * record and has no marker batch still needs a data page whose summary
 * runs to the segment's end (the last page's is raised to it), and the
 * resolved mark a position to point at.
 */
static void
put_empty_page(Rewrite *rw)
{
	Assert(!rw->cur_used);
	topic_page_init_data((Page) rw->cur.data, rw->seg_end, &rw->running);
	rw->cur_used = true;
}

/* A batch being written again with some of its records */
typedef struct PartBatch
{
	const TopicBatchHeaderData *old;
	Size		pos;			/* bytes so far, 0 when empty */
	int			n;
} PartBatch;

static void
part_flush(Rewrite *rw, PartBatch *part)
{
	TopicBatchHeader hdr = (TopicBatchHeader) rw->batch.data;

	if (part->n == 0)
		return;
	hdr->length = part->pos;
	hdr->nrecords = part->n;
	put_batch(rw, rw->batch.data, part->pos);
	part->n = 0;
	part->pos = 0;
}

/*
 * The kept records of compressed batch old (records decoded from bytes, up
 * to end), compressed again as one batch, as old's codec did.  False if
 * compressing saves nothing or the batch would not fit an empty page: the
 * caller then writes them uncompressed.
 */
static bool
put_compressed_part(Rewrite *rw, const TopicBatchHeaderData *old,
					const char *bytes, Size end)
{
	TopicBatchHeader hdr = (TopicBatchHeader) rw->batch.data;
	TopicBatchCompressionData c;
	TopicBatchCompressionData oldc;
	uint8		flags = old->flags &
		~(TB_CONTIGUOUS | TB_ABORTED | TB_PRODUCER | TB_COMPRESSED);
	Size		start = sizeof(TopicBatchHeaderData);
	Size		pos = topic_batch_records_start(old);
	Size		rpos = start;
	Size		bound;
	Size		clen;
	Size		size = end;
	char	   *raw;
	char	   *compressed;
	int			n = 0;

	topic_batch_compression(old, &oldc);
	raw = palloc(size);
	memset(&c, 0, sizeof(c));
	for (int i = 0; i < old->nrecords; i++)
	{
		TopicRecord rec;
		TopicBatchHeaderData *newhdr = (TopicBatchHeaderData *) raw;
		Size		next;

		(void) topic_record_decode(bytes, &pos, end, old, i, &rec);
		if (record_removed(rw, old, &rec))
			continue;
		if (n == 0)
		{
			memcpy(newhdr, old, start);
			newhdr->flags = flags;
			newhdr->base_offset = rec.offset;
			if (!(flags & TB_SAME_TIMESTAMP))
				newhdr->base_timestamp = rec.timestamp;
			c.last_offset = rec.offset;
			c.min_timestamp = c.max_timestamp = rec.timestamp;
		}
		/*
		 * Without TB_CONTIGUOUS each record gains an offset delta, and its
		 * alignment padding may change: the records can outgrow the old ones
		 */
		next = topic_record_encoded_size(rpos, flags,
										 rec.offset - newhdr->base_offset,
										 rec.timestamp - newhdr->base_timestamp,
										 (struct varlena *) rec.key,
										 (struct varlena *) rec.value,
										 (struct varlena *) rec.headers);
		if (next > size)
		{
			size = Max(next, size * 2);
			raw = repalloc(raw, size);
			newhdr = (TopicBatchHeaderData *) raw;
		}
		rpos = topic_record_encode(raw, rpos, flags,
								   rec.offset - newhdr->base_offset,
								   rec.timestamp - newhdr->base_timestamp,
								   (struct varlena *) rec.key,
								   (struct varlena *) rec.value,
								   (struct varlena *) rec.headers);
		c.last_offset = Max(c.last_offset, rec.offset);
		c.min_timestamp = Min(c.min_timestamp, rec.timestamp);
		c.max_timestamp = Max(c.max_timestamp, rec.timestamp);
		n++;
	}
	if (n == 0)
	{
		pfree(raw);
		return true;
	}
	bound = topic_batch_compress_bound(rpos - start);
	compressed = palloc(bound);
	clen = topic_batch_compress(oldc.codec, raw + start, rpos - start,
								compressed, bound);
	if (clen == 0 || clen >= rpos - start ||
		!page_takes_empty(start + sizeof(c) + clen, n))
	{
		pfree(raw);
		pfree(compressed);
		return false;
	}
	memcpy(hdr, raw, start);
	hdr->flags = flags;
	hdr->nrecords = n;
	hdr->hints = 0;
	c.codec = oldc.codec;
	c.raw_length = rpos - start;
	topic_batch_put_compressed(hdr, &c, compressed, clen);
	put_batch(rw, rw->batch.data, hdr->length);
	pfree(raw);
	pfree(compressed);
	return true;
}

/* Add one kept record to the batch being written again */
static void
part_add(Rewrite *rw, PartBatch *part, const TopicRecord *rec)
{
	TopicBatchHeader hdr = (TopicBatchHeader) rw->batch.data;
	/*
	 * A producer batch's records are dense: one with holes is no longer one
	 * (the producer's last batch is kept whole)
	 */
	uint8		flags = part->old->flags &
		~(TB_CONTIGUOUS | TB_ABORTED | TB_PRODUCER | TB_COMPRESSED);
	Size		end;

	for (;;)
	{
		if (part->n == 0)
		{
			Size		start = sizeof(TopicBatchHeaderData);

			memcpy(hdr, part->old, start);
			hdr->flags = flags;
			hdr->hints = 0;
			hdr->base_offset = rec->offset;
			if (!(flags & TB_SAME_TIMESTAMP))
				hdr->base_timestamp = rec->timestamp;
			part->pos = start;
		}
		end = topic_record_encoded_size(part->pos, flags,
										rec->offset - hdr->base_offset,
										rec->timestamp - hdr->base_timestamp,
										(struct varlena *) rec->key,
										(struct varlena *) rec->value,
										(struct varlena *) rec->headers);
		if (page_takes(rw, end, part->n + 1))
			break;
		if (part->n > 0)
			part_flush(rw, part);
		else if (rw->cur_used)
			finish_page(rw);
		else
			elog(ERROR, "a record of %zu bytes does not fit an empty page", end);
	}
	part->pos = topic_record_encode(rw->batch.data, part->pos, flags,
									rec->offset - hdr->base_offset,
									rec->timestamp - hdr->base_timestamp,
									(struct varlena *) rec->key,
									(struct varlena *) rec->value,
									(struct varlena *) rec->headers);
	part->n++;
}

/*
 * Remember the external TOAST values of a removed record, deleted once the
 * walk let go of the segment's pages
 */
static void
note_toast(Rewrite *rw, const TopicRecord *rec)
{
	Pointer		fields[3] = {rec->key, rec->value, rec->headers};

	for (int i = 0; i < 3; i++)
		if (fields[i] != NULL && VARATT_IS_EXTERNAL_ONDISK(fields[i]))
		{
			char	   *copy = palloc(VARSIZE_EXTERNAL(fields[i]));

			memcpy(copy, fields[i], VARSIZE_EXTERNAL(fields[i]));
			rw->toast = lappend(rw->toast, copy);
		}
}

/* The writing walk removed the record at offset */
static void
note_removed_offset(Rewrite *rw, int64 offset)
{
	if (rw->range_open && offset >= rw->ranges[2 * rw->nranges - 1])
	{
		rw->ranges[2 * rw->nranges - 1] = offset + 1;
		return;
	}
	if (rw->nranges == rw->maxranges)
	{
		rw->maxranges = Max(rw->maxranges * 2, 16);
		rw->ranges = rw->ranges == NULL ?
			palloc(sizeof(int64) * 2 * rw->maxranges) :
			repalloc(rw->ranges, sizeof(int64) * 2 * rw->maxranges);
	}
	rw->ranges[2 * rw->nranges] = offset;
	rw->ranges[2 * rw->nranges + 1] = offset + 1;
	rw->nranges++;
	rw->range_open = true;
}

/*
 * One walk over the segment.  The first (!write, producers NULL) finds the
 * producers' last batches and the last record and whether everything is
 * settled; the second counts what goes; the third (write) writes.
 */
static void
walk_segment(Rewrite *rw)
{
	TopicBatchIter it;
	TopicBatchHeader hdr;
	TopicBatchBuffer inflated = {NULL, 0};
	bool		first_walk = (rw->producers == NULL);

	if (first_walk)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(int64);
		ctl.entrysize = sizeof(ProducerLast);
		ctl.hcxt = CurrentMemoryContext;
		rw->producers = hash_create("pg_topics rewrite producers", 64, &ctl,
									HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		rw->last_offset = -1;
	}
	rw->removed = 0;
	rw->kept = 0;
	rw->changes = false;

	topic_batch_iter_begin(&it, rw->seg, TOPIC_LOG_FIRST_DATA_BLKNO,
						   topic_storage_nblocks(rw->seg), NULL,
						   TOPIC_BATCH_ITER_VACUUM);
	while ((hdr = topic_batch_iter_next(&it)) != NULL)
	{
		TopicBatchSettled settled = topic_batch_settled(it.buffer, hdr,
														rw->resolved,
														rw->oldest_xmin);
		const char *bytes;
		Size		end;
		Size		pos = topic_batch_records_start(hdr);
		PartBatch	part = {hdr, 0, 0};
		bool		all_kept = true;

		if (settled == TOPIC_BATCH_UNSETTLED)
		{
			rw->unsettled = true;
			break;
		}
		if (settled == TOPIC_BATCH_SETTLED_DROP)
		{
			rw->changes = true;
			continue;
		}
		if (TopicBatchIsMarker(hdr))
		{
			if (first_walk)
				rw->markers++;
			if (rw->write)
				put_batch(rw, (const char *) hdr, hdr->length);
			continue;
		}
		if (first_walk)
		{
			int64		last;
			TimestampTz min_ts,
						max_ts;

			if (hdr->flags & TB_PRODUCER)
			{
				TopicBatchProducerData producer;
				ProducerLast *pl;
				bool		found;

				topic_batch_producer(hdr, &producer);
				pl = hash_search(rw->producers, &producer.producer_id,
								 HASH_ENTER, &found);
				if (!found || producer.first_offset > pl->first_offset)
					pl->first_offset = producer.first_offset;
			}
			if (!topic_batch_summary(hdr, &last, &min_ts, &max_ts))
				elog(ERROR, "a batch of segment \"%s\" does not parse",
					 RelationGetRelationName(rw->seg));
			rw->last_offset = Max(rw->last_offset, last);
			continue;
		}

		/* which records stay: decided before anything is written */
		bytes = topic_batch_records(hdr, &inflated, &end);
		for (int i = 0; i < hdr->nrecords; i++)
		{
			TopicRecord rec;

			if (!topic_record_decode(bytes, &pos, end, hdr, i, &rec))
				elog(ERROR, "a record of segment \"%s\" does not parse",
					 RelationGetRelationName(rw->seg));
			if (record_removed(rw, hdr, &rec))
			{
				all_kept = false;
				rw->removed++;
				if (rw->write)
				{
					note_toast(rw, &rec);
					note_removed_offset(rw, rec.offset);
				}
			}
			else
			{
				rw->kept++;
				rw->range_open = false;
			}
		}
		if (!all_kept)
			rw->changes = true;
		if (!rw->write)
			continue;
		if (all_kept)
		{
			/* as it is: compressed, if it was */
			put_batch(rw, (const char *) hdr, hdr->length);
			continue;
		}
		if ((hdr->flags & TB_COMPRESSED) &&
			put_compressed_part(rw, hdr, bytes, end))
			continue;
		pos = topic_batch_records_start(hdr);
		for (int i = 0; i < hdr->nrecords; i++)
		{
			TopicRecord rec;

			(void) topic_record_decode(bytes, &pos, end, hdr, i, &rec);
			if (!record_removed(rw, hdr, &rec))
				part_add(rw, &part, &rec);
		}
		part_flush(rw, &part);
	}
	topic_batch_iter_end(&it);
	topic_batch_buffer_free(&inflated);
}

/* Read the metapage of seg as a whole page */
static void
read_metapage_image(Relation seg, char *image)
{
	Buffer		buffer = ReadBuffer(seg, TOPIC_LOG_METAPAGE_BLKNO);

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	topic_page_check(seg, TOPIC_LOG_METAPAGE_BLKNO, BufferGetPage(buffer),
					 TL_PAGE_META);
	memcpy(image, BufferGetPage(buffer), BLCKSZ);
	UnlockReleaseBuffer(buffer);
}

/* Put the cleaner's note on a metapage image (or page), pd_lower over it */
static void
set_cleaning(Page page, int64 cleaned_to, TimestampTz now, int64 removed)
{
	TopicLogMetaData *meta = TopicLogPageGetMeta(page);
	TopicSegmentCleaning *cleaning = TopicLogMetaGetCleaning(meta);
	LocationIndex end = ((char *) cleaning + sizeof(TopicSegmentCleaning)) -
		(char *) page;

	if (!(meta->flags & TL_META_CLEANED))
	{
		memset(cleaning, 0, sizeof(TopicSegmentCleaning));
		cleaning->first_cleaned = now;
		meta->flags |= TL_META_CLEANED;
	}
	cleaning->cleaned_to = Max(cleaning->cleaned_to, cleaned_to);
	cleaning->last_cleaned = now;
	cleaning->removed += removed;
	if (((PageHeader) page)->pd_lower < end)
		((PageHeader) page)->pd_lower = end;
}

/* The cleaner's note of seg, false if no pass cleaned it yet */
bool
topic_segment_read_cleaning(Relation seg, TopicSegmentCleaning *cleaning)
{
	PGAlignedBlock image;
	TopicLogMetaData *meta;

	read_metapage_image(seg, image.data);
	meta = TopicLogPageGetMeta((Page) image.data);
	if (!(meta->flags & TL_META_CLEANED))
		return false;
	*cleaning = *TopicLogMetaGetCleaning(meta);
	return true;
}

/*
 * Note on seg's metapage that a pass cleaned it up to cleaned_to without
 * rewriting it.  A full-page image: rare, and no redo of our own needed.
 */
void
topic_segment_note_cleaned(Relation seg, int64 cleaned_to, TimestampTz now)
{
	Buffer		buffer = ReadBuffer(seg, TOPIC_LOG_METAPAGE_BLKNO);
	Page		page;

	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buffer);
	topic_page_check(seg, TOPIC_LOG_METAPAGE_BLKNO, page, TL_PAGE_META);
	START_CRIT_SECTION();
	set_cleaning(page, cleaned_to, now, 0);
	MarkBufferDirty(buffer);
	if (RelationNeedsWAL(seg))
		log_newpage_buffer(buffer, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buffer);
}

/*
 * Point seg's pg_class entry at the new file and drop the old one at
 * commit, as RelationSetNewRelfilenode does (which would also give the
 * file to the access method to fill: here it is full already).
 */
static void
swap_in(Relation seg, RelFileLocator *locator)
{
	Relation	pg_class = table_open(RelationRelationId, RowExclusiveLock);
	HeapTuple	tuple;
	Form_pg_class classform;

	tuple = SearchSysCacheCopy1(RELOID,
								ObjectIdGetDatum(RelationGetRelid(seg)));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u",
			 RelationGetRelid(seg));
	classform = (Form_pg_class) GETSTRUCT(tuple);
	RelationDropStorage(seg);
	classform->relfilenode = RelFileLocatorRelNumber(*locator);

	/*
	 * relfrozenxid stays: the new file holds a subset of the old one's
	 * batches, all before its resolved mark
	 */
	CatalogTupleUpdate(pg_class, &tuple->t_self, tuple);
	heap_freetuple(tuple);
	table_close(pg_class, RowExclusiveLock);
	CommandCounterIncrement();
	RELATION_ASSUME_NEW_FILE(seg);
}

/*
 * Does another transaction hold a lock on seg that the swap's
 * AccessExclusiveLock would wait for?  (as WaitForLockers asks)
 */
static bool
segment_has_readers(Relation seg)
{
	LOCKTAG		tag;
	VirtualTransactionId *holders;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, RelationGetRelid(seg));
	holders = GetLockConflicts(&tag, AccessExclusiveLock, NULL);
	return VirtualTransactionIdIsValid(holders[0]);
}

/*
 * Rewrite the sealed segment of entry (of log router) without the records
 * removable says go, noting that the pass cleaned it up to cleaned_to.
 * wait: wait for readers to let go of the segment for the swap (under
 * lock_timeout); else give up (TOPIC_REWRITE_BUSY) and leave it as it was.
 */
static TopicRewriteOutcome
rewrite_segment(Oid router, const TopicSegmentEntry *entry,
				TopicRecordRemovable removable, void *arg,
				int64 cleaned_to, TimestampTz now, bool wait, bool replica,
				TopicRewriteResult *result)
{
	MemoryContext context = AllocSetContextCreate(CurrentMemoryContext,
												  "pg_topics segment rewrite",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(context);
	Rewrite    *rw = palloc0(sizeof(Rewrite));
	TopicLogEnd end;
	TopicLogMetaData *meta;
	TopicRewriteOutcome outcome;
	Relation	seg;
	bool		pushed = false;
	ListCell   *lc;

	memset(result, 0, sizeof(*result));
	seg = topic_segment_open(router, entry, ShareUpdateExclusiveLock);
	if (seg == NULL)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(context);
		return TOPIC_REWRITE_GONE;
	}

	/*
	 * Not waiting, give up a segment that readers hold: the swap would find
	 * them, and a reader that holds it now (a transaction that read the
	 * topic and stays open) would have the worker write and throw away a
	 * whole segment, its WAL included, at every round.  The lock table says
	 * so before any page is read.  Waiting, wait for those readers' ends
	 * first (under lock_timeout), for the same reason: a timeout then costs
	 * no write.  The swap waits for the readers who came since.
	 */
	if (wait)
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, RelationGetRelid(seg));
		WaitForLockers(tag, AccessExclusiveLock, false);
	}
	else if (segment_has_readers(seg))
	{
		relation_close(seg, NoLock);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(context);
		return TOPIC_REWRITE_BUSY;
	}
	rw->seg = seg;
	rw->replica = replica;
	rw->removable = removable;
	rw->arg = arg;
	rw->resolved = topic_storage_resolved(seg);
	rw->oldest_xmin = GetOldestNonRemovableTransactionId(seg);
	topic_storage_log_end(seg, &end);
	rw->seg_end = end.next_offset;
	result->old_blocks = topic_storage_nblocks(seg);

	/* walk 1: producers, the last record, settled */
	walk_segment(rw);
	if (rw->unsettled)
	{
		outcome = TOPIC_REWRITE_UNSETTLED;
		goto done;
	}
	/* walk 2: what goes */
	walk_segment(rw);

	/*
	 * The cleaner keeps a segment's last record when every one would go.  A
	 * replica's segment loses every record its publisher removed, all of
	 * them if so: its pages still say where it ends, a marker batch's
	 * (replica segments hold one after each applied transaction) or, in a
	 * segment an applied transaction filled in the middle, an empty page's.
	 */
	if (rw->kept == 0 && rw->removed > 0 && !replica)
	{
		rw->keep_last = true;
		walk_segment(rw);
	}
	/* a segment of rolled-back batches only is left as it is */
	if (!rw->changes ||
		(rw->kept == 0 && !(replica && (rw->markers > 0 || rw->removed > 0))))
	{
		TopicSegmentCleaning cleaning;

		/* the pass still cleaned it: its tombstones' time starts */
		if (!replica &&
			(!topic_segment_read_cleaning(seg, &cleaning) ||
			 cleaning.cleaned_to < cleaned_to))
			topic_segment_note_cleaned(seg, cleaned_to, now);
		outcome = TOPIC_REWRITE_NOTHING;
		goto done;
	}

	/* walk 3: the new file */
	/*
	 * A scan of this session still reading the old file (a cursor's) would
	 * go on in the new one at its old block numbers: refused, as TRUNCATE
	 * and CLUSTER refuse it (CheckTableNotInUse), naming the partition
	 */
	if (seg->rd_refcnt != 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot compact \"%s\" because it is being used by active queries in this session",
						get_rel_name(router)),
				 errhint("Close the cursors reading the topic first.")));
	rw->locator = RelationGetLocator(seg);
	RelFileLocatorRelNumber(rw->locator) =
		GET_NEW_REL_FILE_NUMBER(seg->rd_rel->reltablespace, NULL,
								seg->rd_rel->relpersistence);
	rw->srel = RelationCreateStorage(rw->locator, seg->rd_rel->relpersistence,
									 true);
	rw->wal = RelationNeedsWAL(seg);
	/* block 0 first, filled in when the rest is known */
	memset(rw->cur.data, 0, BLCKSZ);
	smgrextend(rw->srel, MAIN_FORKNUM, TOPIC_LOG_METAPAGE_BLKNO, rw->cur.data,
			   true);
	rw->next_blkno = TOPIC_LOG_FIRST_DATA_BLKNO;
	read_metapage_image(seg, rw->held.data);
	rw->running.next_offset = TopicLogPageGetOpaque((Page) rw->held.data)->next_offset;
	rw->running.max_timestamp = TopicLogPageGetOpaque((Page) rw->held.data)->max_timestamp;
	rw->held_used = false;
	rw->write = true;
	if (!ActiveSnapshotSet())
	{
		/* deleting TOAST values looks them up under a snapshot */
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	walk_segment(rw);
	if (rw->next_blkno == TOPIC_LOG_FIRST_DATA_BLKNO && !rw->cur_used)
		put_empty_page(rw);
	foreach(lc, rw->toast)
		toast_delete_datum(seg, PointerGetDatum(lfirst(lc)), false);
	if (pushed)
		PopActiveSnapshot();
	finish_page(rw);
	if (rw->held_used)
	{
		Page		last = (Page) rw->held.data;

		/* the last page reaches the old segment's end */
		TopicLogPageGetOpaque(last)->next_offset =
			Max(TopicLogPageGetOpaque(last)->next_offset, rw->seg_end);
		emit_page(rw, last, rw->last_blkno);
	}

	/* the metapage: the old one, everything resolved, and the note */
	{
		PGAlignedBlock metapage;

		read_metapage_image(seg, metapage.data);
		meta = TopicLogPageGetMeta((Page) metapage.data);
		if (rw->last_blkno != 0)
			meta->resolved = TopicLogPositionMake(rw->last_blkno,
												  rw->last_lower);
		/*
		 * A replica's note claims no clean point (cleaned_to 0): it tells
		 * readers and verify that the pages run on over holes, and
		 * topics.partitions when it last removed records
		 */
		set_cleaning((Page) metapage.data, cleaned_to, now, rw->removed);
		emit_page(rw, (Page) metapage.data, TOPIC_LOG_METAPAGE_BLKNO);
	}

	/*
	 * The pages did not go through shared buffers, so a checkpoint would
	 * not flush them: sync before the commit makes the file the segment's
	 * (as rewriteheap and the bulk writes do)
	 */
	if (rw->wal)
		smgrimmedsync(rw->srel, MAIN_FORKNUM);

	/* the swap: every reader of the old file gone first */
	if (wait)
		LockRelationOid(RelationGetRelid(seg), AccessExclusiveLock);
	else if (!ConditionalLockRelationOid(RelationGetRelid(seg),
										 AccessExclusiveLock))
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("segment \"%s\" is being read",
						RelationGetRelationName(seg))));
	swap_in(seg, &rw->locator);
	/* for the caller to tell subscribers, who remove the same records */
	if (rw->nranges > 0)
	{
		result->ranges = MemoryContextAlloc(old, sizeof(int64) * 2 * rw->nranges);
		memcpy(result->ranges, rw->ranges, sizeof(int64) * 2 * rw->nranges);
		result->nranges = rw->nranges;
	}
	result->new_blocks = rw->last_blkno + 1;
	outcome = TOPIC_REWRITE_DONE;

done:
	result->removed = rw->removed;
	result->kept = rw->kept;
	relation_close(seg, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(context);
	return outcome;
}

/*
 * Rewrite the sealed segment of entry (of log router) without the records
 * removable says go.  The log cleaner's, with the segment-dependent
 * records it keeps whatever removable says.
 */
TopicRewriteOutcome
topic_segment_rewrite(Oid router, const TopicSegmentEntry *entry,
					  TopicRecordRemovable removable, void *arg,
					  int64 cleaned_to, TimestampTz now, bool wait,
					  TopicRewriteResult *result)
{
	return rewrite_segment(router, entry, removable, arg, cleaned_to, now,
						   wait, false, result);
}

/*
 * The same on a logical replica, removing what its publisher's cleaner
 * removed (worker/replica_cleaner.c): exactly the records removable says
 * go, but the last one of a segment that would have no record and no
 * marker batch left.  The cleaner's note on the metapage claims no clean
 * point (the replica's own policy does not clean it).
 */
TopicRewriteOutcome
topic_segment_rewrite_replica(Oid router, const TopicSegmentEntry *entry,
							  TopicRecordRemovable removable, void *arg,
							  bool wait, TopicRewriteResult *result)
{
	return rewrite_segment(router, entry, removable, arg, 0,
						   GetCurrentTimestamp(), wait, true, result);
}
