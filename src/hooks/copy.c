/*-------------------------------------------------------------------------
 *
 * copy.c
 *	  COPY topic FROM: the bulk produce path, routed like produce_batch.
 *
 * PostgreSQL's COPY routes rows by the partition column before the access
 * method sees them, and COPY runs no planner, so the utility hook takes
 * COPY ... FROM into a topic over: it parses rows with PostgreSQL's own
 * COPY reader (BeginCopyFrom/NextCopyFrom: every format and option, STDIN,
 * files and programs), routes each by key, and hands the rows of each
 * partition to the partition writer (writer/writer.c, as the access
 * method's multi_insert would) in buffers of TOPIC_COPY_BUFFER rows.  The
 * privilege checks are DoCopy's: INSERT on the topic, and
 * pg_read_server_files or pg_execute_server_program for server-side
 * sources.
 *
 * In preserve mode a COPY that supplies the partition is left to
 * PostgreSQL (pg_restore and logical replication's table sync), which
 * routes by the supplied value.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/hio.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid_d.h"
#include "commands/copy.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_node.h"
#include "tcop/cmdtag.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/partitioner.h"
#include "pg_topics/hooks/copy.h"
#include "pg_topics/hooks/routing.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/writer/writer.h"

#define TOPIC_COPY_BUFFER	1000

/* Rows waiting for one partition's write */
typedef struct CopyBuffer
{
	Relation	router;			/* NULL until the partition gets a row */
	TupleTableSlot *slots[TOPIC_COPY_BUFFER];
	int			nused;
} CopyBuffer;

static void
flush_buffer(CopyBuffer *buffer, CommandId cid, BulkInsertState bistate)
{
	TopicWriterOptions options;

	if (buffer->nused == 0)
		return;
	topic_writer_options_init(&options, cid);
	options.strategy = bistate->strategy;
	/* after the rows an INSERT of this statement left waiting */
	topic_buffer_flush();
	topic_writer_write(buffer->router, buffer->slots, buffer->nused, &options);
	buffer->nused = 0;
}

/* Does the COPY column list name column? */
static bool
names_column(List *attlist, const char *column)
{
	ListCell   *lc;

	foreach(lc, attlist)
		if (strcmp(strVal(lfirst(lc)), column) == 0)
			return true;
	return false;
}

/*
 * Is stmt a COPY FROM into a topic that we route (its relation in *relid)?
 * Refuses the COPYs into a topic or its partitions that cannot work; false
 * for the others, which PostgreSQL runs.
 */
static bool
copy_is_routed(CopyStmt *stmt, Oid *relid)
{
	if (!stmt->is_from || stmt->relation == NULL)
		return false;
	*relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (OidIsValid(*relid))
		topic_refuse_direct_insert(*relid, "COPY");
	if (!OidIsValid(*relid) || get_rel_relkind(*relid) != RELKIND_PARTITIONED_TABLE ||
		!topic_is_topic_parent_oid(*relid))
		return false;

	if (names_column(stmt->attlist, "partition"))
	{
		if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
			return false;		/* preserve mode: PostgreSQL routes by it */
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"partition\" of a topic is assigned by the log"),
				 errdetail("Records are routed by key, as Kafka's partitioner does."),
				 errhint("Leave out the \"partition\" column.")));
	}
	if (stmt->attlist == NIL)
	{
		if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
			return false;		/* a dump's COPY of every column */
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY into a topic must name its columns"),
				 errdetail("The partition, offset and timestamp columns are assigned by the log."),
				 errhint("Use COPY topic (key, value) or COPY topic (key, value, headers).")));
	}
	if (stmt->whereClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY FROM ... WHERE is not supported for topics"),
				 errhint("Filter the rows before loading them.")));
	return true;
}

