/*-------------------------------------------------------------------------
 *
 * tableam.c
 *	  The topic_log table access method: an adapter only.
 *
 * Each callback either forwards to the module that owns the concept
 * (scan.c, insert.c, storage.c) or refuses what a log cannot do, with
 * SQLSTATE 0A000 and a hint.  The callback table at the bottom follows
 * the order of TableAmRoutine in access/tableam.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/multixact.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/am/freeze.h"
#include "pg_topics/am/insert.h"
#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/am/scan.h"
#include "pg_topics/am/tableam.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_ddl.h"

PG_FUNCTION_INFO_V1(topic_log_handler);

/* What a log does not have, refused by the callbacks that would need it */
typedef enum MissingFeature
{
	MISSING_INDEX_ACCESS,
	MISSING_INDEX_BUILD,
	MISSING_TABLESAMPLE,
	MISSING_REWRITE,
} MissingFeature;

/*
 * Refuse something topics do not have: 0A000 with a hint, one whole
 * message each.  The relation is not named: it may be a segment or an
 * internal log the user never named.
 */
static void
refuse_missing(MissingFeature what)
{
	switch (what)
	{
		case MISSING_INDEX_ACCESS:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("index access is not supported on topics"),
					 errhint("Topics have no indexes; seeks by offset and time come from the log itself.")));
			break;
		case MISSING_INDEX_BUILD:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("CREATE INDEX is not supported on topics"),
					 errhint("Topics have no indexes; seeks by offset and time come from the log itself.")));
			break;
		case MISSING_TABLESAMPLE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("TABLESAMPLE is not supported on topics"),
					 errhint("Sample by offset instead, for example WHERE \"offset\" %% 100 = 0.")));
			break;
		case MISSING_REWRITE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("CLUSTER or VACUUM FULL is not supported on topics"),
					 errdetail("Records of a topic are immutable once written."),
					 errhint("Use plain VACUUM; a log is never rewritten, and retention returns disk space.")));
			break;
	}
}

static const TupleTableSlotOps *
topic_slot_callbacks(Relation rel)
{
	/* records are decoded into virtual slots pointing into the page */
	return &TTSOpsVirtual;
}

static struct IndexFetchTableData *
topic_index_fetch_begin(Relation rel)
{
	refuse_missing(MISSING_INDEX_ACCESS);
	return NULL;
}

static void
topic_index_fetch_reset(struct IndexFetchTableData *data)
{
}

static void
topic_index_fetch_end(struct IndexFetchTableData *data)
{
}

static bool
topic_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
						Snapshot snapshot, TupleTableSlot *slot,
						bool *call_again, bool *all_dead)
{
	refuse_missing(MISSING_INDEX_ACCESS);
	return false;
}

static void
topic_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	/* records are never updated, so every TID is its own latest version */
}

static TransactionId
topic_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	elog(ERROR, "topic_log relations have no indexes");
	return InvalidTransactionId;
}

static void
topic_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				   int options, BulkInsertState bistate)
{
	/* an INSERT statement's rows go in together when it ends */
	if (topic_buffer_add(rel, slot, cid))
		return;
	topic_buffer_flush();
	topic_insert(rel, &slot, 1, cid, bistate);
}

static void
topic_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							   CommandId cid, int options,
							   BulkInsertState bistate, uint32 specToken)
{
	topic_refuse_dml(RelationGetRelid(rel), CMD_INSERT);
}

static void
topic_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
								 uint32 specToken, bool succeeded)
{
	elog(ERROR, "speculative insertion into a topic_log relation");
}

static void
topic_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
				   CommandId cid, int options, BulkInsertState bistate)
{
	/* after the rows that wait, which were inserted before */
	topic_buffer_flush();
	topic_insert(rel, slots, nslots, cid, bistate);
}

static TM_Result
topic_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				   Snapshot snapshot, Snapshot crosscheck, bool wait,
				   TM_FailureData *tmfd, bool changingPart)
{
	topic_refuse_dml(RelationGetRelid(rel), CMD_DELETE);
	return TM_Invisible;
}

static TM_Result
topic_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				   CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				   bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
#if PG_VERSION_NUM >= 160000
				   TU_UpdateIndexes *update_indexes)
#else
				   bool *update_indexes)
#endif
{
	topic_refuse_dml(RelationGetRelid(rel), CMD_UPDATE);
	return TM_Invisible;
}

static TM_Result
topic_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				 TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				 LockWaitPolicy wait_policy, uint8 flags,
				 TM_FailureData *tmfd)
{
	topic_refuse_dml(RelationGetRelid(rel), CMD_SELECT);
	return TM_Invisible;
}

/*
 * New storage for CREATE TABLE or TRUNCATE.  For TRUNCATE, rel still
 * describes the old storage: the new log starts where the old one ended.
 */
