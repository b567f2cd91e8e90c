/*-------------------------------------------------------------------------
 *
 * record_map.c
 *	  A Kafka record's bytes as a topic's columns, and back.
 *
 * Keys and values: bytea is the bytes as they are; text is UTF-8 on the
 * wire (converted to and from the database encoding; invalid UTF-8 or a
 * NUL byte is refused); jsonb is its text, which must parse, and is sent
 * back as jsonb's canonical text (so not byte for byte what was produced:
 * key order, spacing and number formats are jsonb's).
 *
 * Headers are the jsonb column headers, in one of two forms:
 *  - an object {"name": "value", ...} when the names are unique and every
 *    value is UTF-8 text or null: what SQL producers write, and what an
 *    analyst queries with headers->>'name'.  jsonb keeps an object's keys
 *    in its own order (shorter names first), so such headers come back
 *    in that order;
 *  - otherwise (a name twice, or a value that is not UTF-8) an array of
 *    [name, value] pairs in the order produced, where a name or value is
 *    a string, null (a value only), or {"base64": "..."} for bytes that
 *    are not UTF-8.  This form keeps everything.
 * Going out, an object's values that are not strings or null go as their
 * JSON text; any other headers value (a scalar, an array not of pairs)
 * goes as no headers.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type_d.h"
#include "common/base64.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/record_map.h"

/* Is b valid UTF-8 that the database encoding can hold, without NULs? */
static bool
text_compatible(KafkaBytes b)
{
	if (!pg_verify_mbstr(PG_UTF8, b.data, b.len, true))
		return false;
	if (GetDatabaseEncoding() == PG_UTF8)
		return true;
	/* other encodings: plain ASCII only, so that no conversion can fail */
	for (int i = 0; i < b.len; i++)
		if (IS_HIGHBIT_SET(b.data[i]))
			return false;
	return true;
}

/* b (UTF-8) as a NUL-terminated string of the database encoding */
static char *
server_cstring(KafkaBytes b, const char *what)
{
	char	   *converted;

	if (memchr(b.data, '\0', b.len) != NULL ||
		!pg_verify_mbstr(PG_UTF8, b.data, b.len, true))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("Kafka record %s is not valid UTF-8", what)));
	converted = pg_any_to_server(b.data, b.len, PG_UTF8);
	if (converted == b.data)
		converted = pnstrdup(b.data, b.len);
	return converted;
}

/* A key or value from a producer as a datum of the column's type */
Datum
kafka_bytes_datum(Oid type, KafkaBytes b, const char *what)
{
	switch (type)
	{
		case BYTEAOID:
			{
				bytea	   *v = palloc(VARHDRSZ + b.len);

				SET_VARSIZE(v, VARHDRSZ + b.len);
				memcpy(VARDATA(v), b.data, b.len);
				return PointerGetDatum(v);
			}
		case TEXTOID:
			return CStringGetTextDatum(server_cstring(b, what));
		case JSONBOID:
			return DirectFunctionCall1(jsonb_in,
									   CStringGetDatum(server_cstring(b, what)));
		default:
			elog(ERROR, "unexpected topic column type %u", type);
	}
	return (Datum) 0;
}

/* A string JsonbValue holding b (text_compatible) */
static JsonbValue
string_value(KafkaBytes b)
{
	JsonbValue	v;
	char	   *s = pg_any_to_server(b.data, b.len, PG_UTF8);

	v.type = jbvString;
	v.val.string.val = s;
	v.val.string.len = s == b.data ? b.len : strlen(s);
	return v;
}

