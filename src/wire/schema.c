/*-------------------------------------------------------------------------
 *
 * schema.c
 *	  Decoding and encoding Kafka message bodies by their field tables
 *	  (see schema.h).
 *
 * Both walk a struct's fields in order, recursing into struct fields and
 * the elements of struct arrays; the tables are static and never refer to
 * themselves, so the recursion is as deep as the message's nesting (four
 * at most in Kafka's messages), whatever the input.
 *
 * The decoder allocates only arrays, one palloc per array, charged to the
 * reader's alloc_left before it is made; an array's count is checked
 * against the bytes left at the smallest size an element of that version
 * can have on the wire, so nobody allocates for two billion elements that
 * four bytes announce.
 *
 * The encoder allocates nothing.  A tagged field's size comes before its
 * value: the value is written in place, then moved up by the size of its
 * tag and size, which are written before it (tagged fields are small).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/schema.h"

static void decode_struct(KafkaReader *r, const KafkaSchema *s, int16 v,
						  bool flex, char *out);
static void encode_struct(StringInfo buf, const KafkaSchema *s, int16 v,
						  bool flex, const char *in);

/* Is field f in version v? */
static inline bool
present(const KafkaField *f, int16 v)
{
	return v >= f->from && v <= f->to;
}

/* Is field f tagged in version v (of a flexible message)? */
static inline bool
tagged_in(const KafkaField *f, int16 v)
{
	return f->tagged && v >= f->tagged_from;
}

static inline bool
nullable_in(const KafkaField *f, int16 v)
{
	return f->nullable && v >= f->nullable_from;
}

KafkaBytes
kafka_bytes_of(const char *s)
{
	KafkaBytes	b;

	b.data = s;
	b.len = s ? (int32) strlen(s) : -1;
	return b;
}

/* The size of one value of a scalar type in C */
static Size
c_size(const KafkaField *f)
{
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			return sizeof(int8);
		case KAFKA_TYPE_INT16:
			return sizeof(int16);
		case KAFKA_TYPE_INT32:
			return sizeof(int32);
		case KAFKA_TYPE_INT64:
			return sizeof(int64);
		case KAFKA_TYPE_UINT16:
			return sizeof(uint16);
		case KAFKA_TYPE_FLOAT64:
			return sizeof(double);
		case KAFKA_TYPE_BOOL:
			return sizeof(bool);
		case KAFKA_TYPE_UUID:
			return sizeof(KafkaUuid);
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			return sizeof(KafkaBytes);
		case KAFKA_TYPE_RECORDS:
			return sizeof(KafkaRecords);
		case KAFKA_TYPE_STRUCT:
			return f->schema->size;
	}
	return 0;
}

static int	min_struct_size(const KafkaSchema *s, int16 v, bool flex);

/* The smallest one value of f (not the array) can be on the wire */
static int
min_value_size(const KafkaField *f, int16 v, bool flex)
{
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
		case KAFKA_TYPE_BOOL:
			return 1;
		case KAFKA_TYPE_INT16:
		case KAFKA_TYPE_UINT16:
			return 2;
		case KAFKA_TYPE_INT32:
			return 4;
		case KAFKA_TYPE_INT64:
		case KAFKA_TYPE_FLOAT64:
			return 8;
		case KAFKA_TYPE_UUID:
			return 16;
		case KAFKA_TYPE_STRING:
			return flex ? 1 : 2;
		case KAFKA_TYPE_BYTES:
		case KAFKA_TYPE_RECORDS:
			return flex ? 1 : 4;
		case KAFKA_TYPE_STRUCT:
			return min_struct_size(f->schema, v, flex);
	}
	return 1;
}

/* The smallest a struct can be on the wire at version v */
static int
min_struct_size(const KafkaSchema *s, int16 v, bool flex)
{
	int			size = flex ? 1 : 0;	/* its tagged fields' count */

	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];

		if (!present(f, v) || (flex && tagged_in(f, v)))
			continue;
		size += f->array ? (flex ? 1 : 4) : min_value_size(f, v, flex);
	}
	return size;
}

