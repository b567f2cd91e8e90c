/*-------------------------------------------------------------------------
 *
 * log_limit.h
 *	  Rate-limited log lines of the Kafka listener: one line per client
 *	  address or per cause at a time, and a count of what was held back.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_LOG_LIMIT_H
#define TOPIC_KAFKA_LOG_LIMIT_H

#include "pg_topics/kafka/request.h"

/* What a rate-limited line is about; each has its own keys */
typedef enum KafkaLogKind
{
	KAFKA_LOG_CLOSE,			/* a connection closed for a protocol reason,
								 * keyed by the client's address */
	KAFKA_LOG_LOGIN,			/* a failed login, keyed by the client's
								 * address, the mechanism and the user */
	KAFKA_LOG_FAILURE			/* a request failed, keyed by SQLSTATE */
} KafkaLogKind;

/* the window in which a key gets one line, the rest counted */
#define KAFKA_LOG_INTERVAL_MS	10000

/*
 * May a line of kind about key go to the log now?  If not, it is counted,
 * and the count is logged when the key's window ends (kafka_log_flush).
 * sqlerrcode is the SQLSTATE of that summary line.
 */
extern bool kafka_log_allowed(KafkaLogKind kind, const char *key,
							  int sqlerrcode);

/*
 * Log the counts of windows that ended; returns how many ms until the next
 * window with a count ends (-1: none)
 */
extern long kafka_log_flush(void);

/* The address part of a "host:port" peer, for a KAFKA_LOG_CLOSE key */
extern void kafka_log_peer_host(const char *peer, char *host, int size);

/*
 * The server log's line for conn closing for a protocol reason (the
 * caller closes it): "closing Kafka connection from ADDRESS: REASON", at
 * most one per client address in a while
 */
extern void kafka_protocol_close(KafkaConn *conn, int sqlerrcode,
								 const char *detail, const char *fmt,...)
			pg_attribute_printf(4, 5);

#endif							/* TOPIC_KAFKA_LOG_LIMIT_H */
