/*-------------------------------------------------------------------------
 *
 * segment_ddl.c
 *	  Keeping segments in step with DDL on their partitions.
 *
 * A new partition's log gets its first segment in the statement that
 * created it; TRUNCATE gives it a fresh one and drops the old ones; DROP
 * drops them.  All of it happens in the statement's own transaction, so a
 * rollback undoes it together with the DDL.  Nothing in pg_depend ties a
 * segment to its partition (segments are extension members, see
 * segment.c), so this is done by hand: an object-access hook notes what a
 * utility statement creates and drops, and relation_set_new_filenode notes
 * what TRUNCATE empties; when the statement is done, ddl.c calls
 * topic_segment_ddl_end().
 *
 * A dropped segment holds about six entries of the shared lock table until
 * the transaction ends (the relation, its TOAST table and index, their row
 * types), so the segments of a wide topic would not fit: a transaction
 * drops at most SEGMENTS_DROPPED_AT_ONCE of them itself.  The rest are
 * left unlisted, and the background worker, woken when the transaction
 * commits, drops them each in a transaction of its own as the orphans they
 * are.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/wakeup.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/segments/segment_ddl.h"
#include "pg_topics/shared/registry.h"

static object_access_hook_type prev_object_access_hook = NULL;

/* What the running utility statement did to topic_log relations */
static List *created = NIL;		/* OIDs of new relations */
static List *emptied = NIL;		/* TopicSegmentDir * of truncated routers */
static List *dropped = NIL;		/* TopicSegmentDir * of dropped routers */

#define SEGMENTS_DROPPED_AT_ONCE	(2 * max_locks_per_xact)

/* Segments this transaction dropped, and whether it left some to the worker */
static int	segments_dropped_in_xact = 0;
static bool segments_left_in_xact = false;

/* Drop dir's segments, as far as the transaction's share allows */
static void
drop_segments(TopicSegmentDir *dir)
{
	int			budget = Max(SEGMENTS_DROPPED_AT_ONCE - segments_dropped_in_xact, 0);
	int			n = topic_segments_drop_all(dir->router, dir, budget);

	segments_dropped_in_xact += n;
	/* the budget ran out: there may be more (a spare wake-up costs little) */
	if (n == budget)
		segments_left_in_xact = true;
}

/*
 * A copy of a router's directory that lives until the statement ends; NULL
 * for a damaged metapage (its segments are then left to the worker).
 */
static TopicSegmentDir *
keep_directory(Relation router)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	TopicSegmentDir *dir = topic_segdir_read_tolerant(router);

	MemoryContextSwitchTo(old);
	return dir;
}

static void
segment_object_access(ObjectAccessType access, Oid classId, Oid objectId,
					  int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (classId != RelationRelationId || subId != 0)
		return;

	if (access == OAT_POST_CREATE)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		created = lappend_oid(created, objectId);
		MemoryContextSwitchTo(old);
	}
	else if (access == OAT_DROP && topic_is_log_relation(objectId))
	{
		/* still there, and locked by the dropper: read its segments now */
		Relation	rel = relation_open(objectId, NoLock);

		TopicSegmentDir *dir = keep_directory(rel);

		if (dir != NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			dropped = lappend(dropped, dir);
			MemoryContextSwitchTo(old);
		}
		relation_close(rel, NoLock);
	}
}

/*
 * TRUNCATE is giving router new storage: remember its old segments.  A
 * router already noted and not yet acted on (a subscription's worker
 * applying a second TRUNCATE with no write in between) has no segments
 * since: the first note holds the ones to drop, and one fresh segment is
 * all it gets.
 */
void
topic_segment_ddl_note_truncate(Relation router)
{
	MemoryContext old;
	ListCell   *lc;

	foreach(lc, emptied)
		if (((TopicSegmentDir *) lfirst(lc))->router == RelationGetRelid(router))
			return;
	old = MemoryContextSwitchTo(TopMemoryContext);
	emptied = lappend(emptied, topic_segdir_read(router));
	MemoryContextSwitchTo(old);
}

/* Start a utility statement: set the notes of outer ones aside */
void
topic_segment_ddl_begin(TopicSegmentDdlState *state)
{
	state->created = created;
	state->emptied = emptied;
	state->dropped = dropped;
	created = emptied = dropped = NIL;
}

/* Abandon a failed statement's notes and bring the outer ones back */
void
topic_segment_ddl_abort(TopicSegmentDdlState *state)
{
	created = state->created;
	emptied = state->emptied;
	dropped = state->dropped;
}

/*
 * Give new partition logs their first segment, and truncated ones a fresh
 * one, and drop the segments of dropped and truncated logs.
 */
