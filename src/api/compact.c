/*-------------------------------------------------------------------------
 *
 * compact.c
 *	  topics.compact(topic): run the log cleaner on a topic now.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/rel.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/worker/log_cleaner.h"

PG_FUNCTION_INFO_V1(topic_compact);
PG_FUNCTION_INFO_V1(topic_compaction_info);

/*
 * topics.compact(topic regclass) RETURNS bigint: clean every partition's
 * sealed log now, as the background worker does when a partition is due,
 * and return the records removed.  It removes records, so it needs the
 * DELETE privilege, as delete_records does.  Segments it rewrote stay
 * locked against readers until the calling transaction ends.
 */
Datum
topic_compact(PG_FUNCTION_ARGS)
{
	Relation	topic = topic_open(PG_GETARG_OID(0), AccessShareLock, ACL_DELETE);
	TopicConfig config = *topic_config_of(RelationGetRelid(topic));
	int32		nparts = topic_partition_count(topic);
	int64		removed = 0;

	PreventCommandIfReadOnly("compact");
	if (!config.compact)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("topic \"%s\" is not compacted",
						RelationGetRelationName(topic)),
				 errdetail("Its cleanup.policy is delete."),
				 errhint("Set cleanup.policy to compact or compact,delete with topics.alter_topic_configs.")));
	for (int32 p = 0; p < nparts; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p),
										ShareUpdateExclusiveLock);

		/* a replica holds its publisher's log, compacted there */
		if (!topic_partition_is_replica(RelationGetRelid(router),
										RelationGetRelid(topic)))
			removed += topic_cleaner_run(router, &config);
		table_close(router, NoLock);
	}
	relation_close(topic, NoLock);
	PG_RETURN_INT64(removed);
}

/*
 * topics.compaction_info(topic regclass) RETURNS TABLE(partition int,
 * dirty_ratio float8, last_compaction timestamptz): for a compacted topic,
 * the share of each partition's sealed pages not cleaned yet (NULL without
 * sealed segments) and when a pass last cleaned it (NULL before the first).
 */
Datum
topic_compaction_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	topic = topic_open(PG_GETARG_OID(0), AccessShareLock, TOPIC_NO_ACL_CHECK);
	int32		nparts;
	bool		compacted;

	topic_check_describe(topic);
	compacted = topic_config_of(RelationGetRelid(topic))->compact;
	nparts = topic_partition_count(topic);
	InitMaterializedSRF(fcinfo, 0);
	for (int32 p = 0; p < nparts; p++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, true, true};

		values[0] = Int32GetDatum(p);
		if (compacted)
		{
			Relation	router = table_open(topic_partition_relid(topic, p),
											AccessShareLock);
			TopicCleanerStatus status;

			topic_cleaner_status(router, &status);
			table_close(router, AccessShareLock);
			if (status.sealed_blocks > 0)
			{
				values[1] = Float8GetDatum((double) status.dirty_blocks /
										   (double) status.sealed_blocks);
				nulls[1] = false;
			}
			if (status.last_cleaned != 0)
			{
				values[2] = TimestampTzGetDatum(status.last_cleaned);
				nulls[2] = false;
			}
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(topic, NoLock);
	return (Datum) 0;
}
