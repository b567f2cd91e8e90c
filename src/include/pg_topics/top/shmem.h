/*-------------------------------------------------------------------------
 *
 * shmem.h
 *	  Shared memory of pg_topics.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SHMEM_H
#define TOPIC_SHMEM_H

extern void topic_shmem_init(void);

#endif							/* TOPIC_SHMEM_H */
