/*-------------------------------------------------------------------------
 *
 * expired_transactional_ids.c
 *	  Deleting the Kafka transactional ids unused for longer than
 *	  pg_topics.kafka_transactional_id_expiration.
 *
 * Every InitProducerId with a new transactional id makes a row of
 * topics.kafka_transactional_ids (kafka/transactions.c); without an end,
 * a client naming new ids would grow the table for ever.  Kafka expires
 * an id whose transaction is not open once transactional.id.expiration.ms
 * (7 days) passed since its last change, and so does this step of the
 * background worker's round: a row Empty, CompleteCommit or CompleteAbort
 * whose updated_at is older than the setting is deleted.  The id is then
 * new to its next InitProducerId (a new producer id, epoch 0); a producer
 * that still had the old producer id is answered
 * INVALID_PRODUCER_ID_MAPPING, as Kafka answers it.  A row another
 * transaction holds (a listener's request on it) is left to a later round,
 * and so is one whose producer still has a transaction slot (a request
 * that failed after claiming it: the slot is freed at its timeout).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/worker/expired_transactional_ids.h"

/*
 * The most ids one round deletes: the round's transaction stays short,
 * and the next round goes on with the rest
 */
#define EXPIRED_IDS_PER_ROUND	10000

/* in the round's transaction */
void
topic_expire_kafka_transactional_ids(void)
{
	TopicInternalSql state;
	Oid			argtypes[2] = {INT4OID, INT4OID};
	Datum		values[2];
	List	   *expired = NIL;
	ListCell   *lc;

	topic_internal_sql_begin(&state);
	/* a database whose extension is not updated to 0.3 has no such table */
	if (!topic_internal_relation_exists("kafka_transactional_ids"))
	{
		topic_internal_sql_end(&state);
		return;
	}
	values[0] = Int32GetDatum(pg_topics_kafka_transactional_id_expiration);
	values[1] = Int32GetDatum(EXPIRED_IDS_PER_ROUND);
	if (SPI_execute_with_args("SELECT transactional_id, producer_id "
							  "FROM topics.kafka_transactional_ids "
							  "WHERE state IN ('Empty', 'CompleteCommit', 'CompleteAbort') "
							  "AND updated_at < pg_catalog.now() - $1 * interval '1 ms' "
							  "LIMIT $2 FOR UPDATE SKIP LOCKED",
							  2, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.kafka_transactional_ids");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		int64		producer_id = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
		int16		epoch;

		if (kafka_txn_find_producer(producer_id, &epoch) >= 0)
			continue;
		expired = lappend(expired, SPI_getvalue(tup, desc, 1));
	}
	foreach(lc, expired)
	{
		Oid			idtype[1] = {TEXTOID};
		Datum		id[1];

		id[0] = CStringGetTextDatum((char *) lfirst(lc));
		if (SPI_execute_with_args("DELETE FROM topics.kafka_transactional_ids "
								  "WHERE transactional_id = $1",
								  1, idtype, id, NULL, false, 0) != SPI_OK_DELETE)
			elog(ERROR, "could not change topics.kafka_transactional_ids");
	}
	if (expired != NIL)
		ereport(DEBUG1,
				(errmsg("deleted %d Kafka transactional ids unused for longer than pg_topics.kafka_transactional_id_expiration",
						list_length(expired))));
	topic_internal_sql_end(&state);
}
