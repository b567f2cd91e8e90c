/*-------------------------------------------------------------------------
 *
 * transactions_admin.c
 *	  DescribeTransactions (v0) and ListTransactions (v0-1): Kafka's
 *	  transactional ids and their transactions, as admin tools ask
 *	  (kafka-transactions.sh, Kafka's AdminClient).
 *
 * Both answer from the view topics.kafka_transactions, read as the
 * request's role (the connection's): the view shows the ids of the roles
 * that role is a member of, so a client sees of other roles' transactions
 * what a SQL session of its role would, nothing.  A role owns the ids it
 * used first (InitProducerId), as it owns its producer ids.
 *
 * DescribeTransactions answers each id asked for, in order, duplicates
 * included, as Kafka does: an id of the caller's roles with its state
 * (Kafka's names: Empty, Ongoing, PrepareCommit, ...), timeout, the start
 * of its transaction in Unix milliseconds (-1: none has started), producer
 * id and epoch, and the partitions its transaction added, by topic, of the
 * topics the role may describe (SELECT or INSERT; Kafka leaves out the
 * topics a principal may not DESCRIBE).  Another role's id is
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED (its existence is learnt from the
 * view read as the extension, which shows every row), an id nobody has
 * used TRANSACTIONAL_ID_NOT_FOUND, an empty one INVALID_REQUEST.  The
 * other fields of an answer with an error are Kafka's zeros and "".
 *
 * ListTransactions lists the ids of the caller's roles, filtered as Kafka
 * filters them: by state (a name Kafka does not know is answered back in
 * UnknownStateFilters and matches nothing), by producer id, and from v1 by
 * DurationFilter: transactions that started more than that many
 * milliseconds ago (an id with no transaction started is not listed).
 * Rows are read through a cursor, a batch at a time, so that a long list
 * stops at the listener's memory budget rather than past it.
 *
 * A node that refuses writes (fence.c) coordinates no transaction: as a
 * Kafka broker that is not the coordinator, it answers DescribeTransactions
 * NOT_COORDINATOR for each id it would otherwise describe (the AdminClient
 * then looks for the coordinator again) and ListTransactions an empty list
 * (Kafka's admin client asks every broker and joins their lists: a broker
 * coordinating nothing lists nothing).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/wire/msg_describe_transactions.h"
#include "pg_topics/wire/msg_list_transactions.h"
#include "pg_topics/wire/protocol.h"

/* rows ListTransactions reads at a time */
#define LIST_BATCH_ROWS		256

/* Kafka 3.9's transaction states (TransactionState.fromName knows these) */
static const char *const transaction_states[] = {
	"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit",
	"CompleteAbort", "Dead", "PrepareEpochFence"
};

/*
 * the rows of the ids asked for, numbered by their place in $1 (from 1);
 * the casts make the columns' types the ones read below
 */
static const char describe_sql[] =
"SELECT a.i, t.state::pg_catalog.text, t.timeout_ms::pg_catalog.int4,"
" t.started_at::pg_catalog.timestamptz, t.producer_id::pg_catalog.int8,"
" t.producer_epoch::pg_catalog.int2, t.partitions::pg_catalog.text[]"
" FROM pg_catalog.unnest($1::pg_catalog.text[]) WITH ORDINALITY AS a(id, i)"
" JOIN topics.kafka_transactions t ON t.transactional_id OPERATOR(pg_catalog.=) a.id";

/* which of the ids of $1 some role has used (read as the extension) */
static const char exists_sql[] =
"SELECT a.i"
" FROM pg_catalog.unnest($1::pg_catalog.text[]) WITH ORDINALITY AS a(id, i)"
" WHERE EXISTS (SELECT FROM topics.kafka_transactions t"
" WHERE t.transactional_id OPERATOR(pg_catalog.=) a.id)";

/*
 * the ids listed: $1 no state filter, $2 the states asked for that Kafka
 * knows, $3 the producer ids (none: any), $4 started before (null: any)
 */
static const char list_sql[] =
"SELECT t.transactional_id::pg_catalog.text, t.producer_id::pg_catalog.int8,"
" t.state::pg_catalog.text"
" FROM topics.kafka_transactions t"
" WHERE ($1 OR t.state OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.text[]))"
" AND (pg_catalog.cardinality($3::pg_catalog.int8[]) OPERATOR(pg_catalog.=) 0"
" OR t.producer_id OPERATOR(pg_catalog.=) ANY ($3::pg_catalog.int8[]))"
" AND ($4::pg_catalog.timestamptz IS NULL"
" OR t.started_at OPERATOR(pg_catalog.<) $4::pg_catalog.timestamptz)"
" ORDER BY t.transactional_id";

