/*-------------------------------------------------------------------------
 *
 * partitioner.h
 *	  Which partition a record goes to (Kafka's default partitioner).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_PARTITIONER_H
#define TOPIC_PARTITIONER_H

/*
 * What routing the records of one call needs: the topic, its key type and
 * partition count, computed once per call, and the call's sticky partition.
 */
typedef struct TopicPartitioner
{
	Oid			relid;
	Oid			key_type;
	int32		nparts;
	int32		sticky;			/* keyless records' partition, -1 until one */
} TopicPartitioner;

extern void topic_partitioner_init(TopicPartitioner *part, Oid relid,
								   Oid key_type, int32 nparts);
extern int32 topic_partition_choose(TopicPartitioner *part, Datum key,
									bool key_null);

#endif							/* TOPIC_PARTITIONER_H */
