/*-------------------------------------------------------------------------
 *
 * topic_log.h
 *	  On-disk identity and format of topic_log relations.
 *
 * Ordered as: limits, on-disk identity, page layout, batch and record
 * layout, accessors.  docs/architecture.md (sections 3 and 4) explains the
 * format; this header is its single definition.  Anything that changes a
 * byte here changes TOPIC_LOG_FORMAT_VERSION.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_LOG_H
#define TOPIC_LOG_H

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "storage/bufpage.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"

/*
 * Offsets, timestamps and the partition are passed around as by-value
 * Datums, and scans point slots at them; 32-bit builds are not supported.
 */
#ifndef USE_FLOAT8_BYVAL
#error "pg_topics needs a 64-bit build (USE_FLOAT8_BYVAL)"
#endif

/* Limits */
#define TOPIC_OFFSET_MAX			(PG_INT64_MAX / 2)	/* exclusive */
#define TOPIC_LOG_MAX_RECORDS_PER_PAGE	MaxHeapTuplesPerPage

/*
 * A record whose inline image would be larger than this gets its largest
 * fields compressed, then moved to TOAST (same threshold as heap).
 */
#define TOPIC_LOG_TOAST_THRESHOLD	TOAST_TUPLE_THRESHOLD

/* On-disk identity */
#define TOPIC_LOG_PAGE_ID			0xFF91
#define TOPIC_LOG_META_MAGIC		0x70745F6C	/* "pt_l" */
#define TOPIC_LOG_FORMAT_VERSION	4
/*
 * Pages of version 2 differ only in having no TB_PRODUCER batches, and
 * pages of version 3 in having no TB_COMPRESSED ones, so they are read as
 * they are.  Pages are created at version 3 (TOPIC_LOG_CREATE_VERSION) and
 * a page gets version 4 with its first compressed batch
 * (topic_page_append_batch), as does the WAL record that carries one, so
 * that a release reading only up to version 3 refuses it instead of
 * misreading it, and reads everything else.
 */
#define TOPIC_LOG_MIN_FORMAT_VERSION	2
#define TOPIC_LOG_CREATE_VERSION	3
/* the first versions whose pages may hold TB_PRODUCER, TB_COMPRESSED batches */
#define TOPIC_LOG_PRODUCER_VERSION	3
#define TOPIC_LOG_COMPRESSED_VERSION	4
#define TopicLogFormatVersionIsReadable(v) \
	((v) >= TOPIC_LOG_MIN_FORMAT_VERSION && (v) <= TOPIC_LOG_FORMAT_VERSION)

#define TOPIC_LOG_METAPAGE_BLKNO	0
#define TOPIC_LOG_FIRST_DATA_BLKNO	1

/*
 * A row with this timestamp and no key and value is a replicated stable
 * offset marker, not a record (docs/replication.md).
 */
#define TOPIC_MARKER_TIMESTAMP		DT_NOEND

/* Placeholders meaning "not supplied": the log fills these columns */
#define TOPIC_OFFSET_PLACEHOLDER	INT64CONST(-1)
#define TOPIC_TIMESTAMP_PLACEHOLDER DT_NOBEGIN

/*
 * Special space of every page.  For the metapage, min_offset is the log
 * start and next_offset the offset the first data page starts at.
 */
typedef struct TopicLogPageOpaqueData
{
	int64		min_offset;
	int64		next_offset;
	TimestampTz min_timestamp;
	TimestampTz max_timestamp;
	uint16		nrecords;
	uint16		nbatches;
	uint16		flags;
	uint8		version;
	uint8		unused;
	uint16		reserved;
	uint16		page_id;		/* TOPIC_LOG_PAGE_ID, last like btree's */
} TopicLogPageOpaqueData;

typedef TopicLogPageOpaqueData *TopicLogPageOpaque;

#define TL_PAGE_META	0x0001
#define TL_PAGE_DATA	0x0002
/*
 * On the last page of a segment that rolled over: writers that chose the
 * segment before the roll see it under the tail lock and go to the next
 * one.  A hint, not WAL-logged: after a crash there are no such writers.
 */
#define TL_PAGE_SEALED	0x0004
/*
 * On a data page a writer added a page after: a writer whose guess of the
 * tail is a page without it needs no file size to know it has the tail
 * (storage.c, topic_tail_lock).  A hint, not WAL-logged, like SEALED.
 */
#define TL_PAGE_HAS_NEXT 0x0008
#define TL_PAGE_HINTS	(TL_PAGE_SEALED | TL_PAGE_HAS_NEXT)

#define TopicLogPageGetOpaque(page) \
	((TopicLogPageOpaque) PageGetSpecialPointer(page))

