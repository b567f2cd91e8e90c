/*-------------------------------------------------------------------------
 *
 * compression.h
 *	  Inflating the records of a compressed RecordBatch: gzip, snappy (raw
 *	  or in xerial framing), lz4 (frame format) and zstd.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_COMPRESSION_H
#define TOPIC_WIRE_COMPRESSION_H

/*
 * Inflate in (inlen bytes) compressed with codec (KAFKA_CODEC_*) into a
 * palloc'd buffer *out of *outlen bytes.  Returns 0, or a Kafka error code
 * with *error_message set: 2 CORRUPT_MESSAGE (does not inflate), 10
 * MESSAGE_TOO_LARGE (would inflate beyond max_out bytes: inflation stops
 * there, so memory stays bounded whatever the input claims; or a zstd
 * frame wants a window above both 8 MB and max_out rounded up to a power
 * of two, or above 128 MB), 76 UNSUPPORTED_COMPRESSION_TYPE.  Several
 * gzip members, lz4 frames or zstd frames back to back inflate as one.
 */
extern int	kafka_inflate(int codec, const char *in, int inlen, Size max_out,
						  char **out, Size *outlen,
						  const char **error_message);

#endif							/* TOPIC_WIRE_COMPRESSION_H */
