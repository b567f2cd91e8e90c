/*-------------------------------------------------------------------------
 *
 * batch_fill.h
 *	  Prepared records encoded into a batch for the tail page.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WRITER_BATCH_FILL_H
#define TOPIC_WRITER_BATCH_FILL_H

#include "utils/rel.h"

#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/writer/record.h"

/*
 * The batch being filled, and what all batches of a write share.  The
 * writer sets it up once; keep_supplied is set for each chunk.
 */
typedef struct TopicBatchFill
{
	Relation	rel;			/* the partition's router, for errors */
	bool		keep_supplied;	/* preserve mode with supplied values */
	bool		any_order;		/* a subscription's worker: commit order */
	TimestampTz now;			/* the write's log-append time */
	TransactionId xid;
	CommandId	cid;
	TopicBatchProducerData *producer;	/* whose records, or NULL */
	PreparedRecord *recs;		/* the records, prepared */
	int64	   *offsets;		/* out: each record's offset */
	TimestampTz *timestamps;	/* out: each record's timestamp */
	char	   *batch;			/* out: a page's worth of batch */
	Size		len;			/* out: the batch's length */
	/* compressed batches (the topic's compression.type) */
	int			codec;			/* TOPIC_CODEC_*: NONE stores them as they are */
	double		ratio;			/* the write's last compression ratio */
} TopicBatchFill;

extern int	topic_batch_fill(TopicBatchFill *fill, TopicTail *tail, int first,
							 int n);

#endif							/* TOPIC_WRITER_BATCH_FILL_H */
