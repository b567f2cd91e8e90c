/*-------------------------------------------------------------------------
 *
 * record_map.h
 *	  A Kafka record's key, value and headers as a topic's columns, and
 *	  back (record_map.c says how).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_RECORD_MAP_H
#define TOPIC_KAFKA_RECORD_MAP_H

#include "datatype/timestamp.h"

#include "pg_topics/wire/record_batch.h"

/* milliseconds from the Unix epoch (Kafka's timestamps) to PostgreSQL's */
#define KAFKA_UNIX_EPOCH_MS \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000)

/* A PostgreSQL timestamp as Kafka's Unix-epoch milliseconds */
static inline int64
kafka_timestamp_ms(TimestampTz ts)
{
	return ts / 1000 + KAFKA_UNIX_EPOCH_MS;
}

extern Datum kafka_bytes_datum(Oid type, KafkaBytes b, const char *what);
extern bool kafka_headers_datum(const KafkaHeader *headers, int n,
								Datum *result);
extern KafkaBytes kafka_datum_bytes(Oid type, struct varlena *stored);
extern int	kafka_stored_headers(struct varlena *stored, KafkaHeader **headers);

#endif							/* TOPIC_KAFKA_RECORD_MAP_H */
