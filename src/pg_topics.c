/*-------------------------------------------------------------------------
 *
 * pg_topics.c
 *	  Entry point of the pg_topics extension: Kafka-style topics as tables.
 *
 * The library must be loaded through shared_preload_libraries: it
 * registers a WAL resource manager, which only works in the postmaster,
 * and every process that replays or decodes WAL needs it.  _PG_init
 * checks that, then hands over to each module's init.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog_internal.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/am/seek_scan.h"
#include "pg_topics/api/fetch.h"
#include "pg_topics/api/groups.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/base/wakeup.h"
#include "pg_topics/hooks/ddl.h"
#include "pg_topics/hooks/insert_statement.h"
#include "pg_topics/kafka/listener.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/log/wal.h"
#include "pg_topics/replication/decode.h"
#include "pg_topics/replication/markers.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_connections.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/shared/kafka_producers.h"
#include "pg_topics/shared/maintenance.h"
#include "pg_topics/shared/registry.h"
#include "pg_topics/worker/worker.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * The WAL resource manager: redo, description and masking are the log's
 * (walredo.c), decoding is logical replication's (decode.c).
 */
static RmgrData topic_rmgr = {
	.rm_name = TOPIC_LOG_RMGR_NAME,
	.rm_redo = topic_redo,
	.rm_desc = topic_desc,
	.rm_identify = topic_identify,
	.rm_mask = topic_mask,
	.rm_decode = topic_decode,
};

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/*
 * Shared memory: the in-flight registry and the consumer groups, sized by
 * settings that need a restart; the launcher's latch (wakeup.c); what
 * topics.maintenance shows; the markers' round state.
 */
static void
topic_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	topic_registry_shmem_request();
	topic_groups_shmem_request();
	kafka_groups_shmem_request();
	kafka_producers_shmem_request();
	kafka_connections_shmem_request();
	kafka_txns_shmem_request();
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
	kafka_groups_shmem_startup();
	kafka_producers_shmem_startup();
	kafka_connections_shmem_startup();
	kafka_txns_shmem_startup();
	topic_wakeup_shmem_startup();
	topic_maintenance_shmem_startup();
	topic_markers_shmem_startup();
	LWLockRelease(AddinShmemInitLock);
}

static void
topic_shmem_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = topic_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = topic_shmem_startup;
}

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_topics must be loaded via shared_preload_libraries"),
				 errhint("Add pg_topics to shared_preload_libraries in postgresql.conf and restart the server.")));

	topic_guc_init();
	topic_config_init();
	RegisterCustomRmgr(TOPIC_LOG_RMGR_ID, &topic_rmgr);
	topic_shmem_init();
	topic_registry_init();
	topic_markers_init();
	topic_groups_init();
	topic_ddl_init();
	topic_buffer_init();
	topic_insert_statement_init();
	topic_seek_init();
	topic_fetch_scan_init();
	topic_worker_init();
	topic_kafka_init();
}
