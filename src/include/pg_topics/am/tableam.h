/*-------------------------------------------------------------------------
 *
 * tableam.h
 *	  The topic_log table access method.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_TABLEAM_H
#define TOPIC_TABLEAM_H

#include "nodes/nodes.h"
#include "utils/relcache.h"

#include "pg_topics/base/compat.h"

pg_noreturn extern void topic_refuse_dml(Oid relid, CmdType command) pg_attribute_noreturn();
extern uint64 topic_router_blocks(Relation rel);

#endif							/* TOPIC_TABLEAM_H */
