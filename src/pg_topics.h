/*-------------------------------------------------------------------------
 *
 * pg_topics.h
 *	  Settings and module entry points shared across pg_topics.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PG_TOPICS_H
#define PG_TOPICS_H

#include "access/heapam.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"

/*
 * Start a materialized set-returning function.  The executor's expected
 * row type, when it has one, saves building the result type from the
 * catalog on every call (a tenth of a single-record produce).
 */
static inline void
topic_init_srf(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, rsinfo && rsinfo->expectedDesc ?
						MAT_SRF_USE_EXPECTED_DESC : 0);
}

/* result_store.c: the same for fetch and poll, whose rows are records */
extern void topic_init_record_srf(FunctionCallInfo fcinfo);

/* guc.c: every pg_topics.* setting */
extern int	pg_topics_max_message_bytes;
extern int	pg_topics_max_partitions_per_transaction;
extern int	pg_topics_auto_offset_reset;
extern int	pg_topics_session_timeout;
extern int	pg_topics_max_groups;
extern int	pg_topics_segment_size;
extern int	pg_topics_worker_naptime;
extern int	pg_topics_max_producer_transaction_age;
extern int	pg_topics_max_group_partitions;
extern int	pg_topics_max_groups_per_role;
extern int	pg_topics_max_group_partitions_per_role;

/* pg_topics.auto_offset_reset */
typedef enum TopicOffsetReset
{
	TOPIC_RESET_EARLIEST,
	TOPIC_RESET_LATEST,
	TOPIC_RESET_ERROR
} TopicOffsetReset;
extern void topic_guc_init(void);

/* shmem.c */
extern void topic_shmem_init(void);

/* groups.c */
extern void topic_groups_init(void);
extern void topic_groups_topic_renamed(Oid topicid);
extern void topic_groups_topic_appeared(void);

/* insert.c */
extern void topic_insert(Relation rel, TupleTableSlot **slots, int nslots,
						 CommandId cid, BulkInsertState bistate);

/* ddl.c: planner and utility hooks that keep topics what they are */
extern void topic_ddl_init(void);
extern Oid	topic_log_am_oid(void);
extern bool topic_is_topic_relation(Oid relid);
extern bool topic_is_log_relation(Oid relid);
extern void topic_ddl_run_internal(void (*fn) (void *), void *arg);
extern bool topic_ddl_is_internal(void);
extern void topic_check_columns(Relation rel);
extern void topic_record_extension_dependency(Oid topic);
extern void topic_refuse_dml(Oid relid, CmdType command) pg_attribute_noreturn();

#endif							/* PG_TOPICS_H */