/* Set the value of f at out (a struct) to its default */
static void
set_default(const KafkaField *f, char *out)
{
	char	   *p = out + f->offset;

	if (f->array)
	{
		*(int32 *) (out + f->count_offset) = 0;
		*(void **) p = NULL;
		return;
	}
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			*(int8 *) p = (int8) f->def;
			break;
		case KAFKA_TYPE_INT16:
			*(int16 *) p = (int16) f->def;
			break;
		case KAFKA_TYPE_INT32:
			*(int32 *) p = (int32) f->def;
			break;
		case KAFKA_TYPE_INT64:
			*(int64 *) p = f->def;
			break;
		case KAFKA_TYPE_UINT16:
			*(uint16 *) p = (uint16) f->def;
			break;
		case KAFKA_TYPE_FLOAT64:
			*(double *) p = (double) f->def;
			break;
		case KAFKA_TYPE_BOOL:
			*(bool *) p = f->def != 0;
			break;
		case KAFKA_TYPE_UUID:
			memset(p, 0, sizeof(KafkaUuid));
			break;
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			((KafkaBytes *) p)->data = f->def_null ? NULL : "";
			((KafkaBytes *) p)->len = f->def_null ? -1 : 0;
			break;
		case KAFKA_TYPE_RECORDS:
			memset(p, 0, sizeof(KafkaRecords));
			((KafkaRecords *) p)->bytes.len = -1;
			break;
		case KAFKA_TYPE_STRUCT:
			for (int i = 0; i < f->schema->nfields; i++)
				set_default(&f->schema->fields[i], p);
			break;
	}
}

/*
 * n elements of size bytes each, zeroed, or NULL for none; beyond what r
 * may still allocate, none: r fails, over budget
 */
static void *
alloc_elements(KafkaReader *r, int32 n, Size size)
{
	Size		bytes = size * (Size) n;

	if (n <= 0)
		return NULL;
	if (bytes > r->alloc_left)
	{
		r->error = true;
		r->over_budget = true;
		return NULL;
	}
	r->alloc_left -= bytes;
	return palloc0(bytes);
}

/* n more elements that each cost a lookup: within r's elements_left */
static bool
take_elements(KafkaReader *r, int32 n)
{
	if (r->elements_left < 0 || n <= 0)
		return true;
	if (n > r->elements_left)
	{
		r->error = true;
		r->too_many = true;
		return false;
	}
	r->elements_left -= n;
	return true;
}

/* A string or byte string, null only where f allows it */
static KafkaBytes
read_bytes(KafkaReader *r, const KafkaField *f, int16 v, bool flex)
{
	KafkaBytes	b;

	if (f->type == KAFKA_TYPE_STRING)
		b = flex ? kafka_read_compact_string(r) : kafka_read_string(r);
	else
		b = flex ? kafka_read_compact_bytes(r) : kafka_read_bytes(r);
	if (b.len < 0 && !r->error && !nullable_in(f, v))
		r->error = true;
	return b;
}

/* One value of f (an element of it, if an array) into p */
static void
read_value(KafkaReader *r, const KafkaField *f, int16 v, bool flex, char *p)
{
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			*(int8 *) p = kafka_read_int8(r);
			break;
		case KAFKA_TYPE_INT16:
			*(int16 *) p = kafka_read_int16(r);
			break;
		case KAFKA_TYPE_INT32:
			*(int32 *) p = kafka_read_int32(r);
			break;
		case KAFKA_TYPE_INT64:
			*(int64 *) p = kafka_read_int64(r);
			break;
		case KAFKA_TYPE_UINT16:
			*(uint16 *) p = (uint16) kafka_read_int16(r);
			break;
		case KAFKA_TYPE_FLOAT64:
			{
				int64		bits = kafka_read_int64(r);

				memcpy(p, &bits, sizeof(double));
				break;
			}
		case KAFKA_TYPE_BOOL:
			*(bool *) p = kafka_read_int8(r) != 0;
			break;
		case KAFKA_TYPE_UUID:
			{
				KafkaBytes	b = kafka_read_raw(r, 16);

				if (b.len == 16)
					memcpy(p, b.data, 16);
				break;
			}
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			*(KafkaBytes *) p = read_bytes(r, f, v, flex);
			break;
		case KAFKA_TYPE_RECORDS:
			((KafkaRecords *) p)->bytes = read_bytes(r, f, v, flex);
			break;
		case KAFKA_TYPE_STRUCT:
			decode_struct(r, f->schema, v, flex, p);
			break;
	}
}

