/*-------------------------------------------------------------------------
 *
 * txn_requests.c
 *	  AddPartitionsToTxn (v0-5), AddOffsetsToTxn (v0-4), TxnOffsetCommit
 *	  (v0-4) and EndTxn (v0-4): a transactional producer's requests.
 *
 * AddPartitionsToTxn and AddOffsetsToTxn run in the listener: the first
 * of a transaction begins it (transactions.c starts its worker), and the
 * partitions or groups are listed in the transactional id's row, where
 * Produce's check (in the worker) finds them.  A partition the role may
 * not write is refused TOPIC_AUTHORIZATION_FAILED, one that does not exist
 * UNKNOWN_TOPIC_OR_PARTITION, and the others of the request are then not
 * added (OPERATION_NOT_ATTEMPTED), as Kafka answers.  v4+ of
 * AddPartitionsToTxn is the form brokers send each other (KIP-890) and is
 * refused CLUSTER_AUTHORIZATION_FAILED, as Kafka refuses it to a client.
 *
 * TxnOffsetCommit and EndTxn are checked in the listener and run by the
 * transaction's worker (txn_worker.c): the positions are committed as
 * OffsetCommit commits them (offsets.c), in the transaction, so that they
 * and the records become visible together; EndTxn commits or aborts it.
 * An EndTxn of a transaction that ended already is answered as Kafka
 * answers a retry: no error if it ended the way asked, INVALID_TXN_STATE
 * otherwise.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/rel.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/transactions.h"
#include "pg_topics/wire/msg_add_offsets_to_txn.h"
#include "pg_topics/wire/msg_add_partitions_to_txn.h"
#include "pg_topics/wire/msg_end_txn.h"
#include "pg_topics/wire/msg_txn_offset_commit.h"
#include "pg_topics/wire/protocol.h"

/* The first version of AddPartitionsToTxn that brokers send each other */
#define ADD_PARTITIONS_BROKER_VERSION	4

/*
 * Where a transactional request's decoded struct keeps its transactional
 * id and its producer's id and epoch
 */
typedef struct TxnRequestIds
{
	size_t		transactional_id;	/* offsetof a KafkaBytes */
	size_t		producer_id;	/* of an int64 */
	size_t		producer_epoch; /* of an int16 */
} TxnRequestIds;

#define TXN_REQUEST_IDS(type, id, pid, epoch) \
	{offsetof(type, id), offsetof(type, pid), offsetof(type, epoch)}

static const TxnRequestIds add_offsets_ids =
	TXN_REQUEST_IDS(KafkaAddOffsetsToTxnRequest, transactional_id,
					producer_id, producer_epoch);
static const TxnRequestIds txn_offset_commit_ids =
	TXN_REQUEST_IDS(KafkaTxnOffsetCommitRequest, transactional_id,
					producer_id, producer_epoch);
static const TxnRequestIds end_txn_ids =
	TXN_REQUEST_IDS(KafkaEndTxnRequest, transactional_id, producer_id,
					producer_epoch);

/*
 * The opening AddOffsetsToTxn, TxnOffsetCommit and EndTxn share: the
 * request decoded into out (false: malformed, the connection closes),
 * then its producer checked against its transactional id's row
 * (kafka_txn_check): the error, the row, and the slot of the id's open
 * transaction (-1: none).  The body is left to be read again, by the
 * transaction's worker a request is handed to.
 */
static bool
txn_request_open(KafkaRequest *req, const KafkaMessage *message, void *out,
				 const TxnRequestIds *ids, KafkaTxnRow *row, int *slot,
				 int16 *error)
{
	KafkaReader body = req->body;
	const char *fields = out;

	if (!kafka_decode(&req->body, message, req->api_version, out))
		return false;
	req->body = body;
	*error = kafka_txn_check(req,
							 *(const KafkaBytes *) (fields + ids->transactional_id),
							 *(const int64 *) (fields + ids->producer_id),
							 *(const int16 *) (fields + ids->producer_epoch),
							 message == &kafka_add_offsets_to_txn_request,
							 row, slot);
	return true;
}

/*
 * May the request's role write partition of topic name?  Kafka's error
 * code
 */
static int16
partition_error(KafkaBytes name, int32 partition)
{
	int16		error = KAFKA_NONE;
	Relation	topic = kafka_open_topic(name, AccessShareLock, ACL_INSERT,
										 &error);

	if (topic == NULL)
		return error;
	if (partition < 0 || partition >= topic_partition_count(topic))
		error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
	relation_close(topic, NoLock);
	return error;
}

