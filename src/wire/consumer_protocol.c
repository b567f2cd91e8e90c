/*-------------------------------------------------------------------------
 *
 * consumer_protocol.c
 *	  Reading Kafka consumers' subscriptions and assignments (the
 *	  "consumer" protocol type's bytes), which the group coordinator
 *	  otherwise passes along unread: the topics a group reads, and which
 *	  member has which partitions, for topics.group_members.
 *
 * Subscription: version int16, topics [string], user_data bytes (and,
 * from version 1, owned partitions, which are not needed).  Assignment:
 * version int16, [topic string, partitions [int32]], user_data bytes.
 * Every version starts the same way, so newer ones read too.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/consumer_protocol.h"

/* The topics of a subscription; -1 if malformed */
int
kafka_subscription_topics(const char *data, int len, KafkaBytes **topics)
{
	KafkaReader r;
	int32		n;

	kafka_reader_init(&r, data, len);
	(void) kafka_read_int16(&r);	/* version */
	n = kafka_read_array_len(&r, 2, NULL);
	if (r.error)
		return -1;
	*topics = palloc(sizeof(KafkaBytes) * Max(n, 1));
	for (int32 i = 0; i < n; i++)
		(*topics)[i] = kafka_read_string(&r);
	if (r.error)
	{
		pfree(*topics);
		*topics = NULL;
		return -1;
	}
	return n;
}

/* The topic-partitions of an assignment; -1 if malformed */
int
kafka_assignment_partitions(const char *data, int len,
							KafkaTopicPartitions **assigned)
{
	KafkaReader r;
	int32		n;

	if (len == 0)
		return 0;				/* nothing assigned */
	kafka_reader_init(&r, data, len);
	(void) kafka_read_int16(&r);	/* version */
	n = kafka_read_array_len(&r, 6, NULL);
	if (r.error)
		return -1;
	*assigned = palloc(sizeof(KafkaTopicPartitions) * Max(n, 1));
	for (int32 i = 0; i < n; i++)
	{
		KafkaTopicPartitions *tp = &(*assigned)[i];

		tp->topic = kafka_read_string(&r);
		tp->npartitions = kafka_read_array_len(&r, 4, NULL);
		tp->partitions = palloc(sizeof(int32) * Max(tp->npartitions, 1));
		for (int32 p = 0; p < tp->npartitions; p++)
			tp->partitions[p] = kafka_read_int32(&r);
	}
	if (r.error)
	{
		kafka_assignment_free(*assigned, n);
		*assigned = NULL;
		return -1;
	}
	return n;
}

/* Free what kafka_assignment_partitions allocated for n topics */
void
kafka_assignment_free(KafkaTopicPartitions *assigned, int n)
{
	if (assigned == NULL)
		return;
	for (int32 i = 0; i < n; i++)
		pfree(assigned[i].partitions);
	pfree(assigned);
}
