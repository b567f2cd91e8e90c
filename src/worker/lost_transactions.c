/*-------------------------------------------------------------------------
 *
 * lost_transactions.c
 *	  Ending the Kafka transactions that lost their PostgreSQL transaction.
 *
 * An open Kafka transaction is a PostgreSQL transaction held by its
 * transaction worker (kafka/txn_worker.c).  When the server crashes or
 * restarts, fails over, or the worker is terminated, that transaction
 * never commits, and nothing of it is visible; but its transactional id's
 * row in topics.kafka_transactional_ids still says Ongoing (or
 * PrepareAbort, when a newer producer was aborting it).  The listener
 * fences such a transaction's producer (kafka/transactions.c), and its
 * next InitProducerId ends it; this step of the background worker's round
 * ends those whose producer does not come back, once their
 * transaction.timeout.ms has passed since they began (as Kafka aborts an
 * abandoned transaction): CompleteAbort, at the next epoch (the producer
 * stays fenced; after epoch 32766 that is 32767, which is never handed out,
 * so that a producer is fenced at the last epoch too), with a line in the
 * log.  A transaction whose worker still
 * runs is left to it (it aborts at that timeout by itself).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "pg_topics/base/internal_sql.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/worker/lost_transactions.h"

/* in the round's transaction */
void
topic_end_lost_kafka_transactions(void)
{
	TopicInternalSql state;
	List	   *lost = NIL;
	ListCell   *lc;

	topic_internal_sql_begin(&state);
	/* a database whose extension is not updated to 0.3 has no such table */
	if (!topic_internal_relation_exists("kafka_transactional_ids"))
	{
		topic_internal_sql_end(&state);
		return;
	}
	if (SPI_execute("SELECT transactional_id, producer_id, producer_epoch, state "
					"FROM topics.kafka_transactional_ids "
					"WHERE state IN ('Ongoing', 'PrepareCommit', 'PrepareAbort') "
					"AND started_at + timeout_ms * interval '1 ms' < pg_catalog.now() "
					"FOR UPDATE SKIP LOCKED", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.kafka_transactional_ids");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		int64		producer_id = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
		int16		epoch = DatumGetInt16(SPI_getbinval(tup, desc, 3, &isnull));
		char	   *st = SPI_getvalue(tup, desc, 4);

		/* its worker still runs (a Prepare state's is one epoch older) */
		if (kafka_txn_find(producer_id, epoch) >= 0 ||
			(strcmp(st, "Ongoing") != 0 &&
			 kafka_txn_find(producer_id, epoch - 1) >= 0))
			continue;
		lost = lappend(lost, SPI_getvalue(tup, desc, 1));
	}
	foreach(lc, lost)
	{
		Oid			argtypes[1] = {TEXTOID};
		Datum		values[1];

		values[0] = CStringGetTextDatum((char *) lfirst(lc));
		if (SPI_execute_with_args("UPDATE topics.kafka_transactional_ids "
								  "SET state = 'CompleteAbort', partitions = '{}', groups = '{}', "
								  "producer_epoch = CASE WHEN state = 'Ongoing' "
								  "THEN LEAST(producer_epoch + 1, 32767) ELSE producer_epoch END, "
								  "last_producer_id = CASE WHEN state = 'Ongoing' "
								  "THEN -1 ELSE last_producer_id END, "
								  "last_producer_epoch = CASE WHEN state = 'Ongoing' "
								  "THEN -1 ELSE last_producer_epoch END, "
								  "updated_at = pg_catalog.now() "
								  "WHERE transactional_id = $1",
								  1, argtypes, values, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not change topics.kafka_transactional_ids");
		ereport(LOG,
				(errmsg("aborted Kafka transaction of transactional id \"%s\" that lost its PostgreSQL transaction",
						(char *) lfirst(lc)),
				 errdetail("The server restarted, or its transaction worker was terminated, before its EndTxn; nothing of it was committed.")));
	}
	topic_internal_sql_end(&state);
}
