/*-------------------------------------------------------------------------
 *
 * log_cleaner.c
 *	  Log compaction of topics whose cleanup.policy includes compact: in
 *	  the sealed segments each key keeps its newest record, every kept
 *	  record at its offset and timestamp.
 *
 * A pass works as Kafka's cleaner does.  The log below cleaned_to (the
 * lowest end a pass noted on the sealed segments' metapages, a segment no
 * pass noted counting from its base offset: clean_point) is clean: no key
 * has two records there.  The pass reads the dirty part after it, sealed
 * segments only, into a key map (key digest -> newest offset, key_map.c)
 * and stops at its end E: the end of the sealed segments, or earlier,
 *
 * - at the first segment holding records newer than min.compaction.lag.ms,
 * - at the first segment holding a batch that is not settled yet (a
 *   transaction some snapshot may still see as running:
 *   topic_batch_settled): such a segment cannot be rewritten yet,
 * - where the map is full (pg_topics.compaction_buffer_size): the next
 *   pass goes on from there.
 *
 * Then every sealed segment below E is rewritten without the records the
 * rule removes (segment_rewrite.c), one segment at a time: a keyed record
 * at offset o < E goes iff the map holds a newer offset for its key; a
 * tombstone (NULL value) also goes once its segment was first cleaned
 * delete.retention.ms ago; keyless records stay.  The LIVE segment is
 * never touched, nor a segment written out of order by a logical
 * subscriber (the pass stops before it).
 *
 * The background worker runs a pass on a partition when the dirty part is
 * more than min.cleanable.dirty.ratio of the sealed segments' pages, or
 * holds a record older than max.compaction.lag.ms, each segment in a
 * transaction of its own taking the segment's swap lock conditionally;
 * topics.compact() runs passes until the whole sealed log is clean, in
 * its caller's transaction, waiting for the locks.  I/O is paced as
 * VACUUM's is, by pg_topics.compaction_cost_delay and _limit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/procarray.h"
#include "utils/memutils.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/log/batch_compression.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/replication/markers.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_rewrite.h"
#include "pg_topics/worker/key_map.h"
#include "pg_topics/worker/log_cleaner.h"

/* A sealed segment as the pass sees it */
typedef struct PassSegment
{
	TopicSegmentEntry entry;
	int64		end;			/* one past its last offset */
	TimestampTz max_timestamp;
	int64		blocks;			/* its pages */
	bool		cleaned;		/* a pass noted it */
	TopicSegmentCleaning cleaning;
} PassSegment;

struct TopicCleanPass
{
	MemoryContext context;
	Oid			router;
	TimestampTz now;
	int64		delete_retention_usecs;
	int64		cleaned_to;		/* C: clean below it */
	int64		end;			/* E */
	bool		full;			/* the map filled up before the sealed end */
	bool		overdue;		/* the dirty part is max.compaction.lag.ms old */
	TopicKeyMap *map;
	int			nsegments;
	PassSegment *segments;
	int			next;			/* the segment the next step cleans */
	const PassSegment *current;
	/* the cost settings the pass replaced */
	bool		saved_active;
	double		saved_delay;
	int			saved_limit;
};

/* The sealed segments of router's directory, in log order, with notes */
static PassSegment *
sealed_segments(Relation router, int *n)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	PassSegment *segments = palloc0(sizeof(PassSegment) * Max(dir->nentries, 1));
	int			count = 0;

	for (int i = 0; i < dir->nentries; i++)
	{
		const TopicSegmentEntry *e = &dir->entries[i];
		PassSegment *s = &segments[count];
		TopicLogEnd end;
		Relation	seg;

		if (e->state != TOPIC_SEGMENT_SEALED)
			continue;
		/* out of offset order (a subscriber's): the pass stops there */
		if (e->flags & TOPIC_SEGENTRY_UNORDERED)
			break;
		seg = topic_segment_open(RelationGetRelid(router), e, AccessShareLock);
		if (seg == NULL)
			continue;
		s->entry = *e;
		topic_storage_log_end(seg, &end);
		s->end = end.next_offset;
		s->max_timestamp = end.max_timestamp;
		s->blocks = topic_storage_last_block(seg) + 1;
		s->cleaned = topic_segment_read_cleaning(seg, &s->cleaning);
		relation_close(seg, AccessShareLock);
		count++;
	}
	*n = count;
	return segments;
}

