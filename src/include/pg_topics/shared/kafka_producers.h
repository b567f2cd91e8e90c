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

extern void kafka_producers_shmem_request(void);
extern void kafka_producers_shmem_startup(void);
extern int16 kafka_producer_new_id(Oid roleid, int64 *producer_id);
extern int16 kafka_producer_begin(Oid roleid, Oid relid, int64 producer_id,
								  int16 epoch, int32 first_seq, int32 count,
								  bool *duplicate, int64 *base_offset,
								  int64 *timestamp);
extern void kafka_producer_end(Oid relid, int64 producer_id, int32 first_seq,
							   bool committed, int64 base_offset,
							   int64 timestamp);

#endif							/* TOPIC_KAFKA_PRODUCERS_H */
