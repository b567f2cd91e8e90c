/*-------------------------------------------------------------------------
 *
 * wakeup.c
 *	  Asking the background worker for a round now.
 *
 * Code at every level needs the worker sooner than its naptime: a producer
 * whose segment is full, a commit that leaves a segment due, a retention
 * drop that could not finish.  They all set one flag in shared memory (the
 * database to serve) and the launcher's latch; the launcher (worker.c)
 * registers its latch and takes the flag.  Keeping this below everything
 * else lets the lowest layers wake the highest without calling it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/latch.h"
#include "storage/shmem.h"

#include "pg_topics/base/wakeup.h"

typedef struct TopicWakeupShared
{
	Latch	   *launcher_latch;
	pg_atomic_uint32 wake_db;	/* a database to serve at once, or 0 */
} TopicWakeupShared;

static TopicWakeupShared *shared = NULL;

Size
topic_wakeup_shmem_size(void)
{
	return MAXALIGN(sizeof(TopicWakeupShared));
}

void
topic_wakeup_shmem_startup(void)
{
	bool		found;

	shared = ShmemInitStruct("pg_topics worker", sizeof(TopicWakeupShared), &found);
	if (!found)
	{
		shared->launcher_latch = NULL;
		pg_atomic_init_u32(&shared->wake_db, 0);
	}
}

/* Ask for a round in this database now (a producer needs a segment) */
void
topic_worker_wake(void)
{
	Latch	   *latch;

	if (shared == NULL)
		return;
	pg_atomic_write_u32(&shared->wake_db, MyDatabaseId);
	latch = shared->launcher_latch;
	if (latch != NULL)
		SetLatch(latch);
}

/* The launcher's latch, set by topic_worker_wake(); NULL when it exits */
void
topic_wakeup_set_launcher(Latch *latch)
{
	shared->launcher_latch = latch;
}

/* The database a wake asked for, or InvalidOid; clears the request */
Oid
topic_wakeup_take_database(void)
{
	return (Oid) pg_atomic_exchange_u32(&shared->wake_db, 0);
}
