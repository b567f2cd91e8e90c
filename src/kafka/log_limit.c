/*-------------------------------------------------------------------------
 *
 * log_limit.c
 *	  Rate-limited log lines of the Kafka listener (see log_limit.h).
 *
 * A client that is refused over and over (a misconfigured producer that
 * reconnects in a loop with an unsupported version, a fuzzer), or a cause
 * that fails every request (a full disk), would otherwise write a line per
 * connection or per request: ten thousand lines in a disk-full episode.
 * Each key (a client's address; for a failed login, the address, mechanism
 * and user, so that each different failure is told; a SQLSTATE for a
 * failed request) gets one line, then a window
 * of KAFKA_LOG_INTERVAL_MS in which its lines are only counted; when the
 * window ends, one line says how many were held back, and the next event
 * is logged in full again.  So a flood leaves a line saying what happens
 * and a line per window saying how often, and an operator sees both.
 *
 * The table is per listener process and small: a key that does not fit
 * takes the place of the one whose window started first (its count is
 * logged first), so many addresses at once cost lines, never memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/elog.h"
#include "utils/timestamp.h"

#include "pg_topics/kafka/log_limit.h"

#define LOG_LIMIT_KEYS		64
#define LOG_LIMIT_KEY_LEN	160

typedef struct LogLimitEntry
{
	bool		used;
	KafkaLogKind kind;
	char		key[LOG_LIMIT_KEY_LEN];
	int			sqlerrcode;
	TimestampTz window_start;
	int			held;			/* lines not logged in this window */
} LogLimitEntry;

static LogLimitEntry entries[LOG_LIMIT_KEYS];

/* Log how many lines of entry's window were held back, and forget them */
static void
log_held(LogLimitEntry *e)
{
	if (e->held == 0)
		return;
	if (e->kind == KAFKA_LOG_CLOSE)
		ereport(LOG,
				(errcode(e->sqlerrcode),
				 errmsg_plural("%d more Kafka connection from %s was closed",
							   "%d more Kafka connections from %s were closed",
							   e->held, e->held, e->key),
				 errdetail("Such lines are logged once per %d s per client address; the first of them says why.",
						   KAFKA_LOG_INTERVAL_MS / 1000)));
	else if (e->kind == KAFKA_LOG_LOGIN)
		ereport(LOG,
				(errcode(e->sqlerrcode),
				 errmsg_plural("%d more Kafka login failed (client address, mechanism, user: %s)",
							   "%d more Kafka logins failed (client address, mechanism, user: %s)",
							   e->held, e->held, e->key),
				 errdetail("Such lines are logged once per %d s per client address, mechanism and user; the first of them says why.",
						   KAFKA_LOG_INTERVAL_MS / 1000)));
	else
		ereport(LOG,
				(errcode(e->sqlerrcode),
				 errmsg_plural("%d more Kafka request failed with SQLSTATE %s",
							   "%d more Kafka requests failed with SQLSTATE %s",
							   e->held, e->held, e->key),
				 errdetail("Such lines are logged once per %d s per SQLSTATE; the first of them says why.",
						   KAFKA_LOG_INTERVAL_MS / 1000)));
	e->held = 0;
}

/* Is entry's window over at now? */
static inline bool
window_over(const LogLimitEntry *e, TimestampTz now)
{
	return now >= TimestampTzPlusMilliseconds(e->window_start,
											  KAFKA_LOG_INTERVAL_MS);
}

bool
kafka_log_allowed(KafkaLogKind kind, const char *key, int sqlerrcode)
{
	TimestampTz now = GetCurrentTimestamp();
	LogLimitEntry *e = NULL;
	LogLimitEntry *oldest = NULL;

	for (int i = 0; i < LOG_LIMIT_KEYS; i++)
	{
		LogLimitEntry *c = &entries[i];

		if (!c->used)
		{
			if (oldest == NULL || oldest->used)
				oldest = c;
			continue;
		}
		if (c->kind == kind && strncmp(c->key, key, LOG_LIMIT_KEY_LEN - 1) == 0)
		{
			e = c;
			break;
		}
		if (oldest == NULL || (oldest->used && c->window_start < oldest->window_start))
			oldest = c;
	}
	if (e != NULL && !window_over(e, now))
	{
		e->held++;
		return false;
	}
	if (e == NULL)
	{
		e = oldest;
		if (e->used)
			log_held(e);
		e->used = true;
		e->kind = kind;
		strlcpy(e->key, key, LOG_LIMIT_KEY_LEN);
	}
	else
		log_held(e);
	e->sqlerrcode = sqlerrcode;
	e->window_start = now;
	e->held = 0;
	return true;
}

long
kafka_log_flush(void)
{
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz next = 0;

	for (int i = 0; i < LOG_LIMIT_KEYS; i++)
	{
		LogLimitEntry *e = &entries[i];
		TimestampTz end;

		if (!e->used || e->held == 0)
			continue;
		end = TimestampTzPlusMilliseconds(e->window_start, KAFKA_LOG_INTERVAL_MS);
		if (now >= end)
			log_held(e);
		else if (next == 0 || end < next)
			next = end;
	}
	if (next == 0)
		return -1;
	return (long) ((next - now + 999) / 1000);
}

void
kafka_log_peer_host(const char *peer, char *host, int size)
{
	const char *colon = strrchr(peer, ':');
	int			len = colon ? (int) (colon - peer) : (int) strlen(peer);

	strlcpy(host, peer, Min(len + 1, size));
}

void
kafka_protocol_close(KafkaConn *conn, int sqlerrcode, const char *detail,
					 const char *fmt,...)
{
	char		host[sizeof(conn->peer)];
	char		reason[512];
	va_list		args;

	kafka_log_peer_host(conn->peer, host, sizeof(host));
	if (!kafka_log_allowed(KAFKA_LOG_CLOSE, host, sqlerrcode))
		return;
	va_start(args, fmt);
	vsnprintf(reason, sizeof(reason), fmt, args);
	va_end(args);
	ereport(LOG,
			(errcode(sqlerrcode),
			 errmsg("closing Kafka connection from %s: %s", conn->peer, reason),
			 detail ? errdetail_internal("%s", detail) : 0));
}