/*
 * The clean point of a log: the lowest end a pass noted on its sealed
 * segments, a segment no pass noted counting from its base offset.  Not
 * the highest: a pass that could not rewrite a segment (the worker, when a
 * reader holds it) leaves that segment's older note as it was while the
 * segments after it get the pass's end, and the next pass must map the
 * records from the older note on again, or those the skipped segment
 * holds below the pass's end would never go.
 */
static int64
clean_point(const PassSegment *segments, int n)
{
	int64		point = PG_INT64_MAX;

	for (int i = 0; i < n; i++)
	{
		int64		note = segments[i].entry.base_offset;

		if (segments[i].cleaned)
			note = Max(note, segments[i].cleaning.cleaned_to);
		point = Min(point, note);
	}
	return n > 0 ? point : 0;
}

void
topic_cleaner_status(Relation router, TopicCleanerStatus *status)
{
	int			n;
	PassSegment *segments = sealed_segments(router, &n);

	memset(status, 0, sizeof(*status));
	status->cleaned_to = clean_point(segments, n);
	for (int i = 0; i < n; i++)
		if (segments[i].cleaned)
		{
			status->last_cleaned = Max(status->last_cleaned,
									   segments[i].cleaning.last_cleaned);
			status->removed += segments[i].cleaning.removed;
		}
	for (int i = 0; i < n; i++)
	{
		status->sealed_blocks += segments[i].blocks;
		if (segments[i].end > status->cleaned_to)
		{
			status->dirty_blocks += segments[i].blocks;
			/* a segment's records are no older than the log before it */
			if (status->oldest_dirty == 0)
				status->oldest_dirty = segments[i].entry.base_timestamp;
		}
	}
	pfree(segments);
}

/*
 * Does the dirty part of a log start with a record older than
 * max.compaction.lag.ms?  The first batch of the first dirty segment
 * stands for it, as in Kafka: a segment's records are no older than the
 * log before it.
 */
static bool
lag_exceeded(const TopicConfig *config, TimestampTz oldest_dirty,
			 TimestampTz now)
{
	return config->max_compaction_lag_ms < PG_INT64_MAX / 1000 &&
		oldest_dirty != 0 &&
		oldest_dirty < now - config->max_compaction_lag_ms * 1000;
}

/*
 * Is a pass due on router's log: dirty pages more than the topic's
 * min.cleanable.dirty.ratio of the sealed ones, or a dirty record older
 * than max.compaction.lag.ms?  More than, as Kafka's cleaner has it: at
 * 1 the worker leaves the log to topics.compact() and the lag.
 */
bool
topic_cleaner_due(Relation router, const TopicConfig *config, TimestampTz now)
{
	TopicCleanerStatus status;

	topic_cleaner_status(router, &status);
	if (status.dirty_blocks == 0)
		return false;
	if ((double) status.dirty_blocks >
		config->min_cleanable_dirty_ratio * (double) status.sealed_blocks)
		return true;
	return lag_exceeded(config, status.oldest_dirty, now);
}

/*
 * Read the dirty part of segment s into the map; false when the pass ends
 * in it (pass->end set)
 */
