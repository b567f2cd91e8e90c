/*-------------------------------------------------------------------------
 *
 * request.c
 *	  Serving one Kafka request: its header, the version ranges pg_topics
 *	  offers, the handler, the response frame.
 *
 * The versions offered are chosen so that no API needs Kafka's flexible
 * encoding except ApiVersions v3, which librdkafka sends first on every
 * connection; and so that clients pick RecordBatch v2 both ways (Produce
 * from v3, Fetch from v4) and kafka-python infers a broker new enough to
 * use them (docs/architecture.md, Kafka protocol).  The minimum versions
 * matter as much as the maximums: librdkafka switches a feature on only if
 * the versions it needs overlap ours (which is why Produce is listed from
 * v0, kafka_produce_legacy).
 *
 * A request of an unknown API or an unsupported version closes the
 * connection, as Kafka does, except ApiVersions, which is answered in its
 * version-0 form with UNSUPPORTED_VERSION and the versions offered, so
 * that the client can retry with one of them, and Produce v0-2, which
 * ApiVersions offers without serving them (kafka_produce_legacy).  Every
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
 * back to back, which share one (kafka_serve_frames).  An error that a
 * handler does not turn into a Kafka error code ends the transaction and
 * closes the connection (the client reconnects and retries); the listener
 * goes on.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"

#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/log_limit.h"
#include "pg_topics/kafka/request.h"
#include "pg_topics/kafka/sasl.h"
#include "pg_topics/wire/codec.h"
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
#include "pg_topics/wire/requests.h"

static KafkaOutcome kafka_api_versions(KafkaRequest *req, TimestampTz *deadline);
static KafkaOutcome kafka_produce_legacy(KafkaRequest *req, TimestampTz *deadline);

/* One API pg_topics serves */
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

/* the versions offered are the ones the parsers read (wire/requests.h) */
static const KafkaApi kafka_apis[] = {
	{KAFKA_API_PRODUCE, KAFKA_PRODUCE_VERSIONS, -1, false, true, kafka_produce, "Produce"},
	{KAFKA_API_FETCH, KAFKA_FETCH_VERSIONS, -1, false, true, kafka_fetch, "Fetch"},
	{KAFKA_API_LIST_OFFSETS, KAFKA_LIST_OFFSETS_VERSIONS, KAFKA_LIST_OFFSETS_FIRST_FLEXIBLE, false, true, kafka_list_offsets, "ListOffsets"},
	{KAFKA_API_METADATA, KAFKA_METADATA_VERSIONS, -1, false, true, kafka_metadata, "Metadata"},
	{KAFKA_API_OFFSET_COMMIT, KAFKA_OFFSET_COMMIT_VERSIONS, -1, false, true, kafka_offset_commit, "OffsetCommit"},
	{KAFKA_API_OFFSET_FETCH, KAFKA_OFFSET_FETCH_VERSIONS, -1, false, true, kafka_offset_fetch, "OffsetFetch"},
	{KAFKA_API_FIND_COORDINATOR, KAFKA_FIND_COORDINATOR_VERSIONS, -1, false, false, kafka_find_coordinator, "FindCoordinator"},
	{KAFKA_API_JOIN_GROUP, KAFKA_JOIN_GROUP_VERSIONS, -1, false, true, kafka_join_group, "JoinGroup"},
	{KAFKA_API_HEARTBEAT, KAFKA_HEARTBEAT_VERSIONS, -1, false, false, kafka_heartbeat, "Heartbeat"},
	{KAFKA_API_LEAVE_GROUP, KAFKA_LEAVE_GROUP_VERSIONS, -1, false, false, kafka_leave_group, "LeaveGroup"},
	{KAFKA_API_SYNC_GROUP, KAFKA_SYNC_GROUP_VERSIONS, -1, false, false, kafka_sync_group, "SyncGroup"},
	{KAFKA_API_DESCRIBE_GROUPS, KAFKA_DESCRIBE_GROUPS_VERSIONS, -1, false, true, kafka_describe_groups, "DescribeGroups"},
	{KAFKA_API_LIST_GROUPS, KAFKA_LIST_GROUPS_VERSIONS, -1, false, true, kafka_list_groups, "ListGroups"},
	{KAFKA_API_SASL_HANDSHAKE, KAFKA_SASL_HANDSHAKE_VERSIONS, KAFKA_SASL_HANDSHAKE_FIRST_FLEXIBLE, true, false, kafka_sasl_handshake, "SaslHandshake"},
	{KAFKA_API_API_VERSIONS, KAFKA_API_VERSIONS_VERSIONS, KAFKA_API_VERSIONS_FIRST_FLEXIBLE, true, false, kafka_api_versions, "ApiVersions"},
	{KAFKA_API_CREATE_TOPICS, KAFKA_CREATE_TOPICS_VERSIONS, -1, false, true, kafka_create_topics, "CreateTopics"},
	{KAFKA_API_DELETE_TOPICS, KAFKA_DELETE_TOPICS_VERSIONS, -1, false, true, kafka_delete_topics, "DeleteTopics"},
	{KAFKA_API_INIT_PRODUCER_ID, KAFKA_INIT_PRODUCER_ID_VERSIONS, KAFKA_INIT_PRODUCER_ID_FIRST_FLEXIBLE, false, true, kafka_init_producer_id, "InitProducerId"},
	{KAFKA_API_SASL_AUTHENTICATE, KAFKA_SASL_AUTHENTICATE_VERSIONS, KAFKA_SASL_AUTHENTICATE_FIRST_FLEXIBLE, true, true, kafka_sasl_authenticate, "SaslAuthenticate"},
	{KAFKA_API_DELETE_RECORDS, KAFKA_DELETE_RECORDS_VERSIONS, KAFKA_DELETE_RECORDS_FIRST_FLEXIBLE, false, true, kafka_delete_records, "DeleteRecords"},
	{KAFKA_API_CREATE_PARTITIONS, KAFKA_CREATE_PARTITIONS_VERSIONS, KAFKA_CREATE_PARTITIONS_FIRST_FLEXIBLE, false, true, kafka_create_partitions, "CreatePartitions"},
	{KAFKA_API_DESCRIBE_ACLS, KAFKA_DESCRIBE_ACLS_VERSIONS, KAFKA_DESCRIBE_ACLS_FIRST_FLEXIBLE, false, true, kafka_describe_acls, "DescribeAcls"},
	{KAFKA_API_DESCRIBE_LOG_DIRS, KAFKA_DESCRIBE_LOG_DIRS_VERSIONS, KAFKA_DESCRIBE_LOG_DIRS_FIRST_FLEXIBLE, false, true, kafka_describe_log_dirs, "DescribeLogDirs"},
	{KAFKA_API_DESCRIBE_CLUSTER, KAFKA_DESCRIBE_CLUSTER_VERSIONS, KAFKA_DESCRIBE_CLUSTER_FIRST_FLEXIBLE, false, true, kafka_describe_cluster, "DescribeCluster"},
	{KAFKA_API_OFFSET_FOR_LEADER_EPOCH, KAFKA_OFFSET_FOR_LEADER_EPOCH_VERSIONS, KAFKA_OFFSET_FOR_LEADER_EPOCH_FIRST_FLEXIBLE, false, true, kafka_offset_for_leader_epoch, "OffsetForLeaderEpoch"},
};