/* Field f (present in v, not tagged) of the struct at out */
static void
read_field(KafkaReader *r, const KafkaField *f, int16 v, bool flex, char *out)
{
	int32		n;
	bool		isnull;
	char	   *elements;
	Size		size;

	if (!f->array)
	{
		read_value(r, f, v, flex, out + f->offset);
		return;
	}
	n = flex ?
		kafka_read_compact_array_len(r, min_value_size(f, v, flex), &isnull) :
		kafka_read_array_len(r, min_value_size(f, v, flex), &isnull);
	if (isnull)
	{
		if (!nullable_in(f, v))
			r->error = true;
		*(int32 *) (out + f->count_offset) = -1;
		return;
	}
	if ((f->flags & KAFKA_FIELD_COUNTED) && !take_elements(r, n))
		return;
	size = c_size(f);
	elements = alloc_elements(r, n, size);
	if (elements == NULL)
		return;
	/* the count is set once the elements exist, so it always tells them */
	*(void **) (out + f->offset) = elements;
	*(int32 *) (out + f->count_offset) = n;
	for (int32 i = 0; i < n && !r->error; i++)
		read_value(r, f, v, flex, elements + i * size);
}

/* A flexible struct's tagged fields: the known ones read, others skipped */
static void
read_tagged_fields(KafkaReader *r, const KafkaSchema *s, int16 v, char *out)
{
	uint32		n = kafka_read_uvarint(r);

	/* each is at least two bytes (its tag and size) */
	if (n > (uint32) kafka_reader_remaining(r) / 2)
	{
		r->error = true;
		return;
	}
	for (uint32 i = 0; i < n && !r->error; i++)
	{
		uint32		tag = kafka_read_uvarint(r);
		uint32		size = kafka_read_uvarint(r);
		const KafkaField *f = NULL;
		KafkaReader sub;

		if (r->error || size > (uint32) kafka_reader_remaining(r))
		{
			r->error = true;
			return;
		}
		for (int j = 0; j < s->nfields; j++)
			if (s->fields[j].tagged && s->fields[j].tag == tag &&
				present(&s->fields[j], v) && tagged_in(&s->fields[j], v))
				f = &s->fields[j];
		if (f != NULL)
		{
			/* the value must lie within its size */
			sub = *r;
			sub.len = r->pos + (int) size;
			read_field(&sub, f, v, true, out);
			r->error = sub.error;
			r->over_budget = sub.over_budget;
			r->too_many = sub.too_many;
			r->alloc_left = sub.alloc_left;
			r->elements_left = sub.elements_left;
		}
		(void) kafka_read_raw(r, (int32) size);
	}
}

static void
decode_struct(KafkaReader *r, const KafkaSchema *s, int16 v, bool flex,
			  char *out)
{
	/*
	 * out is zeroed (kafka_decode, alloc_elements): a field read is not
	 * set to its default first, and one left unread after a failure stays
	 * zero
	 */
	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];

		if (!present(f, v) || (flex && tagged_in(f, v)))
			set_default(f, out);
		else if (!r->error)
			read_field(r, f, v, flex, out);
	}
	if (flex && !r->error)
		read_tagged_fields(r, s, v, out);
}

bool
kafka_decode(KafkaReader *r, const KafkaMessage *m, int16 version, void *out)
{
	memset(out, 0, m->body->size);
	if (version < m->min_version || version > m->max_version)
	{
		r->error = true;
		return false;
	}
	decode_struct(r, m->body, version, kafka_message_flexible(m, version),
				  (char *) out);
	return !r->error;
}

