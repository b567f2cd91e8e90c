/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  topics.verify(): check every page of every partition of a topic.
 *
 * Like amcheck, each page is copied under a share lock and checked from
 * the copy, and nothing is ever raised for what the check finds: every
 * problem becomes one row (relation, block, problem), so that a single
 * damaged page does not hide the others.  No rows means healthy.
 *
 * What is checked: the metapage's identity; every data page's identity,
 * bounds and summary (record and batch counts, offset and timestamp
 * ranges); every batch header and record decodes inside its batch;
 * offsets strictly increase and timestamps never decrease along the log;
 * the resolved mark lies on a batch boundary inside the log; transaction
 * ids of batches at or after it are normal (or frozen), not in the future
 * and not older than relfrozenxid, and none flagged rolled back committed.
 * Batches before the mark are not asked about their xids, which may be
 * older than the commit log or wrapped around.  All-zero pages are
 * healthy after the last initialized page (the space writers take ahead of
 * the tail) and nowhere else.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/segments/segment.h"

PG_FUNCTION_INFO_V1(topic_verify);

/* Where problems go, and where the log must continue */
typedef struct VerifyState
{
	ReturnSetInfo *rsinfo;
	Relation	rel;
	bool		have_prev;
	int64		prev_offset;	/* highest offset seen so far */
	TimestampTz prev_timestamp; /* newest timestamp seen so far */
	TransactionId next_xid;
	TransactionId relfrozenxid;
	TopicLogPosition resolved;	/* the metapage's resolved mark */
	bool		resolved_found; /* a batch boundary at the mark was seen */
	bool		unordered;		/* a subscriber's (its directory entry says) */
	bool		cleaned;		/* the log cleaner rewrote it: holes */
	int64		page_next;		/* running summary of the pages so far */
	TimestampTz page_max_ts;
	uint8		page_version;	/* of the data page being checked */
	TopicBatchBuffer inflated;	/* a compressed batch's records */
} VerifyState;

static void report(VerifyState *state, BlockNumber blkno, const char *fmt,...)
			pg_attribute_printf(3, 4);

/* Add one problem row */
static void
report(VerifyState *state, BlockNumber blkno, const char *fmt,...)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	StringInfoData buf;
	va_list		args;

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}

	values[0] = ObjectIdGetDatum(RelationGetRelid(state->rel));
	values[1] = Int64GetDatum((int64) blkno);
	values[2] = CStringGetTextDatum(buf.data);
	tuplestore_putvalues(state->rsinfo->setResult, state->rsinfo->setDesc,
						 values, nulls);
}

/* Identity of a page: false (reported) if it is not ours */
static bool
check_identity(VerifyState *state, BlockNumber blkno, Page page, uint16 kind)
{
	TopicLogPageOpaque opaque;
	PageHeader	phdr = (PageHeader) page;

	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(TopicLogPageOpaqueData)) ||
		phdr->pd_special != BLCKSZ - MAXALIGN(sizeof(TopicLogPageOpaqueData)))
	{
		report(state, blkno, "special space has size %u, expected %u",
			   (unsigned) PageGetSpecialSize(page),
			   (unsigned) MAXALIGN(sizeof(TopicLogPageOpaqueData)));
		return false;
	}
	opaque = TopicLogPageGetOpaque(page);
	if (opaque->page_id != TOPIC_LOG_PAGE_ID)
	{
		report(state, blkno, "page identifier is 0x%04X, expected 0x%04X",
			   opaque->page_id, TOPIC_LOG_PAGE_ID);
		return false;
	}
	if (!TopicLogFormatVersionIsReadable(opaque->version))
	{
		report(state, blkno, "format version is %u, expected %u to %u",
			   opaque->version, TOPIC_LOG_MIN_FORMAT_VERSION,
			   TOPIC_LOG_FORMAT_VERSION);
		return false;
	}
	if ((opaque->flags & ~TL_PAGE_HINTS) != kind)
	{
		report(state, blkno, "page flags are 0x%04X, expected 0x%04X",
			   opaque->flags, kind);
		return false;
	}
	if (phdr->pd_lower < SizeOfPageHeaderData || phdr->pd_lower > phdr->pd_upper ||
		phdr->pd_upper != phdr->pd_special)
	{
		report(state, blkno, "page bounds are wrong: lower %u, upper %u, special %u",
			   phdr->pd_lower, phdr->pd_upper, phdr->pd_special);
		return false;
	}
	return true;
}