static bool
map_segment(TopicCleanPass *pass, Relation seg, const PassSegment *s)
{
	TopicLogPosition resolved = topic_storage_resolved(seg);
	TransactionId oldest_xmin = GetOldestNonRemovableTransactionId(seg);
	TopicBatchIter it;
	TopicBatchHeader hdr;
	TopicBatchBuffer inflated = {NULL, 0};
	bool		go_on = true;

	topic_batch_iter_begin(&it, seg, TOPIC_LOG_FIRST_DATA_BLKNO,
						   topic_storage_nblocks(seg), NULL,
						   TOPIC_BATCH_ITER_VACUUM);
	while (go_on && (hdr = topic_batch_iter_next(&it)) != NULL)
	{
		const char *bytes;
		Size		end;
		Size		pos = topic_batch_records_start(hdr);

		switch (topic_batch_settled(it.buffer, hdr, resolved, oldest_xmin))
		{
			case TOPIC_BATCH_UNSETTLED:

				/*
				 * The pass ends before this segment, not at the batch: the
				 * segment cannot be rewritten while it holds the batch, so
				 * its records below the batch would be noted clean without
				 * having been cleaned against each other (what the map
				 * holds of them is settled: it still supersedes older
				 * records)
				 */
				pass->end = Max(s->entry.base_offset, pass->cleaned_to);
				go_on = false;
				continue;
			case TOPIC_BATCH_SETTLED_DROP:
				continue;
			case TOPIC_BATCH_SETTLED_KEEP:
				break;
		}
		if (TopicBatchIsMarker(hdr))
			continue;
		bytes = topic_batch_records(hdr, &inflated, &end);
		for (int i = 0; i < hdr->nrecords; i++)
		{
			TopicRecord rec;

			if (!topic_record_decode(bytes, &pos, end, hdr, i, &rec))
				elog(ERROR, "a record of segment \"%s\" does not parse",
					 RelationGetRelationName(seg));
			if (rec.offset < pass->cleaned_to || rec.key == NULL)
				continue;
			if (!topic_key_map_put(pass->map, (struct varlena *) rec.key,
								   rec.offset))
			{
				pass->end = rec.offset;
				pass->full = true;
				go_on = false;
				break;
			}
		}
	}
	topic_batch_iter_end(&it);
	topic_batch_buffer_free(&inflated);
	return go_on;
}

/* Pace the pass's reads and writes as VACUUM's */
static void
set_costs(TopicCleanPass *pass)
{
	pass->saved_active = VacuumCostActive;
	pass->saved_delay = VacuumCostDelay;
	pass->saved_limit = VacuumCostLimit;
	VacuumCostDelay = pg_topics_compaction_cost_delay;
	VacuumCostLimit = pg_topics_compaction_cost_limit;
#if PG_VERSION_NUM >= 160000
	vacuum_cost_delay = VacuumCostDelay;
	vacuum_cost_limit = VacuumCostLimit;
#endif
	VacuumCostActive = VacuumCostDelay > 0;
	VacuumCostBalance = 0;
}

static void
restore_costs(TopicCleanPass *pass)
{
	VacuumCostActive = pass->saved_active;
	VacuumCostDelay = pass->saved_delay;
	VacuumCostLimit = pass->saved_limit;
#if PG_VERSION_NUM >= 160000
	vacuum_cost_delay = VacuumCostDelay;
	vacuum_cost_limit = VacuumCostLimit;
#endif
	VacuumCostBalance = 0;
}

/*
 * Plan a pass over router's log: the key map of its dirty part and the
 * end E.  The pass lives in its own memory context under
 * TopMemoryContext, so that the worker may clean each segment in a
 * transaction of its own: the sealed segments below E do not change
 * meanwhile but by the pass (or go whole, by retention).
 */
