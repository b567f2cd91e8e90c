/*-------------------------------------------------------------------------
 *
 * fuzz_requests.c
 *	  libFuzzer target over the schema codec's decoder of the requests
 *	  (wire/schema.c, wire/messages.h), with the MessageSets of Produce
 *	  v0-2 (wire/message_set.c; make fuzz-wire).
 *
 * An input is what follows a request's size up to its correlation id (the
 * API key and version, int16 each, as a request header starts), then the
 * body.  Versions outside a message's range must be refused.  The body is
 * copied to an allocation of its own size, so that AddressSanitizer
 * catches a read on either side of it.  Whatever the parser returns, every
 * string and byte string its struct holds is checked to lie in the body
 * and read byte by byte, and every array it allocated is freed: the
 * parsers leave their memory to the server's per-request context, which
 * frontend code does not have, so the walk frees it instead, and
 * LeakSanitizer then reports anything a parser allocated and did not hang
 * on its struct.  Each input is parsed twice: without a limit on what the
 * parser may allocate, and within one of up to three times the body's size
 * (the reader's alloc_left, as the server sets it from its memory budget).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "pg_topics/wire/message_set.h"
#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/protocol.h"

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

/* the body being parsed, for the walk's bounds */
static const char *body;
static int	body_len;
static volatile uint8 sink;


/* A string or byte string must be null or lie in the body: read it all */
static void
touch(KafkaBytes b)
{
	uint8		sum = 0;

	if (b.len == -1 && b.data == NULL)
		return;
	if (b.len < 0 || (b.len > 0 && (b.data < body || b.data > body + body_len ||
									b.len > body + body_len - b.data)))
		abort();
	for (int32 i = 0; i < b.len; i++)
		sum += (uint8) b.data[i];
	sink += sum;
}

static void
free_array(void *array, int32 n)
{
	if ((array == NULL) != (n == 0) || n < 0)
		abort();
	if (array != NULL)
		pfree(array);
}

/*
 * A struct the schema codec decoded (schema.h): every string in the body,
 * every array freed, its count telling its elements (-1: null)
 */
static void
walk_struct(const KafkaSchema *s, char *p)
{
	for (int i = 0; i < s->nfields; i++)
	{
		const KafkaField *f = &s->fields[i];
		int32		n = f->array ? *(int32 *) (p + f->count_offset) : 1;
		char	   *elements = f->array ? *(char **) (p + f->offset) : p + f->offset;
		Size		size = f->type == KAFKA_TYPE_STRUCT ? f->schema->size :
			f->type == KAFKA_TYPE_STRING || f->type == KAFKA_TYPE_BYTES ?
			sizeof(KafkaBytes) : f->type == KAFKA_TYPE_RECORDS ?
			sizeof(KafkaRecords) : 0;

		if (f->array && n == -1)
		{
			if (elements != NULL)
				abort();
			continue;
		}
		for (int32 j = 0; j < n; j++)
		{
			if (f->type == KAFKA_TYPE_STRUCT)
				walk_struct(f->schema, elements + j * size);
			else if (f->type == KAFKA_TYPE_STRING || f->type == KAFKA_TYPE_BYTES)
				touch(*(KafkaBytes *) (elements + j * size));
			else if (f->type == KAFKA_TYPE_RECORDS)
				touch(((KafkaRecords *) (elements + j * size))->bytes);
		}
		if (f->array)
			free_array(elements, n);
	}
}

/*
 * A MessageSet read into records: every key and value in it (or in what a
 * wrapper inflated to), everything freed
 */
static void
walk_message_set(KafkaBytes set)
{
	KafkaBatches batches;

	if (kafka_message_set_decode(set.data, set.len, (Size) set.len * 8 + 4096,
								 &batches) != 0)
	{
		if (batches.nbatches != 0 || batches.error_message == NULL)
			abort();
		return;
	}
	for (int b = 0; b < batches.nbatches; b++)
	{
		KafkaRecordBatch *batch = &batches.batches[b];

		for (int i = 0; i < batch->nrecords; i++)
		{
			KafkaRecord *rec = &batch->records[i];
			uint8		sum = 0;

			if (rec->nheaders != 0 || rec->offset_delta != i)
				abort();
			for (int32 j = 0; j < rec->key.len; j++)
				sum += (uint8) rec->key.data[j];
			for (int32 j = 0; j < rec->value.len; j++)
				sum += (uint8) rec->value.data[j];
			sink += sum;
		}
	}
	kafka_batches_free(&batches);
}

/* One parser: parse, walk what it returned, free it; true if it parsed */
static bool
run(int16 key, int16 version, KafkaReader *r)
{
	bool		ok;

	switch (key)
	{
		case KAFKA_API_PRODUCE:
			{
				/*
				 * on the schema codec; the records of v0-2 go through the
				 * MessageSet reader, which must stay in them too
				 */
				KafkaProduceRequest x;

				ok = kafka_decode(r, &kafka_produce_request, version, &x);
				for (int32 t = 0; ok && version < 3 && t < x.ntopic_data; t++)
					for (int32 p = 0; p < x.topic_data[t].npartition_data; p++)
					{
						KafkaBytes	rec = x.topic_data[t].partition_data[p].records.bytes;

						if (rec.len > 0)
							walk_message_set(rec);
					}
				walk_struct(kafka_produce_request.body, (char *) &x);
				break;
			}
		default:
			{
				const KafkaMessage *m = kafka_request_message(key);
				void	   *x;

				if (m == NULL)
					return false;
				x = palloc(m->body->size);
				ok = kafka_decode(r, m, version, x);
				walk_struct(m->body, x);
				pfree(x);
				break;
			}
	}
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	int16		key;
	int16		version;
	int16		min;
	int16		max;
	char	   *copy;
	KafkaReader r;
	bool		ok;

	if (size < 4 || size > 1024 * 1024)
		return 0;
	key = (int16) ((data[0] << 8) | data[1]);
	version = (int16) ((data[2] << 8) | data[3]);
	if (kafka_request_message(key) != NULL)
	{
		min = kafka_request_message(key)->min_version;
		max = kafka_request_message(key)->max_version;
	}
	else
		return 0;
	body_len = (int) size - 4;
	copy = palloc(Max(body_len, 1));
	memcpy(copy, data + 4, body_len);
	body = copy;

	kafka_reader_init(&r, body, body_len);
	ok = run(key, version, &r);
	if (ok && (version < min || version > max))
		abort();				/* a version no parser reads */
	if (ok && (r.error || r.pos > r.len))
		abort();
	if (r.over_budget)
		abort();				/* no limit was set */

	/*
	 * Again within a memory budget of about the body's size, as the server
	 * sets one: a parse that runs out of it fails, its struct as walkable
	 * as after any failure
	 */
	kafka_reader_init(&r, body, body_len);
	r.alloc_left = (Size) body_len * (data[size - 1] % 4);
	ok = run(key, version, &r);
	if (ok && (r.error || r.over_budget))
		abort();
	pfree(copy);
	return 0;
}
