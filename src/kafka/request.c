/*-------------------------------------------------------------------------
 *
 * request.c
 *	  Serving one Kafka request: its header, the version ranges pg_topics
 *	  offers, the handler, the response frame.
 *
 * Every API is offered at every version Apache Kafka 3.9 serves, flexible
 * ones included, its versions taken from its message description for the
 * schema codec (wire/messages.h).  Produce's v0-2
 * and Fetch's v0-3 carry the old message formats (produce.c, fetch.c).
 * The minimum versions matter as much as the maximums: librdkafka
 * compresses with gzip, snappy or lz4 only for a broker whose Produce
 * versions reach down to 0.
 *
 * A request of an unknown API or an unsupported version closes the
 * connection, as Kafka does, except ApiVersions, which is answered in its
 * version-0 form with UNSUPPORTED_VERSION and the versions offered, so
 * that the client can retry with one of them.  Every
 * connection closed for a protocol reason (that, a malformed request, a
 * request before authentication, one that needs more memory than the
 * listener has left or names too many elements) leaves a line in the
 * server log naming the client, the API and the version, rate-limited per
 * client address (kafka/log_limit.c): the client itself sees only the
 * connection close.
 *
 * A request that reaches the database runs in a transaction, as the
 * connection's role, and its answer goes out once the commit is as safe as
 * the server's synchronous_commit asks (session.c, listener.c).  The
 * transaction is its own, except for Produce requests a connection sent
 * back to back, which share one (kafka_serve_frames; produce_group.c
 * groups them).  An error that a handler does not turn into a Kafka error
 * code ends the transaction and closes the connection (the client
 * reconnects and retries); the listener goes on.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"

#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/configs.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/log_limit.h"
#include "pg_topics/kafka/request.h"
#include "pg_topics/kafka/sasl.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/msg_api_versions.h"
#include "pg_topics/wire/msg_fetch.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/msg_create_partitions.h"
#include "pg_topics/wire/msg_delete_records.h"
#include "pg_topics/wire/msg_describe_acls.h"
#include "pg_topics/wire/msg_describe_cluster.h"
#include "pg_topics/wire/msg_describe_log_dirs.h"
#include "pg_topics/wire/msg_init_producer_id.h"
#include "pg_topics/wire/msg_list_offsets.h"
#include "pg_topics/wire/msg_offset_for_leader_epoch.h"
#include "pg_topics/wire/msg_sasl_authenticate.h"
#include "pg_topics/wire/msg_sasl_handshake.h"
#include "pg_topics/wire/protocol.h"

static KafkaOutcome kafka_api_versions(KafkaRequest *req, TimestampTz *deadline);

/*
 * One API pg_topics serves.  An API described for the schema codec has
 * min_version, max_version and first_flexible 0, 0, -1 here: its message's
 * are offered (api_min_version and the like)
 */
typedef struct KafkaApi
{
	int16		key;
	int16		min_version;
	int16		max_version;
	int16		first_flexible; /* -1: none of ours is flexible */
	bool		before_auth;	/* allowed before authentication */
	bool		in_xact;		/* runs in a transaction */
	KafkaHandler handler;
	const char *name;
} KafkaApi;

/* the versions of an API of the schema codec: its message's */
#define SCHEMA_VERSIONS		0, 0, -1

