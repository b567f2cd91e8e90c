/*-------------------------------------------------------------------------
 *
 * produce.c
 *	  Produce (v0-11): records from a Kafka producer into topics.
 *
 * v3 and later carry record batches (magic 2); v0-2 carry MessageSets of
 * magic 0 or 1 (wire/message_set.c), converted to the same records
 * (without headers, which those formats lack) and checked by the same
 * rules, so an old client's records are stored as a new one's.
 *
 * A request's partitions go in one transaction, each in a subtransaction
 * of its own, so that one partition's error (a record that is not valid
 * JSON for a jsonb topic, a value over pg_topics.max_message_bytes) fails
 * that partition's records and nothing else, as in Kafka.  The records go
 * to the access method as slots, as topics.produce_batch's do, through a
 * writer that gives a batch dense offsets (writer/writer.c), 1024 at a time.
 * The log assigns offsets and the log-append time, which the response
 * returns.
 *
 * acks decides the commit: 0 answers nothing, 1 commits with
 * synchronous_commit = local (the leader has it), -1 (all) commits as the
 * server is set up, which waits for the synchronous standbys as Kafka's
 * acks=all waits for the in-sync replicas; pg_topics.min_insync_replicas
 * refuses records (NOT_ENOUGH_REPLICAS) when too few are streaming.
 *
 * An idempotent producer's batch sent again is answered with the offset it
 * was stored at and not stored twice (shared/kafka_producers.c).  Its
 * producer id is bound to the role that got it from InitProducerId (the
 * role every request of the connection runs as): a batch with another
 * role's id is refused for its partition, and nothing of it is stored.
 * A node that refuses writes (fence.c) stores nothing and answers every
 * partition NOT_LEADER_OR_FOLLOWER, which producers retry wherever
 * Metadata then names the leader.
 * A transactional producer's Produce goes into its open transaction
 * (transactions.c): the listener checks the transactional id and hands
 * the request to the transaction's worker (txn_worker.c), which runs it
 * here (kafka_txn_produce), each partition as above, in the transaction
 * that EndTxn commits or aborts.  A partition not added to the transaction
 * (AddPartitionsToTxn) is refused INVALID_TXN_STATE, a batch of an older
 * epoch INVALID_PRODUCER_EPOCH, as Kafka 3.9 answers them.  Transactional
 * batches outside a transactional Produce are refused
 * (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/producer_log.h"
#include "pg_topics/kafka/record_map.h"
#include "pg_topics/kafka/transactions.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/kafka_producers.h"
#include "pg_topics/wire/message_set.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/msg_init_producer_id.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/record_batch.h"
#include "pg_topics/writer/writer.h"

/*
 * Records converted and appended at a time.  A batch's offsets are dense
 * whatever the chunks (the writer keeps the tail locked between them), so
 * the chunk is small: its slots and datums stay in memory already touched,
 * where 8,192 slots made fresh memory, and page faults, for every request
 * (a third of the listener's time with kcat's batches)
 */
#define PRODUCE_CHUNK_RECORDS	1024

/* An idempotent producer's batch in flight in this transaction, for its end */
typedef struct PendingBatch
{
	Oid			relid;
	int64		producer_id;
	int32		first_seq;
	int64		base_offset;
	int64		timestamp;
} PendingBatch;

/* the transaction's idempotent batches, in the order written */
static List *pending = NIL;

/*
 * The request's transaction ended: its idempotent batches are stored (or
 * not), and a retry of one is answered (or written) from now on
 */
static void
end_pending_batches(XactEvent event, void *arg)
{
	ListCell   *lc;
	bool		committed;

	if (event == XACT_EVENT_COMMIT)
		committed = true;
	else if (event == XACT_EVENT_ABORT)
		committed = false;
	else
		return;
	foreach(lc, pending)
	{
		PendingBatch *pb = lfirst(lc);

		kafka_producer_end(pb->relid, pb->producer_id, pb->first_seq,
						   committed, pb->base_offset, pb->timestamp);
	}
	list_free_deep(pending);
	pending = NIL;
}

