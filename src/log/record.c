/*-------------------------------------------------------------------------
 *
 * record.c
 *	  The record codec: one record of a batch to and from bytes.
 *
 * A record is
 *
 *		flags(1) [offset delta: varint] [timestamp delta: zigzag varint]
 *		[key] [value] [headers]
 *
 * The deltas are present only when the batch header says the offsets are
 * not contiguous or the timestamps not all equal.  key, value and headers
 * are varlena images exactly as heap_fill_tuple() would store them for a
 * packable, int-aligned varlena column: short header where possible,
 * external TOAST pointers as they are, anything else with a 4-byte header
 * aligned to 4 relative to the start of the batch (the batch itself starts
 * MAXALIGNed on the page, so the image is aligned in memory too).  Padding
 * bytes are zero, and a reader recognises them as att_align_pointer()
 * does: a 1-byte header is never zero.
 *
 * The codec knows nothing of pages, buffers or WAL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pg_topics/log/topic_log.h"

/* Bytes of the unsigned LEB128 encoding of v */
static inline int
varint_size(uint64 v)
{
	int			n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* Write v as unsigned LEB128 at dst; returns bytes written */
static inline int
varint_put(char *dst, uint64 v)
{
	int			n = 0;

	while (v >= 0x80)
	{
		dst[n++] = (char) ((v & 0x7F) | 0x80);
		v >>= 7;
	}
	dst[n++] = (char) v;
	return n;
}

/* Read an unsigned LEB128 from src[*pos..end); false if truncated */
static inline bool
varint_get(const char *src, Size *pos, Size end, uint64 *v)
{
	uint64		result = 0;
	int			shift = 0;

	while (*pos < end && shift < 64)
	{
		uint8		b = (uint8) src[(*pos)++];

		result |= ((uint64) (b & 0x7F)) << shift;
		if ((b & 0x80) == 0)
		{
			*v = result;
			return true;
		}
		shift += 7;
	}
	return false;
}

static inline uint64
zigzag_encode(int64 v)
{
	return ((uint64) v << 1) ^ (uint64) (v >> 63);
}

static inline int64
zigzag_decode(uint64 v)
{
	return (int64) (v >> 1) ^ -(int64) (v & 1);
}

/*
 * Size of the stored image of a varlena datum, and whether it needs a
 * 4-byte aligned position.
 */
static inline Size
image_size(struct varlena *datum, bool *aligned)
{
	*aligned = false;
	if (VARATT_IS_EXTERNAL(datum))
		return VARSIZE_EXTERNAL(datum);
	if (VARATT_IS_SHORT(datum))
		return VARSIZE_SHORT(datum);
	if (VARATT_CAN_MAKE_SHORT(datum))
		return VARATT_CONVERTED_SHORT_SIZE(datum);
	*aligned = true;
	return VARSIZE(datum);
}

/* Position after storing datum's image at pos (padding included) */
static inline Size
image_end(Size pos, struct varlena *datum)
{
	bool		aligned;
	Size		size = image_size(datum, &aligned);

	if (aligned)
		pos = INTALIGN(pos);
	return pos + size;
}

/* Store datum's image at dst[pos]; returns the position after it */
static Size
image_put(char *dst, Size pos, struct varlena *datum)
{
	bool		aligned;
	Size		size = image_size(datum, &aligned);

	if (aligned)
	{
		Size		start = INTALIGN(pos);

		memset(dst + pos, 0, start - pos);
		memcpy(dst + start, datum, size);
		return start + size;
	}
	if (!VARATT_IS_EXTERNAL(datum) && !VARATT_IS_SHORT(datum))
	{
		/* convert a short-enough 4-byte header to a 1-byte header */
		SET_VARSIZE_SHORT(dst + pos, size);
		memcpy(dst + pos + 1, VARDATA(datum), size - 1);
		return pos + size;
	}
	memcpy(dst + pos, datum, size);
	return pos + size;
}

/* Locate the image at batch[*pos]; false if it does not fit before end */
static bool
image_get(const char *batch, Size *pos, Size end, Pointer *image)
{
	Size		p = *pos;
	Size		size;

	if (p >= end)
		return false;
	/* a zero byte at an unaligned position is padding before a 4B header */
	if (p != INTALIGN(p) && batch[p] == 0)
	{
		p = INTALIGN(p);
		if (p >= end)
			return false;
	}
	if (VARATT_IS_1B_E(batch + p))
	{
		if (p + VARHDRSZ_EXTERNAL > end)
			return false;
		size = VARSIZE_EXTERNAL(batch + p);
	}
	else if (VARATT_IS_1B(batch + p))
		size = VARSIZE_1B(batch + p);
	else
	{
		if (p != INTALIGN(p) || p + VARHDRSZ > end)
			return false;
		size = VARSIZE_4B(batch + p);
		if (size < VARHDRSZ)
			return false;
	}
	if (size == 0 || p + size > end)
		return false;
	*image = (Pointer) (batch + p);
	*pos = p + size;
	return true;
}

/*
 * Size in bytes of the batch stream after encoding one record at pos:
 * returns the new end position (not the record's length), so that
 * alignment padding is counted exactly.
 */
Size
topic_record_encoded_size(Size pos, uint8 batch_flags,
						  int64 offset_delta, int64 timestamp_delta,
						  struct varlena *key, struct varlena *value,
						  struct varlena *headers)
{
	pos += 1;
	if (!(batch_flags & TB_CONTIGUOUS))
		pos += varint_size((uint64) offset_delta);
	if (!(batch_flags & TB_SAME_TIMESTAMP))
		pos += varint_size(zigzag_encode(timestamp_delta));
	if (key)
		pos = image_end(pos, key);
	if (value)
		pos = image_end(pos, value);
	if (headers)
		pos = image_end(pos, headers);
	return pos;
}

/*
 * Encode one record into dst at pos (positions are relative to the batch
 * start); returns the position after it.  The caller has checked the space
 * with topic_record_encoded_size().
 */
Size
topic_record_encode(char *dst, Size pos, uint8 batch_flags,
					int64 offset_delta, int64 timestamp_delta,
					struct varlena *key, struct varlena *value,
					struct varlena *headers)
{
	uint8		flags = 0;

	Assert(offset_delta >= 0);
	if (key == NULL)
		flags |= TR_KEY_NULL;
	if (value == NULL)
		flags |= TR_VALUE_NULL;
	if (headers == NULL)
		flags |= TR_HEADERS_NULL;
	dst[pos++] = (char) flags;
	if (!(batch_flags & TB_CONTIGUOUS))
		pos += varint_put(dst + pos, (uint64) offset_delta);
	if (!(batch_flags & TB_SAME_TIMESTAMP))
		pos += varint_put(dst + pos, zigzag_encode(timestamp_delta));
	if (key)
		pos = image_put(dst, pos, key);
	if (value)
		pos = image_put(dst, pos, value);
	if (headers)
		pos = image_put(dst, pos, headers);
	return pos;
}

/*
 * Decode the record at batch[*pos], the index'th of the batch described by
 * hdr, without reading past end.  Pointers in rec point into batch.
 * Returns false if the bytes are not a well-formed record.
 */
bool
topic_record_decode(const char *batch, Size *pos, Size end,
					const TopicBatchHeaderData *hdr, int index,
					TopicRecord *rec)
{
	Size		p = *pos;
	uint8		flags;

	if (p >= end)
		return false;
	flags = (uint8) batch[p++];
	if (flags & ~TR_KNOWN_FLAGS)
		return false;

	if (hdr->flags & TB_CONTIGUOUS)
		rec->offset = hdr->base_offset + index;
	else
	{
		uint64		delta;

		if (!varint_get(batch, &p, end, &delta) || delta > PG_INT64_MAX)
			return false;
		rec->offset = hdr->base_offset + (int64) delta;
	}

	if (hdr->flags & TB_SAME_TIMESTAMP)
		rec->timestamp = hdr->base_timestamp;
	else
	{
		uint64		delta;

		if (!varint_get(batch, &p, end, &delta))
			return false;
		rec->timestamp = hdr->base_timestamp + zigzag_decode(delta);
	}

	rec->key = rec->value = rec->headers = NULL;
	if (!(flags & TR_KEY_NULL) && !image_get(batch, &p, end, &rec->key))
		return false;
	if (!(flags & TR_VALUE_NULL) && !image_get(batch, &p, end, &rec->value))
		return false;
	if (!(flags & TR_HEADERS_NULL) && !image_get(batch, &p, end, &rec->headers))
		return false;

	*pos = p;
	return true;
}
