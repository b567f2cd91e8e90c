/*-------------------------------------------------------------------------
 *
 * batch_compression.c
 *	  A batch's records compressed for the page, and inflated for readers.
 *
 * A topic whose compression.type is zstd or lz4 stores the records of each
 * batch (one insert call's records on one page) as one zstd frame or one
 * LZ4 block: compressing a page's worth of records together finds the
 * field names, ids and timestamps that records repeat, which a record
 * compressed alone cannot (docs/architecture.md section 4).  Only the
 * records are compressed: the batch header, its producer and a
 * TopicBatchCompressionData stay as they are, so that visibility, seeks,
 * the page summary and WAL redo never inflate anything.
 *
 * Inflated, the records sit at the positions they would have in an
 * uncompressed batch, in a MAXALIGNed buffer, so that topic_record_decode
 * reads them, alignment and all, as it reads a page.
 *
 * The codecs' contexts live as long as the backend, in TopMemoryContext:
 * one compressor and one decompressor, reused by every batch.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <lz4.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_createCCtx_advanced */
#include <zstd.h>
#include <zstd_errors.h>

#include "port/pg_crc32c.h"
#include "utils/memutils.h"

#include "pg_topics/log/batch_compression.h"

/* zstd's fastest level: measured, higher levels gain a few percent */
#define TOPIC_ZSTD_LEVEL	1

static ZSTD_CCtx *zstd_cctx = NULL;
static ZSTD_DCtx *zstd_dctx = NULL;
static void *lz4_state = NULL;

/*
 * zstd's memory, for contexts kept as long as the backend.  Running out of
 * memory gives zstd NULL, which it reports, rather than an ERROR jumping
 * out of it with its context half changed.
 */
static void *
codec_alloc(void *opaque, size_t size)
{
	return MemoryContextAllocExtended(TopMemoryContext, Max(size, 1),
									  MCXT_ALLOC_NO_OOM);
}

static void
codec_free(void *opaque, void *address)
{
	if (address)
		pfree(address);
}

static const ZSTD_customMem codec_mem = {codec_alloc, codec_free, NULL};

/*
 * The checksum a compressed batch keeps: of its description c (with the
 * checksum field zero) and its len compressed bytes, so that a damaged
 * summary is caught as a damaged record is (a reader that skips a batch by
 * its summary never inflates it)
 */
uint32
topic_batch_checksum(const TopicBatchCompressionData *c,
					 const char *compressed, Size len)
{
	TopicBatchCompressionData copy = *c;
	pg_crc32c	crc;

	copy.checksum = 0;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &copy, sizeof(copy));
	COMP_CRC32C(crc, compressed, len);
	FIN_CRC32C(crc);
	return (uint32) crc;
}

/*
 * Does compressed batch hdr hold together: long enough for its description
 * and some compressed bytes, a known codec, a length it may inflate to, and
 * the checksum of both?  Into *c, its description.  Allocates nothing: the
 * page summary calls it in a critical section.
 */
bool
topic_batch_compression_intact(const TopicBatchHeaderData *hdr,
							   TopicBatchCompressionData *c)
{
	Size		start = topic_batch_compressed_start(hdr);

	if (hdr->length <= start)
		return false;
	topic_batch_compression(hdr, c);
	return (c->codec == TOPIC_CODEC_LZ4 || c->codec == TOPIC_CODEC_ZSTD) &&
		c->raw_length > 0 && c->raw_length <= TOPIC_BATCH_MAX_RAW_LENGTH &&
		topic_batch_checksum(c, (const char *) hdr + start,
							 hdr->length - start) == c->checksum;
}

/*
 * Make hdr a compressed batch of clen compressed bytes: *c, its description
 * (codec, raw_length and summary filled in by the caller), goes after the
 * header and its producer, with the checksum of both set here, and the
 * compressed bytes after it.  Sets the flag and the batch's length; the
 * caller has room for them.
 */
void
topic_batch_put_compressed(TopicBatchHeader hdr, TopicBatchCompressionData *c,
						   const char *compressed, Size clen)
{
	char	   *start = (char *) hdr + topic_batch_records_start(hdr);

	hdr->flags |= TB_COMPRESSED;
	c->reserved1 = 0;
	c->reserved2 = 0;
	c->reserved3 = 0;
	c->checksum = topic_batch_checksum(c, compressed, clen);
	memcpy(start, c, sizeof(TopicBatchCompressionData));
	memcpy(start + sizeof(TopicBatchCompressionData), compressed, clen);
	hdr->length = topic_batch_compressed_start(hdr) + clen;
}

/* Room to compress len bytes into, whatever they are */
Size
topic_batch_compress_bound(Size len)
{
	return Max(ZSTD_compressBound(len), (Size) LZ4_compressBound((int) len));
}

/*
 * Compress len bytes of src with codec into dst, which has capacity bytes
 * (topic_batch_compress_bound(len) always suffices).  Returns the
 * compressed length, or 0 if it does not fit.
 */
