/*-------------------------------------------------------------------------
 *
 * routing.h
 *	  Routing INSERT and COPY into a topic by key.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_ROUTING_H
#define TOPIC_ROUTING_H

#include "nodes/parsenodes.h"
#include "tcop/cmdtag.h"

extern void topic_route_insert(Query *query);
extern void topic_refuse_direct_insert(Oid relid, const char *command);
extern bool topic_copy_from(CopyStmt *stmt, const char *query_string,
							QueryCompletion *qc);

#endif							/* TOPIC_ROUTING_H */
