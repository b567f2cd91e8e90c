/*-------------------------------------------------------------------------
 *
 * replica_cleaner.h
 *	  A logical replica removes the records its publisher's log cleaner
 *	  removed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_REPLICA_CLEANER_H
#define TOPIC_REPLICA_CLEANER_H

#include "utils/rel.h"

extern List *topic_replica_removals_pending(void);
extern bool topic_replica_removals_apply(Relation router);
extern void topic_replica_removals_forget(Oid relid);

#endif							/* TOPIC_REPLICA_CLEANER_H */
