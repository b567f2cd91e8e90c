/*-------------------------------------------------------------------------
 *
 * listener.c
 *	  The Kafka listener: a fixed pool of background workers, each an event
 *	  loop over its client connections.
 *
 * pg_topics.kafka_workers processes are registered when the library loads
 * (when pg_topics.kafka_port is set).  The postmaster binds the sockets then,
 * on every address of pg_topics.kafka_listen_addresses, so that a port that
 * another program (or another cluster) holds is found at start, and the
 * processes inherit them; each listens on them, accepting in turn
 * (EPOLLEXCLUSIVE wakes one), and serves its connections from one epoll
 * set, waited on together with its latch.  A socket that is bound but that
 * nobody listens on refuses connections, which is what a standby's port
 * does until the promotion starts the processes.  Why
 * a pool and not a process per connection: a connection costs a file
 * descriptor and two buffers instead of one of max_worker_processes
 * (Kafka clients keep two or three connections each, and idle ones would
 * starve parallel query and logical replication), and why not a single
 * process: a slow request would hold up every client's heartbeats.
 *
 * A request that must wait is parked (request.h): the connection stops
 * reading, and its request runs again when the shared registry sets the
 * latch for a commit to a partition it watches, or when its deadline
 * passes.  Nothing in the loop blocks except the request being served.
 *
 * Bad clients are bounded: frames larger than
 * pg_topics.kafka_max_request_bytes (512 kB before authentication, as
 * Kafka's sasl.server.max.receive.size) or of negative size close the
 * connection before anything is allocated for them, a frame is read only
 * once the process's memory budget has room for it (kafka/budget.c), an
 * incomplete frame older than authentication_timeout closes the
 * connection (slowloris), as does an unauthenticated connection older than
 * that, and one with neither a request answered nor a byte of its answers
 * taken for pg_topics.kafka_idle_timeout (answers nobody reads), and one
 * whose parked request has waited that long.  A worker serves at most its
 * share of pg_topics.kafka_max_connections, at most half of them not yet
 * authenticated (a new one takes the place of the oldest of those), and a
 * role at most a quarter of pg_topics.kafka_max_connections and its
 * CONNECTION LIMIT (shared/kafka_connections.c).  A connection whose
 * responses pile up unread is not read from until they drain.  Each
 * connection closed for a protocol reason leaves one log line
 * (rate-limited per client address, kafka/log_limit.c).
 *
 * Only a primary listens: the workers start when recovery ends, so after
 * a failover the promoted standby's listener takes over, and clients that
 * list every node as a bootstrap server find it (kafka/brokers.c).  A
 * primary that refuses writes takes no Kafka writes either
 * (kafka/fence.c, read again at each reload).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "port/pg_bswap.h"
#include "postmaster/postmaster.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/listener.h"
#include "pg_topics/kafka/log_limit.h"
#include "pg_topics/kafka/produce_group.h"
#include "pg_topics/kafka/request.h"
#include "pg_topics/kafka/role_slots.h"
#include "pg_topics/kafka/sasl.h"
#include "pg_topics/kafka/tls.h"
#include "pg_topics/kafka/transactions.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/shared/registry.h"

PGDLLEXPORT void topic_kafka_main(Datum main_arg);

#define MAX_LISTEN_SOCKETS		16
/* read at most this much at a time, and ahead of the frame in hand */
#define READ_CHUNK				65536
/* stop reading a connection while this much of its output is unsent */
#define OUT_HIGH_WATER			(4 * 1024 * 1024)
/* the largest frame before authentication (Kafka's sasl.server.max.receive.size) */
#define PREAUTH_MAX_REQUEST		(512 * 1024)
/* requests of one connection served before the others get a turn */
#define REQUESTS_PER_TURN		8
/* or, for requests that take long, this much time (ms) */
#define TURN_MS					50
/* how often each listener runs the group coordinator's timeouts */
#define GROUP_TICK_MS			100
#define MAX_EVENTS				256

/* This worker */
static int	worker_number;
static int	watcher;			/* registry watcher slot */
static int	epoll_fd = -1;
static int	listen_fds[MAX_LISTEN_SOCKETS];
static int	nlisten = 0;
static bool listening = false;
static dlist_head connections = DLIST_STATIC_INIT(connections);
static int	nconnections = 0;
static int	nunauthenticated = 0;	/* of them, counted in their share */
static bool retry_reads = false;	/* memory came back: read the waiting */
static MemoryContext listener_context;
/* connections with a complete request to serve: served before waiting */
static bool work_pending = false;

