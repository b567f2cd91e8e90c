/*-------------------------------------------------------------------------
 *
 * ddl.h
 *	  Planner and utility hooks that keep topics what they are.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_DDL_H
#define TOPIC_DDL_H

extern void topic_ddl_init(void);

#endif							/* TOPIC_DDL_H */
