/*-------------------------------------------------------------------------
 *
 * sync_standby.h
 *	  Readers wait for the synchronous standby (pg_topics.wait_for_sync_standby),
 *	  and writers refuse to go on without enough of them
 *	  (pg_topics.min_insync_replicas).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SYNC_STANDBY_H
#define TOPIC_SYNC_STANDBY_H

#include "access/xlogdefs.h"

extern bool pg_topics_wait_for_sync_standby;
extern int	pg_topics_min_insync_replicas;

extern void topic_wait_for_sync_standby(void);
extern void topic_check_insync_replicas(int required, const char *topic_name);

/* for the Kafka listener, which answers once standbys have a commit */
extern int	topic_sync_commit_wait_mode(void);
extern bool topic_sync_standby_reached(XLogRecPtr lsn, int mode);
extern bool topic_sync_standby_notify(XLogRecPtr lsn, int mode);
extern void topic_sync_standby_notify_cancel(void);

#endif							/* TOPIC_SYNC_STANDBY_H */
