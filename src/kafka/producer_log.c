/*-------------------------------------------------------------------------
 *
 * producer_log.c
 *	  An idempotent Kafka producer's last batches in a partition, read back
 *	  from the partition's log.
 *
 * Every batch an idempotent producer writes carries, in the log, its
 * producer id, epoch, first sequence number, record count, first offset
 * and the role the id is bound to (TB_PRODUCER batches, topic_log.h).  The
 * shared table of producers (shared/kafka_producers.c) is a cache of that;
 * a producer it does not know in a partition (after a restart, a crash, a
 * failover, or an eviction) has its state read here, as Kafka rebuilds
 * its producer state from the log: the newest epoch the producer wrote
 * with, and its last five batches of that epoch that committed.
 *
 * The log is read backwards from its end, newest segment first, a page at
 * a time, until five batches of the producer's newest epoch are found or
 * a batch of an older epoch shows that no more of the newest precede it.
 * The producers whose state matters are the ones that had batches in
 * flight when the server stopped: their last batches are near the end,
 * behind only what was written since.  So the read stops after
 * PRODUCER_LOG_PAGES pages (16 MB): a producer not found that close is
 * treated as unknown (its next batch must start a sequence, as after
 * Kafka's producer.id.expiration.ms), which costs at most a bounded read
 * per partition and producer id the table does not know.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"

#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/producer_log.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/log/batch_iter.h"
#include "pg_topics/log/visibility.h"
#include "pg_topics/segments/segment.h"

/* pages read at most for one producer's history */
#define PRODUCER_LOG_PAGES		2048

/* The walk: what it looks for, what it found, how far it may go */
typedef struct ProducerWalk
{
	int64		producer_id;
	KafkaProducerHistory *history;
	/* the producer's batches found so far, newest first */
	int			nfound;
	KafkaProducerBatch found[KAFKA_PRODUCER_BATCHES];
	bool		done;			/* found all there is to find */
	int			pages_left;
} ProducerWalk;

/*
 * One committed batch of the producer, seen walking backwards: keep it if
 * it is of the newest epoch and not a piece of a batch already kept
 */
static void
note_batch(ProducerWalk *walk, const TopicBatchHeaderData *hdr,
		   const TopicBatchProducerData *producer)
{
	KafkaProducerHistory *history = walk->history;
	KafkaProducerBatch *batch;

	if (!OidIsValid(history->role))
	{
		/* the newest batch: its epoch and role are the producer's */
		history->role = producer->role;
		history->epoch = producer->epoch;
	}
	else if (producer->epoch != history->epoch)
	{
		/* an older epoch: the newest one's batches all came after it */
		walk->done = true;
		return;
	}
	for (int i = 0; i < walk->nfound; i++)
		if (walk->found[i].first_seq == producer->first_sequence &&
			walk->found[i].base_offset == producer->first_offset)
			return;				/* another piece of a batch kept */
	if (walk->nfound == KAFKA_PRODUCER_BATCHES)
	{
		walk->done = true;
		return;
	}
	batch = &walk->found[walk->nfound++];
	batch->first_seq = producer->first_sequence;
	batch->last_seq = (int32) (((int64) producer->first_sequence +
								producer->count - 1) % ((int64) PG_INT32_MAX + 1));
	batch->base_offset = producer->first_offset;
	/* every piece of a producer batch has the batch's log-append time */
	batch->timestamp = kafka_timestamp_ms(hdr->base_timestamp);
}

/* The producer's committed batches on one page, newest first */
static void
walk_page(ProducerWalk *walk, Buffer buffer, Page page,
		  TopicLogPosition resolved)
{
	const TopicBatchHeaderData *mine[TOPIC_LOG_MAX_RECORDS_PER_PAGE];
	int			nmine = 0;
	TopicBatchHeader hdr;
	Size		pos = 0;

	while ((hdr = topic_page_next_batch(page, &pos)) != NULL)
	{
		TopicBatchProducerData producer;

		if (!(hdr->flags & TB_PRODUCER))
			continue;
		topic_batch_producer(hdr, &producer);
		if (producer.producer_id != walk->producer_id)
			continue;
		/* rolled back (or still running: not yet one of its batches) */
		if (topic_batch_status(buffer, hdr, resolved) != TOPIC_XID_COMMITTED)
			continue;
		mine[nmine++] = hdr;
	}
	while (nmine > 0 && !walk->done)
	{
		TopicBatchProducerData producer;

		topic_batch_producer(mine[nmine - 1], &producer);
		note_batch(walk, mine[--nmine], &producer);
	}
}

/* Walk one segment's pages backwards (a topic_segdir_foreach visitor) */
static bool
walk_segment(void *arg, Relation seg, const TopicSegmentEntry *entry, int i)
{
	ProducerWalk *walk = (ProducerWalk *) arg;
	TopicLogPosition resolved = topic_storage_resolved(seg);
	BlockNumber blkno = topic_storage_last_block(seg) + 1;

	while (!walk->done && blkno-- > TOPIC_LOG_FIRST_DATA_BLKNO)
	{
		Buffer		buffer;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		if (walk->pages_left-- <= 0)
		{
			walk->done = true;
			break;
		}
		page = topic_page_read_data(seg, blkno, NULL, &buffer);
		if (page != NULL)
		{
			walk_page(walk, buffer, page, resolved);
			LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buffer);
	}
	return walk->done;
}

/*
 * Fill *history with producer_id's state in the partition router: its
 * newest epoch and last batches, or role InvalidOid if the end of the log
 * holds none of its batches
 */
void
kafka_producer_history(Relation router, int64 producer_id,
					   KafkaProducerHistory *history)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	ProducerWalk walk;

	memset(history, 0, sizeof(KafkaProducerHistory));
	memset(&walk, 0, sizeof(walk));
	walk.producer_id = producer_id;
	walk.history = history;
	walk.pages_left = PRODUCER_LOG_PAGES;
	(void) topic_segdir_foreach(dir, -1, TOPIC_SEGDIR_BACKWARD,
								AccessShareLock, walk_segment, &walk);
	pfree(dir);

	/* oldest first, as the table keeps them */
	history->nbatches = walk.nfound;
	for (int i = 0; i < walk.nfound; i++)
		history->batches[i] = walk.found[walk.nfound - 1 - i];
}
