/*-------------------------------------------------------------------------
 *
 * markers.h
 *	  Stable-offset markers: what a publisher tells its subscribers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_MARKERS_H
#define TOPIC_MARKERS_H

#include "nodes/pg_list.h"

extern void topic_markers_init(void);
extern void topic_markers_log_removed(Oid router, const int64 *ranges,
									  int nranges);
extern void topic_markers_refresh(Oid router);
extern void topic_markers_round_begin(int nlogs);
extern void topic_markers_round_committed(List *logs);
extern void topic_markers_shmem_request(void);
extern void topic_markers_shmem_startup(void);

#endif							/* TOPIC_MARKERS_H */
