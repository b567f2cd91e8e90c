/*-------------------------------------------------------------------------
 *
 * settings.c
 *	  Every pg_topics.* setting, defined in one place.
 *
 * A setting pg_topics.x is the C variable pg_topics_x.  The prefix is
 * reserved, so a misspelt pg_topics setting is an error, not a silent
 * placeholder.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "postmaster/postmaster.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"

int			pg_topics_max_message_bytes = 1024 * 1024;
int			pg_topics_max_partitions_per_transaction = 128;
int			pg_topics_auto_offset_reset = TOPIC_RESET_EARLIEST;
int			pg_topics_session_timeout = 30000;
int			pg_topics_max_groups = 1024;
int			pg_topics_max_group_partitions = 65536;
int			pg_topics_max_groups_per_role = 256;
int			pg_topics_max_group_partitions_per_role = 16384;
int			pg_topics_segment_size = TOPIC_SEGMENT_MAX_ROLL_BLOCKS;
int			pg_topics_worker_naptime = 10000;
int			pg_topics_max_producer_transaction_age = 0;

static const struct config_enum_entry offset_reset_options[] = {
	{"earliest", TOPIC_RESET_EARLIEST, false},
	{"latest", TOPIC_RESET_LATEST, false},
	{"error", TOPIC_RESET_ERROR, false},
	{NULL, 0, false}
};

/*
 * Define the settings of pg_topics.  Long on purpose: one
 * DefineCustom*Variable call per setting.
 */
void
topic_guc_init(void)
{
	/*
	 * Superuser-only: a limit that every user may raise protects nothing.
	 */
	DefineCustomIntVariable("pg_topics.max_message_bytes",
							"Largest key, value or headers a record may have.",
							"Larger ones are refused with SQLSTATE 54000.",
							&pg_topics_max_message_bytes,
							1024 * 1024,
							1,
							MaxAllocSize - VARHDRSZ,
							PGC_SUSET,
							GUC_UNIT_BYTE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.segment_size",
							"Size at which a partition's log moves on to a new segment.",
							"Topics with retention_bytes use smaller segments when that asks for them.",
							&pg_topics_segment_size,
							TOPIC_SEGMENT_MAX_ROLL_BLOCKS,
							4,
							TOPIC_SEGMENT_MAX_ROLL_BLOCKS,
							PGC_SIGHUP,
							GUC_UNIT_BLOCKS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.worker_naptime",
							"Time between two rounds of the background worker in each database.",
							"A round creates segments ahead of need and applies retention.",
							&pg_topics_worker_naptime,
							10000,
							10,
							3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_producer_transaction_age",
							"Longest a transaction may hold topic partitions back after producing to them.",
							"Its session is then terminated, so that the partitions' readers go on. Zero turns this off.",
							&pg_topics_max_producer_transaction_age,
							0,
							0,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_partitions_per_transaction",
							"Most topic partitions one transaction may produce to.",
							"Sizes the shared registry of in-flight producers.",
							&pg_topics_max_partitions_per_transaction,
							1024,
							1,
							100000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("pg_topics.auto_offset_reset",
							 "Where a consumer group starts without a valid committed offset.",
							 "earliest: the log start; latest: the high watermark; error: refuse.",
							 &pg_topics_auto_offset_reset,
							 TOPIC_RESET_EARLIEST,
							 offset_reset_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.session_timeout",
							"How long a durable consumer group member stays without polling.",
							NULL,
							&pg_topics_session_timeout,
							30000,
							100,
							INT_MAX,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_groups",
							"Most consumer groups the server keeps in shared memory, for all databases; a group name used on two topics is two groups.",
							"A poll that would create one more fails with SQLSTATE 53400.",
							&pg_topics_max_groups,
							1024,
							16,
							1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_group_partitions",
							"Most (group, partition) positions the server keeps in shared memory.",
							NULL,
							&pg_topics_max_group_partitions,
							65536,
							64,
							10000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	/*
	 * Shares of the two tables above that one role's groups may hold, so
	 * that a role cannot take them all; superuser-only, and settable per
	 * role with ALTER ROLE ... SET.
	 */
	DefineCustomIntVariable("pg_topics.max_groups_per_role",
							"Most consumer groups one role may own, in all databases together.",
							"A poll that would create one more fails with SQLSTATE 53400.",
							&pg_topics_max_groups_per_role,
							256,
							1,
							1000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_group_partitions_per_role",
							"Most (group, partition) positions the groups one role owns may hold, in all databases together.",
							"A group holds one per partition of its topic; a poll that would exceed it fails with SQLSTATE 53400.",
							&pg_topics_max_group_partitions_per_role,
							16384,
							1,
							10000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_topics.wait_for_sync_standby",
							 "Consumers see records only once the synchronous standby has them.",
							 "fetch and poll wait until the standbys in synchronous_standby_names have flushed the commits of the records they return.",
							 &pg_topics_wait_for_sync_standby,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.min_insync_replicas",
							"Synchronous standbys that must be streaming for a topic to accept records.",
							"Produce, INSERT and COPY into a topic fail at once while fewer standbys named in synchronous_standby_names are streaming; 0 turns the check off.  Commits with synchronous_commit = local or off are not checked.",
							&pg_topics_min_insync_replicas,
							0, 0, MAX_BACKENDS,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("pg_topics");
}