/* Check the metapage; sets where the log starts */
static void
check_metapage(VerifyState *state, Page page)
{
	TopicLogMetaData *meta;
	TopicLogPageOpaque opaque;

	if (PageIsNew(page))
	{
		report(state, TOPIC_LOG_METAPAGE_BLKNO, "metapage is not initialized");
		return;
	}
	if (!check_identity(state, TOPIC_LOG_METAPAGE_BLKNO, page, TL_PAGE_META))
		return;
	meta = TopicLogPageGetMeta(page);
	opaque = TopicLogPageGetOpaque(page);
	if (meta->magic != TOPIC_LOG_META_MAGIC)
		report(state, TOPIC_LOG_METAPAGE_BLKNO, "magic number is 0x%08X, expected 0x%08X",
			   meta->magic, TOPIC_LOG_META_MAGIC);
	if (!TopicLogFormatVersionIsReadable(meta->version))
		report(state, TOPIC_LOG_METAPAGE_BLKNO, "metapage format version is %u, expected %u to %u",
			   meta->version, TOPIC_LOG_MIN_FORMAT_VERSION,
			   TOPIC_LOG_FORMAT_VERSION);
	/* a router's own page summary only says where its log began */
	if (meta->log_start_offset < 0 ||
		(!(meta->flags & TL_META_ROUTER) && opaque->next_offset < meta->log_start_offset))
		report(state, TOPIC_LOG_METAPAGE_BLKNO,
			   "log start " INT64_FORMAT " and first offset " INT64_FORMAT " are inconsistent",
			   meta->log_start_offset, opaque->next_offset);
	state->have_prev = true;
	state->prev_offset = opaque->next_offset - 1;
	state->prev_timestamp = opaque->max_timestamp;
	state->page_next = opaque->next_offset;
	state->page_max_ts = opaque->max_timestamp;
	state->resolved = meta->resolved;
	state->resolved_found = (meta->resolved == 0);
	state->cleaned = (meta->flags & TL_META_CLEANED) != 0;
}

/* Check the transaction id of a batch at or after the resolved mark */
static void
check_batch_xid(VerifyState *state, BlockNumber blkno, int batchno,
				TopicBatchHeader hdr)
{
	TransactionId xid = hdr->xid;

	if (xid != FrozenTransactionId && !TransactionIdIsNormal(xid))
	{
		report(state, blkno, "batch %d has invalid transaction id %u",
			   batchno, xid);
		return;
	}
	if (!TransactionIdIsNormal(xid))
		return;
	if (TransactionIdFollowsOrEquals(xid, state->next_xid))
		report(state, blkno, "batch %d has transaction id %u from the future (next is %u)",
			   batchno, xid, state->next_xid);
	else if (hdr->flags & TB_ABORTED)
	{
		bool		committed = false;

		/* flagged ones do not hold relfrozenxid back: ask only if known */
		LWLockAcquire(XactTruncationLock, LW_SHARED);
		if (TransactionIdFollowsOrEquals(xid, TransamVariables->oldestClogXid))
			committed = TransactionIdDidCommit(xid);
		LWLockRelease(XactTruncationLock);
		if (committed)
			report(state, blkno, "batch %d is flagged rolled back, but transaction %u committed",
				   batchno, xid);
	}
	else if (TransactionIdPrecedes(xid, state->relfrozenxid))
		report(state, blkno, "batch %d has transaction id %u, older than relfrozenxid %u and after the resolved mark",
			   batchno, xid, state->relfrozenxid);
}