/* Bytes a data page offers to batches */
#define TOPIC_LOG_PAGE_CAPACITY \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - \
	 MAXALIGN(sizeof(TopicLogPageOpaqueData)))

/*
 * A place in the log: a block and a byte position on it, ordered as the
 * log is.  Batches before the metapage's resolved mark are "resolved":
 * their transaction is over, their xid no longer needs (or has) a commit
 * log entry, and they are visible unless flagged TB_ABORTED
 * (docs/architecture.md section 7).  0 means nothing is resolved.
 */
typedef uint64 TopicLogPosition;

#define TopicLogPositionMake(blkno, pos) \
	(((TopicLogPosition) (blkno) << 16) | (TopicLogPosition) (pos))
#define TopicLogPositionGetBlock(position)	((BlockNumber) ((position) >> 16))
#define TopicLogPositionGetPos(position)	((Size) ((position) & 0xFFFF))

/*
 * A partition's log is a "router" relation (the one attached to the topic)
 * whose metapage lists its segments; records live in the segments, each a
 * relation of its own (with its own TOAST) that retention drops whole
 * (docs/architecture.md section 2).  An entry of the segment directory:
 */
typedef struct TopicSegmentEntry
{
	Oid			relid;
	uint32		segno;			/* never reused within the log */
	int64		base_offset;	/* first offset (LIVE, SEALED, RETIRED) */
	TimestampTz base_timestamp; /* newest timestamp of the log before it */
	TimestampTz activated_at;	/* when it became LIVE */
	uint16		state;			/* TOPIC_SEGMENT_* */
	uint16		flags;			/* TOPIC_SEGENTRY_* */
	uint32		reserved2;
} TopicSegmentEntry;

#define TOPIC_SEGMENT_SPARE		1	/* created ahead of need, empty */
#define TOPIC_SEGMENT_LIVE		2	/* the one appends go to (one at most) */
#define TOPIC_SEGMENT_SEALED	3	/* full; read only */
#define TOPIC_SEGMENT_RETIRED	4	/* below the log start; to be dropped */

/*
 * The segment has batches out of offset order (a logical subscriber's):
 * readers stop trusting page order there (docs/architecture.md section 6).
 */
#define TOPIC_SEGENTRY_UNORDERED	0x0001

/*
 * The LIVE segment reached its size but could not roll (no spare yet):
 * every writer and the worker see it in the directory and roll it at the
 * first chance (segments/live.c, segment.c).
 */
#define TOPIC_SEGENTRY_DUE			0x0002

/* Metapage contents, right after the page header */
typedef struct TopicLogMetaData
{
	uint32		magic;
	uint32		version;
	uint32		flags;			/* TL_META_* */
	uint32		reserved;
	int64		log_start_offset;
	TopicLogPosition resolved;	/* every batch before it is resolved */
	/* segments: which log they belong to */
	Oid			owner;
	uint32		segno;
	/* routers: when to roll, and the segment directory in log order */
	uint32		segment_blocks; /* roll at this size (0: the default) */
	int64		segment_roll_usecs; /* and at this age (0: never) */
	uint32		next_segno;
	uint16		nsegments;
	uint16		reserved2;
	TopicSegmentEntry segments[FLEXIBLE_ARRAY_MEMBER];
} TopicLogMetaData;

#define TL_META_ROUTER		0x0001	/* a partition's log: segments, no data */
#define TL_META_SEGMENT		0x0002	/* data pages of one part of a log */

/*
 * A segment the log cleaner rewrote or passed over: a TopicSegmentCleaning
 * follows the fixed part of its metapage, where a router keeps its
 * directory (segments have none).  Readers need none of it: it tells the
 * cleaner what it already did (worker/log_cleaner.c).  It takes no new
 * format version: a release before it tests the metapage's flags bit by
 * bit, so ignores this one, and reads no segment metapage past its fixed
 * part.  Such a release would still not verify a compacted segment (its
 * pages' summaries run on over the records removed after their last one),
 * which is one reason why it must not be put back under a cluster a later
 * release wrote (docs/operations.md, "Going back").
 */
#define TL_META_CLEANED		0x0004

typedef struct TopicSegmentCleaning
{
	int64		cleaned_to;		/* the end E of the pass that last cleaned it */
	TimestampTz first_cleaned;	/* when a pass first cleaned it: tombstones
								 * stay delete.retention.ms from then */
	TimestampTz last_cleaned;	/* when a pass last cleaned it */
	int64		removed;		/* records the passes removed from it */
} TopicSegmentCleaning;

#define TopicLogMetaGetCleaning(meta) \
	((TopicSegmentCleaning *) ((meta)->segments))