/* Push b as a string, null, or {"base64": ...} onto the jsonb being built */
static void
push_bytes(JsonbParseState **state, KafkaBytes b, JsonbIteratorToken token)
{
	JsonbValue	v;

	if (b.len < 0)
	{
		v.type = jbvNull;
		(void) pushJsonbValue(state, token, &v);
	}
	else if (text_compatible(b))
	{
		v = string_value(b);
		(void) pushJsonbValue(state, token, &v);
	}
	else
	{
		int			enclen = pg_b64_enc_len(b.len);
		char	   *enc = palloc(enclen + 1);
		JsonbValue	key;

		enclen = pg_b64_encode((const void *) b.data, b.len, enc, enclen);
		(void) pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		key.type = jbvString;
		key.val.string.val = "base64";
		key.val.string.len = 6;
		(void) pushJsonbValue(state, WJB_KEY, &key);
		v.type = jbvString;
		v.val.string.val = enc;
		v.val.string.len = enclen;
		(void) pushJsonbValue(state, WJB_VALUE, &v);
		(void) pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
}

/* Order headers by name: length first, then bytes (any total order will do) */
static int
header_name_cmp(const void *a, const void *b)
{
	const KafkaBytes *x = &((const KafkaHeader *) a)->key;
	const KafkaBytes *y = &((const KafkaHeader *) b)->key;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->data, y->data, x->len);
}

/*
 * Can headers take the object form (see the top of the file)?  Whether the
 * names are unique is found on a sorted copy, in O(n log n): a producer
 * sends as many headers as fit in its request.
 */
static bool
headers_fit_object(const KafkaHeader *headers, int n)
{
	KafkaHeader *sorted;
	bool		unique = true;

	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!text_compatible(headers[i].key) ||
			(headers[i].value.len >= 0 && !text_compatible(headers[i].value)))
			return false;
	}
	if (n < 2)
		return true;
	sorted = palloc_extended(sizeof(KafkaHeader) * n, MCXT_ALLOC_HUGE);
	memcpy(sorted, headers, sizeof(KafkaHeader) * n);
	qsort(sorted, n, sizeof(KafkaHeader), header_name_cmp);
	for (int i = 1; i < n && unique; i++)
		unique = header_name_cmp(&sorted[i - 1], &sorted[i]) != 0;
	pfree(sorted);
	return unique;
}

/*
 * Refuse headers whose jsonb would be over pg_topics.max_message_bytes,
 * before any work on them.  Either form holds every name and value's bytes
 * (base64 only adds) and at least 8 bytes of entries per header, so this
 * is a lower bound of its size: what passes here is still measured
 * exactly when the row is inserted.
 */
static void
check_headers_size(const KafkaHeader *headers, int n)
{
	Size		least = (Size) n * 2 * sizeof(JEntry);

	for (int i = 0; i < n; i++)
		least += headers[i].key.len + Max(headers[i].value.len, 0);
	if (least > (Size) pg_topics_max_message_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("headers of at least %zu bytes are larger than pg_topics.max_message_bytes (%d bytes)",
						least, pg_topics_max_message_bytes)));
}

