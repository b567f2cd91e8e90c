/*-------------------------------------------------------------------------
 *
 * insert_statement.h
 *	  The executor hook that lets an INSERT's rows go in as batches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_INSERT_STATEMENT_H
#define TOPIC_INSERT_STATEMENT_H

extern void topic_insert_statement_init(void);

#endif							/* TOPIC_INSERT_STATEMENT_H */
