/*-------------------------------------------------------------------------
 *
 * compression.c
 *	  Inflating the records of a compressed RecordBatch (see compression.h).
 *
 * What producers send, and so what is read here:
 *	gzip	a gzip stream (Java's GZIPOutputStream, librdkafka, kafka-python);
 *			a zlib stream is accepted too (the header is detected), and so are
 *			gzip members back to back, which Java's reader takes.
 *	snappy	a raw snappy block (librdkafka), or xerial's framing (Java,
 *			kafka-python): the 8-byte magic "\x82SNAPPY\0", version and
 *			compatible version (int32 each), then blocks of an int32 length
 *			and a raw snappy block.
 *	lz4		LZ4's frame format (one frame or more back to back).
 *	zstd	zstd frames, whose content size may be unstated (Java streams).
 *
 * A compressed blob is the producer's word about how large it inflates, and
 * so is never believed: everything streams into one buffer that grows by
 * doubling up to max_out + 1 bytes, and filling that last byte means the
 * records are too large (10 MESSAGE_TOO_LARGE).  Memory stays within about
 * twice max_out plus each library's own state: zlib's 32 kB window, lz4's
 * block buffers (at most 4 MB blocks, so about 8 MB), and zstd's window,
 * which ZSTD_d_windowLogMax holds to 8 MB or the power of two above max_out
 * (8 MB covers what zstd's levels 1 to 19 use when streaming without a
 * content size).  Snappy is checked before anything is allocated
 * (snappy_validate_compressed_buffer walks a block without writing it), so
 * a block's stated length is only used once it is known to be true.
 *
 * The libraries allocate with palloc through their custom allocator hooks,
 * so an error raised while the output grows (out of memory, in the server)
 * leaves nothing behind that the memory context does not free.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include <snappy-c.h>
#include <zlib.h>
#define LZ4F_STATIC_LINKING_ONLY	/* LZ4F_createDecompressionContext_advanced */
#include <lz4frame.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_createDCtx_advanced */
#include <zstd.h>
#include <zstd_errors.h>

#include "port/pg_bswap.h"

#include "pg_topics/wire/compression.h"
#include "pg_topics/wire/record_batch.h"

#define CORRUPT_MESSAGE					2
#define MESSAGE_TOO_LARGE				10
#define UNSUPPORTED_COMPRESSION_TYPE	76

/* palloc's largest chunk (MaxAllocSize, which frontend code lacks) */
#define MAX_OUTPUT		((Size) 0x3fffffff - 1)

/* zstd's window: at least 2^23 bytes, at most 2^27 (zstd's default limit) */
#define ZSTD_MIN_WINDOW_LOG		23
#define ZSTD_MAX_WINDOW_LOG		27

static const char xerial_magic[8] = {'\x82', 'S', 'N', 'A', 'P', 'P', 'Y', '\0'};

#define XERIAL_HEADER_SIZE	16

/* The inflated bytes so far, in a buffer that grows up to limit bytes */
typedef struct Output
{
	char	   *data;
	Size		len;
	Size		cap;
	Size		limit;			/* max_out + 1: holding that many is too many */
} Output;

/* Double the buffer (at least 8 kB); false once it holds limit bytes */
static bool
output_grow(Output *o)
{
	Size		cap;

	if (o->cap >= o->limit)
		return false;
	cap = Min(Max(o->cap * 2, 8192), o->limit);
	o->data = o->data ? repalloc(o->data, cap) : palloc(cap);
	o->cap = cap;
	return true;
}

/* the libraries' allocators: palloc, so that the memory context owns it all */
static void *
lib_alloc(void *opaque, size_t size)
{
	return palloc(Max(size, 1));
}

static void
lib_free(void *opaque, void *address)
{
	if (address)
		pfree(address);
}

static voidpf
zlib_alloc(voidpf opaque, uInt items, uInt size)
{
	return palloc(Max((Size) items * size, 1));
}