/* AddPartitionsToTxn v0-5 */
KafkaOutcome
kafka_add_partitions_to_txn(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaAddPartitionsToTxnRequest ar;
	KafkaAddPartitionsToTxnResponse resp = {0};
	KafkaTxnRow row;
	int			slot;
	int16		error;
	bool		failed = false;
	List	   *names = NIL;
	int16	  **errors;

	if (!kafka_decode(&req->body, &kafka_add_partitions_to_txn_request,
					  req->api_version, &ar))
		return KAFKA_CLOSE;
	if (req->api_version >= ADD_PARTITIONS_BROKER_VERSION)
	{
		resp.error_code = KAFKA_CLUSTER_AUTHORIZATION_FAILED;
		kafka_encode(req->response, &kafka_add_partitions_to_txn_response,
					 req->api_version, &resp);
		return KAFKA_ANSWER;
	}

	error = kafka_txn_check(req, ar.v3_and_below_transactional_id,
							ar.v3_and_below_producer_id,
							ar.v3_and_below_producer_epoch, true, &row, &slot);
	errors = palloc0(sizeof(int16 *) * Max(ar.nv3_and_below_topics, 1));
	for (int32 t = 0; t < ar.nv3_and_below_topics; t++)
	{
		KafkaAddPartitionsToTxnTopic *tp = &ar.v3_and_below_topics[t];

		errors[t] = palloc0(sizeof(int16) * Max(tp->npartitions, 1));
		for (int32 p = 0; p < tp->npartitions; p++)
		{
			CHECK_FOR_INTERRUPTS();
			errors[t][p] = error != KAFKA_NONE ? error :
				partition_error(tp->name, tp->partitions[p]);
			if (errors[t][p] != KAFKA_NONE)
				failed = true;
			else
				names = lappend(names, psprintf("%.*s/%d", tp->name.len,
												tp->name.data,
												tp->partitions[p]));
		}
	}
	if (error == KAFKA_NONE && !failed && names != NIL)
	{
		error = kafka_txn_begin(ar.v3_and_below_transactional_id, &row, &slot);
		if (error == KAFKA_NONE)
			kafka_txn_add_partitions(ar.v3_and_below_transactional_id, names);
		else
			failed = true;
	}

	resp.nresults_by_topic_v3_and_below = ar.nv3_and_below_topics;
	resp.results_by_topic_v3_and_below =
		palloc0(sizeof(KafkaAddPartitionsToTxnTopicResult) *
				Max(ar.nv3_and_below_topics, 1));
	for (int32 t = 0; t < ar.nv3_and_below_topics; t++)
	{
		KafkaAddPartitionsToTxnTopic *tp = &ar.v3_and_below_topics[t];
		KafkaAddPartitionsToTxnTopicResult *tr = &resp.results_by_topic_v3_and_below[t];

		tr->name = tp->name;
		tr->nresults_by_partition = tp->npartitions;
		tr->results_by_partition =
			palloc0(sizeof(KafkaAddPartitionsToTxnPartitionResult) *
					Max(tp->npartitions, 1));
		for (int32 p = 0; p < tp->npartitions; p++)
		{
			int16		e = errors[t][p];

			/* the others of a request that failed are not added */
			if (failed && e == KAFKA_NONE)
				e = error != KAFKA_NONE ? error : KAFKA_OPERATION_NOT_ATTEMPTED;
			tr->results_by_partition[p].partition_index = tp->partitions[p];
			tr->results_by_partition[p].partition_error_code = e;
		}
	}
	kafka_encode(req->response, &kafka_add_partitions_to_txn_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/* AddOffsetsToTxn v0-4: the group's positions go in the transaction */
KafkaOutcome
kafka_add_offsets_to_txn(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaAddOffsetsToTxnRequest ar;
	KafkaAddOffsetsToTxnResponse resp = {0};
	KafkaTxnRow row;
	int			slot;
	char	   *group;

	if (!txn_request_open(req, &kafka_add_offsets_to_txn_request, &ar,
						  &add_offsets_ids, &row, &slot, &resp.error_code))
		return KAFKA_CLOSE;
	group = kafka_offsets_group_name(ar.group_id);
	if (resp.error_code == KAFKA_NONE && group == NULL)
		resp.error_code = KAFKA_INVALID_GROUP_ID;
	if (resp.error_code == KAFKA_NONE)
		resp.error_code = kafka_txn_group_error(group);
	if (resp.error_code == KAFKA_NONE)
		resp.error_code = kafka_txn_begin(ar.transactional_id, &row, &slot);
	if (resp.error_code == KAFKA_NONE &&
		!kafka_txn_add_group(ar.transactional_id, group))
		resp.error_code = KAFKA_INVALID_REQUEST;
	kafka_encode(req->response, &kafka_add_offsets_to_txn_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/* TxnOffsetCommit's topics (a KafkaCommitReader) */
static void
txn_offset_commit_topic(const void *request, int32 t, KafkaBytes *name,
						int32 *npartitions)
{
	const KafkaTxnOffsetCommitRequestTopic *topic =
		&((const KafkaTxnOffsetCommitRequest *) request)->topics[t];

	*name = topic->name;
	*npartitions = topic->npartitions;
}

static void
txn_offset_commit_position(const void *request, int32 t, int32 p,
						   int32 *partition, int64 *offset,
						   KafkaBytes *metadata)
{
	const KafkaTxnOffsetCommitRequestPartition *part =
		&((const KafkaTxnOffsetCommitRequest *) request)->topics[t].partitions[p];

	*partition = part->partition_index;
	*offset = part->committed_offset;
	*metadata = part->committed_metadata;
}

static const KafkaCommitReader txn_offset_commit_reader = {
	txn_offset_commit_topic, txn_offset_commit_position
};

/*
 * TxnOffsetCommit's answer: the positions committed (error KAFKA_NONE,
 * in the transaction's worker, waiting for their locks as topics.commit
 * does), or every partition answered error
 */
static void
txn_offset_commit_answer(KafkaRequest *req, KafkaTxnOffsetCommitRequest *cr,
						 int16 error)
{
	KafkaTxnOffsetCommitResponse resp = {0};

	resp.ntopics = cr->ntopics;
	resp.topics = kafka_commit_positions(kafka_offsets_group_name(cr->group_id),
										 error, cr, cr->ntopics,
										 &txn_offset_commit_reader, true);
	kafka_encode(req->response, &kafka_txn_offset_commit_response,
				 req->api_version, &resp);
}

/*
 * TxnOffsetCommit v0-4, in the listener: checked, then handed to the
 * transaction's worker.  Without an open transaction: INVALID_TXN_STATE.
 */
KafkaOutcome
kafka_txn_offset_commit(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaTxnOffsetCommitRequest cr;
	KafkaTxnRow row;
	int			slot;
	int16		error;

	if (kafka_txn_forwarded(req))
		return kafka_txn_forward(req, req->conn->txn_slot, NULL, 0, deadline);
	if (!txn_request_open(req, &kafka_txn_offset_commit_request, &cr,
						  &txn_offset_commit_ids, &row, &slot, &error))
		return KAFKA_CLOSE;
	if (error == KAFKA_NONE && slot < 0)
		error = KAFKA_INVALID_TXN_STATE;
	if (error == KAFKA_NONE && kafka_offsets_group_name(cr.group_id) == NULL)
		error = KAFKA_INVALID_GROUP_ID;
	if (error != KAFKA_NONE)
	{
		txn_offset_commit_answer(req, &cr, error);
		return KAFKA_ANSWER;
	}
	return kafka_txn_forward(req, slot, &row, 0, deadline);
}

/*
 * TxnOffsetCommit in the transaction's worker: each partition's position
 * committed as OffsetCommit commits it, after the same checks of the
 * group's member (v3+ names it and its generation); every partition
 * answered all_error if that is not KAFKA_NONE (the transaction failed)
 */
KafkaOutcome
kafka_txn_offset_commit_run(KafkaRequest *req, const KafkaTxnInfo *txn,
							int16 all_error)
{
	KafkaTxnOffsetCommitRequest cr;
	int16		error;

	if (!kafka_decode(&req->body, &kafka_txn_offset_commit_request,
					  req->api_version, &cr))
		return KAFKA_CLOSE;
	if (all_error != KAFKA_NONE)
		error = all_error;		/* the transaction failed */
	else if (cr.producer_id != txn->producer_id ||
			 cr.producer_epoch != txn->producer_epoch)
		error = kafka_txn_fenced_error(req->api_key, req->api_version);
	else
		error = kafka_commit_group_error(kafka_offsets_group_name(cr.group_id),
										 cr.member_id, cr.group_instance_id,
										 cr.generation_id);
	txn_offset_commit_answer(req, &cr, error);
	return KAFKA_ANSWER;
}

/* EndTxn v0-4, in the listener: the open transaction's worker ends it */
KafkaOutcome
kafka_end_txn(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaEndTxnRequest er;
	KafkaTxnRow row;
	int			slot;
	int16		error;

	if (kafka_txn_forwarded(req))
		return kafka_txn_forward(req, req->conn->txn_slot, NULL, 0, deadline);
	if (!txn_request_open(req, &kafka_end_txn_request, &er, &end_txn_ids,
						  &row, &slot, &error))
		return KAFKA_CLOSE;
	if (error == KAFKA_NONE && slot >= 0)
		return kafka_txn_forward(req, slot, &row, 0, deadline);
	/* no open transaction: a retry of the EndTxn that ended it, or wrong */
	if (error == KAFKA_NONE &&
		!(er.committed && strcmp(row.state, "CompleteCommit") == 0) &&
		!(!er.committed && strcmp(row.state, "CompleteAbort") == 0))
		error = KAFKA_INVALID_TXN_STATE;
	kafka_end_txn_answer(req, error);
	return KAFKA_ANSWER;
}

/*
 * The worker's EndTxn: commit (true) or abort, and the producer it is
 * of; false if malformed
 */
bool
kafka_end_txn_decode(KafkaRequest *req, bool *commit, int64 *producer_id,
					 int16 *producer_epoch)
{
	KafkaEndTxnRequest er;

	if (!kafka_decode(&req->body, &kafka_end_txn_request, req->api_version,
					  &er))
		return false;
	*commit = er.committed;
	*producer_id = er.producer_id;
	*producer_epoch = er.producer_epoch;
	return true;
}

/* EndTxn's answer */
void
kafka_end_txn_answer(KafkaRequest *req, int16 error)
{
	KafkaEndTxnResponse resp = {0};

	resp.error_code = error;
	kafka_encode(req->response, &kafka_end_txn_response, req->api_version,
				 &resp);
}
