/*-------------------------------------------------------------------------
 *
 * codec.h
 *	  Kafka's wire types: reading them from a request, writing them into a
 *	  response.
 *
 * The wire layer (src/wire/) knows Kafka's formats and nothing of the
 * server: it uses palloc, StringInfo and PostgreSQL's common library only,
 * never ereport, so that the same files build into the fuzz target
 * (test/fuzz/) as frontend code.  A reader never fails: reading past the
 * end, a negative length or a malformed varint sets r->error and returns
 * a zero value, so a parser reads a whole structure and checks the flag
 * once.  Nothing a reader returns points outside the request.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_CODEC_H
#define TOPIC_WIRE_CODEC_H

#include "lib/stringinfo.h"

/*
 * A request (or any byte string in Kafka's encoding) being read.
 * alloc_left bounds what the schema codec (schema.h) allocates for the
 * arrays it reads with it (the server sets it from its memory budget), and
 * elements_left how many topics, partitions and topic or group names they
 * may read in all (each costs the server a lookup or a read: it bounds a
 * request's work with it); an array beyond either fails the reader, with
 * over_budget or too_many set.
 */
typedef struct KafkaReader
{
	const char *data;
	int			len;
	int			pos;
	bool		error;			/* something did not fit: the rest reads as 0 */
	bool		over_budget;	/* an array needed more than alloc_left */
	bool		too_many;		/* arrays had more than elements_left */
	Size		alloc_left;		/* SIZE_MAX: no limit */
	int32		elements_left;	/* -1: no limit */
} KafkaReader;

/* A string or byte string of a request: len -1 is null */
typedef struct KafkaBytes
{
	const char *data;			/* points into the request */
	int32		len;
} KafkaBytes;

static inline void
kafka_reader_init(KafkaReader *r, const char *data, int len)
{
	r->data = data;
	r->len = len;
	r->pos = 0;
	r->error = false;
	r->over_budget = false;
	r->too_many = false;
	r->alloc_left = SIZE_MAX;
	r->elements_left = -1;
}

static inline int
kafka_reader_remaining(const KafkaReader *r)
{
	return r->error ? 0 : r->len - r->pos;
}

/* fixed-width big-endian integers */
extern int8 kafka_read_int8(KafkaReader *r);
extern int16 kafka_read_int16(KafkaReader *r);
extern int32 kafka_read_int32(KafkaReader *r);
extern int64 kafka_read_int64(KafkaReader *r);
extern uint32 kafka_read_uint32(KafkaReader *r);

/* unsigned varints (flexible versions) and zigzag ones (records) */
extern uint32 kafka_read_uvarint(KafkaReader *r);
extern int32 kafka_read_varint(KafkaReader *r);
extern int64 kafka_read_varlong(KafkaReader *r);

/* strings and byte strings: int16/int32 lengths, or compact (uvarint N+1) */
extern KafkaBytes kafka_read_string(KafkaReader *r);
extern KafkaBytes kafka_read_compact_string(KafkaReader *r);
extern KafkaBytes kafka_read_bytes(KafkaReader *r);
extern KafkaBytes kafka_read_compact_bytes(KafkaReader *r);
extern KafkaBytes kafka_read_raw(KafkaReader *r, int32 len);

/*
 * An array's element count: int32 (-1 null), or compact (uvarint N+1, 0
 * null).  A count that more than min_elem_size bytes per element would not
 * fit in what is left of the request is an error, so that nobody allocates
 * for two billion elements announced by four bytes.  Null reads as 0 (with
 * *isnull set when asked for).
 */
extern int32 kafka_read_array_len(KafkaReader *r, int min_elem_size,
								  bool *isnull);
extern int32 kafka_read_compact_array_len(KafkaReader *r, int min_elem_size,
										  bool *isnull);

/* tagged fields of a flexible version: read and ignored */
extern void kafka_skip_tagged_fields(KafkaReader *r);

/*
 * A request's header, up to its client id (v1; a flexible version's v2
 * header has tagged fields after it, which the caller skips once it knows
 * the API's flexible versions)
 */
typedef struct KafkaRequestHeader
{
	int16		api_key;
	int16		api_version;
	int32		correlation_id;
	KafkaBytes	client_id;		/* null allowed */
} KafkaRequestHeader;

/* Read a request's header; false if it is cut short */
extern bool kafka_read_request_header(KafkaReader *r, KafkaRequestHeader *out);

/* A copy of a string as a NUL-terminated C string (palloc'd); NULL if null */
extern char *kafka_bytes_cstring(KafkaBytes b);
extern bool kafka_bytes_equal(KafkaBytes b, const char *s);

/*
 * Writing: big-endian into a StringInfo.
 *
 * kafka_write_hook, when set (the server sets it; frontend code does not),
 * is called by every writer below before buf grows, and once every
 * KAFKA_WRITE_HOOK_EVERY writes: the server checks its memory budget and
 * its interrupts there, and may throw.  Bytes appended to buf otherwise
 * (appendBinaryStringInfo) are seen at the next write that grows it.
 */
typedef void (*KafkaWriteHook) (StringInfo buf, int more);
extern KafkaWriteHook kafka_write_hook;
#define KAFKA_WRITE_HOOK_EVERY	4096

extern void kafka_write_int8(StringInfo buf, int8 v);
extern void kafka_write_int16(StringInfo buf, int16 v);
extern void kafka_write_int32(StringInfo buf, int32 v);
extern void kafka_write_int64(StringInfo buf, int64 v);
extern void kafka_write_uvarint(StringInfo buf, uint32 v);
extern void kafka_write_varint(StringInfo buf, int32 v);
extern void kafka_write_varlong(StringInfo buf, int64 v);
extern void kafka_write_string(StringInfo buf, const char *s);	/* NULL: null */
extern void kafka_write_string_len(StringInfo buf, const char *s, int len);
extern void kafka_write_compact_string(StringInfo buf, const char *s);
extern void kafka_write_bytes(StringInfo buf, const char *data, int32 len);	/* -1: null */
extern void kafka_write_compact_bytes(StringInfo buf, const char *data, int32 len);
extern void kafka_write_array_len(StringInfo buf, int32 n);	/* -1: null */
extern void kafka_write_compact_array_len(StringInfo buf, int32 n);
extern void kafka_write_empty_tagged_fields(StringInfo buf);

/* Overwrite a big-endian int32 written earlier at buf->data + at */
extern void kafka_patch_int32(StringInfo buf, int at, int32 v);

/* v as an unsigned varint at dst (room for 5 bytes), without the hook; its size */
extern int	kafka_put_uvarint(char *dst, uint32 v);
/* v as a varint (room for 5 bytes) or varlong (10) at dst, without the hook; its size */
extern int	kafka_put_varint(char *dst, int32 v);
extern int	kafka_put_varlong(char *dst, int64 v);

/*
 * Room for n more bytes at the end of buf (the hook as for a write of n):
 * where they go.  The caller writes them there, then adds n to buf->len.
 * For a writer that knows the size of what it writes, one call instead
 * of one a field.
 */
extern char *kafka_reserve(StringInfo buf, int n);

/* the size of an unsigned varint, varint or varlong as written */
extern int	kafka_uvarint_size(uint32 v);
extern int	kafka_varint_size(int32 v);
extern int	kafka_varlong_size(int64 v);

#endif							/* TOPIC_WIRE_CODEC_H */
