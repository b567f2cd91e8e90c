/*-------------------------------------------------------------------------
 *
 * group_admin.c
 *	  Consumer groups managed by name: topics.commit(), seek(),
 *	  reset_group(), delete_group(), the rows of the groups' views, and
 *	  the positions of a renamed topic.
 *
 * Each of these moves or reports a group's positions from outside the
 * group: it takes a partition's ownership lock waiting for the member that
 * processes it, and records the new position in topics.consumer_offsets in
 * the caller's transaction, through the same path as a poll (poll.c, which
 * keeps the transaction's positions until it ends).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_topics/api/groups.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/wire/consumer_protocol.h"

PG_FUNCTION_INFO_V1(topic_commit);
PG_FUNCTION_INFO_V1(topic_seek);
PG_FUNCTION_INFO_V1(topic_reset_group);
PG_FUNCTION_INFO_V1(topic_delete_group);
PG_FUNCTION_INFO_V1(topic_group_info);
PG_FUNCTION_INFO_V1(topic_member_info);
PG_FUNCTION_INFO_V1(topic_group_offset_info);

/* The group must exist (42704); returns its owner */
static Oid
require_group(Relation topic, const char *group)
{
	Oid			owner = InvalidOid;

	topic_groups_ensure_loaded();
	if (!topic_group_exists(RelationGetRelid(topic), group, &owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("consumer group \"%s\" of topic \"%s\" does not exist",
						group, RelationGetRelationName(topic))));
	topic_groups_check_control(topic, group, owner);
	return owner;
}

/*
 * Take group's lock of partition of topic (open) for the rest of the
 * transaction, which a member processing the partition holds, and a
 * transaction committing its position (a Kafka transaction's
 * TxnOffsetCommit holds it until EndTxn): waiting for it, up to
 * lock_timeout, or, for the Kafka listener (which serves many connections
 * and must never wait), failing at once with 55P03 if another holds it.
 */
void
topic_groups_take_partition(Relation topic, const char *group,
							int32 partition, bool wait)
{
	if (!topic_groups_lock_partition(RelationGetRelid(topic), group,
									 partition, wait))
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("partition %d of consumer group \"%s\" of topic \"%s\" is busy",
						partition, group, RelationGetRelationName(topic)),
				 errdetail("Another transaction is processing the partition or committing the group's position of it.")));
}

/*
 * Move group's position of partition of topic (open) to offset, as
 * topics.commit and topics.seek do (offset within the log: 22023
 * otherwise), or as a Kafka consumer's OffsetCommit does (kafka_commit):
 * with its metadata, creating the group, owned by the current role, if it
 * has no positions yet, and taking any offset, as Kafka does.  An offset
 * outside the log, a negative one too, is kept as it is: OffsetFetch
 * answers it back, and poll and Kafka consumers follow their reset rule
 * from it, as from a position retention passed (a Kafka client takes a
 * committed -1 or -2 for no position).  A member polling the partition,
 * or a transaction committing its position, is waited for, unless not
 * wait (topic_groups_take_partition).
 */
void
topic_groups_set_position(Relation topic, const char *group, int32 partition,
						  int64 offset, const bytea *metadata, bool kafka_commit,
						  bool wait)
{
	Oid			owner = GetUserId();
	bool		exists;

	PreventCommandIfReadOnly("commit");
	topic_groups_check_writable();
	topic_groups_ensure_loaded();
	exists = topic_group_exists(RelationGetRelid(topic), group, &owner);
	if (!kafka_commit || exists)
		owner = require_group(topic, group);
	topic_check_partition(topic, partition);
	if (!kafka_commit)
	{
		Relation	router = table_open(topic_partition_relid(topic, partition),
										AccessShareLock);
		TopicLogEnd end;

		topic_log_end(router, &end);
		topic_check_position(topic, partition, offset, &end);
		table_close(router, NoLock);
	}

	topic_groups_take_partition(topic, group, partition, wait);
	topic_groups_commit_position(topic, group, partition, offset, owner,
								 metadata);
}