#define TOPIC_LOG_MAX_SEGMENTS \
	((TOPIC_LOG_PAGE_CAPACITY - offsetof(TopicLogMetaData, segments)) / \
	 sizeof(TopicSegmentEntry))

/* TOPIC_SEGMENT_TID_BITS: see base/settings.h */
#define TopicTidBlock(segno, blkno) \
	((BlockNumber) ((((segno) & 0x7FFF) << TOPIC_SEGMENT_TID_BITS) | (blkno)))
#define TopicTidSegno(tidblock)	((uint32) ((tidblock) >> TOPIC_SEGMENT_TID_BITS))
#define TopicTidSegBlock(tidblock)	((BlockNumber) ((tidblock) & TOPIC_SEGMENT_MAX_BLOCKS))

#define TopicLogPageGetMeta(page) \
	((TopicLogMetaData *) PageGetContents(page))

/*
 * Batch header: the records one insert call wrote to one page.  Batches
 * start MAXALIGNed; their records follow as an unaligned byte stream,
 * except that 4-byte-header varlenas are aligned to 4 relative to the
 * batch start.
 */
typedef struct TopicBatchHeaderData
{
	uint32		length;			/* header + records, unaligned */
	uint16		nrecords;
	uint8		flags;			/* TB_*, WAL-logged */
	uint8		hints;			/* TB_HINT_*, not WAL-logged */
	TransactionId xid;
	CommandId	cid;
	int32		partition;		/* value of the partition column */
	uint32		reserved;		/* zero */
	int64		base_offset;
	TimestampTz base_timestamp;
} TopicBatchHeaderData;

typedef TopicBatchHeaderData *TopicBatchHeader;

#define TB_CONTIGUOUS		0x01	/* offset = base_offset + i */
#define TB_SAME_TIMESTAMP	0x02	/* timestamp = base_timestamp */
#define TB_ABORTED			0x04	/* set by freezing: rolled back, for good */
/*
 * A marker of a logical subscriber's log, without records: once it is
 * visible, every record of the publisher's partition below base_offset is
 * in the log, before it.  reserved holds the publisher's partition count.
 * The header may be followed by an int64, the publisher's log start, which
 * the marker passes on to the subscriber's own subscribers.
 */
#define TB_STABLE			0x08
/*
 * Records of an idempotent Kafka producer's batch: a TopicBatchProducerData
 * follows the header, before the records.  It makes the producer's state
 * durable and replicated with the records themselves, as Kafka keeps it in
 * its log: after a crash, a restart or a failover, the last batches of a
 * producer are found in the partition's log (kafka/producer_log.c).
 */
#define TB_PRODUCER			0x10
/*
 * The batch's records are stored compressed (a topic's compression.type):
 * a TopicBatchCompressionData follows the header (and its producer), then
 * the compressed bytes.  Inflated, the records sit where an uncompressed
 * batch has them, from topic_batch_records_start() on, so that they decode
 * the same way (log/batch_compression.c).
 */
#define TB_COMPRESSED		0x20
#define TB_KNOWN_FLAGS		(TB_CONTIGUOUS | TB_SAME_TIMESTAMP | TB_ABORTED | \
							 TB_STABLE | TB_PRODUCER | TB_COMPRESSED)

#define TopicBatchIsMarker(hdr)	(((hdr)->flags & TB_STABLE) != 0)

/*
 * The idempotent producer batch a TB_PRODUCER batch holds records of.  A
 * producer batch gets dense offsets, first_offset to first_offset + count
 * - 1, and may span several batches (pages, segments); each carries the
 * whole description, so that any one of them tells the producer's state.
 */
typedef struct TopicBatchProducerData
{
	int64		producer_id;
	int64		first_offset;	/* offset of the producer batch's first record */
	int32		first_sequence; /* and its sequence number */
	int32		count;			/* records in the producer batch */
	int16		epoch;
	uint16		reserved;		/* zero */
	Oid			role;			/* the role the producer id is bound to */
} TopicBatchProducerData;

/*
 * What a compressed batch keeps uncompressed: how its records were
 * compressed and how long they are inflated, and the batch's summary, so
 * that appending the batch to a page (in a critical section, and in redo)
 * and seeking by offset or time never inflate it.  The checksum makes a
 * damaged batch an error where a decompressor would make up records: a
 * flipped bit in compressed bytes garbles all that follows it.
 */
typedef struct TopicBatchCompressionData
{
	uint8		codec;			/* TOPIC_CODEC_* */
	uint8		reserved1;		/* zero */
	uint16		reserved2;		/* zero */
	uint32		raw_length;		/* the records' bytes, inflated */
	uint32		checksum;		/* CRC-32C of the compressed bytes */
	uint32		reserved3;		/* zero */
	int64		last_offset;	/* the summary (topic_batch_summary) */
	TimestampTz min_timestamp;
	TimestampTz max_timestamp;
} TopicBatchCompressionData;