/* the versions offered are the ones the messages describe (wire/messages.h) */
static const KafkaApi kafka_apis[] = {
	{KAFKA_API_PRODUCE, SCHEMA_VERSIONS, false, true, kafka_produce, "Produce"},
	{KAFKA_API_FETCH, SCHEMA_VERSIONS, false, true, kafka_fetch, "Fetch"},
	{KAFKA_API_LIST_OFFSETS, SCHEMA_VERSIONS, false, true, kafka_list_offsets, "ListOffsets"},
	{KAFKA_API_METADATA, SCHEMA_VERSIONS, false, true, kafka_metadata, "Metadata"},
	{KAFKA_API_OFFSET_COMMIT, SCHEMA_VERSIONS, false, true, kafka_offset_commit, "OffsetCommit"},
	{KAFKA_API_OFFSET_FETCH, SCHEMA_VERSIONS, false, true, kafka_offset_fetch, "OffsetFetch"},
	{KAFKA_API_FIND_COORDINATOR, SCHEMA_VERSIONS, false, false, kafka_find_coordinator, "FindCoordinator"},
	{KAFKA_API_JOIN_GROUP, SCHEMA_VERSIONS, false, true, kafka_join_group, "JoinGroup"},
	{KAFKA_API_HEARTBEAT, SCHEMA_VERSIONS, false, false, kafka_heartbeat, "Heartbeat"},
	{KAFKA_API_LEAVE_GROUP, SCHEMA_VERSIONS, false, false, kafka_leave_group, "LeaveGroup"},
	{KAFKA_API_SYNC_GROUP, SCHEMA_VERSIONS, false, false, kafka_sync_group, "SyncGroup"},
	{KAFKA_API_DESCRIBE_GROUPS, SCHEMA_VERSIONS, false, true, kafka_describe_groups, "DescribeGroups"},
	{KAFKA_API_LIST_GROUPS, SCHEMA_VERSIONS, false, true, kafka_list_groups, "ListGroups"},
	{KAFKA_API_SASL_HANDSHAKE, SCHEMA_VERSIONS, true, false, kafka_sasl_handshake, "SaslHandshake"},
	{KAFKA_API_API_VERSIONS, SCHEMA_VERSIONS, true, false, kafka_api_versions, "ApiVersions"},
	{KAFKA_API_CREATE_TOPICS, SCHEMA_VERSIONS, false, true, kafka_create_topics, "CreateTopics"},
	{KAFKA_API_DELETE_TOPICS, SCHEMA_VERSIONS, false, true, kafka_delete_topics, "DeleteTopics"},
	{KAFKA_API_INIT_PRODUCER_ID, SCHEMA_VERSIONS, false, true, kafka_init_producer_id, "InitProducerId"},
	{KAFKA_API_SASL_AUTHENTICATE, SCHEMA_VERSIONS, true, true, kafka_sasl_authenticate, "SaslAuthenticate"},
	{KAFKA_API_DELETE_GROUPS, SCHEMA_VERSIONS, false, true, kafka_delete_groups, "DeleteGroups"},
	{KAFKA_API_OFFSET_DELETE, SCHEMA_VERSIONS, false, true, kafka_offset_delete, "OffsetDelete"},
	{KAFKA_API_DELETE_RECORDS, SCHEMA_VERSIONS, false, true, kafka_delete_records, "DeleteRecords"},
	{KAFKA_API_CREATE_PARTITIONS, SCHEMA_VERSIONS, false, true, kafka_create_partitions, "CreatePartitions"},
	{KAFKA_API_DESCRIBE_ACLS, SCHEMA_VERSIONS, false, true, kafka_describe_acls, "DescribeAcls"},
	{KAFKA_API_DESCRIBE_LOG_DIRS, SCHEMA_VERSIONS, false, true, kafka_describe_log_dirs, "DescribeLogDirs"},
	{KAFKA_API_DESCRIBE_CLUSTER, SCHEMA_VERSIONS, false, true, kafka_describe_cluster, "DescribeCluster"},
	{KAFKA_API_DESCRIBE_TRANSACTIONS, SCHEMA_VERSIONS, false, true, kafka_describe_transactions, "DescribeTransactions"},
	{KAFKA_API_LIST_TRANSACTIONS, SCHEMA_VERSIONS, false, true, kafka_list_transactions, "ListTransactions"},
	{KAFKA_API_OFFSET_FOR_LEADER_EPOCH, SCHEMA_VERSIONS, false, true, kafka_offset_for_leader_epoch, "OffsetForLeaderEpoch"},
	{KAFKA_API_ADD_PARTITIONS_TO_TXN, SCHEMA_VERSIONS, false, true, kafka_add_partitions_to_txn, "AddPartitionsToTxn"},
	{KAFKA_API_ADD_OFFSETS_TO_TXN, SCHEMA_VERSIONS, false, true, kafka_add_offsets_to_txn, "AddOffsetsToTxn"},
	{KAFKA_API_END_TXN, SCHEMA_VERSIONS, false, true, kafka_end_txn, "EndTxn"},
	{KAFKA_API_TXN_OFFSET_COMMIT, SCHEMA_VERSIONS, false, true, kafka_txn_offset_commit, "TxnOffsetCommit"},
	{KAFKA_API_DESCRIBE_CONFIGS, SCHEMA_VERSIONS, false, true, kafka_describe_configs, "DescribeConfigs"},
	{KAFKA_API_ALTER_CONFIGS, SCHEMA_VERSIONS, false, true, kafka_alter_configs, "AlterConfigs"},
	{KAFKA_API_INCREMENTAL_ALTER_CONFIGS, SCHEMA_VERSIONS, false, true, kafka_incremental_alter_configs, "IncrementalAlterConfigs"},
};

static MemoryContext request_context = NULL;