/* Produce v0-2, offered by ApiVersions and refused (kafka_produce_legacy) */
static const KafkaApi legacy_produce_api = {
	KAFKA_API_PRODUCE, KAFKA_LEGACY_PRODUCE_VERSIONS, -1, false, false,
	kafka_produce_legacy, "Produce"
};

static MemoryContext request_context = NULL;

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

/* ApiVersions' list of what is offered */
static void
write_api_ranges(StringInfo buf, bool compact)
{
	if (compact)
		kafka_write_compact_array_len(buf, lengthof(kafka_apis));
	else
		kafka_write_array_len(buf, lengthof(kafka_apis));
	for (int i = 0; i < lengthof(kafka_apis); i++)
	{
		kafka_write_int16(buf, kafka_apis[i].key);
		kafka_write_int16(buf, kafka_apis[i].key == KAFKA_API_PRODUCE ?
						  legacy_produce_api.min_version :
						  kafka_apis[i].min_version);
		kafka_write_int16(buf, kafka_apis[i].max_version);
		if (compact)
			kafka_write_empty_tagged_fields(buf);
	}
}

/* ApiVersions (v0-3): what pg_topics offers */
static KafkaOutcome
kafka_api_versions(KafkaRequest *req, TimestampTz *deadline)
{
	bool		flexible = req->api_version >= KAFKA_API_VERSIONS_FIRST_FLEXIBLE;
	KafkaApiVersionsRequest ar;

	/* v3's client software name and version are not used */
	if (!kafka_parse_api_versions_request(&req->body, req->api_version, &ar))
		return KAFKA_CLOSE;

	kafka_write_int16(req->response, KAFKA_NONE);
	write_api_ranges(req->response, flexible);
	if (req->api_version >= 1)
		kafka_write_int32(req->response, 0);	/* throttle_time_ms */
	if (flexible)
		kafka_write_empty_tagged_fields(req->response);
	return KAFKA_ANSWER;
}

/* Answer an ApiVersions of a version not offered: the v0 form, with error */
static void
api_versions_unsupported(StringInfo out)
{
	kafka_write_int16(out, KAFKA_UNSUPPORTED_VERSION);
	write_api_ranges(out, false);
}