/* A string or byte string; null written as empty where the version has none */
static void
write_bytes(StringInfo buf, const KafkaField *f, int16 v, bool flex,
			KafkaBytes b)
{
	if (b.len < 0 && !nullable_in(f, v))
	{
		Assert(false);			/* a handler's bug: Kafka would throw */
		b.len = 0;
	}
	if (b.len < 0)
	{
		if (flex)
			kafka_write_uvarint(buf, 0);
		else if (f->type == KAFKA_TYPE_STRING)
			kafka_write_int16(buf, -1);
		else
			kafka_write_int32(buf, -1);
		return;
	}
	if (f->type == KAFKA_TYPE_STRING && !flex)
		kafka_write_string_len(buf, b.data, b.len);
	else if (flex)
		kafka_write_compact_bytes(buf, b.data, b.len);
	else
		kafka_write_bytes(buf, b.data, b.len);
}

/*
 * Records a callback appends: their length is patched in before them, an
 * int32, or in a flexible version a five-byte unsigned varint of N+1
 * (continuation bits on the first four bytes)
 */
static void
write_records(StringInfo buf, const KafkaField *f, int16 v, bool flex,
			  const KafkaRecords *rec)
{
	int			at = buf->len;
	int			width = flex ? 5 : 4;
	int32		len;

	if (rec->write == NULL)
	{
		write_bytes(buf, f, v, flex, rec->bytes);
		return;
	}
	for (int i = 0; i < width; i++)
		kafka_write_int8(buf, 0);
	if (!rec->write(buf, rec->arg))
	{
		buf->len = at;
		write_bytes(buf, f, v, flex, (KafkaBytes) {NULL, -1});
		return;
	}
	len = buf->len - at - width;
	if (!flex)
		kafka_patch_int32(buf, at, len);
	else
	{
		uint32		n = (uint32) len + 1;

		for (int i = 0; i < 5; i++)
		{
			buf->data[at + i] = (char) ((n & 0x7f) | (i < 4 ? 0x80 : 0));
			n >>= 7;
		}
	}
}

/* One value of f (an element of it, if an array) from p */
static void
write_value(StringInfo buf, const KafkaField *f, int16 v, bool flex,
			const char *p)
{
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			kafka_write_int8(buf, *(const int8 *) p);
			break;
		case KAFKA_TYPE_INT16:
			kafka_write_int16(buf, *(const int16 *) p);
			break;
		case KAFKA_TYPE_INT32:
			kafka_write_int32(buf, *(const int32 *) p);
			break;
		case KAFKA_TYPE_INT64:
			kafka_write_int64(buf, *(const int64 *) p);
			break;
		case KAFKA_TYPE_UINT16:
			kafka_write_int16(buf, (int16) *(const uint16 *) p);
			break;
		case KAFKA_TYPE_FLOAT64:
			{
				int64		bits;

				memcpy(&bits, p, sizeof(double));
				kafka_write_int64(buf, bits);
				break;
			}
		case KAFKA_TYPE_BOOL:
			kafka_write_int8(buf, *(const bool *) p ? 1 : 0);
			break;
		case KAFKA_TYPE_UUID:
			for (int i = 0; i < 16; i++)
				kafka_write_int8(buf, (int8) ((const KafkaUuid *) p)->data[i]);
			break;
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			write_bytes(buf, f, v, flex, *(const KafkaBytes *) p);
			break;
		case KAFKA_TYPE_RECORDS:
			write_records(buf, f, v, flex, (const KafkaRecords *) p);
			break;
		case KAFKA_TYPE_STRUCT:
			encode_struct(buf, f->schema, v, flex, p);
			break;
	}
}

static void
write_field(StringInfo buf, const KafkaField *f, int16 v, bool flex,
			const char *in)
{
	int32		n;
	const char *elements;
	Size		size;

	if (!f->array)
	{
		write_value(buf, f, v, flex, in + f->offset);
		return;
	}
	n = *(const int32 *) (in + f->count_offset);
	elements = *(const char *const *) (in + f->offset);
	if (n < 0 && !nullable_in(f, v))
	{
		Assert(false);			/* a handler's bug: Kafka would throw */
		n = 0;
	}
	if (n < 0)
		n = -1;
	if (flex)
		kafka_write_compact_array_len(buf, n);
	else
		kafka_write_array_len(buf, n);
	size = c_size(f);
	for (int32 i = 0; i < n; i++)
		write_value(buf, f, v, flex, elements + i * size);
}