/* The versions api offers, and its first flexible one (-1: none) */
static int16
api_min_version(const KafkaApi *api)
{
	const KafkaMessage *m = kafka_request_message(api->key);

	return m ? m->min_version : api->min_version;
}

static int16
api_max_version(const KafkaApi *api)
{
	const KafkaMessage *m = kafka_request_message(api->key);

	return m ? m->max_version : api->max_version;
}

static int16
api_first_flexible(const KafkaApi *api)
{
	const KafkaMessage *m = kafka_request_message(api->key);

	return m ? m->first_flexible : api->first_flexible;
}

/* The API of key, or NULL */
static const KafkaApi *
find_api(int16 key)
{
	for (int i = 0; i < lengthof(kafka_apis); i++)
		if (kafka_apis[i].key == key)
			return &kafka_apis[i];
	return NULL;
}

/* The name of the API of key, or NULL if it is not one pg_topics serves */
static const char *
api_name(int16 key)
{
	const KafkaApi *api = find_api(key);

	return api ? api->name : NULL;
}

/*
 * "Metadata (API key 3) version 9", for the log: in a buffer of its own,
 * valid until the next call (the listener's loop calls it outside any
 * memory context that is reset)
 */
const char *
kafka_api_label(int16 api_key, int16 api_version)
{
	static char label[64];
	const char *name = api_name(api_key);

	if (name == NULL)
		snprintf(label, sizeof(label), "API key %d version %d",
				 api_key, api_version);
	else
		snprintf(label, sizeof(label), "%s (API key %d) version %d",
				 name, api_key, api_version);
	return label;
}

/* ApiVersions' answer at version: what is offered, or error and that */
static void
write_api_versions(StringInfo out, int16 version, int16 error)
{
	KafkaApiVersionsResponse resp = {0};
	KafkaApiVersion apis[lengthof(kafka_apis)];

	for (int i = 0; i < lengthof(kafka_apis); i++)
	{
		apis[i].api_key = kafka_apis[i].key;
		apis[i].min_version = api_min_version(&kafka_apis[i]);
		apis[i].max_version = api_max_version(&kafka_apis[i]);
	}
	resp.error_code = error;
	resp.napi_keys = lengthof(kafka_apis);
	resp.api_keys = apis;
	resp.finalized_features_epoch = -1;
	kafka_encode(out, &kafka_api_versions_response, version, &resp);
}

/*
 * ApiVersions (v0-4): what pg_topics offers.  The client's software name
 * and version (v3+) are not used.  No feature is listed (Kafka's features
 * are KRaft's and transactions' versions).
 */
static KafkaOutcome
kafka_api_versions(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaApiVersionsRequest ar;

	if (!kafka_decode(&req->body, &kafka_api_versions_request,
					  req->api_version, &ar))
		return KAFKA_CLOSE;
	write_api_versions(req->response, req->api_version, KAFKA_NONE);
	return KAFKA_ANSWER;
}

/*
 * Answer an ApiVersions of a version not offered: the v0 form, with
 * error, as Kafka does (KIP-511), so that any client can read it
 */
static void
api_versions_unsupported(StringInfo out)
{
	write_api_versions(out, 0, KAFKA_UNSUPPORTED_VERSION);
}

/* kafka-python's SASL tokens after a version-0 handshake: no header at all */
static const KafkaApi raw_sasl_api = {
	KAFKA_API_SASL_AUTHENTICATE, 0, 0, -1, true, true, kafka_sasl_raw_token,
	"SaslAuthenticate"
};

/*
 * Parse the request header of frame into req and find its API; write the
 * response frame's size (patched later) and header.  NULL if the
 * connection must close (logged), or *answered if the answer is written
 * already (ApiVersions of a version not offered).
 */