/* DoCopy's checks, which a COPY we run instead of it must make too */
static void
check_copy_privileges(CopyStmt *stmt)
{
	if (stmt->filename != NULL)
	{
		if (stmt->is_program &&
			!has_privs_of_role(GetUserId(), ROLE_PG_EXECUTE_SERVER_PROGRAM))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program")));
		if (!stmt->is_program &&
			!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be superuser or have privileges of the pg_read_server_files role to COPY from a file")));
	}
	PreventCommandIfReadOnly("COPY FROM");
}

/*
 * Read every row of cstate and buffer it for its partition (by key, or
 * sticky without one), inserting a partition's buffer when it is full.
 * Returns the number of rows.
 */
static uint64
copy_rows(CopyFromState cstate, EState *estate, Relation topic,
		  CopyBuffer *buffers, int32 nparts, TupleDesc desc, CommandId cid,
		  BulkInsertState bistate)
{
	ExprContext *econtext = GetPerTupleExprContext(estate);
	MemoryContext rowcontext = econtext->ecxt_per_tuple_memory;
	TopicPartitioner part;
	Datum	   *values = palloc(sizeof(Datum) * Natts_topic);
	bool	   *nulls = palloc(sizeof(bool) * Natts_topic);
	uint64		processed = 0;

	topic_partitioner_init(&part, RelationGetRelid(topic),
						   topic_column_type(topic, Anum_topic_key), nparts);
	for (;;)
	{
		CopyBuffer *buffer;
		TupleTableSlot *slot;
		int32		partition;
		MemoryContext oldcontext;

		CHECK_FOR_INTERRUPTS();
		ResetPerTupleExprContext(estate);
		oldcontext = MemoryContextSwitchTo(rowcontext);
		if (!NextCopyFrom(cstate, econtext, values, nulls))
		{
			MemoryContextSwitchTo(oldcontext);
			break;
		}
		MemoryContextSwitchTo(oldcontext);

		partition = topic_partition_choose(&part, values[Anum_topic_key - 1],
										   nulls[Anum_topic_key - 1]);

		buffer = &buffers[partition];
		if (buffer->router == NULL)
			buffer->router = table_open(topic_partition_relid(topic, partition),
									  RowExclusiveLock);
		if (buffer->slots[buffer->nused] == NULL)
			buffer->slots[buffer->nused] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
		slot = buffer->slots[buffer->nused];

		ExecClearTuple(slot);
		memcpy(slot->tts_values, values, sizeof(Datum) * Natts_topic);
		memcpy(slot->tts_isnull, nulls, sizeof(bool) * Natts_topic);
		slot->tts_values[Anum_topic_partition - 1] = Int32GetDatum(partition);
		slot->tts_isnull[Anum_topic_partition - 1] = false;
		ExecStoreVirtualTuple(slot);
		/* the row's memory is reused for the next one */
		ExecMaterializeSlot(slot);

		if (++buffer->nused == TOPIC_COPY_BUFFER)
			flush_buffer(buffer, cid, bistate);
		processed++;
	}
	return processed;
}

/* Insert what the buffers of the nparts partitions still hold, and close them */
static void
flush_all(CopyBuffer *buffers, int32 nparts, CommandId cid,
		  BulkInsertState bistate)
{
	for (int32 p = 0; p < nparts; p++)
	{
		CopyBuffer *buffer = &buffers[p];
		int			i;

		if (buffer->router == NULL)
			continue;
		flush_buffer(buffer, cid, bistate);
		for (i = 0; i < TOPIC_COPY_BUFFER && buffer->slots[i] != NULL; i++)
			ExecDropSingleTupleTableSlot(buffer->slots[i]);
		table_close(buffer->router, NoLock);
	}
}

/*
 * Run stmt if it is a COPY FROM into a topic that we route; returns false
 * (and does nothing) otherwise.
 */
bool
topic_copy_from(CopyStmt *stmt, const char *query_string, QueryCompletion *qc)
{
	Oid			relid;
	Relation	topic;
	ParseState *pstate;
	CopyFromState cstate;
	EState	   *estate;
	CopyBuffer *buffers;
	BulkInsertState bistate;
	int32		nparts;
	CommandId	cid;
	uint64		processed;
	TupleDesc	desc;

	if (!copy_is_routed(stmt, &relid))
		return false;
	check_copy_privileges(stmt);

	topic = topic_open(relid, RowExclusiveLock, ACL_INSERT);
	nparts = topic_partition_count(topic);

	pstate = make_parsestate(NULL);
	pstate->p_sourcetext = query_string;
	cstate = BeginCopyFrom(pstate, topic, NULL, stmt->filename, stmt->is_program,
						   NULL, stmt->attlist, stmt->options);

	estate = CreateExecutorState();
	buffers = palloc0(sizeof(CopyBuffer) * nparts);
	/* unpinned, so that thousands of slots cost no resource-owner entries */
	desc = CreateTupleDescCopy(RelationGetDescr(topic));
	bistate = GetBulkInsertState();
	cid = GetCurrentCommandId(true);

	processed = copy_rows(cstate, estate, topic, buffers, nparts, desc, cid,
						  bistate);
	flush_all(buffers, nparts, cid, bistate);

	FreeBulkInsertState(bistate);
	EndCopyFrom(cstate);
	FreeExecutorState(estate);
	free_parsestate(pstate);
	relation_close(topic, NoLock);

	if (qc)
		SetQueryCompletion(qc, CMDTAG_COPY, processed);
	return true;
}