/* Check one batch of a data page; updates the running order state */
static void
check_batch(VerifyState *state, BlockNumber blkno, int batchno,
			TopicBatchHeader hdr, TopicLogPosition position,
			int64 *min_offset, int64 *max_offset,
			TimestampTz *min_ts, TimestampTz *max_ts)
{
	const char *bytes;
	Size		end;
	Size		pos = topic_batch_records_start(hdr);
	int64		batch_last = hdr->base_offset;	/* this batch's own summary */
	TimestampTz batch_oldest = hdr->base_timestamp;
	TimestampTz batch_newest = hdr->base_timestamp;
	int			i;

	if (hdr->flags & ~TB_KNOWN_FLAGS ||
		(hdr->reserved != 0 && !TopicBatchIsMarker(hdr)))
		report(state, blkno, "batch %d has unknown flags 0x%02X", batchno, hdr->flags);
	if (position == state->resolved)
		state->resolved_found = true;
	if (position >= state->resolved)
		check_batch_xid(state, blkno, batchno, hdr);
	else if (hdr->xid != FrozenTransactionId && !TransactionIdIsNormal(hdr->xid))
		report(state, blkno, "batch %d has invalid transaction id %u",
			   batchno, hdr->xid);

	/* a marker covers no offsets; the summary reaches up to its own */
	if (TopicBatchIsMarker(hdr))
	{
		if (hdr->nrecords != 0 ||
			(hdr->length != sizeof(TopicBatchHeaderData) &&
			 hdr->length != TOPIC_MARKER_LENGTH_WITH_START))
			report(state, blkno, "marker batch %d has records", batchno);
		*min_offset = Min(*min_offset, hdr->base_offset);
		*max_offset = Max(*max_offset, hdr->base_offset - 1);
		*min_ts = Min(*min_ts, hdr->base_timestamp);
		*max_ts = Max(*max_ts, hdr->base_timestamp);
		return;
	}

	if (hdr->flags & TB_PRODUCER)
	{
		TopicBatchProducerData producer;

		topic_batch_producer(hdr, &producer);
		if (state->page_version < TOPIC_LOG_PRODUCER_VERSION)
			report(state, blkno, "batch %d of a producer is on a page of format version %u",
				   batchno, state->page_version);
		if (!(hdr->flags & TB_CONTIGUOUS) || producer.count <= 0 ||
			producer.first_sequence < 0 || producer.reserved != 0 ||
			hdr->base_offset < producer.first_offset ||
			hdr->base_offset + hdr->nrecords > producer.first_offset + producer.count)
			report(state, blkno, "batch %d does not lie within its producer batch", batchno);
	}

	if (hdr->flags & TB_COMPRESSED)
	{
		TopicBatchCompressionData c;

		if (state->page_version < TOPIC_LOG_COMPRESSED_VERSION)
			report(state, blkno, "compressed batch %d is on a page of format version %u",
				   batchno, state->page_version);
		if (hdr->length <= topic_batch_compressed_start(hdr))
		{
			report(state, blkno, "compressed batch %d is too short", batchno);
			return;
		}
		topic_batch_compression(hdr, &c);
		if ((c.codec != TOPIC_CODEC_LZ4 && c.codec != TOPIC_CODEC_ZSTD) ||
			c.reserved1 != 0 || c.reserved2 != 0 || c.reserved3 != 0)
		{
			report(state, blkno, "compressed batch %d has unknown codec %u",
				   batchno, c.codec);
			return;
		}
	}
	if (!topic_batch_inflate(hdr, &state->inflated, &bytes, &end))
	{
		report(state, blkno, "compressed records of batch %d do not match their checksum or do not inflate",
			   batchno);
		return;
	}
	for (i = 0; i < hdr->nrecords; i++)
	{
		TopicRecord rec;

		if (!topic_record_decode(bytes, &pos, end, hdr, i, &rec))
		{
			report(state, blkno, "record %d of batch %d does not decode", i, batchno);
			return;
		}
		/* a subscriber's records come in commit order: no order to check */
		if (state->unordered)
			;
		else if (state->have_prev && rec.offset <= state->prev_offset)
			report(state, blkno, "offset " INT64_FORMAT " follows offset " INT64_FORMAT,
				   rec.offset, state->prev_offset);
		else if (state->have_prev && rec.timestamp < state->prev_timestamp)
			report(state, blkno, "timestamp of offset " INT64_FORMAT " is older than the one before it",
				   rec.offset);
		state->have_prev = true;
		state->prev_offset = Max(state->prev_offset, rec.offset);
		state->prev_timestamp = Max(state->prev_timestamp, rec.timestamp);
		*min_offset = Min(*min_offset, rec.offset);
		*max_offset = Max(*max_offset, rec.offset);
		*min_ts = Min(*min_ts, rec.timestamp);
		*max_ts = Max(*max_ts, rec.timestamp);
		batch_last = Max(batch_last, rec.offset);
		batch_oldest = Min(batch_oldest, rec.timestamp);
		batch_newest = Max(batch_newest, rec.timestamp);
	}
	if (pos != end)
		report(state, blkno, "batch %d has %zu bytes after its last record",
			   batchno, (size_t) (end - pos));
	if (hdr->flags & TB_COMPRESSED)
	{
		TopicBatchCompressionData c;

		/* the summary kept beside the records must be theirs */
		topic_batch_compression(hdr, &c);
		if (c.last_offset != batch_last || c.min_timestamp != batch_oldest ||
			c.max_timestamp != batch_newest)
			report(state, blkno, "compressed batch %d has a summary that is not its records'",
				   batchno);
	}
}