static const KafkaApi *
begin_request(KafkaConn *conn, KafkaRequest *req, const char *frame, int len,
			  bool *answered)
{
	KafkaReader header;
	KafkaRequestHeader h;
	const KafkaApi *api;

	*answered = false;
	kafka_write_int32(&conn->out, 0);	/* the size, patched at the end */
	kafka_reader_init(&header, frame, len);
	if (conn->raw_sasl)
	{
		req->body = header;
		return &raw_sasl_api;
	}

	if (!kafka_read_request_header(&header, &h))
	{
		/* the API key and version come first: name them if they came */
		if (len >= 4)
			kafka_protocol_close(conn, ERRCODE_PROTOCOL_VIOLATION, NULL,
								 "malformed header of %s request",
								 kafka_api_label(h.api_key, h.api_version));
		else
			kafka_protocol_close(conn, ERRCODE_PROTOCOL_VIOLATION, NULL,
								 "malformed request header");
		return NULL;
	}
	req->api_key = h.api_key;
	req->api_version = h.api_version;
	req->correlation_id = h.correlation_id;
	req->client_id = h.client_id;
	kafka_write_int32(&conn->out, req->correlation_id);

	api = find_api(req->api_key);
	if (api != NULL && req->api_key == KAFKA_API_API_VERSIONS &&
		req->api_version > api_max_version(api))
	{
		api_versions_unsupported(&conn->out);
		*answered = true;
		return api;
	}
	if (api == NULL)
	{
		kafka_protocol_close(conn, ERRCODE_FEATURE_NOT_SUPPORTED,
							 "ApiVersions lists the APIs served.",
							 "%s is not an API pg_topics serves",
							 kafka_api_label(req->api_key, req->api_version));
		return NULL;
	}
	if (req->api_version < api_min_version(api) ||
		req->api_version > api_max_version(api))
	{
		kafka_protocol_close(conn, ERRCODE_FEATURE_NOT_SUPPORTED,
							 psprintf("Versions %d to %d are offered.",
									  api_min_version(api),
									  api_max_version(api)),
							 "%s is not offered",
							 kafka_api_label(req->api_key, req->api_version));
		return NULL;
	}
	if (!api->before_auth && !kafka_sasl_authenticated(conn))
	{
		kafka_protocol_close(conn, ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION,
							 "Only ApiVersions, SaslHandshake and SaslAuthenticate may come before authentication.",
							 "%s request before authentication",
							 kafka_api_label(req->api_key, req->api_version));
		return NULL;
	}
	req->flexible = api_first_flexible(api) >= 0 &&
		req->api_version >= api_first_flexible(api);
	if (req->flexible)
		kafka_skip_tagged_fields(&header);
	if (header.error)
	{
		kafka_protocol_close(conn, ERRCODE_PROTOCOL_VIOLATION, NULL,
							 "malformed header of %s request",
							 kafka_api_label(req->api_key, req->api_version));
		return NULL;
	}
	req->body = header;
	/* ApiVersions answers with header v0 whatever its version */
	if (req->flexible && req->api_key != KAFKA_API_API_VERSIONS)
		kafka_write_empty_tagged_fields(&conn->out);
	return api;
}

/*
 * The log line of a request whose handler closes the connection without
 * an answer: it did not parse, or its parse needed more memory than the
 * listener had left, or it named more than KAFKA_MAX_REQUEST_ELEMENTS (a
 * failed kafka-python SASL token is logged by sasl.c as a failed
 * authentication)
 */
static void
log_refused(KafkaConn *conn, const KafkaApi *api, const KafkaRequest *req)
{
	if (api == &raw_sasl_api)
		return;
	if (req->body.over_budget)
		kafka_protocol_close(conn, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
							 kafka_budget_describe(),
							 "%s needs more memory than the listener has left",
							 kafka_api_label(req->api_key, req->api_version));
	else if (req->body.too_many)
		kafka_protocol_close(conn, ERRCODE_PROGRAM_LIMIT_EXCEEDED,
							 "A request may name at most 100000 topics, partitions and topic or group names in all.",
							 "%s names too many topics, partitions or groups",
							 kafka_api_label(req->api_key, req->api_version));
	else
		kafka_protocol_close(conn, ERRCODE_PROTOCOL_VIOLATION, NULL,
							 "malformed %s request",
							 kafka_api_label(req->api_key, req->api_version));
}

/*
 * Serve the requests in frames (each without its size): write their
 * response frames to conn->out, unless the outcome says otherwise.
 * Several frames are Produce requests of one connection, all of the same
 * acks (produce_group.c): they run in one transaction, so that a
 * pipelining producer waits for one WAL flush, not one per request; if one
 * of them fails, none is stored and the connection closes, and the client
 * sends them all again.  received is when the request first ran (a parked
 * one runs again); last_try says its deadline passed.  *deadline is set
 * when it parks.  The outcome is the last request's, or KAFKA_CLOSE.
 */