/*
 * Clear group's position of partition of topic (open), as Kafka's
 * OffsetDelete does: the partition has no position any more.  Nothing to
 * do for a group that does not exist; otherwise the caller must control
 * it.  A member polling the partition is waited for, unless not wait
 * (topic_groups_take_partition).
 */
void
topic_groups_delete_offset(Relation topic, const char *group, int32 partition,
						   bool wait)
{
	PreventCommandIfReadOnly("commit");
	topic_groups_check_writable();
	topic_groups_ensure_loaded();
	if (!topic_group_exists(RelationGetRelid(topic), group, NULL))
		return;					/* no position to clear */
	(void) require_group(topic, group);
	topic_check_partition(topic, partition);
	topic_groups_take_partition(topic, group, partition, wait);
	topic_groups_clear_position(topic, group, partition);
}

/* The reader's sink for a position record: keep a copy of its value */
static void
keep_value(TopicStableRead *read, Relation seg, Buffer buffer, int32 partition,
		   TopicRecord *rec)
{
	if (rec->value != NULL)
		read->sink_arg = PG_DETOAST_DATUM_COPY(PointerGetDatum(rec->value));
}

/*
 * The metadata of the copy compaction made of the position record first
 * written at version (compaction.c: a copy carries its original's offset
 * as "v"), or NULL.  The log after compaction is a few segments; this runs
 * only for a position not committed again since its record was compacted.
 */
static bytea *
copied_position_metadata(int64 version)
{
	MemoryContext caller = CurrentMemoryContext;
	TopicInternalSql internal;
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(version)};
	bytea	   *metadata = NULL;
	SPIPlanPtr	plan;
	int			rc;

	topic_internal_sql_begin(&internal);
	plan = SPI_prepare("SELECT value FROM topics.consumer_offsets "
					   "WHERE (value->>'v')::bigint = $1 LIMIT 1",
					   1, argtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare a read of topics.consumer_offsets: %s",
			 SPI_result_code_string(SPI_result));
	/* the latest snapshot, as the cache's */
	rc = SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
							  InvalidSnapshot, true, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.consumer_offsets: %s",
			 SPI_result_code_string(rc));
	if (SPI_processed > 0)
	{
		bool		isnull;
		Datum		value = SPI_getbinval(SPI_tuptable->vals[0],
										  SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
		{
			MemoryContext spi = MemoryContextSwitchTo(caller);

			metadata = topic_groups_record_metadata(DatumGetJsonbP(value));
			MemoryContextSwitchTo(spi);
		}
	}
	topic_internal_sql_end(&internal);
	return metadata;
}

/*
 * The metadata a Kafka consumer committed with a position (NULL if none),
 * read back from the position's record in topics.consumer_offsets, at
 * offset version, or from compaction's copy of it once the record itself
 * is below the log start.  The cache holds the latest committed
 * positions, so their records are read with the latest snapshot, whatever
 * the transaction's isolation.
 */
static bytea *
position_metadata(int64 version)
{
	bytea	   *metadata = NULL;
	Relation	log;
	TopicLogEnd end;
	TopicStableRead read;

	if (version < 0)
		return NULL;
	log = table_open(topic_offsets_log_relid(), AccessShareLock);
	topic_log_end(log, &end);
	if (version < end.log_start_offset)
	{
		table_close(log, AccessShareLock);
		return copied_position_metadata(version);
	}
	memset(&read, 0, sizeof(read));
	read.sink = keep_value;
	read.max_records = 1;
	read.passed_ok = true;
	read.latest = true;
	if (version < end.next_offset)
		topic_read_partition(log, 0, version, &end, &read);
	if (read.returned > 0 && read.first_returned == version && read.sink_arg)
		metadata = topic_groups_record_metadata((Jsonb *) read.sink_arg);
	table_close(log, AccessShareLock);
	return metadata;
}

/*
 * group's committed position of partition of topic (open), and the
 * metadata a Kafka consumer committed with it (NULL if none); false if
 * there is none
 */