/* Can b be a transactional id (text of the database's encoding, no NUL)? */
static bool
id_can_exist(KafkaBytes b)
{
	return b.len > 0 && memchr(b.data, '\0', b.len) == NULL &&
		pg_verifymbstr(b.data, b.len, true);
}

/* A text[] of n strings */
static Datum
text_array(KafkaBytes *items, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		elems[i] = PointerGetDatum(cstring_to_text_with_len(items[i].data,
															items[i].len));
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
										   TYPALIGN_INT));
}

/* Connect to SPI, our SQL's settings pinned; the caller stays who it is */
static int
spi_begin(void)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	return topic_internal_settings_pin();
}

static void
spi_end(int nestlevel)
{
	topic_internal_settings_restore(nestlevel);
	SPI_finish();
}

/* ---- DescribeTransactions ---- */

/* A topic of a described transaction being collected */
typedef struct TopicParts
{
	char	   *name;
	bool		allowed;
	int32		n;
	int32		room;
	int32	   *partitions;
} TopicParts;

/*
 * The partitions of a transaction (a text[] of "topic/partition", or
 * null) as Kafka's topics and their partitions, of the topics the role may
 * describe, in the order they come
 */
static void
fill_topics(KafkaDescribedTransaction *d, Datum partitions, bool isnull)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	TopicParts *topics;
	int			ntopics = 0;

	if (isnull)
		return;
	deconstruct_array(DatumGetArrayTypeP(partitions), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &n);
	topics = palloc0(sizeof(TopicParts) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		char	   *s;
		char	   *slash;
		char	   *end;
		long		partition;
		TopicParts *t = NULL;

		if (nulls[i])
			continue;
		s = TextDatumGetCString(elems[i]);
		slash = strrchr(s, '/');
		if (slash == NULL || slash == s || slash[1] == '\0')
			continue;
		errno = 0;
		partition = strtol(slash + 1, &end, 10);
		if (errno != 0 || *end != '\0' || partition < 0 || partition > PG_INT32_MAX)
			continue;
		*slash = '\0';
		for (int j = 0; j < ntopics && t == NULL; j++)
			if (strcmp(topics[j].name, s) == 0)
				t = &topics[j];
		if (t == NULL)
		{
			Oid			relid = topic_kafka_lookup(s, (int) strlen(s));

			t = &topics[ntopics++];
			t->name = s;
			t->allowed = OidIsValid(relid) &&
				kafka_topic_allowed(relid, ACL_SELECT | ACL_INSERT);
			t->room = 4;
			t->partitions = palloc(sizeof(int32) * t->room);
		}
		if (t->n == t->room)
		{
			t->room *= 2;
			t->partitions = repalloc(t->partitions, sizeof(int32) * t->room);
		}
		t->partitions[t->n++] = (int32) partition;
	}
	d->topics = palloc0(sizeof(KafkaDescribedTransactionTopic) * Max(ntopics, 1));
	for (int j = 0; j < ntopics; j++)
	{
		KafkaDescribedTransactionTopic *out;

		if (!topics[j].allowed)
			continue;
		out = &d->topics[d->ntopics++];
		out->topic = kafka_bytes_of(topics[j].name);
		out->npartitions = topics[j].n;
		out->partitions = topics[j].partitions;
	}
}

/* The described row of SPI_tuptable's row r into d */
static void
fill_described(KafkaDescribedTransaction *d, int r, MemoryContext outer)
{
	HeapTuple	tuple = SPI_tuptable->vals[r];
	TupleDesc	desc = SPI_tuptable->tupdesc;
	MemoryContext spi = MemoryContextSwitchTo(outer);
	bool		isnull;
	Datum		value;

	value = SPI_getbinval(tuple, desc, 2, &isnull);
	d->transaction_state = kafka_bytes_of(isnull ? "" : TextDatumGetCString(value));
	value = SPI_getbinval(tuple, desc, 3, &isnull);
	d->transaction_timeout_ms = isnull ? 0 : DatumGetInt32(value);
	value = SPI_getbinval(tuple, desc, 4, &isnull);
	if (isnull || TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(value)))
		d->transaction_start_time_ms = -1;
	else
		d->transaction_start_time_ms = kafka_timestamp_ms(DatumGetTimestampTz(value));
	value = SPI_getbinval(tuple, desc, 5, &isnull);
	d->producer_id = isnull ? -1 : DatumGetInt64(value);
	value = SPI_getbinval(tuple, desc, 6, &isnull);
	d->producer_epoch = isnull ? -1 : DatumGetInt16(value);
	value = SPI_getbinval(tuple, desc, 7, &isnull);
	fill_topics(d, value, isnull);
	MemoryContextSwitchTo(spi);
}

