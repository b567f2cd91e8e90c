/*-------------------------------------------------------------------------
 *
 * unless_locked.h
 *	  Running a step of upkeep in a subtransaction that a lock it cannot
 *	  take gives up.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_UNLESS_LOCKED_H
#define TOPIC_UNLESS_LOCKED_H

extern bool topic_call_unless_locked(void (*fn) (void *arg), void *arg);

#endif							/* TOPIC_UNLESS_LOCKED_H */
