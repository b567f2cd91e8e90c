/*-------------------------------------------------------------------------
 *
 * kafka_producers.h
 *	  Idempotent Kafka producers' ids, the roles they are bound to, and
 *	  their sequence numbers, in shared memory.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_PRODUCERS_H
#define TOPIC_KAFKA_PRODUCERS_H

/* A producer keeps the sequence numbers of this many batches per partition */
#define KAFKA_PRODUCER_BATCHES	5

/* One batch of an idempotent producer, stored at base_offset */
typedef struct KafkaProducerBatch
{
	int32		first_seq;
	int32		last_seq;
	int64		base_offset;
	int64		timestamp;		/* log-append time, ms since the Unix epoch */
} KafkaProducerBatch;

/*
 * A producer's state in one partition as its log holds it (the records of
 * its batches carry it: kafka/producer_log.c), for a producer the table
 * does not know there
 */
typedef struct KafkaProducerHistory
{
	Oid			role;			/* InvalidOid: the log holds none of its batches */
	int16		epoch;			/* the newest epoch it wrote with */
	int			nbatches;		/* its last batches of that epoch, oldest first */
	KafkaProducerBatch batches[KAFKA_PRODUCER_BATCHES];
} KafkaProducerHistory;

/*
 * What kafka_producer_begin answers, beyond Kafka's error codes, when the
 * producer's state in the partition is to be read from the log first
 */
#define KAFKA_PRODUCER_NEEDS_HISTORY	(-100)

extern void kafka_producers_shmem_request(void);
extern void kafka_producers_shmem_startup(void);
extern int16 kafka_producer_new_id(Oid roleid, int64 *producer_id);
extern int16 kafka_producer_begin(Oid roleid, Oid relid, int64 producer_id,
								  int16 epoch, int32 first_seq, int32 count,
								  bool first_in_txn,
								  const KafkaProducerHistory *history,
								  bool *duplicate, int64 *base_offset,
								  int64 *timestamp);
extern void kafka_producer_end(Oid relid, int64 producer_id, int32 first_seq,
							   bool committed, int64 base_offset,
							   int64 timestamp);

#endif							/* TOPIC_KAFKA_PRODUCERS_H */