/* Is every address the listener would bind to a loopback one? */
static bool
listen_addresses_loopback(void)
{
	for (int i = 0; i < nlisten; i++)
	{
		struct sockaddr_storage addr;
		socklen_t	len = sizeof(addr);

		if (getsockname(listen_fds[i], (struct sockaddr *) &addr, &len) < 0)
			return false;
		if (addr.ss_family == AF_INET)
		{
			struct sockaddr_in *in4 = (struct sockaddr_in *) &addr;

			if ((ntohl(in4->sin_addr.s_addr) >> 24) != 127)
				return false;
		}
		else if (addr.ss_family == AF_INET6)
		{
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &addr;

			if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
				return false;
		}
		else
			return false;
	}
	return true;
}

/* Bind one listening socket for ai; false (logged) if it cannot be */
static bool
bind_listen_socket(struct addrinfo *ai, const char *host)
{
	int			fd;
	int			one = 1;

	if (nlisten >= MAX_LISTEN_SOCKETS)
		return false;
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);
	if (fd < 0)
	{
		ereport(LOG,
				(errcode_for_socket_access(),
				 errmsg("could not create Kafka listen socket for \"%s\": %m", host)));
		return false;
	}
	(void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((ai->ai_family == AF_INET6 &&
		 setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
		bind(fd, ai->ai_addr, ai->ai_addrlen) < 0)
	{
		ereport(WARNING,
				(errcode_for_socket_access(),
				 errmsg("could not bind Kafka listener to \"%s\" port %d: %m",
						host, pg_topics_kafka_port),
				 errhint("Is another program, or another PostgreSQL cluster, using the port? Set pg_topics.kafka_port to another one.")));
		close(fd);
		return false;
	}
	listen_fds[nlisten++] = fd;
	return true;
}

/* Bind every address of pg_topics.kafka_listen_addresses */
static void
open_listen_sockets(void)
{
	char	   *raw = pstrdup(pg_topics_kafka_listen_addresses);
	List	   *hosts;
	ListCell   *lc;
	char		port[16];

	if (!SplitGUCList(raw, ',', &hosts))
	{
		ereport(WARNING,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid list syntax in parameter \"%s\"",
						"pg_topics.kafka_listen_addresses")));
		return;
	}
	snprintf(port, sizeof(port), "%d", pg_topics_kafka_port);
	foreach(lc, hosts)
	{
		char	   *host = (char *) lfirst(lc);
		struct addrinfo hints = {0};
		struct addrinfo *res;
		int			rc;

		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE;
		rc = getaddrinfo(strcmp(host, "*") == 0 ? NULL : host, port, &hints, &res);
		if (rc != 0)
		{
			ereport(LOG,
					(errmsg("could not resolve Kafka listen address \"%s\": %s",
							host, gai_strerror(rc))));
			continue;
		}
		for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next)
			if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
				(void) bind_listen_socket(ai, host);
		freeaddrinfo(res);
	}
	if (nlisten == 0)
		ereport(WARNING,
				(errmsg("Kafka listener not started: no address of pg_topics.kafka_listen_addresses could be bound")));
}

/* Listen on the sockets the postmaster bound (each process does) */
static void
listen_on_sockets(void)
{
	for (int i = 0; i < nlisten; i++)
		if (listen(listen_fds[i], 1024) < 0)
			ereport(FATAL,
					(errcode_for_socket_access(),
					 errmsg("could not listen for Kafka clients: %m")));
}

/* Watch fd in the epoll set for events (EPOLL_CTL_ADD or _MOD) */
static void
epoll_watch(int op, int fd, uint32 events, void *ptr)
{
	struct epoll_event ev;

	ev.events = events;
	ev.data.ptr = ptr;
	if (epoll_ctl(epoll_fd, op, fd, &ev) < 0)
		elog(ERROR, "epoll_ctl failed: %m");
}

/*
 * Start or stop accepting: trust authentication is only allowed while
 * every listen address is a loopback one (checked again at each reload,
 * as pg_topics.kafka_auth may change)
 */
static void
update_listening(void)
{
	static bool said = false;
	bool		allowed = pg_topics_kafka_auth != TOPIC_KAFKA_AUTH_TRUST ||
		listen_addresses_loopback();

	if (!allowed && !said && worker_number == 0)
		ereport(LOG,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Kafka listener does not accept connections: pg_topics.kafka_auth is trust but pg_topics.kafka_listen_addresses includes an address that is not a loopback one"),
				 errhint("Set pg_topics.kafka_auth to scram-sha-256 or plain, or listen on loopback addresses only.")));
	said = !allowed;
	if (allowed == listening)
		return;
	for (int i = 0; i < nlisten; i++)
	{
		if (allowed)
			epoll_watch(EPOLL_CTL_ADD, listen_fds[i], EPOLLIN | EPOLLEXCLUSIVE,
						&listen_fds[i]);
		else
			(void) epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fds[i], NULL);
	}
	listening = allowed;
}