/* Check one data page */
static void
check_data_page(VerifyState *state, BlockNumber blkno, Page page)
{
	TopicLogPageOpaque opaque;
	PageHeader	phdr = (PageHeader) page;
	TopicBatchHeader hdr;
	Size		pos = 0;
	Size		end = MAXALIGN(SizeOfPageHeaderData);
	int			nbatches = 0;
	int			nrecords = 0;
	int64		min_offset = PG_INT64_MAX;
	int64		max_offset = PG_INT64_MIN;
	TimestampTz min_ts = DT_NOEND;
	TimestampTz max_ts = DT_NOBEGIN;

	if (!check_identity(state, blkno, page, TL_PAGE_DATA))
		return;
	opaque = TopicLogPageGetOpaque(page);
	state->page_version = opaque->version;

	while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
	{
		TopicLogPosition position =
			TopicLogPositionMake(blkno, (char *) hdr - (char *) page);

		check_batch(state, blkno, nbatches, hdr, position,
					&min_offset, &max_offset, &min_ts, &max_ts);
		nrecords += hdr->nrecords;
		nbatches++;
		end = pos;
	}
	/* the mark may also sit right after a page's last batch */
	if (state->resolved == TopicLogPositionMake(blkno, end))
		state->resolved_found = true;

	if (end != phdr->pd_lower)
		report(state, blkno, "%u bytes after batch %d are not a valid batch",
			   (unsigned) (phdr->pd_lower - end), nbatches);
	if (nbatches != opaque->nbatches || nrecords != opaque->nrecords)
		report(state, blkno, "page counts %u batches and %u records, found %d and %d",
			   opaque->nbatches, opaque->nrecords, nbatches, nrecords);
	if (nrecords > TOPIC_LOG_MAX_RECORDS_PER_PAGE)
		report(state, blkno, "page has %d records, more than %d", nrecords,
			   TOPIC_LOG_MAX_RECORDS_PER_PAGE);
	/* next_offset and max_timestamp run on from the page before */
	max_offset = Max(max_offset, state->page_next - 1);
	max_ts = Max(max_ts, state->page_max_ts);
	/*
	 * A compacted segment's pages tile its offsets: a page's summary runs on
	 * over the records removed after its last one
	 */
	if (nbatches > 0 &&
		(min_offset != opaque->min_offset ||
		 (state->cleaned ? max_offset + 1 > opaque->next_offset :
		  max_offset + 1 != opaque->next_offset)))
		report(state, blkno, "page says offsets " INT64_FORMAT ".." INT64_FORMAT ", records hold " INT64_FORMAT ".." INT64_FORMAT,
			   opaque->min_offset, opaque->next_offset - 1, min_offset, max_offset);
	if (nbatches > 0 &&
		(min_ts != opaque->min_timestamp || max_ts != opaque->max_timestamp))
		report(state, blkno, "page timestamp range does not match its records");
	state->page_next = opaque->next_offset;
	state->page_max_ts = opaque->max_timestamp;
}