/* The place (from 1) in $1 of SPI_tuptable's row r (its first column) */
static int
row_place(int r)
{
	bool		isnull;
	Datum		value = SPI_getbinval(SPI_tuptable->vals[r],
									  SPI_tuptable->tupdesc, 1, &isnull);

	return isnull ? 0 : (int) DatumGetInt64(value);
}

/*
 * DescribeTransactions v0: each id asked for, as the file's header says
 */
KafkaOutcome
kafka_describe_transactions(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDescribeTransactionsRequest dr;
	KafkaDescribeTransactionsResponse out = {0};
	bool		fenced = kafka_node_fenced();
	KafkaBytes *asked;
	int		   *asked_at;		/* $1's places: the request's index */
	bool	   *seen;
	int			nasked = 0;
	int			nmissing = 0;
	MemoryContext outer = CurrentMemoryContext;

	if (!kafka_decode(&req->body, &kafka_describe_transactions_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;
	out.ntransaction_states = dr.ntransactional_ids;
	out.transaction_states =
		palloc0(sizeof(KafkaDescribedTransaction) * Max(dr.ntransactional_ids, 1));
	asked = palloc(sizeof(KafkaBytes) * Max(dr.ntransactional_ids, 1));
	asked_at = palloc(sizeof(int) * Max(dr.ntransactional_ids, 1));
	seen = palloc0(sizeof(bool) * Max(dr.ntransactional_ids, 1));
	for (int32 i = 0; i < dr.ntransactional_ids; i++)
	{
		KafkaDescribedTransaction *d = &out.transaction_states[i];

		d->transactional_id = dr.transactional_ids[i];
		d->transaction_state = kafka_bytes_of("");
		if (dr.transactional_ids[i].len == 0)
			d->error_code = KAFKA_INVALID_REQUEST;
		else if (!id_can_exist(dr.transactional_ids[i]))
			d->error_code = fenced ? KAFKA_NOT_COORDINATOR :
				KAFKA_TRANSACTIONAL_ID_NOT_FOUND;
		else
		{
			asked_at[nasked] = i;
			asked[nasked++] = dr.transactional_ids[i];
		}
	}

	if (nasked > 0)
	{
		Datum		ids = text_array(asked, nasked);
		Oid			argtype = TEXTARRAYOID;
		int			nestlevel;

		/* the caller's rows, as the view shows them to it */
		nestlevel = spi_begin();
		if (SPI_execute_with_args(describe_sql, 1, &argtype, &ids, NULL, true,
								  0) != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_with_args failed for DescribeTransactions");
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			int			place = row_place((int) r);
			KafkaDescribedTransaction *d;

			CHECK_FOR_INTERRUPTS();
			if (place < 1 || place > nasked)
				continue;
			seen[place - 1] = true;
			d = &out.transaction_states[asked_at[place - 1]];
			if (fenced)
				d->error_code = KAFKA_NOT_COORDINATOR;
			else
				fill_described(d, (int) r, outer);
		}
		spi_end(nestlevel);

		/* the others: another role's, or nobody's */
		for (int j = 0; j < nasked; j++)
			if (!seen[j])
			{
				asked[nmissing] = asked[j];
				asked_at[nmissing++] = asked_at[j];
			}
	}

	if (nmissing > 0)
	{
		Datum		ids = text_array(asked, nmissing);
		Oid			argtype = TEXTARRAYOID;
		TopicInternalSql state;

		for (int j = 0; j < nmissing; j++)
			out.transaction_states[asked_at[j]].error_code =
				fenced ? KAFKA_NOT_COORDINATOR : KAFKA_TRANSACTIONAL_ID_NOT_FOUND;
		topic_internal_sql_begin(&state);
		if (SPI_execute_with_args(exists_sql, 1, &argtype, &ids, NULL, true,
								  0) != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_with_args failed for DescribeTransactions");
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			int			place = row_place((int) r);

			if (place >= 1 && place <= nmissing)
				out.transaction_states[asked_at[place - 1]].error_code =
					KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
		}
		topic_internal_sql_end(&state);
	}

	kafka_encode(req->response, &kafka_describe_transactions_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}

/* ---- ListTransactions ---- */

/* Kafka's name of the state filter f, or NULL if Kafka knows no such state */
static const char *
known_state(KafkaBytes f)
{
	for (int i = 0; i < lengthof(transaction_states); i++)
		if (kafka_bytes_equal(f, transaction_states[i]))
			return transaction_states[i];
	return NULL;
}

/*
 * $4 of list_sql: transactions started before now less duration_ms;
 * false if none can have (a duration reaching before any timestamp)
 */
static bool
started_before(int64 duration_ms, TimestampTz *before)
{
	int64		us;

	if (pg_mul_s64_overflow(duration_ms, 1000, &us) ||
		pg_sub_s64_overflow(GetCurrentTimestamp(), us, before) ||
		*before < MIN_TIMESTAMP)
		return false;
	return true;
}

/*
 * ListTransactions v0-1: the ids of the caller's roles, filtered, as the
 * file's header says
 */
KafkaOutcome
kafka_list_transactions(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaListTransactionsRequest lr;
	KafkaListTransactionsResponse out = {0};
	KafkaBytes *known;
	int			nknown = 0;
	int32		room = 0;
	TimestampTz before = 0;
	bool		none = false;
	MemoryContext outer = CurrentMemoryContext;

	if (!kafka_decode(&req->body, &kafka_list_transactions_request,
					  req->api_version, &lr))
		return KAFKA_CLOSE;

	/* the state filters: Kafka's states, and the others answered back */
	known = palloc(sizeof(KafkaBytes) * Max(lr.nstate_filters, 1));
	out.unknown_state_filters = palloc(sizeof(KafkaBytes) * Max(lr.nstate_filters, 1));
	for (int32 i = 0; i < lr.nstate_filters; i++)
	{
		const char *state = known_state(lr.state_filters[i]);

		if (state != NULL)
			known[nknown++] = kafka_bytes_of(state);
		else
			out.unknown_state_filters[out.nunknown_state_filters++] =
				lr.state_filters[i];
	}
	if (lr.duration_filter >= 0 && !started_before(lr.duration_filter, &before))
		none = true;

	if (!kafka_node_fenced() && !none)
	{
		Oid			argtypes[4] = {BOOLOID, TEXTARRAYOID, INT8ARRAYOID, TIMESTAMPTZOID};
		Datum		values[4];
		char		nulls[4] = {' ', ' ', ' ', ' '};
		Datum	   *pids = palloc(sizeof(Datum) * Max(lr.nproducer_id_filters, 1));
		Portal		portal;
		int			nestlevel;

		for (int32 i = 0; i < lr.nproducer_id_filters; i++)
			pids[i] = Int64GetDatum(lr.producer_id_filters[i]);
		values[0] = BoolGetDatum(lr.nstate_filters == 0);
		values[1] = text_array(known, nknown);
		values[2] = PointerGetDatum(construct_array(pids, lr.nproducer_id_filters,
													INT8OID, sizeof(int64),
													FLOAT8PASSBYVAL,
													TYPALIGN_DOUBLE));
		values[3] = TimestampTzGetDatum(before);
		if (lr.duration_filter < 0)
			nulls[3] = 'n';

		nestlevel = spi_begin();
		portal = SPI_cursor_open_with_args(NULL, list_sql, 4, argtypes, values,
										   nulls, true, 0);
		for (;;)
		{
			MemoryContext spi;

			SPI_cursor_fetch(portal, true, LIST_BATCH_ROWS);
			if (SPI_processed == 0)
				break;
			spi = MemoryContextSwitchTo(outer);
			if (out.ntransaction_states + (int64) SPI_processed > room)
			{
				room = Max(room * 2, out.ntransaction_states + (int32) SPI_processed);
				out.transaction_states = out.transaction_states == NULL ?
					palloc(sizeof(KafkaListedTransaction) * room) :
					repalloc(out.transaction_states,
							 sizeof(KafkaListedTransaction) * room);
			}
			for (uint64 r = 0; r < SPI_processed; r++)
			{
				HeapTuple	tuple = SPI_tuptable->vals[r];
				TupleDesc	desc = SPI_tuptable->tupdesc;
				KafkaListedTransaction *t =
					&out.transaction_states[out.ntransaction_states++];
				bool		isnull;
				Datum		value;

				value = SPI_getbinval(tuple, desc, 1, &isnull);
				t->transactional_id = kafka_bytes_of(isnull ? "" :
													 TextDatumGetCString(value));
				value = SPI_getbinval(tuple, desc, 2, &isnull);
				t->producer_id = isnull ? -1 : DatumGetInt64(value);
				value = SPI_getbinval(tuple, desc, 3, &isnull);
				t->transaction_state = kafka_bytes_of(isnull ? "" :
													  TextDatumGetCString(value));
			}
			MemoryContextSwitchTo(spi);
			SPI_freetuptable(SPI_tuptable);

			/*
			 * what the rows take counts against the listener's budget: stop
			 * here rather than read on past it
			 */
			if (kafka_budget_room() == 0)
				ereport(ERROR,
						(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
						 errmsg("Kafka answer needs more memory than pg_topics.kafka_listener_memory leaves"),
						 errdetail_internal("%s", kafka_budget_describe())));
			CHECK_FOR_INTERRUPTS();
		}
		SPI_cursor_close(portal);
		spi_end(nestlevel);
	}

	out.error_code = KAFKA_NONE;
	kafka_encode(req->response, &kafka_list_transactions_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}
