/*-------------------------------------------------------------------------
 *
 * storage.h
 *	  Pages of one topic_log relation: metapage, tail, WAL-logged changes.
 *
 * Everything above it reads pages through these functions and
 * batch_iter.h.  A data page is read-only except through
 * topic_tail_append() (batches), topic_batch_set_hints() (hint bytes) and
 * freezing's topic_page_mark_aborted() and topic_storage_advance_resolved().
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_STORAGE_H
#define TOPIC_STORAGE_H

#include "storage/bufmgr.h"
#include "pg_topics/base/compat.h"
#include "utils/rel.h"

#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/wal.h"

/* The exclusively locked tail page of a partition, ready for a batch */
typedef struct TopicTail
{
	Buffer		buffer;
	BlockNumber blkno;
	bool		init_page;		/* next batch starts a new page */
	int64		next_offset;	/* the log's end: the next offset to assign */
	TimestampTz max_timestamp;	/* newest timestamp in the log */
	Size		free_bytes;		/* room for the next batch, header included */
	int			free_records;	/* records the page may still take */
	bool		sealed;			/* the segment rolled over: go to the next */
	BufferAccessStrategy strategy;
	BlockNumber ahead_limit;	/* take space ahead up to this many blocks */
} TopicTail;

/*
 * The most zero pages a writer adds ahead of the tail at once (an eighth
 * of the relation, 1 to this many), and the most pages a reader or writer
 * walks forward from the tail it last saw before it asks the file's end
 */
#define TOPIC_LOG_AHEAD_MAX_BLOCKS	32
#define TOPIC_LOG_TAIL_WALK_MAX		8

/* The end of a partition's log, as TRUNCATE and the views need it */
typedef struct TopicLogEnd
{
	int64		log_start_offset;
	int64		next_offset;
	TimestampTz max_timestamp;
	TopicLogPosition resolved;
} TopicLogEnd;

extern void topic_storage_create(const RelFileLocator *rnode,
								 int64 log_start_offset,
								 TimestampTz max_timestamp, uint32 flags,
								 Oid owner, uint32 segno);
extern void topic_storage_read_meta(Relation rel, TopicLogMetaData *meta);
extern BlockNumber topic_storage_nblocks(Relation rel);
extern BlockNumber topic_storage_last_block(Relation rel);
extern void topic_storage_reset(Relation rel, int64 log_start_offset,
								TimestampTz max_timestamp);
extern void topic_storage_log_end(Relation rel, TopicLogEnd *end);
extern TopicLogPosition topic_storage_resolved(Relation rel);
extern void topic_storage_advance_resolved(Relation rel,
										   TopicLogPosition position,
										   TransactionId latest_committed);
extern void topic_page_mark_aborted(Relation rel, Buffer buffer,
									const uint16 *positions, int n);
extern void topic_page_set_resolved(Page page, TopicLogPosition position);
extern bool topic_page_set_aborted(Page page, const uint16 *positions, int n);

extern void topic_tail_lock(Relation rel, TopicTail *tail,
							BufferAccessStrategy strategy);
extern void topic_tail_extend(Relation rel, TopicTail *tail);
extern void topic_tail_move_start(Relation rel, TopicTail *tail,
								  int64 log_start, TimestampTz max_timestamp);
extern void topic_page_set_log_start(Page page, int64 log_start,
									 TimestampTz max_timestamp);
extern void topic_tail_append(Relation rel, TopicTail *tail,
							  char *batch, Size len, bool last_in_multi,
							  Relation router);
extern void topic_tail_release(TopicTail *tail);
extern bool topic_tail_seal(TopicTail *tail);

extern void topic_page_init_data(Page page, int64 first_offset,
								 const xl_topic_log_page_start *start);
extern void topic_page_append_batch(Page page, const char *batch, Size len,
									const xl_topic_log_page_start *init);
extern bool topic_page_is_data(Page page);
extern bool topic_page_batch_fits(Page page, const char *batch, Size len,
								  bool init_page);
extern void topic_page_check(Relation rel, BlockNumber blkno, Page page,
							 uint16 kind);
extern TopicBatchHeader topic_page_next_batch(Page page, Size *pos);
extern void topic_batch_set_hints(Buffer buffer, TopicBatchHeader hdr,
								  uint8 hints);
extern bool topic_batch_summary(const TopicBatchHeaderData *hdr,
								int64 *last_offset, TimestampTz *min_ts,
								TimestampTz *max_ts);

#endif							/* TOPIC_STORAGE_H */