bool
topic_groups_committed_position(Relation topic, const char *group,
								int32 partition, int64 *offset,
								bytea **metadata)
{
	int64		version;

	*metadata = NULL;
	topic_groups_ensure_loaded();
	if (!topic_group_committed_version(RelationGetRelid(topic), group,
									   partition, offset, &version))
		return false;
	*metadata = position_metadata(version);
	return true;
}

/* Shared body of commit and seek (command: which, for the read-only error) */
static void
set_position(FunctionCallInfo fcinfo, const char *command)
{
	Relation	topic;

	PreventCommandIfReadOnly(command);
	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
							   ACL_SELECT);
	topic_groups_set_position(topic, topic_groups_group_arg(PG_GETARG_TEXT_PP(1)),
							  PG_GETARG_INT32(2), PG_GETARG_INT64(3), NULL,
							  false, true);
	relation_close(topic, NoLock);
}

/* topics.commit(topic text, group_name text, partition int, next_offset bigint) */
Datum
topic_commit(PG_FUNCTION_ARGS)
{
	set_position(fcinfo, "commit");
	PG_RETURN_VOID();
}

/* topics.seek(topic text, group_name text, partition int, next_offset bigint) */
Datum
topic_seek(PG_FUNCTION_ARGS)
{
	set_position(fcinfo, "seek");
	PG_RETURN_VOID();
}

/* topics.reset_group(topic text, group_name text, "to" text) */
Datum
topic_reset_group(PG_FUNCTION_ARGS)
{
	Relation	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
										   ACL_SELECT);
	char	   *group = topic_groups_group_arg(PG_GETARG_TEXT_PP(1));
	char	   *to = text_to_cstring(PG_GETARG_TEXT_PP(2));
	bool		latest;
	Oid			owner;
	int32		nparts = topic_partition_count(topic);
	int32		p;

	if (strcmp(to, "earliest") == 0)
		latest = false;
	else if (strcmp(to, "latest") == 0)
		latest = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid reset position \"%s\"", to),
				 errhint("Use 'earliest' or 'latest'.")));
	PreventCommandIfReadOnly("reset_group");
	topic_groups_check_writable();
	owner = require_group(topic, group);

	for (p = 0; p < nparts; p++)
	{
		Relation	router = table_open(topic_partition_relid(topic, p), AccessShareLock);
		TopicLogEnd end;

		topic_log_end(router, &end);
		table_close(router, NoLock);
		topic_groups_lock_partition(RelationGetRelid(topic), group, p, true);
		topic_groups_commit_position(topic, group, p,
									 latest ? end.next_offset : end.log_start_offset,
									 owner, NULL);
	}
	relation_close(topic, NoLock);
	PG_RETURN_VOID();
}

/* topics.delete_group(topic text, group_name text) */
Datum
topic_delete_group(PG_FUNCTION_ARGS)
{
	Relation	topic = topic_open_by_name(PG_GETARG_TEXT_PP(0), AccessShareLock,
										   ACL_SELECT);
	char	   *group = topic_groups_group_arg(PG_GETARG_TEXT_PP(1));
	Oid			owner;
	int32		nparts = topic_partition_count(topic);
	int32		p;

	PreventCommandIfReadOnly("delete_group");
	topic_groups_check_writable();
	owner = require_group(topic, group);
	topic_groups_evict_unauthorized(topic, group, owner);
	if (topic_group_has_members(RelationGetRelid(topic), group))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("consumer group \"%s\" of topic \"%s\" has active members",
						group, RelationGetRelationName(topic)),
				 errhint("Stop its consumers first; durable members leave after pg_topics.session_timeout.")));
	for (p = 0; p < nparts; p++)
	{
		topic_groups_lock_partition(RelationGetRelid(topic), group, p, true);
		topic_groups_delete_group_position(topic, group, p);
	}
	relation_close(topic, NoLock);
	PG_RETURN_VOID();
}

