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

#endif							/* TOPIC_WORKER_H */
