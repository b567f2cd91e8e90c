/*-------------------------------------------------------------------------
 *
 * sync_standby.h
 *	  Readers wait for the synchronous standby (pg_topics.wait_for_sync_standby).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SYNC_STANDBY_H
#define TOPIC_SYNC_STANDBY_H

extern bool pg_topics_wait_for_sync_standby;

extern void topic_wait_for_sync_standby(void);

#endif							/* TOPIC_SYNC_STANDBY_H */