TopicCleanPass *
topic_cleaner_begin(Relation router, const TopicConfig *config,
					TimestampTz now)
{
	MemoryContext context = AllocSetContextCreate(TopMemoryContext,
												  "pg_topics log cleaner",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(context);
	TopicCleanPass *pass = palloc0(sizeof(TopicCleanPass));
	TimestampTz lag_limit;

	pass->context = context;
	pass->router = RelationGetRelid(router);
	pass->now = now;
	pass->delete_retention_usecs =
		config->delete_retention_ms > PG_INT64_MAX / 1000 ? PG_INT64_MAX :
		config->delete_retention_ms * 1000;
	lag_limit = config->min_compaction_lag_ms > PG_INT64_MAX / 1000 ?
		DT_NOBEGIN : now - config->min_compaction_lag_ms * 1000;
	pass->segments = sealed_segments(router, &pass->nsegments);
	pass->cleaned_to = clean_point(pass->segments, pass->nsegments);
	pass->end = pass->nsegments > 0 ?
		pass->segments[pass->nsegments - 1].end : pass->cleaned_to;
	for (int i = 0; i < pass->nsegments; i++)
		if (pass->segments[i].end > pass->cleaned_to)
		{
			pass->overdue = lag_exceeded(config,
										 pass->segments[i].entry.base_timestamp,
										 now);
			break;
		}
	pass->map = topic_key_map_create((Size) pg_topics_compaction_buffer_size * 1024);
	set_costs(pass);

	/*
	 * The cost settings are the session's VACUUM settings (in 15, the GUC
	 * variables themselves): an error or a cancel while mapping must give
	 * them back, as topic_cleaner_end does once the pass is returned
	 */
	PG_TRY();
	{
		for (int i = 0; i < pass->nsegments; i++)
		{
			PassSegment *s = &pass->segments[i];
			Relation	seg;
			bool		go_on;

			if (s->end <= pass->cleaned_to)
				continue;
			/* too new to clean (and every segment after it) */
			if (s->max_timestamp > lag_limit)
			{
				pass->end = Max(s->entry.base_offset, pass->cleaned_to);
				break;
			}
			seg = topic_segment_open(pass->router, &s->entry, AccessShareLock);
			if (seg == NULL)
				continue;
			go_on = map_segment(pass, seg, s);
			relation_close(seg, AccessShareLock);
			if (!go_on)
				break;
		}
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		topic_cleaner_end(pass);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	return pass;
}

/* Does a pass's test remove this record? (a TopicRecordRemovable) */
static bool
removable(void *arg, const TopicBatchHeaderData *hdr, const TopicRecord *rec)
{
	TopicCleanPass *pass = (TopicCleanPass *) arg;
	const PassSegment *s = pass->current;

	if (rec->key == NULL || rec->offset >= pass->end)
		return false;
	if (topic_key_map_get(pass->map, (struct varlena *) rec->key) > rec->offset)
		return true;
	/* a tombstone, once its segment was first cleaned long enough ago */
	return rec->value == NULL && s->cleaned &&
		s->cleaning.first_cleaned <= pass->now - pass->delete_retention_usecs;
}

/*
 * Is the pass's dirty part older than max.compaction.lag.ms?  Then the
 * worker waits for the readers of its segments (a bounded time) rather
 * than leaving a segment they hold for a later round, which readers that
 * never all let go at once would put off for ever.
 */
bool
topic_cleaner_overdue(TopicCleanPass *pass)
{
	return pass->overdue;
}

/* Is there a segment left for topic_cleaner_step? */
bool
topic_cleaner_more(TopicCleanPass *pass)
{
	return pass->next < pass->nsegments &&
		pass->segments[pass->next].entry.base_offset < pass->end;
}

/*
 * Clean the pass's next segment, adding the records removed to *removed.
 * False if it had to be left as it was (readers held it and !wait, or a
 * batch was not settled).
 */
bool
topic_cleaner_step(TopicCleanPass *pass, bool wait, int64 *removed)
{
	TopicRewriteResult result;
	TopicRewriteOutcome outcome;

	Assert(topic_cleaner_more(pass));
	pass->current = &pass->segments[pass->next++];
	outcome = topic_segment_rewrite(pass->router, &pass->current->entry,
									removable, pass, pass->end, pass->now,
									wait, &result);
	if (outcome == TOPIC_REWRITE_DONE)
	{
		*removed += result.removed;
		/* logical subscribers remove the same records (replica_cleaner.c) */
		topic_markers_log_removed(pass->router, result.ranges, result.nranges);
	}
	return outcome == TOPIC_REWRITE_DONE || outcome == TOPIC_REWRITE_NOTHING ||
		outcome == TOPIC_REWRITE_GONE;
}

void
topic_cleaner_end(TopicCleanPass *pass)
{
	restore_costs(pass);
	MemoryContextDelete(pass->context);
}

/*
 * Clean router's whole sealed log now, in the caller's transaction, pass
 * after pass until no pass ends early for a full key map; the records
 * removed.  Used by topics.compact().
 */
int64
topic_cleaner_run(Relation router, const TopicConfig *config)
{
	int64		removed = 0;
	TimestampTz now = GetCurrentTimestamp();
	bool		again;

	do
	{
		TopicCleanPass *pass = topic_cleaner_begin(router, config, now);
		int64		before = pass->cleaned_to;

		PG_TRY();
		{
			while (topic_cleaner_more(pass))
				(void) topic_cleaner_step(pass, true, &removed);
		}
		PG_CATCH();
		{
			topic_cleaner_end(pass);
			PG_RE_THROW();
		}
		PG_END_TRY();
		/* a full map moved the clean point on: another pass from there */
		again = pass->full && pass->end > before;
		topic_cleaner_end(pass);
		CommandCounterIncrement();
	} while (again);
	return removed;
}