/*
 * Remember an idempotent batch about to be checked, for the end of its
 * transaction: listed before kafka_producer_begin can put it in flight, so
 * that however the transaction ends (an error, or the process exiting on
 * FATAL while it waits for a lock), the batch is not left in flight
 */
static PendingBatch *
add_pending_batch(Oid relid, KafkaRecordBatch *batch)
{
	static bool registered = false;
	MemoryContext oldcontext = MemoryContextSwitchTo(TopMemoryContext);
	PendingBatch *pb = palloc0(sizeof(PendingBatch));

	if (!registered)
	{
		RegisterXactCallback(end_pending_batches, NULL);
		registered = true;
	}
	pb->relid = relid;
	pb->producer_id = batch->producer_id;
	pb->first_seq = batch->base_sequence;
	pending = lappend(pending, pb);
	MemoryContextSwitchTo(oldcontext);
	return pb;
}

/* Forget the batch add_pending_batch listed last: it is not in flight */
static void
drop_last_pending_batch(void)
{
	PendingBatch *pb = llast(pending);

	pending = list_delete_last(pending);
	pfree(pb);
}

/*
 * The partitions (relation OIDs) this transaction worker's Kafka
 * transaction wrote a batch to: only the first batch of a partition in a
 * transaction may follow a gap in its producer's sequence numbers
 * (kafka_producer_begin).  A worker may serve several transactions of its
 * producer, one after the other: kafka_txn_produce_begin empties it as
 * each begins.
 */
static List *txn_partitions_written = NIL;

/* A transaction worker's Kafka transaction begins: it wrote nothing yet */
void
kafka_txn_produce_begin(void)
{
	list_free(txn_partitions_written);
	txn_partitions_written = NIL;
}

/* One partition of a Produce request, and what became of it */
typedef struct PartitionProduce
{
	Relation	topic;
	int32		partition;
	KafkaBatches batches;
	/* an idempotent producer's batch: its description, for the log */
	bool		idempotent;
	TopicBatchProducerData producer;
	/* the outcome */
	int64		base_offset;
	int64		log_append_time;	/* ms since the Unix epoch */
	int64		log_start_offset;
	int			nkeyless;		/* refused: records without a key, so many */
	/* their indexes in the partition's records */
	int32	   *keyless_index;
} PartitionProduce;

/*
 * Write one partition's decoded records (run guarded).  A Kafka batch gets
 * dense offsets, whatever the other writers of the partition do and
 * wherever its segment fills (a dense writer), since the answer gives only
 * its first offset and the client numbers the rest from it.  Its records
 * are converted and appended a chunk at a time, so that what is held at
 * once stays bounded however many records the batch has.
 */
