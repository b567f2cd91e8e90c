/*-------------------------------------------------------------------------
 *
 * codec.c
 *	  Kafka's wire types (see codec.h): big-endian integers, the two kinds
 *	  of varint, strings, byte strings, arrays and tagged fields.
 *
 * Two varints that must not be confused: the unsigned ones of flexible
 * request and response bodies (compact lengths carry N+1, 0 meaning null)
 * and the zigzag ones inside records (protobuf's sint32/sint64).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "port/pg_bswap.h"

#include "pg_topics/wire/codec.h"

/* true if n more bytes can be read; else mark the reader failed */
static inline bool
have(KafkaReader *r, int n)
{
	if (r->error || n < 0 || r->len - r->pos < n)
	{
		r->error = true;
		return false;
	}
	return true;
}

int8
kafka_read_int8(KafkaReader *r)
{
	if (!have(r, 1))
		return 0;
	return (int8) r->data[r->pos++];
}

int16
kafka_read_int16(KafkaReader *r)
{
	uint16		v;

	if (!have(r, 2))
		return 0;
	memcpy(&v, r->data + r->pos, 2);
	r->pos += 2;
	return (int16) pg_ntoh16(v);
}

uint32
kafka_read_uint32(KafkaReader *r)
{
	uint32		v;

	if (!have(r, 4))
		return 0;
	memcpy(&v, r->data + r->pos, 4);
	r->pos += 4;
	return pg_ntoh32(v);
}

int32
kafka_read_int32(KafkaReader *r)
{
	return (int32) kafka_read_uint32(r);
}

int64
kafka_read_int64(KafkaReader *r)
{
	uint64		v;

	if (!have(r, 8))
		return 0;
	memcpy(&v, r->data + r->pos, 8);
	r->pos += 8;
	return (int64) pg_ntoh64(v);
}

