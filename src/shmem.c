/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  Shared memory of pg_topics: asks for it at server start and
 *	  initializes each module's part.
 *
 * The in-flight registry (registry.c) and the consumer groups
 * (group_state.c) live in shared memory sized by settings that need a
 * restart; the background worker (worker.c) keeps its launcher's latch
 * there, and what topics.maintenance shows (maintenance.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "pg_topics/base/wakeup.h"
#include "pg_topics/replication/markers.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/maintenance.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/top/shmem.h"

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
topic_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	topic_registry_shmem_request();
	topic_groups_shmem_request();
	RequestAddinShmemSpace(topic_wakeup_shmem_size());
	RequestAddinShmemSpace(topic_maintenance_shmem_size());
	topic_markers_shmem_request();
}

static void
topic_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	topic_registry_shmem_startup();
	topic_groups_shmem_startup();
	topic_wakeup_shmem_startup();
	topic_maintenance_shmem_startup();
	topic_markers_shmem_startup();
	LWLockRelease(AddinShmemInitLock);
}

void
topic_shmem_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = topic_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = topic_shmem_startup;
}
