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

typedef struct TopicReplicaPass TopicReplicaPass;

extern List *topic_replica_removals_pending(void);
extern TopicReplicaPass *topic_replica_removals_begin(Relation router);
extern bool topic_replica_removals_more(TopicReplicaPass *pass);
extern void topic_replica_removals_step(Relation router,
										TopicReplicaPass *pass);
extern void topic_replica_removals_finish(Relation router,
										  TopicReplicaPass *pass);
extern void topic_replica_removals_end(TopicReplicaPass *pass);
extern void topic_replica_removals_forget(Oid relid);

#endif							/* TOPIC_REPLICA_CLEANER_H */