/*
 * Most bytes one batch's records may inflate to: the writer compresses at
 * most this much for a page (a page's worth at a ratio of 16), and a
 * batch claiming more is corrupt.
 */
#define TOPIC_BATCH_MAX_RAW_LENGTH	(16 * BLCKSZ)

/* Codecs, numbered as Kafka numbers them in a RecordBatch's attributes */
#define TOPIC_CODEC_NONE			0
#define TOPIC_CODEC_LZ4				3	/* an LZ4 block */
#define TOPIC_CODEC_ZSTD			4	/* a zstd frame */

/* Where a batch's records start: after the header and its producer */
static inline Size
topic_batch_records_start(const TopicBatchHeaderData *hdr)
{
	return sizeof(TopicBatchHeaderData) +
		((hdr->flags & TB_PRODUCER) ? sizeof(TopicBatchProducerData) : 0);
}

/* The compression description of a TB_COMPRESSED batch */
static inline void
topic_batch_compression(const TopicBatchHeaderData *hdr,
						TopicBatchCompressionData *compression)
{
	Assert(hdr->flags & TB_COMPRESSED);
	memcpy(compression, (const char *) hdr + topic_batch_records_start(hdr),
		   sizeof(TopicBatchCompressionData));
}

/* Where a TB_COMPRESSED batch's compressed bytes start */
static inline Size
topic_batch_compressed_start(const TopicBatchHeaderData *hdr)
{
	return topic_batch_records_start(hdr) + sizeof(TopicBatchCompressionData);
}

/*
 * The format version a page holding this batch needs (at least): 4 for a
 * compressed batch, 3 for a producer's (2 would do for any other, but
 * pages are created at 3)
 */
static inline uint8
topic_batch_format_version(const TopicBatchHeaderData *hdr)
{
	return (hdr->flags & TB_COMPRESSED) ? TOPIC_LOG_COMPRESSED_VERSION :
		TOPIC_LOG_CREATE_VERSION;
}

/* The producer batch of a TB_PRODUCER batch */
static inline void
topic_batch_producer(const TopicBatchHeaderData *hdr,
					 TopicBatchProducerData *producer)
{
	Assert(hdr->flags & TB_PRODUCER);
	memcpy(producer, (const char *) hdr + sizeof(TopicBatchHeaderData),
		   sizeof(TopicBatchProducerData));
}

/* Length of a marker batch that carries its publisher's log start */
#define TOPIC_MARKER_LENGTH_WITH_START	(sizeof(TopicBatchHeaderData) + sizeof(int64))

/* The publisher's log start a marker batch carries, or -1 */
static inline int64
topic_marker_log_start(const TopicBatchHeaderData *hdr)
{
	int64		log_start;

	if (hdr->length < TOPIC_MARKER_LENGTH_WITH_START)
		return -1;
	memcpy(&log_start, (const char *) hdr + sizeof(TopicBatchHeaderData),
		   sizeof(log_start));
	return log_start;
}

#define TB_HINT_COMMITTED	0x01
#define TB_HINT_ABORTED		0x02

/* Per-record flags byte */
#define TR_KEY_NULL			0x01
#define TR_VALUE_NULL		0x02
#define TR_HEADERS_NULL		0x04
#define TR_KNOWN_FLAGS		(TR_KEY_NULL | TR_VALUE_NULL | TR_HEADERS_NULL)

/* Largest overhead of one record beyond its varlena images */
#define TOPIC_RECORD_MAX_OVERHEAD	(1 + 10 + 10 + 3 * 3)

/* A record decoded from a batch: pointers into the batch bytes */
typedef struct TopicRecord
{
	int64		offset;
	TimestampTz timestamp;
	Pointer		key;			/* NULL when the key is NULL */
	Pointer		value;			/* NULL for a tombstone */
	Pointer		headers;		/* NULL when there are no headers */
} TopicRecord;

/* record.c: the record codec */
extern Size topic_record_encode(char *dst, Size dstpos, uint8 batch_flags,
								int64 offset_delta, int64 timestamp_delta,
								struct varlena *key, struct varlena *value,
								struct varlena *headers);
extern Size topic_record_encoded_size(Size pos, uint8 batch_flags,
									  int64 offset_delta, int64 timestamp_delta,
									  struct varlena *key, struct varlena *value,
									  struct varlena *headers);
extern bool topic_record_decode(const char *batch, Size *pos, Size end,
								const TopicBatchHeaderData *hdr, int index,
								TopicRecord *rec);

#endif							/* TOPIC_LOG_H */
