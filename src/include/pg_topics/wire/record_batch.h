/*-------------------------------------------------------------------------
 *
 * record_batch.h
 *	  Kafka's RecordBatch v2 (magic 2): reading what a producer sends,
 *	  writing what a consumer fetches.
 *
 * Layout (big-endian): baseOffset i64, batchLength i32, partitionLeaderEpoch
 * i32, magic i8, crc u32 (CRC-32C of everything after it), attributes i16,
 * lastOffsetDelta i32, baseTimestamp i64, maxTimestamp i64, producerId i64,
 * producerEpoch i16, baseSequence i32, recordCount i32, then the records
 * (compressed as one blob when the attributes name a codec).  A record:
 * length varint, attributes i8, timestampDelta varlong, offsetDelta varint,
 * key (varint length, -1 null), value (same), header count varint, headers
 * (key: varint length and bytes; value: varint length, -1 null).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_RECORD_BATCH_H
#define TOPIC_WIRE_RECORD_BATCH_H

#include "lib/stringinfo.h"

#include "pg_topics/wire/codec.h"

#define KAFKA_BATCH_HEADER_SIZE		61
/* bytes of the header before batchLength's count starts */
#define KAFKA_BATCH_LOG_OVERHEAD	12
/* where every message format has its magic byte */
#define KAFKA_BATCH_MAGIC_AT		16

/* attributes */
#define KAFKA_ATTR_CODEC_MASK		0x07
#define KAFKA_ATTR_LOG_APPEND_TIME	0x08
#define KAFKA_ATTR_TRANSACTIONAL	0x10
#define KAFKA_ATTR_CONTROL			0x20

/* compression codecs (attributes & KAFKA_ATTR_CODEC_MASK) */
#define KAFKA_CODEC_NONE	0
#define KAFKA_CODEC_GZIP	1
#define KAFKA_CODEC_SNAPPY	2
#define KAFKA_CODEC_LZ4		3
#define KAFKA_CODEC_ZSTD	4

/* A record header: key and value; value.len -1 is a null value */
typedef struct KafkaHeader
{
	KafkaBytes	key;
	KafkaBytes	value;
} KafkaHeader;

/* One record of a batch; pointers into the request or the inflated blob */
typedef struct KafkaRecord
{
	int64		timestamp_delta;
	int32		offset_delta;
	KafkaBytes	key;			/* len -1: null */
	KafkaBytes	value;			/* len -1: null (a tombstone) */
	int32		nheaders;
	KafkaHeader *headers;
} KafkaRecord;

/* A batch as a producer sent it */
typedef struct KafkaRecordBatch
{
	int64		base_offset;
	int32		partition_leader_epoch;
	int16		attributes;
	int32		last_offset_delta;
	int64		base_timestamp;
	int64		max_timestamp;
	int64		producer_id;
	int16		producer_epoch;
	int32		base_sequence;
	int32		nrecords;
	KafkaRecord *records;
	char	   *inflated;		/* the inflated records when compressed */
} KafkaRecordBatch;

/*
 * The record batches of one partition of a Produce request (the
 * partition's "records" bytes: one or more batches back to back), checked
 * as Kafka's broker checks them and decoded.
 */
typedef struct KafkaBatches
{
	int			nbatches;
	KafkaRecordBatch *batches;
	int64		nrecords;		/* over all batches */
	Size		payload_bytes;	/* keys, values and headers, inflated */
	const char *error_message;	/* with an error code: why, for the client */
} KafkaBatches;

/*
 * Decode and check data (len bytes) into *out; returns 0 or a Kafka error
 * code with out->error_message set (and nothing else of *out):
 *	2  CORRUPT_MESSAGE: a batch cut short or whose length does not fit the
 *	   data, a CRC that does not match, compressed records that do not
 *	   inflate, a record whose length runs past its batch
 *	10 MESSAGE_TOO_LARGE: more than max_decoded bytes in all for the
 *	   inflated records and the decoded records and headers (decompression
 *	   stops there: a bomb, or millions of tiny records, cost at most that
 *	   much memory)
 *	43 UNSUPPORTED_FOR_MESSAGE_FORMAT: magic other than 2
 *	76 UNSUPPORTED_COMPRESSION_TYPE: a codec other than 0-4
 *	87 INVALID_RECORD: no batches, a batch without records or with another
 *	   count than the records it holds, offset deltas not 0..n-1 in order,
 *	   lastOffsetDelta not n-1, a record whose fields do not fill its
 *	   length exactly, a length or count below -1 (or a header count below
 *	   0), a null header key, a control batch
 * Transactional (and idempotent) batches decode: refusing them is the
 * caller's.  Memory is palloc'd in the current context; the records point
 * into data or into the batches' inflated copies; kafka_batches_free
 * frees what decoding allocated (for callers without a memory context).
 */
extern int	kafka_batches_decode(const char *data, int len, Size max_decoded,
								 KafkaBatches *out);
extern void kafka_batches_free(KafkaBatches *batches);

/*
 * Writing a batch for a Fetch response.  Records go in offset order, with
 * offsets within 2^31 of base_offset (gaps allowed: lastOffsetDelta is the
 * last record's); the batch is finished (lengths, counts, timestamps, CRC
 * patched in) by kafka_batch_finish.  When every record has the same
 * timestamp the batch says LogAppendTime with that maxTimestamp; otherwise
 * CreateTime with each record's exact delta.  partitionLeaderEpoch is -1
 * (none), and so are producerId, producerEpoch and baseSequence.
 */
/*
 * A record's offset delta (and a batch's lastOffsetDelta) is an int32: a
 * batch spans at most this many offsets after its base offset.
 */
#define KAFKA_BATCH_MAX_OFFSET_DELTA	PG_INT32_MAX

typedef struct KafkaBatchWriter
{
	StringInfo	buf;
	int			start;			/* where the batch starts in buf */
	int64		base_offset;
	int64		last_offset;
	int64		base_timestamp;
	int64		max_timestamp;
	bool		same_timestamp;
	int32		nrecords;
} KafkaBatchWriter;

extern void kafka_batch_begin(KafkaBatchWriter *w, StringInfo buf,
							  int64 base_offset, int64 base_timestamp);
extern void kafka_batch_add(KafkaBatchWriter *w, int64 offset, int64 timestamp,
							KafkaBytes key, KafkaBytes value,
							const KafkaHeader *headers, int nheaders);
/* the size kafka_batch_add would add for such a record */
extern Size kafka_batch_record_size(const KafkaBatchWriter *w, int64 offset,
									int64 timestamp, KafkaBytes key,
									KafkaBytes value,
									const KafkaHeader *headers, int nheaders);
extern void kafka_batch_finish(KafkaBatchWriter *w);

/*
 * A batch without records spanning offsets first..last: how a consumer
 * steps over offsets no record holds (rolled back), since clients move
 * their position to a batch's baseOffset + lastOffsetDelta + 1.
 */
extern void kafka_write_gap_batch(StringInfo buf, int64 first, int64 last,
								  int64 timestamp);

#endif							/* TOPIC_WIRE_RECORD_BATCH_H */
