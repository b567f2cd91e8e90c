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

extern void topic_refuse_dml(Oid relid, CmdType command) pg_attribute_noreturn();

#endif							/* TOPIC_TABLEAM_H */
