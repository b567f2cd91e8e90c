/*-------------------------------------------------------------------------
 *
 * partitioner.h
 *	  Which partition a record goes to (Kafka's default partitioner).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_PARTITIONER_H
#define TOPIC_PARTITIONER_H

extern uint32 topic_murmur2(const unsigned char *data, int length);
extern int32 topic_partition_for_key(Datum key, Oid typid, int32 nparts);
extern int32 topic_partition_sticky(Oid relid, int32 nparts);

#endif							/* TOPIC_PARTITIONER_H */
