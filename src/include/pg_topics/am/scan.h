/*-------------------------------------------------------------------------
 *
 * scan.h
 *	  Reading topic_log relations (the access method's read callbacks).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SCAN_H
#define TOPIC_SCAN_H

#include "access/relscan.h"
#include "access/sdir.h"
#include "executor/tuptable.h"
#if PG_VERSION_NUM >= 170000
#include "storage/read_stream.h"
#endif
#include "utils/timestamp.h"

extern TableScanDesc topic_scan_begin(Relation rel, Snapshot snapshot,
									  int nkeys, struct ScanKeyData *key,
									  ParallelTableScanDesc pscan,
									  uint32 flags);
extern void topic_scan_end(TableScanDesc sscan);
extern Size topic_parallelscan_estimate(Relation rel);
extern Size topic_parallelscan_initialize(Relation rel,
										  ParallelTableScanDesc pscan);
extern void topic_parallelscan_reinitialize(Relation rel,
											ParallelTableScanDesc pscan);
extern void topic_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key,
							  bool set_params, bool allow_strat,
							  bool allow_sync, bool allow_pagemode);
extern bool topic_scan_getnextslot(TableScanDesc sscan,
								   ScanDirection direction,
								   TupleTableSlot *slot);
extern bool topic_fetch_row_version(Relation rel, ItemPointer tid,
									Snapshot snapshot, TupleTableSlot *slot);
extern bool topic_tid_valid(TableScanDesc sscan, ItemPointer tid);
extern bool topic_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
										   Snapshot snapshot);
#if PG_VERSION_NUM >= 170000
extern bool topic_scan_analyze_next_block(TableScanDesc sscan,
										  ReadStream *stream);
#else
extern bool topic_scan_analyze_next_block(TableScanDesc sscan,
										  BlockNumber blockno,
										  BufferAccessStrategy bstrategy);
#endif
extern bool topic_scan_analyze_next_tuple(TableScanDesc sscan,
										  TransactionId OldestXmin,
										  double *liverows, double *deadrows,
										  TupleTableSlot *slot);

/*
 * A position in a scanned log: a segment (by its place in the scan) and a
 * block in it, ordered as the log is.
 */
typedef uint64 TopicScanPos;

#define TopicScanPosMake(seg, blkno)	(((uint64) (seg) << 32) | (uint64) (blkno))
#define TopicScanPosSeg(pos)			((int) ((pos) >> 32))
#define TopicScanPosBlock(pos)			((BlockNumber) ((pos) & 0xFFFFFFFF))

extern bool topic_scan_is_unordered(TableScanDesc sscan);
extern TopicScanPos topic_scan_seek(TableScanDesc sscan, bool by_time,
									int64 offset, TimestampTz ts);
extern void topic_scan_set_limits(TableScanDesc sscan, TopicScanPos start,
								  TopicScanPos end);
extern BlockNumber topic_scan_count_blocks(TableScanDesc sscan,
										   TopicScanPos start,
										   TopicScanPos end);

#endif							/* TOPIC_SCAN_H */