/*
 * Produce v0-2.  ApiVersions offers Produce from version 0, as Apache
 * Kafka 4.0 does (KAFKA-18659): librdkafka compresses with gzip, snappy or
 * lz4 only for a broker whose Produce versions reach down to 0, and sends
 * uncompressed batches to any other.  The old message formats these
 * versions carry are not served: every partition is answered
 * UNSUPPORTED_VERSION in the request's own version, and nothing is
 * stored.  A request with acks=0 has no answer to carry the error: its
 * connection closes, as Kafka closes one whose acks=0 request failed.
 */
static KafkaOutcome
kafka_produce_legacy(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaProduceRequest pr;

	if (!kafka_parse_legacy_produce_request(&req->body, req->api_version, &pr))
		return KAFKA_CLOSE;
	if (pr.acks == 0)
	{
		/* no answer can say so: the connection closes, the log says why */
		kafka_protocol_close(req->conn, ERRCODE_FEATURE_NOT_SUPPORTED,
							 "Produce versions 0 to 2 are answered UNSUPPORTED_VERSION, which a request with acks=0 does not wait for.",
							 "%s with acks=0 is not served",
							 kafka_api_label(req->api_key, req->api_version));
		req->conn->closing = true;
		return KAFKA_CLOSE;
	}
	kafka_write_array_len(out, pr.ntopics);
	for (int32 t = 0; t < pr.ntopics; t++)
	{
		KafkaTopicRequest *tr = &pr.topics[t];

		kafka_write_string_len(out, tr->name.data, Max(tr->name.len, 0));
		kafka_write_array_len(out, tr->npartitions);
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			kafka_write_int32(out, tr->partitions[p].partition);
			kafka_write_int16(out, KAFKA_UNSUPPORTED_VERSION);
			kafka_write_int64(out, -1);	/* base_offset */
			if (req->api_version >= 2)
				kafka_write_int64(out, -1); /* log_append_time_ms */
		}
	}
	if (req->api_version >= 1)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	return KAFKA_ANSWER;
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

	if (!kafka_parse_request_header(&header, &h))
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
	if (api != NULL && req->api_key == KAFKA_API_PRODUCE &&
		req->api_version >= legacy_produce_api.min_version &&
		req->api_version <= legacy_produce_api.max_version)
		api = &legacy_produce_api;
	if (api != NULL && req->api_key == KAFKA_API_API_VERSIONS &&
		req->api_version > api->max_version)
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
	if (req->api_version < api->min_version ||
		req->api_version > api->max_version)
	{
		kafka_protocol_close(conn, ERRCODE_FEATURE_NOT_SUPPORTED,
							 psprintf("Versions %d to %d are offered.",
									  api->key == KAFKA_API_PRODUCE ?
									  legacy_produce_api.min_version :
									  api->min_version, api->max_version),
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
	req->flexible = api->first_flexible >= 0 &&
		req->api_version >= api->first_flexible;
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
 * If frame is a Produce request that may share a transaction with the
 * Produce requests next to it, its acks, and in *npartitions how many
 * partitions it writes; otherwise KAFKA_NOT_GROUPED.  All requests of a
 * transaction must have the same acks, which decides how it commits, and
 * none may be transactional (refused on its own).  One whose topics do not
 * parse is grouped all the same (with 0 partitions): it fails the group,
 * so that none of the requests the client sent with it is stored.
 */
int
kafka_frame_produce_acks(KafkaConn *conn, const char *frame, int len,
						 int *npartitions)
{
	static MemoryContext peek_context = NULL;
	MemoryContext oldcontext;
	KafkaReader r;
	KafkaRequestHeader h;
	KafkaProduceRequest pr;
	int			acks = KAFKA_NOT_GROUPED;

	if (conn->raw_sasl || !kafka_sasl_authenticated(conn))
		return KAFKA_NOT_GROUPED;
	if (peek_context == NULL)
		peek_context = AllocSetContextCreate(TopMemoryContext,
											 "Kafka request peek",
											 ALLOCSET_SMALL_SIZES);
	oldcontext = MemoryContextSwitchTo(peek_context);
	kafka_reader_init(&r, frame, len);
	r.alloc_left = kafka_budget_room();
	r.elements_left = KAFKA_MAX_REQUEST_ELEMENTS;
	if (kafka_parse_request_header(&r, &h) && h.api_key == KAFKA_API_PRODUCE)
	{
		KafkaReader body = r;	/* read again whole, below */

		if (kafka_parse_produce_head(&r, h.api_version, &pr) &&
			pr.transactional_id.len < 0)
		{
			acks = pr.acks;
			*npartitions = 0;
			if (kafka_parse_produce_request(&body, h.api_version, &pr))
				for (int t = 0; t < pr.ntopics; t++)
					*npartitions += pr.topics[t].npartitions;
		}
	}
	MemoryContextSwitchTo(oldcontext);
	MemoryContextReset(peek_context);
	return acks;
}

/*
 * Serve the requests in frames (each without its size): write their
 * response frames to conn->out, unless the outcome says otherwise.
 * Several frames are Produce requests of one connection, all of the same
 * acks (kafka_frame_produce_acks): they run in one transaction, so that a
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
