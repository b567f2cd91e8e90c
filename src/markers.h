/*-------------------------------------------------------------------------
 *
 * markers.h
 *	  Stable-offset markers: what a publisher tells its subscribers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_MARKERS_H
#define TOPIC_MARKERS_H

extern void topic_markers_at_commit(void);
extern void topic_markers_refresh(Oid router);
extern void topic_markers_round_begin(int nlogs);
extern void topic_markers_round_committed(void);
extern void topic_markers_shmem_request(void);
extern void topic_markers_shmem_startup(void);

#endif							/* TOPIC_MARKERS_H */