static void
write_partition(void *arg)
{
	PartitionProduce *pp = (PartitionProduce *) arg;
	Relation	router = topic_open_partition_for_insert(pp->topic, pp->partition);
	Oid			key_type = topic_column_type(pp->topic, Anum_topic_key);
	Oid			value_type = topic_column_type(pp->topic, Anum_topic_value);
	int			cap = (int) Min(pp->batches.nrecords, PRODUCE_CHUNK_RECORDS);
	TupleDesc	desc = CreateTupleDescCopy(RelationGetDescr(pp->topic));
	TupleTableSlot **slots = palloc(sizeof(TupleTableSlot *) * cap);
	CommandId	cid = GetCurrentCommandId(true);
	MemoryContext chunk_context;
	int			n = 0;
	TopicLogEnd end;
	TopicWriterOptions options;
	TopicWriter *writer;

	for (int i = 0; i < cap; i++)
		slots[i] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	chunk_context = AllocSetContextCreate(CurrentMemoryContext,
										  "Kafka produce chunk",
										  ALLOCSET_DEFAULT_SIZES);
	pp->base_offset = -1;
	topic_writer_options_init(&options, cid);
	/* a Kafka client's records get their offsets and times from the log */
	options.preserve = false;
	options.dense = true;
	options.producer = pp->idempotent ? &pp->producer : NULL;
	writer = topic_writer_open(router, &options);
	for (int b = 0; b < pp->batches.nbatches; b++)
	{
		KafkaRecordBatch *batch = &pp->batches.batches[b];

		for (int r = 0; r < batch->nrecords; r++)
		{
			KafkaRecord *rec = &batch->records[r];
			MemoryContext oldcontext = MemoryContextSwitchTo(chunk_context);
			Datum		key = (Datum) 0;
			Datum		value = (Datum) 0;
			Datum		headers = (Datum) 0;
			bool		have_headers;

			/* a request may hold millions of records: stay stoppable */
			CHECK_FOR_INTERRUPTS();
			if (rec->key.len >= 0)
				key = kafka_bytes_datum(key_type, rec->key, "key");
			if (rec->value.len >= 0)
				value = kafka_bytes_datum(value_type, rec->value, "value");
			have_headers = kafka_headers_datum(rec->headers, rec->nheaders,
											   &headers);
			MemoryContextSwitchTo(oldcontext);
			topic_fill_record_slot(slots[n], pp->partition,
								   key, rec->key.len < 0,
								   value, rec->value.len < 0,
								   headers, !have_headers);
			if (++n == cap ||
				(b == pp->batches.nbatches - 1 && r == batch->nrecords - 1))
			{
				topic_writer_append(writer, slots, n);
				if (pp->base_offset < 0)
				{
					pp->base_offset = DatumGetInt64(slots[0]->tts_values[Anum_topic_offset - 1]);
					pp->log_append_time = kafka_timestamp_ms(DatumGetTimestampTz(slots[0]->tts_values[Anum_topic_timestamp - 1]));
				}
				n = 0;
				MemoryContextReset(chunk_context);
			}
		}
	}
	topic_writer_close(writer);
	topic_log_end(router, &end);
	pp->log_start_offset = end.log_start_offset;

	for (int i = 0; i < cap; i++)
		ExecDropSingleTupleTableSlot(slots[i]);
	MemoryContextDelete(chunk_context);
	table_close(router, NoLock);
}

/*
 * May the transaction txn (NULL: none) write batch to partition of topic
 * (its Kafka name)?  Kafka's error code
 */
static int16
transactional_error(const KafkaTxnInfo *txn, List *added, KafkaBytes name,
					int32 partition, const KafkaRecordBatch *batch)
{
	char	   *key;
	int			low;
	int			high;

	if (txn == NULL)
		return (batch->attributes & KAFKA_ATTR_TRANSACTIONAL) ?
			KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED : KAFKA_NONE;
	if (!(batch->attributes & KAFKA_ATTR_TRANSACTIONAL))
		return KAFKA_INVALID_TXN_STATE;
	if (batch->producer_id != txn->producer_id)
		return KAFKA_INVALID_PRODUCER_ID_MAPPING;
	if (batch->producer_epoch != txn->producer_epoch)
		return KAFKA_INVALID_PRODUCER_EPOCH;
	/* added is sorted (kafka_txn_produce): a binary search */
	key = psprintf("%.*s/%d", name.len, name.data, partition);
	low = 0;
	high = list_length(added) - 1;
	while (low <= high)
	{
		int			mid = low + (high - low) / 2;
		int			c = strcmp((char *) list_nth(added, mid), key);

		if (c == 0)
			return KAFKA_NONE;
		if (c < 0)
			low = mid + 1;
		else
			high = mid - 1;
	}
	return KAFKA_INVALID_TXN_STATE;
}

/* list_sort's comparison of two C strings, byte by byte */
static int
compare_names(const ListCell *a, const ListCell *b)
{
	return strcmp((char *) lfirst(a), (char *) lfirst(b));
}

