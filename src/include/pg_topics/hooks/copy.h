/*-------------------------------------------------------------------------
 *
 * copy.h
 *	  COPY FROM into a topic, each row routed to its partition.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_COPY_H
#define TOPIC_COPY_H

#include "nodes/parsenodes.h"
#include "tcop/cmdtag.h"

extern bool topic_copy_from(CopyStmt *stmt, const char *query_string,
							QueryCompletion *qc);

#endif							/* TOPIC_COPY_H */
