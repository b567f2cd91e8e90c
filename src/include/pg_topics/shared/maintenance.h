/*-------------------------------------------------------------------------
 *
 * maintenance.h
 *	  Whether the background worker runs, when it last ran, and why not.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_MAINTENANCE_H
#define TOPIC_MAINTENANCE_H

#include "datatype/timestamp.h"

extern Size topic_maintenance_shmem_size(void);
extern void topic_maintenance_shmem_startup(void);

extern bool topic_maintenance_register_launcher(void);
extern void topic_maintenance_launcher_started(void);
extern void topic_maintenance_launcher_stopped(void);
extern void topic_maintenance_worker_start_failed(Oid dboid);
extern void topic_maintenance_worker_started(void);
extern void topic_maintenance_round_done(Oid dboid);
extern void topic_maintenance_read_only(Oid dboid, const char *dbname,
										bool read_only);
extern const char *topic_maintenance_problem(void);

#endif							/* TOPIC_MAINTENANCE_H */