/* gzip (or zlib) members back to back */
static int
inflate_gzip(const char *in, int inlen, Output *o, const char **msg)
{
	z_stream	zs;
	int			result;

	memset(&zs, 0, sizeof(zs));
	zs.zalloc = zlib_alloc;
	zs.zfree = lib_free;
	/* 15 + 32: a 32 kB window, and a gzip or zlib header, detected */
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
	{
		*msg = "gzip: inflateInit2 failed";
		return CORRUPT_MESSAGE;
	}
	zs.next_in = (Bytef *) in;
	zs.avail_in = inlen;
	for (;;)
	{
		int			ret;

		if (o->len == o->cap && !output_grow(o))
		{
			*msg = "gzip: the records inflate beyond the limit";
			result = MESSAGE_TOO_LARGE;
			break;
		}
		zs.next_out = (Bytef *) o->data + o->len;
		zs.avail_out = o->cap - o->len;
		ret = inflate(&zs, Z_NO_FLUSH);
		o->len = o->cap - zs.avail_out;
		if (ret == Z_STREAM_END && zs.avail_in == 0)
		{
			result = 0;
			break;
		}
		if (ret == Z_STREAM_END && inflateReset(&zs) == Z_OK)
			continue;			/* another member follows */
		if (ret == Z_OK || (ret == Z_BUF_ERROR && zs.avail_out == 0))
			continue;
		/* a data error, or no progress with room left: the input ended */
		*msg = ret == Z_BUF_ERROR ? "gzip: the compressed data ends early" :
			"gzip: the compressed data is corrupt";
		result = CORRUPT_MESSAGE;
		break;
	}
	inflateEnd(&zs);
	return result;
}

/*
 * Snappy, raw (one block, the whole input) or in xerial's framing (blocks
 * after the header, each after its int32 length): the blocks are checked
 * and their lengths added up first, then the output is allocated once and
 * filled.
 */
static int
inflate_snappy(const char *in, int inlen, Output *o, const char **msg)
{
	bool		xerial = inlen >= XERIAL_HEADER_SIZE &&
		memcmp(in, xerial_magic, sizeof(xerial_magic)) == 0;
	int64		total = 0;

	for (int pass = 0; pass < 2; pass++)
	{
		int			pos = xerial ? XERIAL_HEADER_SIZE : 0;

		if (pass == 1)
		{
			o->data = palloc(Max(total, 1));
			o->cap = total;
		}
		while (xerial ? pos < inlen : pos == 0)
		{
			int32		blen = inlen - pos;

			if (xerial)
			{
				uint32		n;

				if (inlen - pos < 4)
				{
					*msg = "snappy: a xerial block length is cut short";
					return CORRUPT_MESSAGE;
				}
				memcpy(&n, in + pos, 4);
				blen = (int32) pg_ntoh32(n);
				pos += 4;
				if (blen < 0 || blen > inlen - pos)
				{
					*msg = "snappy: a xerial block runs past the data";
					return CORRUPT_MESSAGE;
				}
			}
			if (pass == 0)
			{
				size_t		ulen;

				/* the length the block states, believed once it is checked */
				if (snappy_uncompressed_length(in + pos, blen, &ulen) != SNAPPY_OK ||
					snappy_validate_compressed_buffer(in + pos, blen) != SNAPPY_OK)
				{
					*msg = "snappy: the compressed data is corrupt";
					return CORRUPT_MESSAGE;
				}
				total += ulen;
				if (total >= (int64) o->limit)
				{
					*msg = "snappy: the records inflate beyond the limit";
					return MESSAGE_TOO_LARGE;
				}
			}
			else
			{
				size_t		room = o->cap - o->len;

				/* checked in the first pass: it inflates to what it says */
				if (snappy_uncompress(in + pos, blen, o->data + o->len,
									  &room) != SNAPPY_OK)
				{
					*msg = "snappy: the compressed data is corrupt";
					return CORRUPT_MESSAGE;
				}
				o->len += room;
			}
			pos += blen;
		}
	}
	return 0;
}

/* LZ4 frames back to back */
static int
inflate_lz4(const char *in, int inlen, Output *o, const char **msg)
{
	LZ4F_CustomMem mem = {lib_alloc, NULL, lib_free, NULL};
	LZ4F_dctx  *dctx = LZ4F_createDecompressionContext_advanced(mem, LZ4F_VERSION);
	int			pos = 0;
	int			result;

	if (dctx == NULL)
	{
		*msg = "lz4: cannot create a decompression context";
		return CORRUPT_MESSAGE;
	}
	for (;;)
	{
		size_t		srclen = inlen - pos;
		size_t		dstlen;
		size_t		ret;

		if (o->len == o->cap && !output_grow(o))
		{
			*msg = "lz4: the records inflate beyond the limit";
			result = MESSAGE_TOO_LARGE;
			break;
		}
		dstlen = o->cap - o->len;
		ret = LZ4F_decompress(dctx, o->data + o->len, &dstlen, in + pos,
							  &srclen, NULL);
		if (LZ4F_isError(ret))
		{
			*msg = "lz4: the compressed data is corrupt";
			result = CORRUPT_MESSAGE;
			break;
		}
		pos += srclen;
		o->len += dstlen;
		/* 0: a frame ended (and the context is ready for another) */
		if (ret == 0 && pos == inlen)
		{
			result = 0;
			break;
		}
		if (srclen == 0 && dstlen == 0 && o->len < o->cap)
		{
			*msg = "lz4: the compressed data ends early";
			result = CORRUPT_MESSAGE;
			break;
		}
	}
	LZ4F_freeDecompressionContext(dctx);
	return result;
}