/*
 * A topic was renamed or moved to another schema (by any ALTER ... RENAME
 * or SET SCHEMA of its table, or ALTER SCHEMA ... RENAME of its schema),
 * from old_name (schema-qualified and quoted, as positions' keys name
 * topics).  Positions are keyed by name in topics.consumer_offsets: in the
 * renaming transaction, tombstone the old name's keys, as a drop does,
 * and record the positions again under the new name, so that a topic created
 * later under the old name does not take them when the log is loaded
 * after a restart.  The caller holds a lock on the topic that keeps polls
 * out until this transaction ends, so no position of the old name can
 * commit after these records.
 */
void
topic_groups_topic_renamed(Oid topicid, const char *old_name)
{
	Relation	topic;
	List	   *positions;
	ListCell   *lc;
	char	   *new_name;

	/* a replica gets the renamed positions from its publisher */
	if (topic_groups_positions_replicated())
	{
		topic_groups_topic_appeared();
		return;
	}
	topic = topic_open(topicid, AccessShareLock, TOPIC_NO_ACL_CHECK);
	new_name = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(topic)),
										  RelationGetRelationName(topic));
	/* not renamed after all: its records are the ones to keep */
	if (strcmp(new_name, old_name) == 0)
	{
		relation_close(topic, NoLock);
		return;
	}
	topic_groups_ensure_loaded();
	positions = topic_groups_renamed_positions(topicid);

	/*
	 * The tombstones first: a subscriber that replicates the log, and
	 * still has the topic under its old name, applies them to that topic;
	 * once it renames the topic too, it loads the log again, where the new
	 * name's records must be newer than what it applied.
	 */
	topic_groups_tombstone_name(old_name);
	foreach(lc, positions)
	{
		TopicGroupPosition *p = lfirst(lc);

		topic_groups_commit_position(topic, p->group, p->partition, p->offset,
									 p->owner,
									 p->version >= 0 ?
									 position_metadata(p->version) :
									 p->metadata);
	}
	relation_close(topic, NoLock);
}

/*
 * The views' rows: topics.group_info(), member_info() and offset_info()
 * each visit the groups (group_state.c) and keep, as rows of the
 * materialized result (arg, its ReturnSetInfo), what the caller may see.
 */

