/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  The background worker: segments ahead of need, and retention.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WORKER_H
#define TOPIC_WORKER_H

extern void topic_worker_init(void);
extern Size topic_worker_shmem_size(void);
extern void topic_worker_shmem_startup(void);
extern void topic_worker_wake(void);

#endif							/* TOPIC_WORKER_H */