/* An unsigned varint of at most maxbytes bytes (5 for 32 bits, 10 for 64) */
static uint64
read_uvarint64(KafkaReader *r, int maxbytes)
{
	uint64		v = 0;
	int			shift = 0;

	for (int i = 0; i < maxbytes; i++)
	{
		uint8		b;

		if (!have(r, 1))
			return 0;
		b = (uint8) r->data[r->pos++];
		v |= (uint64) (b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			return v;
		shift += 7;
	}
	/* too long: not a varint of this width */
	r->error = true;
	return 0;
}

uint32
kafka_read_uvarint(KafkaReader *r)
{
	uint64		v = read_uvarint64(r, 5);

	if (v > PG_UINT32_MAX)
	{
		r->error = true;
		return 0;
	}
	return (uint32) v;
}

int32
kafka_read_varint(KafkaReader *r)
{
	uint64		v = read_uvarint64(r, 5);

	if (v > PG_UINT32_MAX)
	{
		r->error = true;
		return 0;
	}
	return (int32) ((uint32) (v >> 1) ^ -(uint32) (v & 1));
}

int64
kafka_read_varlong(KafkaReader *r)
{
	uint64		v = read_uvarint64(r, 10);

	return (int64) ((v >> 1) ^ -(v & 1));
}

KafkaBytes
kafka_read_raw(KafkaReader *r, int32 len)
{
	KafkaBytes	b = {NULL, -1};

	if (!have(r, len))
		return b;
	b.data = r->data + r->pos;
	b.len = len;
	r->pos += len;
	return b;
}

/* a length that may be -1 (null) followed by that many bytes */
static KafkaBytes
read_nullable(KafkaReader *r, int32 len)
{
	KafkaBytes	null = {NULL, -1};

	if (r->error)
		return null;
	if (len == -1)
		return null;
	if (len < -1)
	{
		r->error = true;
		return null;
	}
	return kafka_read_raw(r, len);
}

KafkaBytes
kafka_read_string(KafkaReader *r)
{
	return read_nullable(r, kafka_read_int16(r));
}

KafkaBytes
kafka_read_bytes(KafkaReader *r)
{
	return read_nullable(r, kafka_read_int32(r));
}

/* a compact length: N+1, 0 meaning null */
static KafkaBytes
read_compact(KafkaReader *r)
{
	uint32		n = kafka_read_uvarint(r);

	if (n > (uint32) PG_INT32_MAX)
	{
		r->error = true;
		n = 0;
	}
	return read_nullable(r, (int32) n - 1);
}

KafkaBytes
kafka_read_compact_string(KafkaReader *r)
{
	return read_compact(r);
}

KafkaBytes
kafka_read_compact_bytes(KafkaReader *r)
{
	return read_compact(r);
}

/* n elements of at least min_elem_size bytes each must fit in what is left */
static int32
check_array_len(KafkaReader *r, int64 n, int min_elem_size, bool *isnull)
{
	if (isnull)
		*isnull = false;
	if (r->error)
		return 0;
	if (n == -1)
	{
		if (isnull)
			*isnull = true;
		return 0;
	}
	if (n < -1 || n * Max(min_elem_size, 1) > r->len - r->pos)
	{
		r->error = true;
		return 0;
	}
	return (int32) n;
}

int32
kafka_read_array_len(KafkaReader *r, int min_elem_size, bool *isnull)
{
	return check_array_len(r, kafka_read_int32(r), min_elem_size, isnull);
}

int32
kafka_read_compact_array_len(KafkaReader *r, int min_elem_size, bool *isnull)
{
	int64		n = (int64) kafka_read_uvarint(r) - 1;

	return check_array_len(r, n, min_elem_size, isnull);
}

void
kafka_skip_tagged_fields(KafkaReader *r)
{
	uint32		n = kafka_read_uvarint(r);

	/* each field is at least two bytes (tag and size) */
	if (n > (uint32) kafka_reader_remaining(r) / 2)
	{
		r->error = true;
		return;
	}
	for (uint32 i = 0; i < n && !r->error; i++)
	{
		(void) kafka_read_uvarint(r);	/* tag */
		(void) kafka_read_raw(r, (int32) Min(kafka_read_uvarint(r),
											 (uint32) PG_INT32_MAX));
	}
}

bool
kafka_read_request_header(KafkaReader *r, KafkaRequestHeader *out)
{
	out->api_key = kafka_read_int16(r);
	out->api_version = kafka_read_int16(r);
	out->correlation_id = kafka_read_int32(r);
	out->client_id = kafka_read_string(r);
	return !r->error;
}

char *
kafka_bytes_cstring(KafkaBytes b)
{
	char	   *s;

	if (b.len < 0)
		return NULL;
	s = palloc(b.len + 1);
	memcpy(s, b.data, b.len);
	s[b.len] = '\0';
	return s;
}

bool
kafka_bytes_equal(KafkaBytes b, const char *s)
{
	size_t		len = strlen(s);

	return b.len >= 0 && (size_t) b.len == len && memcmp(b.data, s, len) == 0;
}

KafkaWriteHook kafka_write_hook = NULL;

/* writes since kafka_write_hook was last called */
static int	writes_unchecked = 0;

/* Before n bytes are appended to buf: the hook, when it is due */
static inline void
before_write(StringInfo buf, int n)
{
	if (unlikely(buf->len + n >= buf->maxlen ||
				 ++writes_unchecked >= KAFKA_WRITE_HOOK_EVERY) &&
		kafka_write_hook != NULL)
	{
		writes_unchecked = 0;
		kafka_write_hook(buf, n);
	}
}

/* n bytes at data onto buf */
static inline void
append(StringInfo buf, const char *data, int n)
{
	before_write(buf, n);
	appendBinaryStringInfoNT(buf, data, n);
}

void
kafka_write_int8(StringInfo buf, int8 v)
{
	before_write(buf, 1);
	appendStringInfoCharMacro(buf, (char) v);
}

void
kafka_write_int16(StringInfo buf, int16 v)
{
	uint16		n = pg_hton16((uint16) v);

	append(buf, (const char *) &n, 2);
}

void
kafka_write_int32(StringInfo buf, int32 v)
{
	uint32		n = pg_hton32((uint32) v);

	append(buf, (const char *) &n, 4);
}

void
kafka_write_int64(StringInfo buf, int64 v)
{
	uint64		n = pg_hton64((uint64) v);

	append(buf, (const char *) &n, 8);
}

/* v as an unsigned varint at dst (room for 10 bytes); its size */
static int
put_uvarint64(char *dst, uint64 v)
{
	int			n = 0;

	while (v >= 0x80)
	{
		dst[n++] = (char) ((v & 0x7f) | 0x80);
		v >>= 7;
	}
	dst[n++] = (char) v;
	return n;
}

int
kafka_put_uvarint(char *dst, uint32 v)
{
	return put_uvarint64(dst, v);
}

int
kafka_put_varint(char *dst, int32 v)
{
	return put_uvarint64(dst, ((uint32) v << 1) ^ (uint32) (v >> 31));
}

int
kafka_put_varlong(char *dst, int64 v)
{
	return put_uvarint64(dst, ((uint64) v << 1) ^ (uint64) (v >> 63));
}

char *
kafka_reserve(StringInfo buf, int n)
{
	before_write(buf, n);
	enlargeStringInfo(buf, n);
	return buf->data + buf->len;
}

static void
write_uvarint64(StringInfo buf, uint64 v)
{
	char		tmp[10];

	append(buf, tmp, put_uvarint64(tmp, v));
}

void
kafka_write_uvarint(StringInfo buf, uint32 v)
{
	write_uvarint64(buf, v);
}

void
kafka_write_varint(StringInfo buf, int32 v)
{
	write_uvarint64(buf, ((uint32) v << 1) ^ (uint32) (v >> 31));
}

void
kafka_write_varlong(StringInfo buf, int64 v)
{
	write_uvarint64(buf, ((uint64) v << 1) ^ (uint64) (v >> 63));
}

static int
uvarint_size(uint64 v)
{
	int			n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

int
kafka_uvarint_size(uint32 v)
{
	return uvarint_size(v);
}

int
kafka_varint_size(int32 v)
{
	return uvarint_size(((uint32) v << 1) ^ (uint32) (v >> 31));
}

int
kafka_varlong_size(int64 v)
{
	return uvarint_size(((uint64) v << 1) ^ (uint64) (v >> 63));
}

void
kafka_write_string_len(StringInfo buf, const char *s, int len)
{
	kafka_write_int16(buf, (int16) len);
	append(buf, s, len);
}

void
kafka_write_string(StringInfo buf, const char *s)
{
	if (s == NULL)
		kafka_write_int16(buf, -1);
	else
		kafka_write_string_len(buf, s, (int) strlen(s));
}

void
kafka_write_compact_string(StringInfo buf, const char *s)
{
	if (s == NULL)
		kafka_write_uvarint(buf, 0);
	else
	{
		int			len = (int) strlen(s);

		kafka_write_uvarint(buf, (uint32) len + 1);
		append(buf, s, len);
	}
}

void
kafka_write_bytes(StringInfo buf, const char *data, int32 len)
{
	kafka_write_int32(buf, len);
	if (len > 0)
		append(buf, data, len);
}

void
kafka_write_compact_bytes(StringInfo buf, const char *data, int32 len)
{
	kafka_write_uvarint(buf, (uint32) (len + 1));
	if (len > 0)
		append(buf, data, len);
}

void
kafka_write_array_len(StringInfo buf, int32 n)
{
	kafka_write_int32(buf, n);
}

void
kafka_write_compact_array_len(StringInfo buf, int32 n)
{
	kafka_write_uvarint(buf, (uint32) (n + 1));
}

void
kafka_write_empty_tagged_fields(StringInfo buf)
{
	kafka_write_uvarint(buf, 0);
}

void
kafka_patch_int32(StringInfo buf, int at, int32 v)
{
	uint32		n = pg_hton32((uint32) v);

	memcpy(buf->data + at, &n, 4);
}
