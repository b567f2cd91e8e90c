/*-------------------------------------------------------------------------
 *
 * freeze.h
 *	  VACUUM of topic_log relations: the resolved mark and relfrozenxid.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_FREEZE_H
#define TOPIC_FREEZE_H

#include "storage/buf.h"
#include "utils/rel.h"

struct VacuumParams;

extern void topic_vacuum(Relation rel, struct VacuumParams *params,
						 BufferAccessStrategy bstrategy);

#endif							/* TOPIC_FREEZE_H */