/* A producer's headers as the headers column; false (null) if none */
bool
kafka_headers_datum(const KafkaHeader *headers, int n, Datum *result)
{
	JsonbParseState *state = NULL;
	JsonbValue *root;

	if (n == 0)
		return false;
	check_headers_size(headers, n);
	if (headers_fit_object(headers, n))
	{
		(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		for (int i = 0; i < n; i++)
		{
			JsonbValue	key = string_value(headers[i].key);

			CHECK_FOR_INTERRUPTS();
			(void) pushJsonbValue(&state, WJB_KEY, &key);
			push_bytes(&state, headers[i].value, WJB_VALUE);
		}
		root = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	else
	{
		(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
		for (int i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
			push_bytes(&state, headers[i].key, WJB_ELEM);
			push_bytes(&state, headers[i].value, WJB_ELEM);
			(void) pushJsonbValue(&state, WJB_END_ARRAY, NULL);
		}
		root = pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	}
	*result = JsonbPGetDatum(JsonbValueToJsonb(root));
	return true;
}

/* Server-encoded s (len bytes) as UTF-8 bytes */
static KafkaBytes
utf8_bytes(const char *s, int len)
{
	KafkaBytes	b;

	b.data = pg_server_to_any(s, len, PG_UTF8);
	b.len = b.data == s ? len : strlen(b.data);
	return b;
}

/* A stored key or value (not external, maybe compressed) as Kafka bytes */
KafkaBytes
kafka_datum_bytes(Oid type, struct varlena *stored)
{
	struct varlena *v = (struct varlena *) PG_DETOAST_DATUM_PACKED(PointerGetDatum(stored));

	switch (type)
	{
		case BYTEAOID:
			{
				KafkaBytes	b = {VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)};

				return b;
			}
		case TEXTOID:
			return utf8_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
		case JSONBOID:
			{
				Jsonb	   *jb = (Jsonb *) PG_DETOAST_DATUM(PointerGetDatum(v));
				char	   *s = JsonbToCString(NULL, &jb->root, VARSIZE(jb));

				return utf8_bytes(s, strlen(s));
			}
		default:
			elog(ERROR, "unexpected topic column type %u", type);
	}
	return (KafkaBytes) {NULL, -1};
}

/* A JsonbValue header name or value as bytes: string, null, base64 object */
static bool
value_bytes(JsonbValue *v, bool pair_form, KafkaBytes *out)
{
	switch (v->type)
	{
		case jbvNull:
			out->data = NULL;
			out->len = -1;
			return true;
		case jbvString:
			*out = utf8_bytes(v->val.string.val, v->val.string.len);
			return true;
		case jbvBinary:
			if (pair_form && JsonContainerIsObject(v->val.binary.data) &&
				JsonContainerSize(v->val.binary.data) == 1)
			{
				JsonbValue *enc = getKeyJsonValueFromContainer(v->val.binary.data,
															   "base64", 6, NULL);

				if (enc != NULL && enc->type == jbvString)
				{
					int			maxlen = pg_b64_dec_len(enc->val.string.len);
					char	   *dec = palloc(maxlen + 1);
					int			len = pg_b64_decode(enc->val.string.val,
												enc->val.string.len,
												(void *) dec, maxlen);

					if (len < 0)
						return false;
					out->data = dec;
					out->len = len;
					return true;
				}
			}
			/* FALLTHROUGH */
		default:
			{
				char	   *s;

				if (v->type == jbvBinary)
					s = JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
				else
				{
					Jsonb	   *scalar = JsonbValueToJsonb(v);

					s = JsonbToCString(NULL, &scalar->root, VARSIZE(scalar));
				}
				*out = utf8_bytes(s, strlen(s));
				return true;
			}
	}
}

/*
 * The headers column (stored, not external) as Kafka headers; returns how
 * many, with *headers palloc'd
 */
int
kafka_stored_headers(struct varlena *stored, KafkaHeader **headers)
{
	Jsonb	   *jb = (Jsonb *) PG_DETOAST_DATUM(PointerGetDatum(stored));
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = 0;
	int			cap;
	KafkaHeader *h;

	if (JB_ROOT_IS_SCALAR(jb) || JB_ROOT_COUNT(jb) == 0)
		return 0;
	cap = JB_ROOT_COUNT(jb);
	h = palloc(sizeof(KafkaHeader) * cap);
	it = JsonbIteratorInit(&jb->root);
	if (JB_ROOT_IS_OBJECT(jb))
	{
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				h[n].key = utf8_bytes(v.val.string.val, v.val.string.len);
			else if (tok == WJB_VALUE)
			{
				(void) value_bytes(&v, false, &h[n].value);
				n++;
			}
		}
	}
	else
	{
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			JsonbValue *name;
			JsonbValue *value;

			if (tok != WJB_ELEM)
				continue;
			/* only [name, value] pairs are headers */
			if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data) ||
				JsonContainerSize(v.val.binary.data) != 2)
				return 0;
			name = getIthJsonbValueFromContainer(v.val.binary.data, 0);
			value = getIthJsonbValueFromContainer(v.val.binary.data, 1);
			if (name->type == jbvNull ||
				!value_bytes(name, true, &h[n].key) ||
				!value_bytes(value, true, &h[n].value))
				return 0;
			n++;
		}
	}
	*headers = h;
	return n;
}