/* zstd frames back to back, streamed (their content size is not needed) */
static int
inflate_zstd(const char *in, int inlen, Output *o, const char **msg)
{
	ZSTD_customMem mem = {lib_alloc, lib_free, NULL};
	ZSTD_DCtx  *dctx = ZSTD_createDCtx_advanced(mem);
	ZSTD_inBuffer src = {in, inlen, 0};
	int			window_log = ZSTD_MIN_WINDOW_LOG;
	int			result;

	if (dctx == NULL)
	{
		*msg = "zstd: cannot create a decompression context";
		return CORRUPT_MESSAGE;
	}
	while (window_log < ZSTD_MAX_WINDOW_LOG && ((Size) 1 << window_log) < o->limit)
		window_log++;
	ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, window_log);
	for (;;)
	{
		ZSTD_outBuffer dst;
		size_t		in_before = src.pos;
		size_t		ret;

		if (o->len == o->cap && !output_grow(o))
		{
			*msg = "zstd: the records inflate beyond the limit";
			result = MESSAGE_TOO_LARGE;
			break;
		}
		dst.dst = o->data;
		dst.size = o->cap;
		dst.pos = o->len;
		ret = ZSTD_decompressStream(dctx, &dst, &src);
		if (ZSTD_isError(ret))
		{
			if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
			{
				*msg = "zstd: the frame's window is beyond the limit";
				result = MESSAGE_TOO_LARGE;
			}
			else
			{
				*msg = "zstd: the compressed data is corrupt";
				result = CORRUPT_MESSAGE;
			}
			break;
		}
		/* 0: a frame ended and all its output is out */
		if (ret == 0 && src.pos == src.size)
		{
			o->len = dst.pos;
			result = 0;
			break;
		}
		if (src.pos == in_before && dst.pos == o->len && dst.pos < o->cap)
		{
			*msg = "zstd: the compressed data ends early";
			result = CORRUPT_MESSAGE;
			break;
		}
		o->len = dst.pos;
	}
	ZSTD_freeDCtx(dctx);
	return result;
}

int
kafka_inflate(int codec, const char *in, int inlen, Size max_out,
			  char **out, Size *outlen, const char **error_message)
{
	Output		o;
	int			result;

	o.data = NULL;
	o.len = 0;
	o.cap = 0;
	o.limit = Min(max_out, MAX_OUTPUT) + 1;
	Assert(inlen >= 0);
	*out = NULL;
	*outlen = 0;
	*error_message = NULL;
	/* a first guess at the size, which doubles as needed */
	if (codec != KAFKA_CODEC_SNAPPY)
	{
		o.cap = Min((Size) Max(inlen, 2048) * 4, o.limit);
		o.data = palloc(o.cap);
	}

	switch (codec)
	{
		case KAFKA_CODEC_GZIP:
			result = inflate_gzip(in, inlen, &o, error_message);
			break;
		case KAFKA_CODEC_SNAPPY:
			result = inflate_snappy(in, inlen, &o, error_message);
			break;
		case KAFKA_CODEC_LZ4:
			result = inflate_lz4(in, inlen, &o, error_message);
			break;
		case KAFKA_CODEC_ZSTD:
			result = inflate_zstd(in, inlen, &o, error_message);
			break;
		default:
			*error_message = "unknown compression codec";
			result = UNSUPPORTED_COMPRESSION_TYPE;
			break;
	}
	if (result == 0 && o.len > max_out)
	{
		*error_message = "the records inflate beyond the limit";
		result = MESSAGE_TOO_LARGE;
	}
	if (result != 0)
	{
		if (o.data)
			pfree(o.data);
		return result;
	}
	*out = o.data;
	*outlen = o.len;
	return 0;
}
