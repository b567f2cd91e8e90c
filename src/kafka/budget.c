/*-------------------------------------------------------------------------
 *
 * budget.c
 *	  The memory budget of a Kafka listener process, and the checks a
 *	  request makes as it runs (see budget.h).
 *
 * What a client sends decides what a listener allocates: the frames it
 * buffers, the arrays a request's parse makes, the records a Produce
 * decodes, the answer a request writes, the answers a client does not
 * read.  pg_topics.kafka_listener_memory bounds their sum in each listener
 * process, by construction:
 *
 * - A connection's buffers count beyond KAFKA_CONN_BASE_BYTES (what any
 *   connection holds to read ahead and answer small requests, bounded by
 *   the connection limit).  A frame is read only once its buffer fits in
 *   what the budget has left; until then the connection is not read
 *   (kafka/listener.c), and it is read again when memory is given back.
 *   A frame larger than the whole budget closes the connection.
 * - A request's parse may allocate what is left (the reader's alloc_left,
 *   wire/schema.c), and so may a Produce partition's decoded records
 *   (kafka/produce.c); more fails the request, or the partition with a
 *   retriable error.
 * - Before a request's answer grows, kafka_write_hook checks that the
 *   growth fits, the request's working memory (its memory contexts and
 *   its transaction's) counted, and that the answer stays within
 *   pg_topics.kafka_max_request_bytes (an answer may be as large as a
 *   request may be).  Otherwise the request fails (53400 or 54000), which
 *   for a Produce partition is a Kafka error code and otherwise closes the
 *   connection (the client reconnects and tries again).  A handler that
 *   holds an LWLock is checked at its next write instead.
 *
 * The same hook processes interrupts every KAFKA_WRITE_HOOK_EVERY writes,
 * so that pg_terminate_backend and a shutdown end a long request rather
 * than wait for it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/budget.h"
#include "pg_topics/wire/codec.h"

/* what connections' buffers count, as last tracked */
static Size tracked = 0;
static bool given_back = false;

/* the running request: its connection and memory */
static KafkaConn *request_conn = NULL;
static MemoryContext request_context = NULL;
static int	answer_start = 0;

Size
kafka_budget_limit(void)
{
	return (Size) pg_topics_kafka_listener_memory * 1024;
}

/* What buffers of in_maxlen and out_maxlen bytes count */
static inline Size
buffers_count(Size in_maxlen, Size out_maxlen)
{
	Size		total = in_maxlen + out_maxlen;

	return total > KAFKA_CONN_BASE_BYTES ? total - KAFKA_CONN_BASE_BYTES : 0;
}

void
kafka_budget_track(KafkaConn *conn)
{
	Size		now = buffers_count(conn->in.maxlen, conn->out.maxlen);

	if (now < conn->budgeted)
		given_back = true;
	tracked = tracked - conn->budgeted + now;
	conn->budgeted = now;
}

void
kafka_budget_untrack(KafkaConn *conn)
{
	if (conn->budgeted > 0)
		given_back = true;
	tracked -= conn->budgeted;
	conn->budgeted = 0;
}

bool
kafka_budget_given_back(void)
{
	bool		was = given_back;

	given_back = false;
	return was;
}

/* What is in use: buffers, the running request's answer and memory */
static Size
in_use(void)
{
	Size		used = tracked;

	if (request_conn != NULL)
		used = used - request_conn->budgeted +
			buffers_count(request_conn->in.maxlen, request_conn->out.maxlen);
	if (request_context != NULL)
		used += MemoryContextMemAllocated(request_context, true);
	if (TopTransactionContext != NULL)
		used += MemoryContextMemAllocated(TopTransactionContext, true);
	return used;
}

bool
kafka_budget_fits(KafkaConn *conn, Size in_maxlen)
{
	Size		after = buffers_count(in_maxlen, conn->out.maxlen);

	return after <= conn->budgeted ||
		tracked - conn->budgeted + after <= kafka_budget_limit();
}

Size
kafka_budget_room(void)
{
	Size		used = in_use();
	Size		limit = kafka_budget_limit();

	return used >= limit ? 0 : limit - used;
}

Size
kafka_budget_answer_room(void)
{
	Size		answer = request_conn ?
		(Size) (request_conn->out.len - answer_start) : 0;
	Size		cap = (Size) pg_topics_kafka_max_request_bytes;

	cap = answer >= cap ? 0 : cap - answer;
	return Min(kafka_budget_room(), cap) / 2;
}

const char *
kafka_budget_describe(void)
{
	return psprintf("pg_topics.kafka_listener_memory is %d kB, of which %zu kB are in use.",
					pg_topics_kafka_listener_memory, in_use() / 1024);
}

/*
 * kafka_write_hook: before buf grows by more bytes, and every
 * KAFKA_WRITE_HOOK_EVERY writes
 */
static void
check_write(StringInfo buf, int more)
{
	Size		newmax;
	Size		before;
	Size		after;

	CHECK_FOR_INTERRUPTS();
	if (request_conn == NULL || buf != &request_conn->out ||
		buf->len + more < buf->maxlen)
		return;
	/* an LWLock held (or a critical section): at the next write */
	if (InterruptHoldoffCount > 0 || CritSectionCount > 0)
		return;
	if ((Size) (buf->len - answer_start) + more >
		(Size) pg_topics_kafka_max_request_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("Kafka answer larger than pg_topics.kafka_max_request_bytes (%d bytes)",
						pg_topics_kafka_max_request_bytes),
				 errdetail("An answer may be as large as a request may be.")));
	/* the size enlargeStringInfo will give it */
	newmax = buf->maxlen;
	while (newmax < (Size) buf->len + more + 1)
		newmax *= 2;
	before = buffers_count(request_conn->in.maxlen, buf->maxlen);
	after = buffers_count(request_conn->in.maxlen, newmax);
	if (after > before && in_use() + (after - before) > kafka_budget_limit())
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("Kafka answer needs more memory than pg_topics.kafka_listener_memory leaves"),
				 errdetail_internal("%s", kafka_budget_describe())));
}

void
kafka_budget_init(void)
{
	kafka_write_hook = check_write;
}

void
kafka_budget_request_begin(KafkaConn *conn, MemoryContext context)
{
	kafka_budget_track(conn);
	request_conn = conn;
	request_context = context;
	answer_start = conn->out.len;
}

void
kafka_budget_request_end(void)
{
	if (request_conn != NULL)
		kafka_budget_track(request_conn);
	request_conn = NULL;
	request_context = NULL;
}
