/*-------------------------------------------------------------------------
 *
 * wakeup.h
 *	  Asking the background worker for a round now.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WAKEUP_H
#define TOPIC_WAKEUP_H

#include "storage/latch.h"

extern Size topic_wakeup_shmem_size(void);
extern void topic_wakeup_shmem_startup(void);
extern void topic_worker_wake(void);
extern void topic_wakeup_set_launcher(Latch *latch);
extern Oid	topic_wakeup_take_database(void);

#endif							/* TOPIC_WAKEUP_H */