/*
 * Write one partition in a Kafka transaction's worker, in the transaction
 * itself.  A subtransaction per partition write, for a transaction that
 * lives up to its timeout, would give it a subtransaction xid per
 * partition per request: past 64 of them every snapshot taken in the
 * server reads pg_subtrans while it is open, and the worker's memory grows
 * with each.  An ERROR here fails the whole Kafka transaction instead, as
 * Kafka's producer goes into an abortable state after any failed
 * transactional Produce: the worker rolls back and refuses what follows
 * until the client aborts (txn_worker.c).
 */
static void
write_unguarded(PartitionProduce *pp)
{
	write_partition(pp);
}

/* Decode, check and write one partition of the request; its error code */
static int16
produce_partition(KafkaRequest *req, Relation topic, int16 topic_error,
				  KafkaBytes name, int32 partition, KafkaBytes records,
				  const KafkaTxnInfo *txn, List *added, PartitionProduce *pp)
{
	int16		error;
	KafkaRecordBatch *batch;
	Size		room;

	if (topic == NULL)
		return topic_error;
	if (partition < 0 || partition >= topic_partition_count(topic))
		return KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
	if (records.len <= 0)
		return KAFKA_INVALID_RECORD;
	/*
	 * Decoded, a batch takes what its records inflate to and up to nine
	 * times the bytes of the tiniest records: at most what a request may
	 * take (MESSAGE_TOO_LARGE, as Kafka's max.message.bytes), and at most
	 * what the listener's memory has left, else a retriable error.  A
	 * transaction worker is not the listener: its bound is its own, one
	 * partition's batch at a time (freed after it), in memory freed after
	 * each request; measured against the listener's budget, the memory of
	 * a long transaction would refuse every later partition.
	 */
	room = txn != NULL ? (Size) pg_topics_kafka_max_request_bytes :
		kafka_budget_room();
	if (req->api_version < KAFKA_PRODUCE_FIRST_BATCH_VERSION &&
		(records.len <= KAFKA_BATCH_MAGIC_AT ||
		 records.data[KAFKA_BATCH_MAGIC_AT] != 2))
		error = kafka_message_set_decode(records.data, records.len,
										 Min((Size) pg_topics_kafka_max_request_bytes,
											 room),
										 &pp->batches);
	else
		error = kafka_batches_decode(records.data, records.len,
									 Min((Size) pg_topics_kafka_max_request_bytes,
										 room),
									 &pp->batches);
	if (error == KAFKA_MESSAGE_TOO_LARGE &&
		room < (Size) pg_topics_kafka_max_request_bytes)
		return KAFKA_REQUEST_TIMED_OUT;
	if (error != KAFKA_NONE)
		return error;
	/*
	 * one batch per partition, as Kafka takes since Produce v3 (a message
	 * set's wrappers are batches of their own)
	 */
	if (pp->batches.nbatches != 1 &&
		req->api_version >= KAFKA_PRODUCE_FIRST_BATCH_VERSION)
		return KAFKA_INVALID_RECORD;
	for (int b = 0; b < pp->batches.nbatches; b++)
	{
		error = transactional_error(txn, added, name, partition,
									&pp->batches.batches[b]);
		if (error != KAFKA_NONE)
			return error;
	}
	/*
	 * A compacted topic refuses a batch with a record without a key, as
	 * Kafka does, before any of it is written: the insert path refuses the
	 * record too, but only when its chunk comes, after the batch's earlier
	 * chunks took offsets
	 */
	if (topic_config_needs_key(RelationGetRelid(topic)))
	{
		/*
		 * Each keyless record is named in the answer (Produce v8's
		 * record_errors, by its index in the batch), so that a client
		 * tells the records refused for themselves from those refused
		 * with them, as Kafka's answer lets it
		 */
		int			nrecords = 0;
		int			index = 0;

		for (int b = 0; b < pp->batches.nbatches; b++)
			nrecords += pp->batches.batches[b].nrecords;
		for (int b = 0; b < pp->batches.nbatches; b++)
			for (int r = 0; r < pp->batches.batches[b].nrecords; r++, index++)
				if (pp->batches.batches[b].records[r].key.len < 0)
				{
					if (pp->keyless_index == NULL)
						pp->keyless_index = palloc(sizeof(int32) * nrecords);
					pp->keyless_index[pp->nkeyless++] = index;
				}
		if (pp->nkeyless > 0)
			return KAFKA_INVALID_RECORD;
	}
	pp->topic = topic;
	pp->partition = partition;
	batch = &pp->batches.batches[0];
	if (batch->producer_id >= 0)
	{
		/* idempotent: a batch sent again is answered, not stored again */
		Oid			relid = topic_partition_relid(topic, partition);
		bool		duplicate;
		bool		first_in_txn = txn != NULL &&
			!list_member_oid(txn_partitions_written, relid);
		PendingBatch *pb = add_pending_batch(relid, batch);

		error = kafka_producer_begin(GetUserId(), relid, batch->producer_id,
									 batch->producer_epoch,
									 batch->base_sequence, batch->nrecords,
									 first_in_txn,
									 NULL, &duplicate, &pp->base_offset,
									 &pp->log_append_time);
		if (error == KAFKA_PRODUCER_NEEDS_HISTORY)
		{
			/* not known here since the start: where the log says it stood */
			KafkaProducerHistory history;
			Relation	router = kafka_open_partition(topic, partition,
													  &error);

			if (router == NULL)
			{
				drop_last_pending_batch();
				return error;
			}
			kafka_producer_history(router, batch->producer_id, &history);
			table_close(router, NoLock);
			error = kafka_producer_begin(GetUserId(), relid,
										 batch->producer_id,
										 batch->producer_epoch,
										 batch->base_sequence,
										 batch->nrecords, first_in_txn,
										 &history,
										 &duplicate, &pp->base_offset,
										 &pp->log_append_time);
		}
		if (error != KAFKA_NONE || duplicate)
		{
			drop_last_pending_batch();
			if (error == KAFKA_NONE)
			{
				TopicLogEnd end;
				Relation	router = kafka_open_partition(topic, partition,
														  &error);

				if (router == NULL)
					return error;
				topic_log_end(router, &end);
				pp->log_start_offset = end.log_start_offset;
				table_close(router, NoLock);

				/*
				 * The first try's answer may still be waiting for the
				 * standbys (its client gave up on it): so does this one
				 */
				kafka_hold_for_standbys(req, topic_sync_commit_wait_mode());
			}
			return error;
		}
		pp->idempotent = true;
		pp->producer.producer_id = batch->producer_id;
		pp->producer.epoch = batch->producer_epoch;
		pp->producer.first_sequence = batch->base_sequence;
		pp->producer.count = batch->nrecords;
		pp->producer.role = GetUserId();
		if (txn != NULL)
		{
			/*
			 * without a subtransaction (write_unguarded): after an ERROR
			 * the worker's rollback ends the pending batch
			 */
			write_unguarded(pp);
			error = KAFKA_NONE;
		}
		else
			error = kafka_run_guarded(write_partition, pp, NULL);
		if (error != KAFKA_NONE)
		{
			kafka_producer_end(relid, batch->producer_id,
							   batch->base_sequence, false, 0, 0);
			drop_last_pending_batch();
		}
		else if (txn != NULL)
		{
			/*
			 * In a Kafka transaction, the batch takes its sequence numbers
			 * now, whether the transaction commits or aborts (as in
			 * Kafka's log): held in flight until its end, a transaction's
			 * sixth batch of a partition would find no room
			 */
			MemoryContext oldcontext;

			kafka_producer_end(relid, batch->producer_id,
							   batch->base_sequence, true, pp->base_offset,
							   pp->log_append_time);
			drop_last_pending_batch();
			oldcontext = MemoryContextSwitchTo(TopMemoryContext);
			txn_partitions_written =
				list_append_unique_oid(txn_partitions_written, relid);
			MemoryContextSwitchTo(oldcontext);
		}
		else
		{
			pb->base_offset = pp->base_offset;
			pb->timestamp = pp->log_append_time;
		}
		return error;
	}
	if (txn != NULL)
	{
		write_unguarded(pp);
		return KAFKA_NONE;
	}
	return kafka_run_guarded(write_partition, pp, NULL);
}

