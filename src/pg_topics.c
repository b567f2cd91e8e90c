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

#include "fmgr.h"
#include "miscadmin.h"

#include "pg_topics.h"
#include "registry.h"
#include "fetch.h"
#include "seek.h"
#include "wal.h"
#include "worker.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_topics must be loaded via shared_preload_libraries"),
				 errhint("Add pg_topics to shared_preload_libraries in postgresql.conf and restart the server.")));

	topic_guc_init();
	topic_wal_init();
	topic_shmem_init();
	topic_registry_init();
	topic_groups_init();
	topic_ddl_init();
	topic_seek_init();
	topic_fetch_scan_init();
	topic_worker_init();
}
