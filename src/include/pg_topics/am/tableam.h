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

extern void topic_refuse_dml(Oid relid, CmdType command) pg_attribute_noreturn();
extern uint64 topic_router_blocks(Relation rel);
extern void topic_logical_size_begin(void);
extern void topic_logical_size_end(void);

#endif							/* TOPIC_TABLEAM_H */
