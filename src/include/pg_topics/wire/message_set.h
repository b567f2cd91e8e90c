/*-------------------------------------------------------------------------
 *
 * message_set.h
 *	  Kafka's old message formats (magic 0 and 1, "MessageSets"), which
 *	  Produce v0-2 carry: read into the records pg_topics stores.
 *
 * A MessageSet is messages back to back, each: offset i64, message size
 * i32, then the message: crc u32 (CRC-32 of the rest of the message),
 * magic i8 (0 or 1), attributes i8 (the codec in the low three bits),
 * timestamp i64 (magic 1 only), key (i32 length, -1 null) and value
 * (likewise).  A compressed message set travels as one wrapper message
 * whose value is the inner messages (of the wrapper's magic, themselves
 * uncompressed) compressed with the wrapper's codec.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MESSAGE_SET_H
#define TOPIC_WIRE_MESSAGE_SET_H

#include "pg_topics/wire/record_batch.h"

/* offset and message size: what comes before each message */
#define KAFKA_MESSAGE_LOG_OVERHEAD		12
/* crc, magic, attributes, key and value lengths (+ timestamp for magic 1) */
#define KAFKA_MESSAGE_V0_OVERHEAD		14
#define KAFKA_MESSAGE_V1_OVERHEAD		22

/*
 * Decode and check the MessageSet data (len bytes) into *out, as record
 * batches of records without headers (offset deltas their positions; the
 * messages' own offsets and timestamps are not kept, as the log assigns
 * both): one batch per wrapper message, one per run of uncompressed
 * messages, none of them idempotent.  Returns 0 or a Kafka error code with
 * out->error_message set, as Kafka's broker checks:
 *	2  CORRUPT_MESSAGE: a message cut short, smaller than its format's
 *	   overhead, or whose CRC does not match; compressed messages that do
 *	   not inflate
 *	10 MESSAGE_TOO_LARGE: the inflated and decoded records beyond
 *	   max_decoded
 *	43 UNSUPPORTED_FOR_MESSAGE_FORMAT: a magic other than 0 and 1
 *	76 UNSUPPORTED_COMPRESSION_TYPE: zstd (magic 2 only) or an unknown codec
 *	87 INVALID_RECORD: no messages, a key or value that does not fill its
 *	   message exactly, a wrapper with a null value or no inner messages,
 *	   an inner message compressed or of another magic than its wrapper
 * An lz4 wrapper of magic 0 is read whatever its frame descriptor's
 * checksum says: Kafka's clients of that time computed it over the wrong
 * bytes, and Kafka's broker ignores it for magic 0.
 */
extern int	kafka_message_set_decode(const char *data, int len,
									 Size max_decoded, KafkaBatches *out);

/*
 * Writing messages for a Fetch of v0-3, converted from records: a message
 * of magic 0 (no timestamp) or 1 (the record's timestamp, said to be
 * log-append time), uncompressed, at its offset.  Headers have no place
 * in these formats and are dropped, as Kafka's down-conversion drops them.
 */
extern Size kafka_message_size(int magic, KafkaBytes key, KafkaBytes value);
extern void kafka_message_append(StringInfo buf, int magic, int64 offset,
								 int64 timestamp, KafkaBytes key,
								 KafkaBytes value);

#endif							/* TOPIC_WIRE_MESSAGE_SET_H */