static void
topic_relation_set_new_filelocator(Relation rel, const RelFileLocator *newrnode,
								char persistence, TransactionId *freezeXid,
								MultiXactId *minmulti)
{
	TopicLogEnd end = {0, 0, DT_NOBEGIN};
	SMgrRelation srel;
	Oid			owner;
	uint32		segno;
	uint32		kind = topic_segment_kind_for_new_relation(&owner, &segno);

	if (persistence != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("topics must be permanent relations"),
				 errdetail("UNLOGGED and TEMPORARY topics would lose acknowledged records."),
				 errhint("Remove UNLOGGED or TEMPORARY.")));
	topic_check_columns(rel);

	if (!RelFileLocatorEquals(*newrnode, RelationGetLocator(rel)))
	{
		/*
		 * TRUNCATE: the log goes on where it was, in a fresh segment.  Rows
		 * that wait were inserted before (a subscription's worker applies a
		 * TRUNCATE with no statement around it): in first, to go with it.
		 */
		topic_buffer_flush();
		topic_log_end(rel, &end);
		if (topic_log_is_router(rel))
		{
			topic_segment_ddl_note_truncate(rel);
			kind = TL_META_ROUTER;
		}
	}

	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();

	srel = RelationCreateStorage(*newrnode, persistence, true);
	smgrclose(srel);
	topic_storage_create(newrnode, end.next_offset, end.max_timestamp, kind,
						 owner, segno);
}

static void
topic_relation_nontransactional_truncate(Relation rel)
{
	TopicLogEnd end;

	/* as in topic_relation_set_new_filenode */
	topic_buffer_flush();
	topic_log_end(rel, &end);
	if (topic_log_is_router(rel))
		topic_segment_ddl_note_truncate(rel);
	topic_storage_reset(rel, end.next_offset, end.max_timestamp);
}

/* ALTER TABLE SET TABLESPACE: pages move as they are */
static void
topic_relation_copy_data(Relation rel, const RelFileLocator *newrnode)
{
	SMgrRelation dstrel;

	FlushRelationBuffers(rel);
	dstrel = RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);
	RelationCopyStorage(RelationGetSmgr(rel), dstrel, MAIN_FORKNUM,
						rel->rd_rel->relpersistence);
	RelationDropStorage(rel);
	smgrclose(dstrel);
}

static void
topic_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
								Relation OldIndex, bool use_sort,
								TransactionId OldestXmin,
								TransactionId *xid_cutoff,
								MultiXactId *multi_cutoff,
								double *num_tuples, double *tups_vacuumed,
								double *tups_recently_dead)
{
	refuse_missing(MISSING_REWRITE);
}

static double
topic_index_build_range_scan(Relation table_rel, Relation index_rel,
							 struct IndexInfo *index_info, bool allow_sync,
							 bool anyvisible, bool progress,
							 BlockNumber start_blockno, BlockNumber numblocks,
							 IndexBuildCallback callback,
							 void *callback_state, TableScanDesc scan)
{
	refuse_missing(MISSING_INDEX_BUILD);
	return 0;
}

static void
topic_index_validate_scan(Relation table_rel, Relation index_rel,
						  struct IndexInfo *index_info, Snapshot snapshot,
						  struct ValidateIndexState *state)
{
	refuse_missing(MISSING_INDEX_BUILD);
}

/*
 * Segments keep their large values in a TOAST table of their own.  A
 * router holds no data, but logical decoding files a partition's records
 * under the router and reassembles their TOAST pointers through the
 * router's reltoastrelid, so it needs one too.
 */
static bool
topic_relation_needs_toast_table(Relation rel)
{
	return true;
}

static Oid
topic_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}

/*
 * The planner's size of a partition: its segments' blocks (the router's
 * own file holds only its metapage), and as many records as the log holds
 * offsets -- exact but for rolled-back records, which are rare, and cheaper
 * than any sample.  A segment is sized as a heap is, and so is a small
 * partition never vacuumed or analyzed: as heap guesses for a new table, 10
 * blocks of rows of its columns' widths, so that a plan made while a topic
 * is new (a seek, say) does not turn bad as it fills.
 */
static void
topic_relation_estimate_size(Relation rel, int32 *attr_widths,
							 BlockNumber *pages, double *tuples,
							 double *allvisfrac)
{
	TopicLogEnd end;
	bool		router = topic_log_is_router(rel);
	uint64		blocks = router ? topic_router_blocks(rel) : 0;

	if (!router || (blocks < 10 && rel->rd_rel->relpages == 0))
	{
		/* a record costs its data plus about two bytes (flags, batch share) */
		table_block_relation_estimate_size(rel, attr_widths, pages, tuples,
										   allvisfrac, 2,
										   TOPIC_LOG_PAGE_CAPACITY);
		return;
	}
	topic_log_end(rel, &end);
	*pages = (BlockNumber) Min(blocks, MaxBlockNumber);
	*tuples = (double) Max(end.next_offset - end.log_start_offset, 0);
	*allvisfrac = 0;
}

static bool
topic_scan_sample_next_block(TableScanDesc scan,
							 struct SampleScanState *scanstate)
{
	refuse_missing(MISSING_TABLESAMPLE);
	return false;
}

static bool
topic_scan_sample_next_tuple(TableScanDesc scan,
							 struct SampleScanState *scanstate,
							 TupleTableSlot *slot)
{
	return false;
}