/* A row of topics.group_info() (topics.consumer_groups) */
static void
group_row(void *arg, Oid topic, const char *group, Oid owner,
		  int32 generation, int nmembers)
{
	ReturnSetInfo *rsinfo = arg;
	Datum		values[5] = {CStringGetTextDatum(group), ObjectIdGetDatum(topic),
	ObjectIdGetDatum(owner), Int32GetDatum(generation), Int32GetDatum(nmembers)};
	bool		nulls[5] = {0};

	if (!topic_may_describe(topic))
		return;					/* only what the caller may see */
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * A row of topics.member_info() (topics.group_members); instance_id is a
 * static Kafka member's (NULL: a dynamic one, or a member of SQL).  A
 * database whose SQL predates the instance_id column (0.1, 0.2) declares
 * one column less: the row is formed by the declared columns, so the last
 * value is left out there.
 */
static void
put_member_row(ReturnSetInfo *rsinfo, Oid topic, const char *group,
			   int32 generation, const TopicGroupMemberInfo *member,
			   const char *instance_id, int32 *partitions, int npartitions)
{
	Datum	   *elems;
	Datum		values[9];
	bool		nulls[9] = {0};
	int			i;

	Assert(rsinfo->setDesc->natts <= lengthof(values));
	if (!topic_may_describe(topic))
		return;					/* only what the caller may see */
	elems = palloc(sizeof(Datum) * Max(npartitions, 1));
	for (i = 0; i < npartitions; i++)
		elems[i] = Int32GetDatum(partitions[i]);
	values[0] = CStringGetTextDatum(group);
	values[1] = ObjectIdGetDatum(topic);
	values[2] = CStringGetTextDatum(member->id);
	values[3] = BoolGetDatum(member->durable);
	values[4] = Int32GetDatum(member->pid);
	nulls[4] = member->pid == 0;	/* a Kafka consumer: no backend */
	values[5] = TimestampTzGetDatum(member->last_seen);
	values[6] = Int32GetDatum(generation);
	values[7] = PointerGetDatum(construct_array(elems, npartitions, INT4OID, 4,
												true, TYPALIGN_INT));
	if (instance_id != NULL && instance_id[0] != '\0')
		values[8] = CStringGetTextDatum(instance_id);
	else
		nulls[8] = true;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* A row of a member of SQL, as topic_groups_visit() shows it */
static void
member_row(void *arg, Oid topic, const char *group, int32 generation,
		   const TopicGroupMemberInfo *member, int32 *partitions, int npartitions)
{
	put_member_row(arg, topic, group, generation, member, NULL, partitions,
				   npartitions);
}

/* A row of topics.group_offset_info() (topics.consumer_lag) */
static void
offset_row(void *arg, Oid topic, const char *group, int32 partition,
		   int64 committed)
{
	ReturnSetInfo *rsinfo = arg;
	Datum		values[4] = {CStringGetTextDatum(group), ObjectIdGetDatum(topic),
	Int32GetDatum(partition), Int64GetDatum(committed)};
	bool		nulls[4] = {0};

	if (!topic_may_describe(topic))
		return;					/* only what the caller may see */
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* The rows of one view, by the visitor given (the others NULL) */
static Datum
view_rows(FunctionCallInfo fcinfo, TopicGroupVisitor gv, TopicMemberVisitor mv,
		  TopicOffsetVisitor ov)
{
	InitMaterializedSRF(fcinfo, 0);
	topic_groups_ensure_loaded();
	topic_groups_visit(gv, mv, ov, fcinfo->resultinfo);
	return (Datum) 0;
}

/* topics.group_info(): the groups */
Datum
topic_group_info(PG_FUNCTION_ARGS)
{
	return view_rows(fcinfo, group_row, NULL, NULL);
}

/* The topic of pg_topics.kafka_schema a Kafka client names, or InvalidOid */
static Oid
kafka_topic_oid(KafkaBytes name)
{
	return topic_kafka_lookup(name.data, name.len);
}

/*
 * The rows of a Kafka consumer (a member of a Kafka group): one per topic
 * it was assigned partitions of, or, while it has no assignment, per
 * topic it subscribes to
 */
static void
kafka_member_rows(void *arg, const char *group, int32 generation,
				  const KafkaMemberView *member)
{
	TopicGroupMemberInfo info;
	KafkaTopicPartitions *assigned = NULL;
	int			n = kafka_assignment_partitions(member->assignment,
												member->assignment_len,
												&assigned);

	memset(&info, 0, sizeof(info));
	strlcpy(info.id, member->id, sizeof(info.id));
	info.role = member->role;
	info.durable = true;
	info.last_seen = member->last_heartbeat;
	if (n <= 0)
	{
		KafkaBytes *topics;

		n = member->metadata ?
			kafka_subscription_topics(member->metadata, member->metadata_len,
									  &topics) : 0;
		for (int i = 0; i < n; i++)
		{
			Oid			topic = kafka_topic_oid(topics[i]);

			if (OidIsValid(topic))
				put_member_row(arg, topic, group, generation, &info,
							   member->instance_id, NULL, 0);
		}
		return;
	}
	for (int i = 0; i < n; i++)
	{
		Oid			topic = kafka_topic_oid(assigned[i].topic);

		if (OidIsValid(topic))
			put_member_row(arg, topic, group, generation, &info,
						   member->instance_id, assigned[i].partitions,
						   assigned[i].npartitions);
	}
}

/*
 * topics.member_info(): the groups' members and their partitions, the
 * Kafka consumers of pg_topics.kafka_schema's topics included
 */
Datum
topic_member_info(PG_FUNCTION_ARGS)
{
	view_rows(fcinfo, NULL, member_row, NULL);
	kafka_groups_visit_members(kafka_member_rows, fcinfo->resultinfo);
	return (Datum) 0;
}

/* topics.group_offset_info(): the groups' committed positions */
Datum
topic_group_offset_info(PG_FUNCTION_ARGS)
{
	return view_rows(fcinfo, NULL, NULL, offset_row);
}