Size
topic_batch_compress(int codec, const char *src, Size len, char *dst,
					 Size capacity)
{
	Assert(len > 0 && len <= TOPIC_BATCH_MAX_RAW_LENGTH);
	if (codec == TOPIC_CODEC_ZSTD)
	{
		size_t		ret;

		if (zstd_cctx == NULL)
		{
			zstd_cctx = ZSTD_createCCtx_advanced(codec_mem);
			if (zstd_cctx == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory"),
						 errdetail("Could not create a zstd compression context.")));
		}
		ret = ZSTD_compressCCtx(zstd_cctx, dst, capacity, src, len,
								TOPIC_ZSTD_LEVEL);
		if (ZSTD_isError(ret))
		{
			if (ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall)
				return 0;
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory"),
						 errdetail("Failed on request of zstd to compress %zu bytes.", len)));
			elog(ERROR, "zstd could not compress %zu bytes: %s", len,
				 ZSTD_getErrorName(ret));
		}
		return ret;
	}
	if (codec == TOPIC_CODEC_LZ4)
	{
		if (lz4_state == NULL)
			lz4_state = MemoryContextAlloc(TopMemoryContext,
										   LZ4_sizeofState());
		/* 0 when it does not fit */
		return (Size) LZ4_compress_fast_extState(lz4_state, src, dst, (int) len,
												 (int) Min(capacity, PG_INT32_MAX),
												 1);
	}
	elog(ERROR, "unknown topic_log codec %d", codec);
	return 0;					/* keep the compiler quiet */
}

/* Inflate the compressed records of hdr into dst, exactly raw bytes */
static bool
inflate_into(const TopicBatchHeaderData *hdr,
			 const TopicBatchCompressionData *c, char *dst)
{
	const char *src = (const char *) hdr + topic_batch_compressed_start(hdr);
	Size		srclen = hdr->length - topic_batch_compressed_start(hdr);

	if (c->codec == TOPIC_CODEC_ZSTD)
	{
		size_t		ret;

		if (zstd_dctx == NULL)
		{
			zstd_dctx = ZSTD_createDCtx_advanced(codec_mem);
			if (zstd_dctx == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory"),
						 errdetail("Could not create a zstd decompression context.")));
		}
		ret = ZSTD_decompressDCtx(zstd_dctx, dst, c->raw_length, src, srclen);
		return !ZSTD_isError(ret) && ret == c->raw_length;
	}
	if (c->codec == TOPIC_CODEC_LZ4)
		return LZ4_decompress_safe(src, dst, (int) srclen,
								   (int) c->raw_length) == (int) c->raw_length;
	return false;
}

/*
 * The bytes topic_record_decode reads batch hdr's records from, in *bytes,
 * the records ending at *end: the batch itself, or its records inflated
 * into buf.  False if a compressed batch is damaged (its checksum does
 * not match, or it does not inflate); nothing in buf is valid then.
 */
bool
topic_batch_inflate(const TopicBatchHeaderData *hdr, TopicBatchBuffer *buf,
					const char **bytes, Size *end)
{
	TopicBatchCompressionData c;
	Size		start = topic_batch_records_start(hdr);
	Size		need;

	if (!(hdr->flags & TB_COMPRESSED))
	{
		*bytes = (const char *) hdr;
		*end = hdr->length;
		return true;
	}
	if (!topic_batch_compression_intact(hdr, &c))
		return false;
	need = start + c.raw_length;
	if (buf->data == NULL)
	{
		buf->size = Max(need, BLCKSZ);
		buf->data = palloc(buf->size);
	}
	else if (buf->size < need)
	{
		buf->size = Max(need, buf->size * 2);
		buf->data = repalloc(buf->data, buf->size);
	}
	/* the header and producer too, so that the image reads like a batch */
	memcpy(buf->data, hdr, start);
	if (!inflate_into(hdr, &c, buf->data + start))
		return false;
	*bytes = buf->data;
	*end = need;
	return true;
}

static void
report_corrupted(const TopicBatchHeaderData *hdr)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("compressed records of the topic_log batch at offset %lld are damaged",
					(long long) hdr->base_offset),
			 errdetail("Their checksum does not match, or they do not inflate."),
			 errhint("Run topics.verify() on the topic to list every problem.")));
}

/* topic_batch_inflate, failing loudly on a batch that does not inflate */
const char *
topic_batch_records(const TopicBatchHeaderData *hdr, TopicBatchBuffer *buf,
					Size *end)
{
	const char *bytes;

	if (!topic_batch_inflate(hdr, buf, &bytes, end))
		report_corrupted(hdr);
	return bytes;
}

/*
 * topic_batch_records into a buffer of its own in the current memory
 * context, for a reader that keeps several batches' records at once (a
 * scan keeps a whole page's); the batch itself if it is not compressed.
 */
const char *
topic_batch_records_copy(const TopicBatchHeaderData *hdr, Size *end)
{
	TopicBatchBuffer buf = {NULL, 0};

	if (!(hdr->flags & TB_COMPRESSED))
	{
		*end = hdr->length;
		return (const char *) hdr;
	}
	return topic_batch_records(hdr, &buf, end);
}

void
topic_batch_buffer_free(TopicBatchBuffer *buf)
{
	if (buf->data != NULL)
		pfree(buf->data);
	buf->data = NULL;
	buf->size = 0;
}