/*
 * Check every page of one segment (or a router's metapage).  Not the
 * shared page walk (batch_iter.c): that raises at the first page that is
 * not ours, where verify must list every problem and go on, so it checks
 * a copy of each page itself.
 */
static void
verify_pages(ReturnSetInfo *rsinfo, Oid relid, bool unordered,
			 int64 *last_offset)
{
	VerifyState state;
	BlockNumber nblocks;
	BlockNumber blkno;
	BlockNumber first_zero = InvalidBlockNumber;	/* of the run we are in */
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	PGAlignedBlock copy;

	memset(&state, 0, sizeof(state));
	state.rsinfo = rsinfo;
	state.unordered = unordered;
	state.rel = table_open(relid, AccessShareLock);
	state.next_xid = ReadNextTransactionId();
	state.relfrozenxid = state.rel->rd_rel->relfrozenxid;

	nblocks = topic_storage_nblocks(state.rel);
	if (nblocks == 0)
		report(&state, TOPIC_LOG_METAPAGE_BLKNO, "relation has no metapage");

	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buffer;
		Page		page = (Page) copy.data;

		CHECK_FOR_INTERRUPTS();
		buffer = ReadBufferExtended(state.rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
									strategy);
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		memcpy(copy.data, BufferGetPage(buffer), BLCKSZ);
		UnlockReleaseBuffer(buffer);

		/*
		 * All-zero pages may only follow the tail, the last initialized
		 * page: the space writers take ahead, and what a crash before a
		 * page's first batch was logged leaves there.  Writers and readers
		 * find the tail by walking back over them, so one before an
		 * initialized page would hide the pages after it from a writer.
		 */
		if (blkno != TOPIC_LOG_METAPAGE_BLKNO && PageIsNew(page))
		{
			if (first_zero == InvalidBlockNumber)
				first_zero = blkno;
			continue;
		}
		if (first_zero != InvalidBlockNumber)
		{
			report(&state, first_zero,
				   "all-zero pages %u to %u come before initialized page %u; zero pages may only follow the last initialized page",
				   first_zero, blkno - 1, blkno);
			first_zero = InvalidBlockNumber;
		}
		if (blkno == TOPIC_LOG_METAPAGE_BLKNO)
			check_metapage(&state, page);
		else
		{
			/* xids written since we started are not from the future */
			state.next_xid = ReadNextTransactionId();
			check_data_page(&state, blkno, page);
		}
	}
	if (nblocks > 0 && !state.resolved_found)
		report(&state, TOPIC_LOG_METAPAGE_BLKNO,
			   "resolved mark (block %u, byte %zu) is not at a batch boundary of the log",
			   TopicLogPositionGetBlock(state.resolved),
			   TopicLogPositionGetPos(state.resolved));
	if (last_offset != NULL)
		*last_offset = state.have_prev ? state.prev_offset : -1;

	FreeAccessStrategy(strategy);
	table_close(state.rel, AccessShareLock);
}

/*
 * Check a partition's log: its metapage, its segment directory (every
 * entry names a segment of this log, at most one LIVE, readable segments
 * in offset order) and every page of every segment.
 */