/*
 * Serve a decoded Produce request: every partition answered all_error if
 * that is not KAFKA_NONE, else written, in the transaction txn (NULL: the
 * request's own) whose partitions added are listed ("topic/partition")
 */
static KafkaOutcome
produce_request(KafkaRequest *req, KafkaProduceRequest *pr_in,
				int16 all_error, const KafkaTxnInfo *txn, List *added)
{
	KafkaProduceRequest pr = *pr_in;
	KafkaProduceResponse resp = {0};
	MemoryContext partition_context;

	if (pr.acks == 1 && txn == NULL)
		(void) set_config_option("synchronous_commit", "local", PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);

	/*
	 * Each partition's records are decoded (and decompressed) into memory
	 * of its own, freed once it is written: the requests sharing the
	 * transaction would otherwise hold all of theirs until it commits
	 */
	partition_context = AllocSetContextCreate(CurrentMemoryContext,
											  "Kafka produce partition",
											  ALLOCSET_DEFAULT_SIZES);
	resp.nresponses = pr.ntopic_data;
	resp.responses = palloc0(sizeof(KafkaTopicProduceResponse) *
							 Max(pr.ntopic_data, 1));
	for (int32 t = 0; t < pr.ntopic_data; t++)
	{
		KafkaTopicProduceData *td = &pr.topic_data[t];
		KafkaTopicProduceResponse *tr = &resp.responses[t];
		int16		topic_error = KAFKA_NONE;
		Relation	topic = NULL;

		if (all_error != KAFKA_NONE)
			topic_error = all_error;
		else if (kafka_writes_refused())
			topic_error = KAFKA_NOT_LEADER_OR_FOLLOWER;
		else
			topic = kafka_open_topic(td->name, RowExclusiveLock, ACL_INSERT,
									 &topic_error);
		tr->name = td->name;
		tr->npartition_responses = td->npartition_data;
		tr->partition_responses =
			palloc0(sizeof(KafkaPartitionProduceResponse) *
					Max(td->npartition_data, 1));
		for (int32 p = 0; p < td->npartition_data; p++)
		{
			KafkaPartitionProduceData *part = &td->partition_data[p];
			KafkaPartitionProduceResponse *pres = &tr->partition_responses[p];
			PartitionProduce pp;
			int16		error;
			MemoryContext oldcontext;

			memset(&pp, 0, sizeof(pp));
			oldcontext = MemoryContextSwitchTo(partition_context);
			error = produce_partition(req, topic, topic_error, td->name,
									  part->index, part->records.bytes,
									  txn, added, &pp);
			MemoryContextSwitchTo(oldcontext);
			pres->index = part->index;
			pres->error_code = error;
			pres->base_offset = error == KAFKA_NONE ? pp.base_offset : -1;
			pres->log_append_time_ms = error == KAFKA_NONE ? pp.log_append_time : -1;
			pres->log_start_offset = error == KAFKA_NONE ? pp.log_start_offset : -1;
			/* Kafka's words, which clients show */
			if (pp.nkeyless > 0)
			{
				char	   *message = psprintf("Compacted topic cannot accept message without key in topic partition %.*s-%d.",
											   td->name.len, td->name.data, part->index);

				pres->error_message = kafka_bytes_of(message);
				pres->nrecord_errors = pp.nkeyless;
				pres->record_errors = palloc(sizeof(KafkaBatchIndexAndErrorMessage) *
											 pp.nkeyless);
				for (int i = 0; i < pp.nkeyless; i++)
				{
					pres->record_errors[i].batch_index = pp.keyless_index[i];

					/*
					 * In a transaction's worker, the answer goes back in
					 * room of twice the request's size (transactions.c):
					 * each record named, not each with the message, which
					 * the partition's answer carries once anyway
					 */
					pres->record_errors[i].batch_index_error_message =
						kafka_bytes_of(txn == NULL ? message : NULL);
				}
			}
			else
				pres->error_message = kafka_bytes_of(NULL);
			pres->current_leader.leader_id = -1;
			pres->current_leader.leader_epoch = -1;
			MemoryContextReset(partition_context);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	MemoryContextDelete(partition_context);
	if (pr.acks == 0)
		return KAFKA_NO_ANSWER;
	kafka_encode(req->response, &kafka_produce_response, req->api_version, &resp);
	return KAFKA_ANSWER;
}

/* Where a RecordBatch v2's header has its producer id and epoch */
#define BATCH_PRODUCER_ID_AT		43
#define BATCH_PRODUCER_EPOCH_AT		51

/*
 * Is the first batch of pr's first partition of an older epoch of
 * producer_id than epoch?  Read from its header, before anything is
 * decoded: a fenced producer's Produce is answered INVALID_PRODUCER_EPOCH
 * whatever state its id's newer producer left
 */
static bool
older_epoch(KafkaProduceRequest *pr, int64 producer_id, int16 epoch)
{
	KafkaBytes	records;
	uint64		id = 0;
	uint16		e;

	if (pr->ntopic_data < 1 || pr->topic_data[0].npartition_data < 1)
		return false;
	records = pr->topic_data[0].partition_data[0].records.bytes;
	if (records.len < KAFKA_BATCH_HEADER_SIZE ||
		records.data[KAFKA_BATCH_MAGIC_AT] != 2)
		return false;
	for (int i = 0; i < 8; i++)
		id = (id << 8) | (unsigned char) records.data[BATCH_PRODUCER_ID_AT + i];
	e = ((unsigned char) records.data[BATCH_PRODUCER_EPOCH_AT] << 8) |
		(unsigned char) records.data[BATCH_PRODUCER_EPOCH_AT + 1];
	return (int64) id == producer_id && (int16) e < epoch;
}

/*
 * Room for the answer of pr's partitions, beyond twice the request's size
 * that kafka_txn_forward gives: a partition's answer is up to 45 bytes
 * where a partition of null records took 6 of the request, and one naming
 * its keyless records (a compacted topic) carries a message with the
 * topic's name, up to 96 bytes more
 */
static int64
answer_room(const KafkaProduceRequest *pr)
{
	int64		room = 0;

	for (int t = 0; t < pr->ntopic_data; t++)
	{
		KafkaTopicProduceData *td = &pr->topic_data[t];

		for (int p = 0; p < td->npartition_data; p++)
		{
			room += 48;
			if (td->partition_data[p].records.bytes.len > 0)
				room += 96 + Max(td->name.len, 0);
		}
	}
	return room;
}

/*
 * Produce v0-11.  A transactional producer's goes to its transaction's
 * worker once its transactional id is checked: a partition of an id that
 * is not the role's is refused TRANSACTIONAL_ID_AUTHORIZATION_FAILED, of
 * an unknown id INVALID_PRODUCER_ID_MAPPING, of an older epoch of the
 * id's producer or of a transaction lost with its worker
 * INVALID_PRODUCER_EPOCH (the producer is fenced), of an id with no open
 * transaction INVALID_TXN_STATE.
 */
KafkaOutcome
kafka_produce(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaProduceRequest pr;
	KafkaTxnRow row;
	KafkaReader body = req->body;
	int16		error = KAFKA_NONE;
	int			slot = -1;

	if (kafka_txn_forwarded(req))
		return kafka_txn_forward(req, req->conn->txn_slot, NULL, 0, deadline);
	if (!kafka_decode(&req->body, &kafka_produce_request, req->api_version, &pr))
		return KAFKA_CLOSE;
	/* as Kafka: any other acks fails the request (INVALID_REQUIRED_ACKS) */
	if (pr.acks != 0 && pr.acks != 1 && pr.acks != -1)
		return KAFKA_CLOSE;
	if (pr.transactional_id.len < 0)
		return produce_request(req, &pr, KAFKA_NONE, NULL, NIL);

	if (kafka_writes_refused())
		error = KAFKA_NOT_LEADER_OR_FOLLOWER;
	else if (!kafka_txn_read_row(pr.transactional_id, false, &row))
		error = KAFKA_INVALID_PRODUCER_ID_MAPPING;
	else if (row.role != GetUserId())
		error = KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
	else if (older_epoch(&pr, row.producer_id, row.producer_epoch))
		error = KAFKA_INVALID_PRODUCER_EPOCH;
	else if (strcmp(row.state, "Ongoing") != 0)
		error = KAFKA_INVALID_TXN_STATE;
	else if ((slot = kafka_txn_find(row.producer_id, row.producer_epoch)) < 0)
		error = KAFKA_INVALID_PRODUCER_EPOCH;
	if (error != KAFKA_NONE)
		return produce_request(req, &pr, error, NULL, NIL);
	/* the worker decodes it again, from the start */
	req->body = body;
	return kafka_txn_forward(req, slot, &row, answer_room(&pr), deadline);
}

/*
 * A transactional Produce, in the transaction's worker (txn_worker.c):
 * each partition written in the open transaction, if it was added to it;
 * or, all_error not KAFKA_NONE (the transaction failed), answered that
 */
KafkaOutcome
kafka_txn_produce(KafkaRequest *req, const KafkaTxnInfo *txn, int16 all_error)
{
	KafkaProduceRequest pr;
	List	   *added;

	if (!kafka_decode(&req->body, &kafka_produce_request, req->api_version, &pr))
		return KAFKA_CLOSE;
	if (pr.acks != 0 && pr.acks != 1 && pr.acks != -1)
		return KAFKA_CLOSE;
	if (all_error != KAFKA_NONE)
		return produce_request(req, &pr, all_error, txn, NIL);

	/*
	 * the transaction's partitions, sorted once, so that each partition of
	 * the request is looked for by a binary search, not a scan of them all
	 */
	added = kafka_txn_added_partitions(txn->producer_id);
	list_sort(added, compare_names);
	return produce_request(req, &pr, KAFKA_NONE, txn, added);
}

/*
 * InitProducerId v0-5: an id for an idempotent producer, bound to the
 * request's role (it runs in a transaction for that: kafka/request.c), or
 * a transactional producer's id and epoch (transactions.c)
 */
KafkaOutcome
kafka_init_producer_id(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaInitProducerIdRequest ir;
	KafkaInitProducerIdResponse resp = {0};

	/*
	 * v3+'s producer id and epoch are a transactional producer's, as in
	 * Kafka: an idempotent one gets a new id whatever it sends
	 */
	if (!kafka_decode(&req->body, &kafka_init_producer_id_request,
					  req->api_version, &ir))
		return KAFKA_CLOSE;
	resp.producer_id = -1;
	if (ir.transactional_id.len >= 0)
	{
		/* a transactional producer's: transactions.c */
		KafkaOutcome outcome;

		outcome = kafka_init_transactional_producer(req, ir.transactional_id,
													ir.transaction_timeout_ms,
													req->api_version >= 3 ? ir.producer_id : -1,
													req->api_version >= 3 ? ir.producer_epoch : -1,
													&resp.producer_id,
													&resp.producer_epoch,
													&resp.error_code);
		if (outcome != KAFKA_ANSWER)
			return outcome;
		kafka_encode(req->response, &kafka_init_producer_id_response,
					 req->api_version, &resp);
		return KAFKA_ANSWER;
	}
	/* a node that takes no writes hands out no producer ids: ask another */
	if (kafka_writes_refused())
		resp.error_code = KAFKA_COORDINATOR_NOT_AVAILABLE;
	else
		resp.error_code = kafka_producer_new_id(GetUserId(), &resp.producer_id);
	resp.producer_epoch = resp.error_code == KAFKA_NONE ? 0 : -1;
	kafka_encode(req->response, &kafka_init_producer_id_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