/* Add a segment's blocks to the sum at arg (a topic_segdir_foreach visitor) */
static bool
add_segment_blocks(void *arg, Relation seg, const TopicSegmentEntry *entry,
				   int i)
{
	*(uint64 *) arg += topic_storage_nblocks(seg);
	return false;
}

/* The blocks of a router's readable segments, one after the other */
uint64
topic_router_blocks(Relation rel)
{
	TopicSegmentDir *dir = topic_segdir_read(rel);
	uint64		blocks = 0;

	(void) topic_segdir_foreach(dir, -1, 0, AccessShareLock,
								add_segment_blocks, &blocks);
	pfree(dir);
	return blocks;
}

static const TableAmRoutine topic_log_methods = {
	.type = T_TableAmRoutine,

	.slot_callbacks = topic_slot_callbacks,

	.scan_begin = topic_scan_begin,
	.scan_end = topic_scan_end,
	.scan_rescan = topic_scan_rescan,
	.scan_getnextslot = topic_scan_getnextslot,

	.parallelscan_estimate = topic_parallelscan_estimate,
	.parallelscan_initialize = topic_parallelscan_initialize,
	.parallelscan_reinitialize = topic_parallelscan_reinitialize,

	.index_fetch_begin = topic_index_fetch_begin,
	.index_fetch_reset = topic_index_fetch_reset,
	.index_fetch_end = topic_index_fetch_end,
	.index_fetch_tuple = topic_index_fetch_tuple,

	.tuple_fetch_row_version = topic_fetch_row_version,
	.tuple_tid_valid = topic_tid_valid,
	.tuple_get_latest_tid = topic_get_latest_tid,
	.tuple_satisfies_snapshot = topic_tuple_satisfies_snapshot,
	.index_delete_tuples = topic_index_delete_tuples,

	.tuple_insert = topic_tuple_insert,
	.tuple_insert_speculative = topic_tuple_insert_speculative,
	.tuple_complete_speculative = topic_tuple_complete_speculative,
	.multi_insert = topic_multi_insert,
	.tuple_delete = topic_tuple_delete,
	.tuple_update = topic_tuple_update,
	.tuple_lock = topic_tuple_lock,

#if PG_VERSION_NUM >= 160000
	.relation_set_new_filelocator = topic_relation_set_new_filelocator,
#else
	.relation_set_new_filenode = topic_relation_set_new_filelocator,
#endif
	.relation_nontransactional_truncate = topic_relation_nontransactional_truncate,
	.relation_copy_data = topic_relation_copy_data,
	.relation_copy_for_cluster = topic_relation_copy_for_cluster,
	.relation_vacuum = topic_vacuum,
	.scan_analyze_next_block = topic_scan_analyze_next_block,
	.scan_analyze_next_tuple = topic_scan_analyze_next_tuple,
	.index_build_range_scan = topic_index_build_range_scan,
	.index_validate_scan = topic_index_validate_scan,

	.relation_size = table_block_relation_size,
	.relation_needs_toast_table = topic_relation_needs_toast_table,
	.relation_toast_am = topic_relation_toast_am,

	.relation_estimate_size = topic_relation_estimate_size,

	.scan_sample_next_block = topic_scan_sample_next_block,
	.scan_sample_next_tuple = topic_scan_sample_next_tuple,
};

Datum
topic_log_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&topic_log_methods);
}

/*
 * Refuse a statement that would change or lock the records of topic (or
 * partition) relid: UPDATE, DELETE, MERGE, INSERT (with ON CONFLICT, the
 * only INSERT refused) or SELECT (with a locking clause).  The planner hook
 * and the access-method callbacks (tableam.c) both raise these, with the
 * same words.
 */
void
topic_refuse_dml(Oid relid, CmdType command)
{
	const char *name = get_rel_name(relid);

	switch (command)
	{
		case CMD_UPDATE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("UPDATE is not supported on topic \"%s\"", name),
					 errdetail("Records of a topic are immutable once written."),
					 errhint("Produce a new record with the same key instead.")));
			break;
		case CMD_DELETE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("DELETE is not supported on topic \"%s\"", name),
					 errdetail("Records of a topic are immutable once written."),
					 errhint("Old records leave through retention or topics.delete_records().")));
			break;
		case CMD_MERGE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("MERGE is not supported on topic \"%s\"", name),
					 errdetail("Records of a topic are immutable once written."),
					 errhint("Use INSERT or topics.produce() to add records.")));
			break;
		case CMD_INSERT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("INSERT ... ON CONFLICT is not supported on topic \"%s\"", name),
					 errdetail("Records of a topic are immutable once written."),
					 errhint("Remove the ON CONFLICT clause; every record gets a new offset.")));
			break;
		case CMD_SELECT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("locking records is not supported on topic \"%s\"", name),
					 errdetail("Records of a topic are immutable once written."),
					 errhint("Remove FOR UPDATE or FOR SHARE; consumer groups coordinate readers.")));
			break;
		default:
			break;
	}
	elog(ERROR, "unexpected command %d refused on topic \"%s\"", (int) command, name);
}
