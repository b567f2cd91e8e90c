/*-------------------------------------------------------------------------
 *
 * batch_compression.h
 *	  A batch's records compressed for the page, and inflated for readers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_BATCH_COMPRESSION_H
#define TOPIC_BATCH_COMPRESSION_H

#include "pg_topics/log/topic_log.h"

/*
 * Where readers have a compressed batch's records inflated: one batch at a
 * time, the buffer reused (and grown in the memory context it was first
 * allocated in) by the next call.  Zero it before the first use.
 */
typedef struct TopicBatchBuffer
{
	char	   *data;
	Size		size;
} TopicBatchBuffer;

extern Size topic_batch_compress_bound(Size len);
extern uint32 topic_batch_checksum(const TopicBatchCompressionData *c,
								   const char *compressed, Size len);
extern bool topic_batch_compression_intact(const TopicBatchHeaderData *hdr,
										   TopicBatchCompressionData *c);
extern void topic_batch_put_compressed(TopicBatchHeader hdr,
									   TopicBatchCompressionData *c,
									   const char *compressed, Size clen);
extern Size topic_batch_compress(int codec, const char *src, Size len,
								 char *dst, Size capacity);
extern bool topic_batch_inflate(const TopicBatchHeaderData *hdr,
								TopicBatchBuffer *buf, const char **bytes,
								Size *end);
extern const char *topic_batch_records(const TopicBatchHeaderData *hdr,
									   TopicBatchBuffer *buf, Size *end);
extern const char *topic_batch_records_copy(const TopicBatchHeaderData *hdr,
											Size *end);
extern void topic_batch_buffer_free(TopicBatchBuffer *buf);

#endif							/* TOPIC_BATCH_COMPRESSION_H */