/* Let this process hold as many sockets as the system allows */
static void
raise_open_files_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max)
	{
		rl.rlim_cur = rl.rlim_max;
		(void) setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Start an empty buffer of conn's, in its memory context */
static void
init_buffer(KafkaConn *conn, StringInfo buf)
{
	MemoryContext oldcontext = MemoryContextSwitchTo(conn->context);

	initStringInfo(buf);
	MemoryContextSwitchTo(oldcontext);
}

/* Forget conn: close its socket, free its memory, give back its slots */
static void
close_connection(KafkaConn *conn)
{
	dlist_delete(&conn->node);
	if (!conn->evicted)
		nconnections--;
	if (conn->unauthenticated)
		nunauthenticated--;
	kafka_role_slot_release(conn);
	kafka_txn_conn_closed(conn);
	kafka_budget_untrack(conn);
	if (conn->tls)
		kafka_tls_end(conn->tls);
	close(conn->fd);
	MemoryContextDelete(conn->context);
}

/* This process's share of pg_topics.kafka_max_connections */
static int
connection_cap(void)
{
	return Max(1, (pg_topics_kafka_max_connections + pg_topics_kafka_workers - 1) /
			   pg_topics_kafka_workers);
}

/*
 * Make room for a new connection by evicting the oldest one that has not
 * authenticated yet; false if there is none.  A client that opens
 * connections and never authenticates holds at most half of the slots,
 * each only until newer ones need it: a client that authenticates at once
 * gets in.  The evicted connection no longer counts and is not watched;
 * the sweep frees it (events of this turn may still name it).
 */
static bool
evict_oldest_unauthenticated(void)
{
	dlist_iter	iter;

	dlist_foreach(iter, &connections)
	{
		KafkaConn  *conn = dlist_container(KafkaConn, node, iter.cur);

		if (conn->unauthenticated)
		{
			kafka_protocol_close(conn, ERRCODE_TOO_MANY_CONNECTIONS,
								 "At most half of a listener process's connections may be waiting to authenticate; the oldest of them makes room for a new one.",
								 "not authenticated when its slot was needed");
			(void) epoll_ctl(epoll_fd, EPOLL_CTL_DEL, conn->fd, NULL);
			conn->evicted = true;
			conn->unauthenticated = false;
			nunauthenticated--;
			nconnections--;
			return true;
		}
	}
	return false;
}

/* Accept every pending connection of listening socket lfd */
static void
accept_connections(int lfd)
{
	int			cap = connection_cap();

	for (;;)
	{
		struct sockaddr_storage addr;
		socklen_t	addrlen = sizeof(addr);
		int			fd = accept4(lfd, (struct sockaddr *) &addr, &addrlen,
								 SOCK_NONBLOCK | SOCK_CLOEXEC);
		int			one = 1;
		KafkaConn  *conn;
		MemoryContext context;
		char		host[NI_MAXHOST];
		char		serv[NI_MAXSERV];
		bool		authenticates;

		if (fd < 0)
		{
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
				errno != ECONNABORTED)
				ereport(LOG,
						(errcode_for_socket_access(),
						 errmsg("could not accept Kafka connection: %m")));
			return;
		}
		if (getnameinfo((struct sockaddr *) &addr, addrlen, host, sizeof(host),
						serv, sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		{
			strlcpy(host, "?", sizeof(host));
			strlcpy(serv, "?", sizeof(serv));
		}
		/* under trust a connection acts as the trust role at once */
		authenticates = pg_topics_kafka_auth != TOPIC_KAFKA_AUTH_TRUST;
		if ((nconnections >= cap ||
			 (authenticates && nunauthenticated >= Max(1, cap / 2))) &&
			!evict_oldest_unauthenticated() && nconnections >= cap)
		{
			/* over the cap: closed at once, so the backlog does not fill */
			if (kafka_log_allowed(KAFKA_LOG_CLOSE, host,
								  ERRCODE_TOO_MANY_CONNECTIONS))
				ereport(LOG,
						(errcode(ERRCODE_TOO_MANY_CONNECTIONS),
						 errmsg("refusing Kafka connection from %s:%s: this listener process serves %d connections already",
								host, serv, nconnections),
						 errdetail("Each of the %d listener processes serves at most its share of pg_topics.kafka_max_connections (%d).",
								   pg_topics_kafka_workers,
								   pg_topics_kafka_max_connections)));
			close(fd);
			continue;
		}
		(void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

		context = AllocSetContextCreate(listener_context, "Kafka connection",
										ALLOCSET_SMALL_SIZES);
		conn = MemoryContextAllocZero(context, sizeof(KafkaConn));
		conn->fd = fd;
		conn->context = context;
		init_buffer(conn, &conn->in);
		init_buffer(conn, &conn->out);
		conn->connected_at = conn->last_request = conn->last_sent =
			GetCurrentTimestamp();
		snprintf(conn->peer, sizeof(conn->peer), "%s:%s", host, serv);
		conn->auth = KAFKA_AUTH_NONE;
		conn->unauthenticated = authenticates;
		if (authenticates)
			nunauthenticated++;
		conn->events = EPOLLIN | EPOLLRDHUP;
		epoll_watch(EPOLL_CTL_ADD, fd, conn->events, conn);
		dlist_push_tail(&connections, &conn->node);
		nconnections++;
	}
}

/* Ask epoll for what conn needs now: input unless held back, output if any */
static void
update_events(KafkaConn *conn)
{
	uint32		events = conn->peer_closed ? 0 : EPOLLRDHUP;

	if (!conn->parked && !conn->closing && !conn->peer_closed &&
		!conn->wait_memory && conn->hold_lsn == InvalidXLogRecPtr &&
		conn->out.len - conn->out_sent < OUT_HIGH_WATER)
		events |= EPOLLIN;
	if ((conn->hold_lsn == InvalidXLogRecPtr ? conn->out.len : conn->hold_from) >
		conn->out_sent || conn->tls_want_write)
		events |= EPOLLOUT;
	if (events != conn->events)
	{
		epoll_watch(EPOLL_CTL_MOD, conn->fd, events, conn);
		conn->events = events;
	}
}

/* Send what conn has to send; false if the connection is gone */
static bool
send_output(KafkaConn *conn)
{
	/* an answer held for the synchronous standbys waits, with what follows */
	int			end = conn->hold_lsn != InvalidXLogRecPtr ? conn->hold_from :
		conn->out.len;

	while (conn->out_sent < end)
	{
		bool		want_write;
		ssize_t		n = conn->tls ?
			kafka_tls_write(conn->tls, conn->out.data + conn->out_sent,
							end - conn->out_sent, &want_write) :
			send(conn->fd, conn->out.data + conn->out_sent,
				 end - conn->out_sent, MSG_NOSIGNAL);

		if (n < 0)
		{
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			if (errno == EINTR)
				continue;
			return false;
		}
		conn->out_sent += n;
		conn->last_sent = GetCurrentTimestamp();
	}
	if (end < conn->out.len)
		return true;
	/* all sent: start the buffer over, small again after a large response */
	if (conn->out.maxlen > 4 * READ_CHUNK)
	{
		pfree(conn->out.data);
		init_buffer(conn, &conn->out);
		kafka_budget_track(conn);
	}
	else
		resetStringInfo(&conn->out);
	conn->out_sent = 0;
	return !conn->closing;
}

/* The largest frame conn may send now */
static uint32
frame_limit(KafkaConn *conn)
{
	if (!kafka_sasl_authenticated(conn))
		return PREAUTH_MAX_REQUEST;
	return (uint32) Min((Size) pg_topics_kafka_max_request_bytes,
						kafka_budget_limit());
}

/*
 * How many bytes conn->in must hold before its first frame is complete:
 * 4 for the size, then the size and the frame.  -1 if the announced size
 * is refused.
 */
static int
frame_needs(KafkaConn *conn, int32 *frame_len)
{
	uint32		n;

	*frame_len = -1;
	if (conn->in.len < 4)
		return 4;
	memcpy(&n, conn->in.data, 4);
	n = pg_ntoh32(n);
	if (n > frame_limit(conn))
		return -1;
	*frame_len = (int32) n;
	return 4 + (int) n;
}

/* Log why conn's next frame is refused (frame_needs said -1) */
static void
log_refused_frame(KafkaConn *conn)
{
	uint32		n;
	const char *what = "request";

	memcpy(&n, conn->in.data, 4);
	n = pg_ntoh32(n);
	/* the API key and version come first: name them if they came */
	if (conn->in.len >= 8 && !conn->raw_sasl)
	{
		int16		key;
		int16		version;

		memcpy(&key, conn->in.data + 4, 2);
		memcpy(&version, conn->in.data + 6, 2);
		what = kafka_api_label((int16) pg_ntoh16(key),
							   (int16) pg_ntoh16(version));
	}
	if ((int32) n < 0)
		kafka_protocol_close(conn, ERRCODE_PROTOCOL_VIOLATION, NULL,
							 "%s of negative size %d", what, (int32) n);
	else if (!kafka_sasl_authenticated(conn))
		kafka_protocol_close(conn, ERRCODE_PROGRAM_LIMIT_EXCEEDED,
							 "A request before authentication (ApiVersions, SaslHandshake, SaslAuthenticate) is small, as in Kafka (sasl.server.max.receive.size).",
							 "%s of %u bytes before authentication, more than %d bytes",
							 what, n, PREAUTH_MAX_REQUEST);
	else if (n > (uint32) pg_topics_kafka_max_request_bytes)
		kafka_protocol_close(conn, ERRCODE_PROGRAM_LIMIT_EXCEEDED, NULL,
							 "%s of %u bytes is larger than pg_topics.kafka_max_request_bytes (%d bytes)",
							 what, n, pg_topics_kafka_max_request_bytes);
	else
		kafka_protocol_close(conn, ERRCODE_PROGRAM_LIMIT_EXCEEDED, NULL,
							 "%s of %u bytes is larger than pg_topics.kafka_listener_memory (%d kB)",
							 what, n, pg_topics_kafka_listener_memory);
}

/*
 * Read what conn's socket has; false if the connection is gone or refused.
 * A frame's buffer must fit in the memory budget: until it does, conn is
 * not read (wait_memory).
 */
static bool
read_input(KafkaConn *conn)
{
	conn->wait_memory = false;
	for (;;)
	{
		int32		frame_len;
		int			need = frame_needs(conn, &frame_len);
		int			room;
		ssize_t		n;

		if (need < 0)
		{
			log_refused_frame(conn);
			return false;
		}
		/* a whole frame and a chunk more is enough: serve before reading on */
		if (conn->in.len >= need + READ_CHUNK)
			return true;
		room = Max(need - conn->in.len, READ_CHUNK);
		if (conn->in.len + room >= conn->in.maxlen)
		{
			Size		exact = (Size) conn->in.len + room + 1;
			Size		maxlen = 2 * (Size) conn->in.maxlen;

			/* a large frame takes its own size, not the next power of 2 */
			if (maxlen < exact || exact > 4 * READ_CHUNK)
				maxlen = exact;
			if (!kafka_budget_fits(conn, maxlen))
			{
				conn->wait_memory = true;
				return true;
			}
			conn->in.data = repalloc(conn->in.data, maxlen);
			conn->in.maxlen = (int) maxlen;
			kafka_budget_track(conn);
		}
		if (!conn->tls_checked)
		{
			char		first;

			/* a TLS handshake record first, or a Kafka frame */
			n = recv(conn->fd, &first, 1, MSG_PEEK);
			if (n == 1)
			{
				conn->tls_checked = true;
				if (kafka_tls_hello(first) &&
					(conn->tls = kafka_tls_start(conn->fd)) == NULL)
					return false;
				continue;
			}
		}
		else if (conn->tls)
		{
			n = kafka_tls_read(conn->tls, conn->in.data + conn->in.len, room,
							   &conn->tls_want_write);
		}
		else
			n = recv(conn->fd, conn->in.data + conn->in.len, room, 0);
		if (n == 0)
		{
			/* the client is done sending: serve what came, then close */
			conn->peer_closed = true;
			return true;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		conn->in.len += n;
		if (conn->frame_started == 0)
			conn->frame_started = GetCurrentTimestamp();
	}
}

/* Drop the first used bytes (whole frames) from conn->in */
static void
consume_input(KafkaConn *conn, int used)
{
	int			rest = conn->in.len - used;

	if (rest > 0)
		memmove(conn->in.data, conn->in.data + used, rest);
	conn->in.len = rest;
	if (conn->in.maxlen > 4 * READ_CHUNK && rest < READ_CHUNK)
	{
		/* after a large request, give its memory back */
		char	   *data = MemoryContextAlloc(conn->context, 2 * READ_CHUNK);

		memcpy(data, conn->in.data, rest);
		pfree(conn->in.data);
		conn->in.data = data;
		conn->in.maxlen = 2 * READ_CHUNK;
	}
	conn->frame_started = rest > 0 ? GetCurrentTimestamp() : 0;
}

/*
 * Serve conn's complete requests (a few, or for TURN_MS, then the others
 * get a turn); false if the connection must close
 */
static bool
serve_requests(KafkaConn *conn, bool last_try)
{
	TimestampTz turn_end = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   TURN_MS);

	for (int i = 0; i < REQUESTS_PER_TURN; i++)
	{
		int32		frame_len;
		int			need = frame_needs(conn, &frame_len);
		TimestampTz deadline = 0;
		KafkaOutcome outcome;
		XLogRecPtr	hold_lsn;
		int			hold_mode;
		int			start;
		KafkaFrame	frames[KAFKA_MAX_GROUPED];
		int			nframes;
		int			used;

		if (need < 0)
		{
			/* a frame read ahead of the one served is too large */
			log_refused_frame(conn);
			return false;
		}
		if (conn->in.len < need || conn->closing)
			return true;
		if (conn->out.len - conn->out_sent >= OUT_HIGH_WATER ||
			conn->hold_lsn != InvalidXLogRecPtr)
			return true;
		if (!conn->parked)
			conn->parked_since = GetCurrentTimestamp();
		start = conn->out.len;
		nframes = kafka_group_frames(conn, frame_len, frames, &used);
		outcome = kafka_serve_frames(conn, frames, nframes, last_try,
									 conn->parked_since, &deadline,
									 &hold_lsn, &hold_mode);
		if (conn->unauthenticated && kafka_sasl_authenticated(conn))
		{
			conn->unauthenticated = false;
			nunauthenticated--;
		}
		/* the answer waits until the synchronous standbys have its commit */
		if (hold_lsn != InvalidXLogRecPtr &&
			!topic_sync_standby_reached(hold_lsn, hold_mode))
		{
			conn->hold_lsn = hold_lsn;
			conn->hold_mode = hold_mode;
			conn->hold_from = start;
		}
		if (outcome == KAFKA_PARK)
		{
			conn->parked = true;
			conn->park_deadline = deadline;
			return true;
		}
		conn->parked = false;
		if (outcome == KAFKA_CLOSE)
		{
			/* the answers to the requests before it go out first */
			conn->closing = true;
			return true;
		}
		consume_input(conn, used);
		kafka_budget_track(conn);
		conn->last_request = GetCurrentTimestamp();
		last_try = false;
		if (conn->last_request >= turn_end)
			break;
	}
	/* more may be waiting: come back before sleeping */
	work_pending = true;
	return true;
}

/*
 * Has a client that closed its side got every answer it will get?  A
 * request that waits is not answered: the client is gone.
 */
static bool
finished(KafkaConn *conn)
{
	int32		frame_len;

	if (!conn->peer_closed || conn->out_sent < conn->out.len)
		return false;
	return conn->parked || conn->in.len < frame_needs(conn, &frame_len) ||
		frame_needs(conn, &frame_len) < 0;
}

/* Handle epoll's events for conn; false if it must close */
static bool
handle_events(KafkaConn *conn, uint32 events)
{
	if (events & (EPOLLERR | EPOLLHUP))
		return false;
	/* a client gone while its request waits: nobody to answer */
	if ((events & EPOLLRDHUP) && conn->parked)
		return false;
	if ((events & EPOLLOUT) && !send_output(conn))
		return false;
	if (conn->tls_want_write && (events & EPOLLOUT))
		events |= EPOLLIN;
	if ((events & (EPOLLIN | EPOLLRDHUP)) && !conn->parked && !conn->peer_closed)
	{
		if (!read_input(conn))
			return false;
		if (!serve_requests(conn, false) || !send_output(conn))
			return false;
	}
	return !finished(conn);
}

/* Has anything a parked request watches seen a commit since it looked? */
static bool
watch_fired(const KafkaWatch *watch)
{
	if (watch->group_slot >= 0 &&
		kafka_group_changed(watch->group_slot, watch->group_seen))
		return true;
	if (watch->txn_slot >= 0 &&
		kafka_txn_changed(watch->txn_slot, watch->txn_seen))
		return true;
	return watch->partitions &&
		topic_registry_watch_count(watch->buckets) != watch->seen;
}

/*
 * One pass over every connection: run parked requests whose partitions
 * saw commits or whose deadline passed, serve requests left for later,
 * close connections past their timeouts; and tell the registry which
 * partitions the parked requests watch.  Returns how long the loop may
 * sleep (ms, -1 forever).
 */
static long
sweep_connections(void)
{
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz wake = 0;
	uint64		set[TOPIC_WATCH_WORDS];
	dlist_mutable_iter iter;
	dlist_iter	iter2;
	bool		pending = work_pending;
	bool		retry = retry_reads || kafka_budget_given_back();
	int			waiting = 0;
	KafkaConn  *held = NULL;
	long		log_wait;

	memset(set, 0, sizeof(set));
	work_pending = false;
	retry_reads = false;
	dlist_foreach_modify(iter, &connections)
	{
		KafkaConn  *conn = dlist_container(KafkaConn, node, iter.cur);
		TimestampTz limit;
		bool		ok = true;

		if (conn->evicted)
		{
			close_connection(conn);
			continue;
		}
		if (conn->hold_lsn != InvalidXLogRecPtr &&
			topic_sync_standby_reached(conn->hold_lsn, conn->hold_mode))
		{
			/* the standbys have it: the answer goes, and the next request */
			conn->hold_lsn = InvalidXLogRecPtr;
			ok = send_output(conn) && serve_requests(conn, false) &&
				send_output(conn);
		}
		if (!ok)
			;
		else if (conn->parked)
		{
			bool		last = now >= conn->park_deadline;

			if (last || watch_fired(&conn->watch))
				ok = serve_requests(conn, last) && send_output(conn);
		}
		else if (pending)
			ok = serve_requests(conn, false) && send_output(conn);
		/* memory came back: what waited for it may be read now */
		if (ok && retry && conn->wait_memory && !conn->parked)
			ok = handle_events(conn, EPOLLIN);
		/* TLS may hold decrypted bytes the socket will not signal again */
		if (ok && !conn->parked && !conn->peer_closed && conn->tls &&
			kafka_tls_pending(conn->tls))
			ok = handle_events(conn, EPOLLIN);

		/* timeouts: authentication, an incomplete frame, idleness */
		if (ok && !conn->parked && conn->hold_lsn == InvalidXLogRecPtr)
		{
			long		auth_ms = (long) AuthenticationTimeout * 1000;

			if (conn->auth != KAFKA_AUTH_DONE &&
				pg_topics_kafka_auth != TOPIC_KAFKA_AUTH_TRUST)
			{
				limit = TimestampTzPlusMilliseconds(conn->connected_at, auth_ms);
				if (now >= limit)
					ok = false;
				else
					wake = wake == 0 ? limit : Min(wake, limit);
			}
			/* a frame that waits for memory is not the client's doing */
			if (conn->frame_started != 0 && !conn->wait_memory)
			{
				limit = TimestampTzPlusMilliseconds(conn->frame_started, auth_ms);
				if (now >= limit)
					ok = false;
				else
					wake = wake == 0 ? limit : Min(wake, limit);
			}

			/*
			 * Idle: no request answered and no byte of the answers taken
			 * (a client that does not read its answers is idle too)
			 */
			limit = TimestampTzPlusMilliseconds(Max(conn->last_request,
													conn->last_sent),
												pg_topics_kafka_idle_timeout);
			if (now >= limit)
				ok = false;
			else
				wake = wake == 0 ? limit : Min(wake, limit);
		}
		else if (ok && conn->parked)
		{
			/*
			 * A parked request keeps its connection alive only as long as an
			 * answered one would: a Fetch waiting 24 days (max_wait_ms
			 * INT32_MAX) on an otherwise idle connection does not
			 */
			limit = TimestampTzPlusMilliseconds(conn->parked_since,
												pg_topics_kafka_idle_timeout);
			if (now >= limit)
				ok = false;
			else
				wake = wake == 0 ? limit : Min(wake, limit);
		}
		if (!ok || finished(conn))
		{
			close_connection(conn);
			continue;
		}
		if (conn->parked)
		{
			for (int i = 0; i < TOPIC_WATCH_WORDS; i++)
				set[i] |= conn->watch.buckets[i];
			wake = wake == 0 ? conn->park_deadline : Min(wake, conn->park_deadline);
		}
		if (conn->wait_memory)
			waiting++;
		if (conn->hold_lsn != InvalidXLogRecPtr &&
			(held == NULL || conn->hold_lsn < held->hold_lsn))
			held = conn;
		update_events(conn);
	}
	topic_registry_watch_set(watcher, set);

	/*
	 * The WAL senders set our latch when the standbys reach the earliest
	 * held answer's commit; if they cannot be asked to, look again soon
	 */
	if (held == NULL)
		topic_sync_standby_notify_cancel();
	else if (!topic_sync_standby_notify(held->hold_lsn, held->hold_mode))
	{
		TimestampTz soon = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), 10);

		wake = wake == 0 ? soon : Min(wake, soon);
	}

	/* a commit that came before the set was published is seen here */
	dlist_foreach(iter2, &connections)
	{
		KafkaConn  *conn = dlist_container(KafkaConn, node, iter2.cur);

		if (conn->parked && watch_fired(&conn->watch))
			work_pending = true;
	}

	/* memory given back during the sweep: the waiting read next turn */
	if (waiting > 0 && kafka_budget_given_back())
		retry_reads = work_pending = true;

	/* rate-limited log lines: the counts of windows that ended */
	log_wait = kafka_log_flush();
	if (log_wait >= 0)
	{
		TimestampTz at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													 log_wait);

		wake = wake == 0 ? at : Min(wake, at);
	}

	if (work_pending)
		return 0;
	if (wake == 0)
		return -1;
	now = GetCurrentTimestamp();
	return wake <= now ? 0 : (long) ((wake - now + 999) / 1000);
}

