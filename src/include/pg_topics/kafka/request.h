/*-------------------------------------------------------------------------
 *
 * request.h
 *	  A Kafka client connection and the request it is being served.
 *
 * Kafka serves one request of a connection at a time, in order, so a
 * connection has at most one request in hand.  A handler either answers
 * it, answers nothing (a Produce with acks=0), or parks it: a request that
 * must wait (a long-poll Fetch) gives its process back and is run again
 * from the start when something it waits for may have happened, or when
 * its deadline passes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_REQUEST_H
#define TOPIC_KAFKA_REQUEST_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "lib/ilist.h"
#include "lib/stringinfo.h"

#include "pg_topics/shared/registry.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/sasl.h"

/* How far a connection's authentication has come */
typedef enum KafkaAuthState
{
	KAFKA_AUTH_NONE,			/* nothing yet: ApiVersions and SaslHandshake */
	KAFKA_AUTH_HANDSHAKE,		/* mechanism chosen, exchange next */
	KAFKA_AUTH_EXCHANGE,		/* SCRAM's second message next */
	KAFKA_AUTH_DONE				/* authenticated as role */
} KafkaAuthState;

/* SASL mechanisms */
#define KAFKA_SASL_PLAIN		1
#define KAFKA_SASL_SCRAM		2

/*
 * What a parked request waits for: commits to its partitions, as the
 * registry's wake-up buckets they fall in (any number of partitions: a
 * bucket set is a bit each), or a Kafka group's changes
 */
typedef struct KafkaWatch
{
	bool		partitions;		/* any partition noted */
	uint64		buckets[TOPIC_WATCH_WORDS];
	uint64		seen;			/* their commit counts when noted, summed */
	int			group_slot;		/* a Kafka group's changes, or -1 */
	uint64		group_seen;
	char		member_id[NAMEDATALEN]; /* who joins, when parked in JoinGroup */
	int			txn_slot;		/* an open Kafka transaction's slot, or -1 */
	uint64		txn_seen;
} KafkaWatch;

typedef struct KafkaConn
{
	dlist_node	node;
	int			fd;
	MemoryContext context;		/* the connection's buffers and state */
	StringInfoData in;			/* bytes received, not yet handled */
	StringInfoData out;			/* bytes to send */
	int			out_sent;		/* of out */
	uint32		events;			/* epoll events asked for */
	char		peer[64];		/* the client's address, for the log */
	TimestampTz connected_at;
	TimestampTz last_request;	/* when the last request was answered */
	TimestampTz last_sent;		/* when bytes of out last went out */
	TimestampTz frame_started;	/* first byte of an incomplete frame, or 0 */
	bool		closing;		/* close once out is sent */
	bool		wait_memory;	/* not read until the budget has room */
	bool		evicted;		/* made room for a newer one: to be freed */
	Size		budgeted;		/* what its buffers count in the budget */
	bool		unauthenticated;	/* counted in the listener's share */
	Oid			slot_role;		/* counted as one of this role's */
	bool		peer_closed;	/* the client sends no more */
	bool		tls_checked;	/* its first byte said whether it speaks TLS */
	struct KafkaTls *tls;		/* TLS, or NULL */
	bool		tls_want_write; /* TLS must write before it can read on */

	/* authentication */
	KafkaAuthState auth;
	int			mechanism;		/* KAFKA_SASL_* */
	bool		raw_sasl;		/* SaslHandshake v0: tokens come unframed */
	KafkaScram *scram;
	char	   *scram_user;
	const char *auth_failure;	/* why the SCRAM exchange must fail, or NULL */
	Oid			role;			/* authenticated as, under kafka_auth */
	char	   *role_name;

	/* an answer held until the synchronous standbys reach hold_lsn */
	XLogRecPtr	hold_lsn;
	int			hold_mode;
	int			hold_from;		/* where it starts in out */

	/* the request in hand, when parked */
	bool		parked;
	TimestampTz parked_since;	/* when the request first ran */
	TimestampTz park_deadline;
	KafkaWatch	watch;

	/*
	 * its request handed to a Kafka transaction's worker (transactions.c):
	 * the segment holding it (a dsm_segment), the slot and the ticket
	 */
	void	   *txn_seg;
	int			txn_slot;
	uint64		txn_ticket;
} KafkaConn;

/* A request being served; its frame stays in conn->in until answered */
typedef struct KafkaRequest
{
	KafkaConn  *conn;
	int16		api_key;
	int16		api_version;
	int32		correlation_id;
	KafkaBytes	client_id;
	bool		flexible;		/* request header v2, response header v1 */
	KafkaReader body;			/* after the header */
	StringInfo	response;		/* the handler writes the body here */
	TimestampTz received;		/* when the request first ran */
	bool		last_try;		/* a parked request's deadline passed */
	KafkaWatch *watch;			/* what to wait for when parking */
	XLogRecPtr	hold_lsn;		/* the answer waits for the synchronous */
	int			hold_mode;		/* standbys to reach this (or 0: no) */
} KafkaRequest;

/* What a handler did with its request */
typedef enum KafkaOutcome
{
	KAFKA_ANSWER,				/* the response body is written */
	KAFKA_NO_ANSWER,			/* nothing goes back (Produce with acks=0) */
	KAFKA_PARK,					/* run again later (request->watch, deadline) */
	KAFKA_CLOSE					/* malformed or refused: close the connection */
} KafkaOutcome;

typedef KafkaOutcome (*KafkaHandler) (KafkaRequest *req, TimestampTz *deadline);

/* A request's bytes in conn->in, after its size */
typedef struct KafkaFrame
{
	const char *data;
	int			len;
} KafkaFrame;

/*
 * The topics, partitions and topic or group names one request may list in
 * all: its work is a lookup or a read for each, so this bounds how long it
 * holds up the other clients of its listener process (a second or so), far
 * above what a client sends (a Fetch names the partitions its consumer is
 * assigned)
 */
#define KAFKA_MAX_REQUEST_ELEMENTS	100000

/* Produce requests served in one transaction at most */
#define KAFKA_MAX_GROUPED		8
#define KAFKA_NOT_GROUPED		(-2)

/* watch.c: what a parked request waits for */
extern void kafka_watch_reset(KafkaWatch *watch);
extern void kafka_watch_partition(KafkaWatch *watch, Oid relid);

/* request.c */
extern const char *kafka_api_label(int16 api_key, int16 api_version);
extern KafkaOutcome kafka_serve_frames(KafkaConn *conn,
									   const KafkaFrame *frames, int nframes,
									   bool last_try, TimestampTz received,
									   TimestampTz *deadline,
									   XLogRecPtr *hold_lsn, int *hold_mode);

#endif							/* TOPIC_KAFKA_REQUEST_H */