static bool struct_is_default(const KafkaSchema *s, const char *in);

/* Is the value of f in the struct at in its default (not written if tagged)? */
static bool
is_default(const KafkaField *f, const char *in)
{
	const char *p = in + f->offset;

	if (f->array)
		return *(const int32 *) (in + f->count_offset) == 0;
	switch (f->type)
	{
		case KAFKA_TYPE_INT8:
			return *(const int8 *) p == (int8) f->def;
		case KAFKA_TYPE_INT16:
			return *(const int16 *) p == (int16) f->def;
		case KAFKA_TYPE_INT32:
			return *(const int32 *) p == (int32) f->def;
		case KAFKA_TYPE_INT64:
			return *(const int64 *) p == f->def;
		case KAFKA_TYPE_UINT16:
			return *(const uint16 *) p == (uint16) f->def;
		case KAFKA_TYPE_FLOAT64:
			return *(const double *) p == (double) f->def;
		case KAFKA_TYPE_BOOL:
			return *(const bool *) p == (f->def != 0);
		case KAFKA_TYPE_UUID:
			{
				static const KafkaUuid zero;

				return memcmp(p, &zero, sizeof(zero)) == 0;
			}
		case KAFKA_TYPE_STRING:
		case KAFKA_TYPE_BYTES:
			return f->def_null ? ((const KafkaBytes *) p)->len < 0 :
				((const KafkaBytes *) p)->len == 0;
		case KAFKA_TYPE_RECORDS:
			return ((const KafkaRecords *) p)->write == NULL &&
				((const KafkaRecords *) p)->bytes.len < 0;
		case KAFKA_TYPE_STRUCT:
			return struct_is_default(f->schema, p);
	}
	return true;
}

static bool
struct_is_default(const KafkaSchema *s, const char *in)
{
	for (int i = 0; i < s->nfields; i++)
		if (!is_default(&s->fields[i], in))
			return false;
	return true;
}

/*
 * Tagged field f: its tag, its size and its value.  The value is written
 * first, then moved up to make room for the tag and size.
 */
static void
write_tagged_field(StringInfo buf, const KafkaField *f, int16 v,
				   const char *in)
{
	int			at = buf->len;
	int			len;
	char		head[10];
	int			headlen;

	write_field(buf, f, v, true, in);
	len = buf->len - at;
	headlen = kafka_put_uvarint(head, f->tag);
	headlen += kafka_put_uvarint(head + headlen, (uint32) len);
	for (int i = 0; i < headlen; i++)
		kafka_write_int8(buf, 0);
	memmove(buf->data + at + headlen, buf->data + at, len);
	memcpy(buf->data + at, head, headlen);
}

static void
encode_struct(StringInfo buf, const KafkaSchema *s, int16 v, bool flex,
			  const char *in)
{
	uint32		ntagged = 0;

	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];

		if (!present(f, v))
			continue;
		if (flex && tagged_in(f, v))
		{
			if (!is_default(f, in))
				ntagged++;
			continue;
		}
		write_field(buf, f, v, flex, in);
	}
	if (!flex)
		return;
	/* the tagged fields, in the order of their tags (the table's) */
	kafka_write_uvarint(buf, ntagged);
	for (int i = 0; i < s->nfields && ntagged > 0; i++)
	{
		const KafkaField *f = &s->fields[i];

		if (present(f, v) && tagged_in(f, v) && !is_default(f, in))
			write_tagged_field(buf, f, v, in);
	}
}

void
kafka_encode(StringInfo buf, const KafkaMessage *m, int16 version,
			 const void *in)
{
	Assert(version >= m->min_version && version <= m->max_version);
	encode_struct(buf, m->body, version, kafka_message_flexible(m, version),
				  (const char *) in);
}
