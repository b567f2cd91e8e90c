/*-------------------------------------------------------------------------
 *
 * budget.h
 *	  The memory budget of a Kafka listener process, and the checks a
 *	  request makes as it runs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_BUDGET_H
#define TOPIC_KAFKA_BUDGET_H

#include "pg_topics/kafka/request.h"

/*
 * The buffers every connection may hold without counting: what reading
 * ahead and a small answer take, bounded by the connection limit
 */
#define KAFKA_CONN_BASE_BYTES	(256 * 1024)

extern void kafka_budget_init(void);
extern Size kafka_budget_limit(void);

/* conn's buffers count as they are now; and no longer, once it closes */
extern void kafka_budget_track(KafkaConn *conn);
extern void kafka_budget_untrack(KafkaConn *conn);

/* Would the budget allow conn's input buffer to grow to in_maxlen bytes? */
extern bool kafka_budget_fits(KafkaConn *conn, Size in_maxlen);

/* Was memory given back since the last call (so waiting reads may go on)? */
extern bool kafka_budget_given_back(void);

/* What the budget has left now, the running request's memory counted */
extern Size kafka_budget_room(void);

/*
 * What a request's answer may still grow by for records it reads (Fetch):
 * half of what is left of the budget and of
 * pg_topics.kafka_max_request_bytes, as an answer's buffer may take twice
 * its length
 */
extern Size kafka_budget_answer_room(void);

/* "pg_topics.kafka_listener_memory is ...", a detail for the log */
extern const char *kafka_budget_describe(void);

/*
 * A request of conn runs from begin to end, its working memory in context
 * and the transactions it starts: its answer's growth is checked against
 * the budget, and interrupts are processed while it writes
 */
extern void kafka_budget_request_begin(KafkaConn *conn, MemoryContext context);
extern void kafka_budget_request_end(void);

#endif							/* TOPIC_KAFKA_BUDGET_H */
