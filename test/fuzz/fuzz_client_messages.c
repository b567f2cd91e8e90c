/*-------------------------------------------------------------------------
 *
 * fuzz_client_messages.c
 *	  libFuzzer target over the wire layer's other parsers of what clients
 *	  send (make fuzz-wire): SCRAM's client messages, PLAIN's message, the
 *	  consumer protocol's subscriptions and assignments, and the codec's
 *	  readers as request parsers use them.
 *
 * The first byte chooses the parser; the rest is its input.  A SCRAM
 * exchange runs against a real secret (and a mock one), taking the input
 * up to a NUL as the client-first message and the rest as the
 * client-final message: neither may ever authenticate, since the proof
 * would have to match a password the fuzzer does not know.  Everything a
 * parser returns is freed here, and kafka_scram_free frees an exchange, so
 * LeakSanitizer reports anything a parser allocated and lost (the server
 * would not leak it, its memory contexts are reset, but a connection's
 * lives as long as the connection).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/consumer_protocol.h"
#include "pg_topics/wire/sasl.h"

/* the secret PostgreSQL 15 stores for a password the fuzzer never sees */
#define SECRET "SCRAM-SHA-256$4096:6nDmN27ukvIk4T61Z3Y1Lg==$KSnCemy87IEvphZbUvfLpTeyz9dJuUwYGnwUcW1zJ0k=:MllcSvqWH052EcwfDE6GA6spuC+xgclRGwT5ei+r+MY="
#define MOCK_NONCE "0123456789abcdef0123456789abcdef"

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

/* A SCRAM exchange of the two messages in data (split at the first NUL) */
static void
scram(const char *data, int len, const char *secret)
{
	const char *nul = memchr(data, '\0', len);
	int			first_len = nul ? (int) (nul - data) : len;
	KafkaScram *st = NULL;
	char	   *user = NULL;
	const char *error;
	StringInfoData out;

	initStringInfo(&out);
	if (kafka_scram_client_first(&st, data, first_len, MOCK_NONCE,
								 strlen(MOCK_NONCE), &user, &error)
		== KAFKA_SASL_CONTINUE &&
		kafka_scram_server_first(st, secret, &out, &error) == KAFKA_SASL_CONTINUE &&
		nul != NULL)
	{
		resetStringInfo(&out);
		if (kafka_scram_client_final(st, nul + 1, len - first_len - 1, &out,
									 &error) == KAFKA_SASL_SUCCESS)
			abort();			/* a proof nobody can compute */
	}
	kafka_scram_free(st);
	if (user != NULL)
		pfree(user);
	pfree(out.data);
}

/* Read data as a request body made of every kind of field, to the end */
static void
read_fields(const char *data, int len)
{
	KafkaReader r;

	kafka_reader_init(&r, data, len);
	while (!r.error && kafka_reader_remaining(&r) > 0)
	{
		switch (kafka_read_int8(&r) & 7)
		{
			case 0:
				(void) kafka_read_string(&r);
				break;
			case 1:
				(void) kafka_read_compact_string(&r);
				break;
			case 2:
				(void) kafka_read_bytes(&r);
				break;
			case 3:
				(void) kafka_read_array_len(&r, 4, NULL);
				break;
			case 4:
				(void) kafka_read_compact_array_len(&r, 1, NULL);
				break;
			case 5:
				kafka_skip_tagged_fields(&r);
				break;
			case 6:
				(void) kafka_read_varlong(&r);
				break;
			default:
				(void) kafka_read_uvarint(&r);
				break;
		}
		if (r.pos > r.len)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	const char *in = (const char *) data + 1;
	int			len = (int) size - 1;
	char	   *user;
	char	   *password;
	KafkaBytes *topics = NULL;
	KafkaTopicPartitions *assigned = NULL;
	int			n;

	if (size < 1)
		return 0;
	switch (data[0] % 6)
	{
		case 0:
			scram(in, len, SECRET);
			break;
		case 1:
			scram(in, len, NULL);
			break;
		case 2:
			if (kafka_plain_parse(in, len, &user, &password))
			{
				pfree(user);
				pfree(password);
			}
			else if (user != NULL || password != NULL)
				abort();
			break;
		case 3:
			n = kafka_subscription_topics(in, len, &topics);
			if ((n < 0) != (topics == NULL))
				abort();
			if (topics != NULL)
				pfree(topics);
			break;
		case 4:
			n = kafka_assignment_partitions(in, len, &assigned);
			if (n < 0 && assigned != NULL)
				abort();
			kafka_assignment_free(assigned, Max(n, 0));
			break;
		default:
			read_fields(in, len);
			break;
	}
	return 0;
}