/*
 * The group coordinator's timeouts (sessions, the initial rebalance delay),
 * from every listener, each at most every GROUP_TICK_MS while there are
 * groups: the listener that served a member stays awake for its group,
 * where another may sleep on.  Returns timeout, shortened to the next tick.
 */
static long
tick_groups(long timeout)
{
	static TimestampTz next_tick = 0;
	TimestampTz now = GetCurrentTimestamp();
	long		wait;

	if (now >= next_tick)
		next_tick = kafka_groups_tick() >= 0 ?
			TimestampTzPlusMilliseconds(now, GROUP_TICK_MS) : 0;
	if (next_tick == 0)
		return timeout;
	wait = next_tick <= now ? 0 : (long) ((next_tick - now + 999) / 1000);
	return timeout < 0 || wait < timeout ? wait : timeout;
}

/* Serve what epoll says is ready */
static void
handle_ready_sockets(void)
{
	struct epoll_event events[MAX_EVENTS];
	int			n = epoll_wait(epoll_fd, events, MAX_EVENTS, 0);

	for (int i = 0; i < n; i++)
	{
		void	   *ptr = events[i].data.ptr;

		if (ptr >= (void *) &listen_fds[0] && ptr < (void *) &listen_fds[MAX_LISTEN_SOCKETS])
			accept_connections(*(int *) ptr);
		else
		{
			KafkaConn  *conn = (KafkaConn *) ptr;

			if (conn->evicted)
				continue;
			if (!handle_events(conn, events[i].events))
				close_connection(conn);
			else
				update_events(conn);
		}
	}
}