KafkaOutcome
kafka_serve_frames(KafkaConn *conn, const KafkaFrame *frames, int nframes,
				   bool last_try, TimestampTz received, TimestampTz *deadline,
				   XLogRecPtr *hold_lsn, int *hold_mode)
{
	KafkaRequest req;
	const KafkaApi *volatile api = NULL;
	int			group_start = conn->out.len;
	int			starts[KAFKA_MAX_GROUPED + 1];
	KafkaOutcome outcomes[KAFKA_MAX_GROUPED];
	volatile KafkaOutcome outcome = KAFKA_ANSWER;
	volatile bool in_xact = false;
	MemoryContext oldcontext;
	int			end;

	Assert(nframes >= 1 && nframes <= KAFKA_MAX_GROUPED);
	if (request_context == NULL)
		request_context = AllocSetContextCreate(TopMemoryContext,
												"Kafka request",
												ALLOCSET_DEFAULT_SIZES);
	oldcontext = MemoryContextSwitchTo(request_context);
	if (!conn->parked)
	{
		/* a new request waits for nothing yet */
		kafka_watch_reset(&conn->watch);
		conn->watch.group_slot = -1;
		conn->watch.txn_slot = -1;
	}
	kafka_budget_request_begin(conn, request_context);
	*hold_lsn = InvalidXLogRecPtr;
	*hold_mode = 0;

	PG_TRY();
	{
		for (int i = 0; i < nframes && outcome != KAFKA_CLOSE; i++)
		{
			bool		answered;

			/*
			 * What a request outside a transaction allocates is its own;
			 * in one, handlers allocate in the transaction's memory, and
			 * free what grows with the records themselves
			 */
			MemoryContextReset(request_context);
			memset(&req, 0, sizeof(req));
			req.conn = conn;
			req.received = received;
			req.last_try = last_try;
			req.watch = &conn->watch;
			req.response = &conn->out;
			starts[i] = conn->out.len;
			api = begin_request(conn, &req, frames[i].data, frames[i].len,
								&answered);
			/* what its parse may allocate: what the budget has left */
			req.body.alloc_left = kafka_budget_room();
			req.body.elements_left = KAFKA_MAX_REQUEST_ELEMENTS;
			if (api == NULL)
				outcome = KAFKA_CLOSE;
			else if (answered)
				outcome = KAFKA_ANSWER;
			else
			{
				pgstat_report_activity(STATE_RUNNING, api->name);
				if (api->in_xact && !in_xact)
				{
					kafka_xact_begin(conn);
					in_xact = true;
				}
				outcome = api->handler(&req, deadline);
				if (outcome == KAFKA_CLOSE && !conn->closing)
					log_refused(conn, api, &req);
				/* an answer the handler holds for the standbys */
				if (req.hold_lsn != InvalidXLogRecPtr)
				{
					*hold_lsn = Max(*hold_lsn, req.hold_lsn);
					*hold_mode = Max(*hold_mode, req.hold_mode);
				}
			}
			outcomes[i] = outcome;
		}
		/* a request the connection closes on leaves nothing behind */
		if (in_xact && outcome == KAFKA_CLOSE)
			kafka_xact_abort();
		else if (in_xact)
			kafka_xact_commit(hold_lsn, hold_mode);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		/* as a backend's top level does: end the transaction, go on */
		HOLD_INTERRUPTS();
		MemoryContextSwitchTo(request_context);
		edata = CopyErrorData();
		FlushErrorState();
		AbortOutOfAnyTransaction();
		RESUME_INTERRUPTS();
		/* one line per cause in a while: a full disk fails every request */
		if (kafka_log_allowed(KAFKA_LOG_FAILURE,
							  unpack_sql_state(edata->sqlerrcode),
							  edata->sqlerrcode))
			ereport(LOG,
					(errcode(edata->sqlerrcode),
					 errmsg("closing Kafka connection from %s after its %s request failed: %s",
							conn->peer, api ? api->name : "Kafka", edata->message),
					 nframes > 1 ?
					 errdetail("None of the %d Produce requests served in its transaction was stored.",
							   nframes) : 0));
		outcome = KAFKA_CLOSE;
	}
	PG_END_TRY();
	kafka_budget_request_end();
	MemoryContextSwitchTo(oldcontext);

	if (outcome == KAFKA_CLOSE)
	{
		conn->out.len = group_start;
		*hold_lsn = InvalidXLogRecPtr;
		return KAFKA_CLOSE;
	}

	/* keep the answers, each with its size, and drop the rest */
	starts[nframes] = conn->out.len;
	end = group_start;
	for (int i = 0; i < nframes; i++)
	{
		int			len = starts[i + 1] - starts[i];

		if (outcomes[i] != KAFKA_ANSWER)
			continue;
		if (end != starts[i])
			memmove(conn->out.data + end, conn->out.data + starts[i], len);
		kafka_patch_int32(&conn->out, end, len - 4);
		end += len;
	}
	conn->out.len = end;
	if (end == group_start)
		*hold_lsn = InvalidXLogRecPtr;
	return outcome;
}