static void
verify_relation(ReturnSetInfo *rsinfo, Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TopicSegmentDir *dir;
	VerifyState state;
	int64		prev_last = -1;
	int			nlive = 0;
	int			i;

	if (!topic_log_is_router(rel))
	{
		table_close(rel, AccessShareLock);
		verify_pages(rsinfo, relid, false, NULL);
		return;
	}
	verify_pages(rsinfo, relid, false, NULL);

	memset(&state, 0, sizeof(state));
	state.rsinfo = rsinfo;
	state.rel = rel;
	/* readers take a partition's end from its metapage and its segments */
	if (topic_storage_nblocks(rel) > 1)
		report(&state, TOPIC_LOG_FIRST_DATA_BLKNO,
			   "partition has %u pages besides its metapage; its records belong in segments",
			   topic_storage_nblocks(rel) - 1);
	dir = topic_segdir_read(rel);
	for (i = 0; i < dir->nentries; i++)
	{
		TopicSegmentEntry *e = &dir->entries[i];
		Relation	seg;
		TopicLogMetaData meta;
		int64		last;

		if (e->state < TOPIC_SEGMENT_SPARE || e->state > TOPIC_SEGMENT_RETIRED)
		{
			report(&state, TOPIC_LOG_METAPAGE_BLKNO,
				   "segment %u has unknown state %u", e->segno, e->state);
			continue;
		}
		if (e->state == TOPIC_SEGMENT_LIVE)
			nlive++;
		seg = topic_segment_open(dir->router, e, AccessShareLock);
		if (seg == NULL)
		{
			if (topic_segment_readable(e))
				report(&state, TOPIC_LOG_METAPAGE_BLKNO,
					   "segment %u (relation %u) is missing", e->segno, e->relid);
			continue;
		}
		topic_storage_read_meta(seg, &meta);
		if (!(meta.flags & TL_META_SEGMENT) || meta.owner != relid ||
			meta.segno != e->segno)
			report(&state, TOPIC_LOG_METAPAGE_BLKNO,
				   "segment %u (relation %u) belongs to another log", e->segno, e->relid);
		relation_close(seg, AccessShareLock);
		if (!topic_segment_readable(e))
			continue;
		if (prev_last >= 0 && e->base_offset <= prev_last)
			report(&state, TOPIC_LOG_METAPAGE_BLKNO,
				   "segment %u starts at offset " INT64_FORMAT ", at or before the last offset " INT64_FORMAT " of the segment before it",
				   e->segno, e->base_offset, prev_last);
		verify_pages(rsinfo, e->relid,
					 (e->flags & TOPIC_SEGENTRY_UNORDERED) != 0, &last);
		if (last >= 0)
			prev_last = last;
	}
	if (nlive > 1)
		report(&state, TOPIC_LOG_METAPAGE_BLKNO, "%d segments are LIVE", nlive);
	pfree(dir);
	table_close(rel, AccessShareLock);
}

/*
 * topics.verify(topic regclass) RETURNS TABLE(relation regclass,
 * block bigint, problem text)
 */
Datum
topic_verify(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char		relkind = get_rel_relkind(relid);
	AclResult	aclresult;
	List	   *relids;
	ListCell   *lc;

	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));

	aclresult = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, get_relkind_objtype(relkind), get_rel_name(relid));

	if (relkind == RELKIND_PARTITIONED_TABLE)
		relids = find_all_inheritors(relid, AccessShareLock, NULL);
	else
		relids = list_make1_oid(relid);

	/* keep only the partitions stored as logs; refuse anything else */
	{
		List	   *logs = NIL;

		foreach(lc, relids)
			if (topic_is_log_relation(lfirst_oid(lc)))
				logs = lappend_oid(logs, lfirst_oid(lc));
		if (logs == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a topic", get_rel_name(relid)),
					 errhint("topics.verify() checks topics and their partitions.")));
		relids = logs;
	}

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, relids)
		verify_relation(rsinfo, lfirst_oid(lc));

	return (Datum) 0;
}