static void
process_notes(List *my_created, List *my_emptied, List *my_dropped)
{
	ListCell   *lc;

	if (my_created == NIL && my_emptied == NIL && my_dropped == NIL)
		return;
	CommandCounterIncrement();

	foreach(lc, my_dropped)
		drop_segments(lfirst(lc));

	/*
	 * Readers long-polling a dropped log wake, wait for our lock on it and
	 * then find it gone, instead of sleeping on
	 */
	if (my_dropped != NIL)
	{
		topic_registry_wake_all();
		/* saved plans name the topic by its row type, which is going */
		topic_invalidate_read_plans();
	}
	foreach(lc, my_emptied)
	{
		TopicSegmentDir *dir = lfirst(lc);
		Relation	router = relation_open(dir->router, AccessExclusiveLock);

		drop_segments(dir);
		topic_segment_create_first(router, dir->next_segno);
		/* pg_dump carries where it starts now */
		if (!IsBinaryUpgrade)
			topic_log_start_record(router);
		relation_close(router, NoLock);
	}
	/* a binary upgrade brings the segments and directories of the old cluster */
	if (!IsBinaryUpgrade)
		foreach(lc, my_created)
		{
			Oid			relid = lfirst_oid(lc);
			Relation	rel;

			if (!topic_is_log_relation(relid))
				continue;
			rel = relation_open(relid, AccessExclusiveLock);
			if (topic_log_is_router(rel))
			{
				TopicSegmentDir *dir = topic_segdir_read(rel);

				if (dir->nentries == 0)
					topic_segment_create_first(rel, 0);
				pfree(dir);
			}
			relation_close(rel, NoLock);
		}

	list_free_deep(my_dropped);
	list_free_deep(my_emptied);
	list_free(my_created);
}

/* The statement is done: act on what it did */
void
topic_segment_ddl_end(TopicSegmentDdlState *state)
{
	List	   *my_created = created;
	List	   *my_emptied = emptied;
	List	   *my_dropped = dropped;

	topic_segment_ddl_abort(state);
	process_notes(my_created, my_emptied, my_dropped);
}

/* process_notes, with a snapshot if the caller has none (the apply worker) */
static void
process_notes_with_snapshot(List *my_created, List *my_emptied,
							List *my_dropped)
{
	/* most commits have nothing to do: no snapshot for them */
	if (my_created == NIL && my_emptied == NIL && my_dropped == NIL)
		return;
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		process_notes(my_created, my_emptied, my_dropped);
		PopActiveSnapshot();
	}
	else
		process_notes(my_created, my_emptied, my_dropped);
}

/*
 * A write into router finds no segment: if a TRUNCATE that no statement
 * end has acted on yet emptied it, act on the notes now, and say so.  Only
 * DDL that bypasses ProcessUtility leaves notes behind for a later write:
 * a subscription's worker applies TRUNCATE directly, and then the rest of
 * the publisher's transaction, which may produce into the topic again.
 */
bool
topic_segment_ddl_settle(Oid router)
{
	List	   *my_created = created;
	List	   *my_emptied = emptied;
	List	   *my_dropped = dropped;
	ListCell   *lc;
	bool		found = false;

	foreach(lc, emptied)
		if (((TopicSegmentDir *) lfirst(lc))->router == router)
			found = true;
	if (!found)
		return false;
	created = emptied = dropped = NIL;
	process_notes_with_snapshot(my_created, my_emptied, my_dropped);
	return true;
}

/*
 * A backstop for DDL that bypasses ProcessUtility (logical replication
 * applies TRUNCATE directly): act on what is left before commit or
 * PREPARE (a two_phase subscription); forget it at abort.
 */
static void
segment_xact_callback(XactEvent event, void *arg)
{
	List	   *my_created = created;
	List	   *my_emptied = emptied;
	List	   *my_dropped = dropped;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			created = emptied = dropped = NIL;
			/* the apply worker commits without a snapshot; our DDL needs one */
			process_notes_with_snapshot(my_created, my_emptied, my_dropped);
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PREPARE:

			/*
			 * The segments left behind are orphans once this commits: have
			 * them dropped.  (After PREPARE, the worker finds them at a round
			 * after COMMIT PREPARED.)
			 */
			if (segments_left_in_xact && event == XACT_EVENT_COMMIT)
				topic_worker_wake();
			segments_dropped_in_xact = 0;
			segments_left_in_xact = false;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			segments_dropped_in_xact = 0;
			segments_left_in_xact = false;
			created = emptied = dropped = NIL;
			list_free_deep(my_dropped);
			list_free_deep(my_emptied);
			list_free(my_created);
			break;
		default:
			break;
	}
}

void
topic_segment_ddl_init(void)
{
	prev_object_access_hook = object_access_hook;
	object_access_hook = segment_object_access;
	RegisterXactCallback(segment_xact_callback, NULL);
}
