/*-------------------------------------------------------------------------
 *
 * routing.h
 *	  Routing INSERT into a topic by key.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_ROUTING_H
#define TOPIC_ROUTING_H

#include "nodes/parsenodes.h"

extern void topic_route_insert(Query *query);
extern void topic_refuse_direct_insert(Oid relid, const char *command);

#endif							/* TOPIC_ROUTING_H */