/* Entry point of each listener process */
void
topic_kafka_main(Datum main_arg)
{
	WaitEventSet *wes;
	long		timeout = -1;

	worker_number = DatumGetInt32(main_arg);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(pg_topics_kafka_database, NULL, 0);
	pgstat_report_appname("pg_topics kafka listener");
	kafka_session_init();
	kafka_fence_reload(worker_number == 0);
	kafka_brokers_init(listen_fds, nlisten);

	listener_context = AllocSetContextCreate(TopMemoryContext,
											 "Kafka listener",
											 ALLOCSET_DEFAULT_SIZES);
	kafka_budget_init();
	kafka_role_slots_start(worker_number);
	raise_open_files_limit();
	(void) kafka_tls_init();
	watcher = topic_registry_watcher_attach();
	listen_on_sockets();
	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_fd < 0)
		ereport(FATAL,
				(errcode_for_socket_access(),
				 errmsg("could not create epoll set for the Kafka listener: %m")));
	update_listening();

	/* lives as long as the listener: no resource owner (17) or context */
#if PG_VERSION_NUM >= 170000
	wes = CreateWaitEventSet(NULL, 3);
#else
	wes = CreateWaitEventSet(TopMemoryContext, 3);
#endif
	AddWaitEventToSet(wes, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(wes, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(wes, WL_SOCKET_READABLE, epoll_fd, NULL, NULL);

	for (;;)
	{
		WaitEvent	event;

		pgstat_report_activity(STATE_IDLE, NULL);
		/* the requests' statistics (WAL, commits, tables), now and then */
		(void) pgstat_report_stat(false);
		(void) WaitEventSetWait(wes, timeout, &event, 1, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			/* the server's TLS settings, reloaded as the postmaster does */
			(void) kafka_tls_init();
			update_listening();
			kafka_fence_reload(worker_number == 0);
			kafka_brokers_reload();
		}
		/* transaction workers that never started: their slots freed */
		kafka_txn_sweep_starting();
		handle_ready_sockets();
		timeout = sweep_connections();
		timeout = tick_groups(timeout);
	}
}

/*
 * Bind the listener's sockets and register its processes (from _PG_init,
 * in the postmaster)
 */
void
topic_kafka_init(void)
{
	if (pg_topics_kafka_port == 0)
		return;
	open_listen_sockets();
	if (nlisten == 0)
		return;
	for (int i = 0; i < pg_topics_kafka_workers; i++)
	{
		BackgroundWorker worker;

		memset(&worker, 0, sizeof(worker));
		worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
			BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
		worker.bgw_restart_time = 1;
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "pg_topics");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "topic_kafka_main");
		snprintf(worker.bgw_name, BGW_MAXLEN, "pg_topics kafka listener %d", i);
		snprintf(worker.bgw_type, BGW_MAXLEN, "pg_topics kafka listener");
		worker.bgw_main_arg = Int32GetDatum(i);
		RegisterBackgroundWorker(&worker);
	}
}
