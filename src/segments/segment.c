/*-------------------------------------------------------------------------
 *
 * segment.c
 *	  Segments: the relations a partition's log is stored in, and the
 *	  directory of them on the partition's metapage.
 *
 * A partition of a topic (any topic_log relation a user creates) is a
 * "router": its main fork is one metapage holding the log start and the
 * segment directory.  The records are in segments, relations of their own
 * in schema topics_segments, each with the page format of storage.c, its
 * own metapage, resolved mark, relfrozenxid and TOAST table.  Retention
 * drops a segment whole, so its disk space, TOAST included, goes back to
 * the filesystem without VACUUM and without rewriting what stays.
 *
 * Directory entries go SPARE (created ahead of need by the background
 * worker) -> LIVE (the one appends go to) -> SEALED -> RETIRED (below the
 * log start, to be dropped) -> forgotten once the relation is gone.  The
 * directory is not transactional: it changes under the metapage's
 * exclusive lock and is WAL-logged as a full-page image (changes are rare:
 * a roll, a spare, a retention step).  Segment relations come and go
 * transactionally; the two meet through validation: an entry is trusted
 * only if its relation exists and is the segment the entry names
 * (topic_segment_open), so an aborted creation or a crash between two steps
 * leaves at most an entry or a relation that the worker cleans up.
 *
 * Segments are extension members, so pg_dump leaves them out (a topic's
 * records are dumped through its partitions) while pg_upgrade's
 * binary-upgrade dump keeps them.  Nothing in pg_depend ties them to their
 * partition; DROP of a partition drops its segments in the same statement
 * (ddl.c), and the worker drops any orphan.
 *
 * Lock order: a segment's pages before the router's metapage.  Readers
 * copy the directory and let the metapage go before they touch segments.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/wakeup.h"
#include "pg_topics/log/storage.h"
#include "pg_topics/segments/segment.h"

/* Names one segment of a directory, for the edits that need one */
typedef struct ForgetArgs
{
	Oid			relid;
	uint32		segno;
} ForgetArgs;

/* Set while a segment relation is being created: its identity */
static Oid	creating_owner = InvalidOid;
static uint32 creating_segno = 0;

static void topic_segdir_forget(Relation router, Oid relid, uint32 segno);
static BlockNumber segment_blocks(Relation seg, BlockNumber main_blocks,
								  bool maps);

/*
 * The metapage flags relation_set_new_filenode writes: a segment while we
 * create one, else a router.
 */
uint32
topic_segment_kind_for_new_relation(Oid *owner, uint32 *segno)
{
	if (OidIsValid(creating_owner))
	{
		*owner = creating_owner;
		*segno = creating_segno;
		return TL_META_SEGMENT;
	}
	*owner = InvalidOid;
	*segno = 0;
	return TL_META_ROUTER;
}

/* The kind of a topic_log relation (TL_META_*), cached with the relation */
static uint32
topic_log_kind(Relation rel)
{
	if (rel->rd_amcache == NULL)
	{
		TopicLogMetaData meta;
		uint32	   *kind;

		topic_storage_read_meta(rel, &meta);
		kind = MemoryContextAlloc(CacheMemoryContext, sizeof(uint32));
		*kind = meta.flags & (TL_META_ROUTER | TL_META_SEGMENT);
		rel->rd_amcache = kind;
	}
	return *(uint32 *) rel->rd_amcache;
}

bool
topic_log_is_router(Relation rel)
{
	return (topic_log_kind(rel) & TL_META_ROUTER) != 0;
}

/* OID of schema topics_segments */
Oid
topic_segment_namespace(void)
{
	return get_namespace_oid(TOPIC_SEGMENT_SCHEMA, false);
}

/* The name a segment relation has */
static void
segment_name(char *buf, Oid owner, uint32 segno)
{
	snprintf(buf, NAMEDATALEN, "seg_%u_%u", owner, segno);
}

/* A palloc'd copy of the directory on router's locked metapage page */
static TopicSegmentDir *
copy_directory(Relation router, Page page)
{
	TopicLogMetaData *meta = TopicLogPageGetMeta(page);
	TopicSegmentDir *dir;

	dir = palloc(offsetof(TopicSegmentDir, entries) +
				 Max(meta->nsegments, 1) * sizeof(TopicSegmentEntry));
	dir->router = RelationGetRelid(router);
	dir->log_start = meta->log_start_offset;
	dir->max_timestamp = TopicLogPageGetOpaque(page)->max_timestamp;
	dir->next_segno = meta->next_segno;
	dir->segment_blocks = meta->segment_blocks;
	dir->segment_roll_usecs = meta->segment_roll_usecs;
	dir->nentries = meta->nsegments;
	memcpy(dir->entries, meta->segments, meta->nsegments * sizeof(TopicSegmentEntry));
	return dir;
}

/* A copy of router's directory */
TopicSegmentDir *
topic_segdir_read(Relation router)
{
	Buffer		buffer = ReadBuffer(router, TOPIC_LOG_METAPAGE_BLKNO);
	Page		page;
	TopicLogMetaData *meta;
	TopicSegmentDir *dir;

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	topic_page_check(router, TOPIC_LOG_METAPAGE_BLKNO, page, TL_PAGE_META);
	meta = TopicLogPageGetMeta(page);
	if (!(meta->flags & TL_META_ROUTER))
		elog(ERROR, "\"%s\" is not a partition's log", RelationGetRelationName(router));
	if (meta->nsegments > TOPIC_LOG_MAX_SEGMENTS)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("segment directory of \"%s\" is corrupted",
						RelationGetRelationName(router)),
				 errdetail("It lists %u segments; at most %zu fit.",
						   meta->nsegments, (size_t) TOPIC_LOG_MAX_SEGMENTS)));
	dir = copy_directory(router, page);
	UnlockReleaseBuffer(buffer);
	return dir;
}

/*
 * A copy of router's directory, or NULL if its metapage is not a sound
 * router metapage: for dropping a damaged log, which must still work.
 */
TopicSegmentDir *
topic_segdir_read_tolerant(Relation router)
{
	Buffer		buffer;
	Page		page;
	TopicLogMetaData *meta;
	TopicSegmentDir *dir = NULL;

	if (topic_storage_nblocks(router) == 0)
		return NULL;
	buffer = ReadBuffer(router, TOPIC_LOG_METAPAGE_BLKNO);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	meta = TopicLogPageGetMeta(page);
	if (!PageIsNew(page) &&
		PageGetSpecialSize(page) == MAXALIGN(sizeof(TopicLogPageOpaqueData)) &&
		TopicLogPageGetOpaque(page)->page_id == TOPIC_LOG_PAGE_ID &&
		meta->magic == TOPIC_LOG_META_MAGIC &&
		TopicLogFormatVersionIsReadable(meta->version) &&
		(meta->flags & TL_META_ROUTER) &&
		meta->nsegments <= TOPIC_LOG_MAX_SEGMENTS)
		dir = copy_directory(router, page);
	UnlockReleaseBuffer(buffer);
	return dir;
}

/* The LIVE entry, or NULL */
TopicSegmentEntry *
topic_segdir_live(TopicSegmentDir *dir)
{
	int			i;

	for (i = 0; i < dir->nentries; i++)
		if (dir->entries[i].state == TOPIC_SEGMENT_LIVE)
			return &dir->entries[i];
	return NULL;
}

/* The readable (LIVE or SEALED) entry with the TID segment bits of segno */
TopicSegmentEntry *
topic_segdir_by_tid_segno(TopicSegmentDir *dir, uint32 tid_segno)
{
	int			i;

	for (i = 0; i < dir->nentries; i++)
		if (topic_segment_readable(&dir->entries[i]) &&
			(dir->entries[i].segno & 0x7FFF) == tid_segno)
			return &dir->entries[i];
	return NULL;
}

/*
 * Does a reader at position skip entry i of dir?  Yes if it holds nothing
 * readable, or lies wholly below position: the next readable segment
 * starts at or below it (a segment starts at the running end of the log
 * before it, so this holds for logs out of offset order too).
 */
bool
topic_segdir_reader_skips(const TopicSegmentDir *dir, int i, int64 position)
{
	int			j;

	if (!topic_segment_readable(&dir->entries[i]))
		return true;
	for (j = i + 1; j < dir->nentries; j++)
		if (topic_segment_readable(&dir->entries[j]))
			return dir->entries[j].base_offset <= position;
	return false;
}

/*
 * Open the segment an entry names with lockmode, or return NULL if it is
 * gone (dropped by retention, or never committed).  The name check guards
 * against a recycled OID.
 */
Relation
topic_segment_open(Oid router, const TopicSegmentEntry *entry, LOCKMODE lockmode)
{
	Relation	rel;
	char		name[NAMEDATALEN];
	char	   *current;

	/* no lock on a relation that is not ours: look at its name first */
	segment_name(name, router, entry->segno);
	current = get_rel_name(entry->relid);
	if (current == NULL || strcmp(current, name) != 0)
		return NULL;
	rel = try_relation_open(entry->relid, lockmode);
	if (rel == NULL)
		return NULL;
	if (strcmp(RelationGetRelationName(rel), name) != 0 ||
		RelationGetNamespace(rel) != topic_segment_namespace())
	{
		relation_close(rel, lockmode);
		return NULL;
	}
	return rel;
}

/*
 * Visit the readable segments of dir, oldest first (newest first with
 * TOPIC_SEGDIR_BACKWARD), each opened with lockmode for the visit and
 * closed after it.  A reader at offset from skips the segments wholly
 * below it (topic_segdir_reader_skips); from -1 visits them all.  Segments
 * gone since dir was read (dropped by retention) are stepped over: their
 * records are below the log start.  Returns true when a visitor stopped
 * the walk by returning true.
 */
bool
topic_segdir_foreach(const TopicSegmentDir *dir, int64 from, int flags,
					 LOCKMODE lockmode, TopicSegmentVisitor visit, void *arg)
{
	bool		backward = (flags & TOPIC_SEGDIR_BACKWARD) != 0;
	int			i;

	for (i = backward ? dir->nentries - 1 : 0;
		 backward ? i >= 0 : i < dir->nentries;
		 i += backward ? -1 : 1)
	{
		Relation	seg;
		bool		done;

		if (from < 0 ? !topic_segment_readable(&dir->entries[i]) :
			topic_segdir_reader_skips(dir, i, from))
			continue;
		seg = topic_segment_open(dir->router, &dir->entries[i], lockmode);
		if (seg == NULL)
			continue;
		done = visit(arg, seg, &dir->entries[i], i);
		relation_close(seg, lockmode);
		if (done)
			return true;
	}
	return false;
}

/*
 * Change router's directory: edit works on a copy of the metapage and
 * returns whether it changed anything; the change is then applied and
 * logged as a full-page image in one critical section.
 */
typedef bool (*SegdirEdit) (TopicLogMetaData *meta, void *arg);

static bool
segdir_modify(Relation router, SegdirEdit edit, void *arg)
{
	Buffer		buffer = ReadBuffer(router, TOPIC_LOG_METAPAGE_BLKNO);
	PGAlignedBlock copy;
	Page		page;
	TopicLogMetaData *meta;
	bool		changed;

	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buffer);
	topic_page_check(router, TOPIC_LOG_METAPAGE_BLKNO, page, TL_PAGE_META);
	memcpy(copy.data, page, BLCKSZ);
	meta = TopicLogPageGetMeta((Page) copy.data);
	if (!(meta->flags & TL_META_ROUTER))
		elog(ERROR, "\"%s\" is not a partition's log", RelationGetRelationName(router));

	changed = edit(meta, arg);
	if (changed)
	{
		((PageHeader) copy.data)->pd_lower =
			((char *) &meta->segments[meta->nsegments]) - copy.data;

		START_CRIT_SECTION();
		memcpy(page, copy.data, BLCKSZ);
		MarkBufferDirty(buffer);
		if (RelationNeedsWAL(router))
			log_newpage_buffer(buffer, true);
		END_CRIT_SECTION();
	}
	UnlockReleaseBuffer(buffer);
	return changed;
}

/* --- directory edits --- */

typedef struct AddEntry
{
	Oid			relid;
	uint32		segno;
	uint16		state;
	int64		base_offset;
	TimestampTz base_timestamp;
} AddEntry;

static bool
edit_add(TopicLogMetaData *meta, void *arg)
{
	AddEntry   *add = (AddEntry *) arg;
	TopicSegmentEntry *e;
	int			i;

	if (meta->nsegments >= TOPIC_LOG_MAX_SEGMENTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("partition log has %d segments, the most it can have",
						(int) meta->nsegments),
				 errhint("Set retention or retention_bytes on the topic, or drop old records with topics.delete_records().")));
	/* a LIVE entry replaces any earlier one, which is sealed */
	if (add->state == TOPIC_SEGMENT_LIVE)
		for (i = 0; i < meta->nsegments; i++)
			if (meta->segments[i].state == TOPIC_SEGMENT_LIVE)
				meta->segments[i].state = TOPIC_SEGMENT_SEALED;
	e = &meta->segments[meta->nsegments++];
	memset(e, 0, sizeof(*e));
	e->relid = add->relid;
	e->segno = add->segno;
	e->state = add->state;
	e->base_offset = add->base_offset;
	e->base_timestamp = add->base_timestamp;
	e->activated_at = add->state == TOPIC_SEGMENT_LIVE ? GetCurrentTimestamp() : 0;
	meta->next_segno = Max(meta->next_segno, add->segno + 1);
	return true;
}

typedef struct ReserveArgs
{
	uint32		at_least;
	uint32		segno;
} ReserveArgs;

static bool
edit_reserve(TopicLogMetaData *meta, void *arg)
{
	ReserveArgs *reserve = (ReserveArgs *) arg;

	reserve->segno = Max(meta->next_segno, reserve->at_least);
	meta->next_segno = reserve->segno + 1;
	return true;
}

/*
 * Number the next segment of router, at_least or higher.  The number is
 * used up before the relation exists, so that a creation that fails (or a
 * crash that leaves an orphan) never makes a later one collide.
 */
static uint32
reserve_segno(Relation router, uint32 at_least)
{
	ReserveArgs reserve = {at_least, 0};

	segdir_modify(router, edit_reserve, &reserve);
	return reserve.segno;
}

/* Run DDL statement arg as the bootstrap superuser */
static void
run_ddl_as_owner(void *arg)
{
	topic_internal_sql_ddl((const char *) arg, true);
}

/*
 * Create a segment relation for router (DDL, in the current transaction)
 * and return its OID.  It is created by the bootstrap superuser, in schema
 * topics_segments, as a member of the extension.
 */
static Oid
create_segment_relation(Relation router, uint32 segno)
{
	char		name[NAMEDATALEN];
	char	   *sql;
	Oid			relid;
	Oid			nspid = topic_segment_namespace();

	segment_name(name, RelationGetRelid(router), segno);
	sql = psprintf("CREATE TABLE %s.%s (LIKE %s INCLUDING DEFAULTS) USING " TOPIC_AM_NAME "%s%s",
				   TOPIC_SEGMENT_SCHEMA, quote_identifier(name),
				   quote_qualified_identifier(get_namespace_name(RelationGetNamespace(router)),
											  RelationGetRelationName(router)),
				   OidIsValid(router->rd_rel->reltablespace) ? " TABLESPACE " : "",
				   OidIsValid(router->rd_rel->reltablespace) ?
				   quote_identifier(get_tablespace_name(router->rd_rel->reltablespace)) : "");

	creating_owner = RelationGetRelid(router);
	creating_segno = segno;
	PG_TRY();
	{
		topic_ddl_run_internal(run_ddl_as_owner, sql);
	}
	PG_FINALLY();
	{
		creating_owner = InvalidOid;
	}
	PG_END_TRY();

	CommandCounterIncrement();
	relid = get_relname_relid(name, nspid);
	if (!OidIsValid(relid))
		elog(ERROR, "segment \"%s\" was not created", name);

	/*
	 * A member of pg_topics, whatever extension is being created meanwhile
	 * (inside CREATE EXTENSION it became a member of that one).
	 */
	{
		ObjectAddress seg;
		ObjectAddress ext;

		deleteDependencyRecordsForClass(RelationRelationId, relid,
										ExtensionRelationId, DEPENDENCY_EXTENSION);
		ObjectAddressSet(seg, RelationRelationId, relid);
		ObjectAddressSet(ext, ExtensionRelationId,
						 get_extension_oid("pg_topics", false));
		recordDependencyOn(&seg, &ext, DEPENDENCY_EXTENSION);
	}
	return relid;
}

/*
 * Give a new (or truncated) router its first segment, LIVE from its log
 * start, numbered first_segno or higher (a truncated log goes on with its
 * numbers).  DDL: runs in the statement that created the relation.
 */
void
topic_segment_create_first(Relation router, uint32 first_segno)
{
	uint32		segno = reserve_segno(router, first_segno);
	AddEntry	add;
	TopicSegmentDir *dir;

	add.relid = create_segment_relation(router, segno);
	add.segno = segno;
	add.state = TOPIC_SEGMENT_LIVE;
	dir = topic_segdir_read(router);
	add.base_offset = dir->log_start;
	add.base_timestamp = dir->max_timestamp;
	segdir_modify(router, edit_add, &add);
}

/*
 * Create a SPARE segment for router.  The worker calls this in a
 * transaction of its own and adds the entry after that commits
 * (topic_segment_add_spare), so that an entry never names a relation that
 * did not commit.
 */
Oid
topic_segment_create_spare(Relation router, uint32 *segno)
{
	*segno = reserve_segno(router, 0);
	return create_segment_relation(router, *segno);
}

void
topic_segment_add_spare(Relation router, Oid relid, uint32 segno)
{
	AddEntry	add;

	add.relid = relid;
	add.segno = segno;
	add.state = TOPIC_SEGMENT_SPARE;
	add.base_offset = -1;
	add.base_timestamp = DT_NOBEGIN;
	segdir_modify(router, edit_add, &add);
}

/*
 * Is entry (LIVE, and found empty by the caller) the start of a log
 * without records: no readable segment before it, and the log starts
 * where it does?
 */
bool
topic_segdir_log_is_empty(Relation router, const TopicSegmentEntry *entry)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	bool		empty = true;
	int			i;

	for (i = 0; i < dir->nentries && dir->entries[i].relid != entry->relid; i++)
		if (topic_segment_readable(&dir->entries[i]))
			empty = false;
	pfree(dir);
	return empty;
}

typedef struct PolicyArgs
{
	uint32		blocks;
	int64		usecs;
} PolicyArgs;

static bool
edit_policy(TopicLogMetaData *meta, void *arg)
{
	PolicyArgs *policy = (PolicyArgs *) arg;

	if (meta->segment_blocks == policy->blocks &&
		meta->segment_roll_usecs == policy->usecs)
		return false;
	meta->segment_blocks = policy->blocks;
	meta->segment_roll_usecs = policy->usecs;
	return true;
}

/* Set when router's LIVE segment rolls: at a size, and at an age */
void
topic_segdir_set_policy(Relation router, uint32 segment_blocks,
						int64 segment_roll_usecs)
{
	PolicyArgs	policy = {segment_blocks, segment_roll_usecs};

	segdir_modify(router, edit_policy, &policy);
}

/* --- rolling over to the next segment --- */

typedef struct RollArgs
{
	Oid			live;
	Oid			spare;
	int64		base;
	TimestampTz base_timestamp;
	TopicSegmentEntry result;
	bool		rolled;
} RollArgs;

static bool
edit_roll(TopicLogMetaData *meta, void *arg)
{
	RollArgs   *roll = (RollArgs *) arg;
	int			i;
	int			live = -1;

	roll->rolled = false;
	for (i = 0; i < meta->nsegments; i++)
		if (meta->segments[i].state == TOPIC_SEGMENT_LIVE)
			live = i;
	if (live < 0 || meta->segments[live].relid != roll->live)
		return false;			/* someone else rolled already */
	for (i = live + 1; i < meta->nsegments; i++)
		if (meta->segments[i].state == TOPIC_SEGMENT_SPARE &&
			meta->segments[i].relid == roll->spare)
			break;
	if (i >= meta->nsegments)
		return false;			/* that spare is gone */
	meta->segments[live].state = TOPIC_SEGMENT_SEALED;
	meta->segments[live].flags &= ~TOPIC_SEGENTRY_DUE;
	meta->segments[i].state = TOPIC_SEGMENT_LIVE;
	meta->segments[i].base_offset = roll->base;
	meta->segments[i].base_timestamp = roll->base_timestamp;
	meta->segments[i].activated_at = GetCurrentTimestamp();
	roll->result = meta->segments[i];
	roll->rolled = true;
	return true;
}

/*
 * Seal the LIVE segment live and make spare LIVE from offset base.  The
 * caller holds live's tail page, so nothing is appended to it meanwhile.
 * False if live is no longer LIVE or spare no longer a spare.
 */
static bool
segdir_roll(Relation router, Oid live, Oid spare, int64 base,
			TimestampTz base_timestamp, TopicSegmentEntry *newlive)
{
	RollArgs	roll;

	roll.live = live;
	roll.spare = spare;
	roll.base = base;
	roll.base_timestamp = base_timestamp;
	segdir_modify(router, edit_roll, &roll);
	if (roll.rolled)
		*newlive = roll.result;
	return roll.rolled;
}

/*
 * Seal router's LIVE segment seg (open) and make the next spare LIVE,
 * starting where seg ends.  The spare is opened first, so that a LIVE
 * entry always names a relation that exists; a spare that does not is
 * forgotten.  False if there is no usable spare: the worker is asked for
 * one, and seg goes on.
 */
bool
topic_segment_roll(Relation router, Relation seg)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	TopicSegmentEntry spare;
	Relation	spare_rel = NULL;
	bool		found = false;
	bool		rolled = false;
	TopicTail	tail;
	TopicSegmentEntry newlive;

	for (int i = 0; i < dir->nentries; i++)
		if (dir->entries[i].state == TOPIC_SEGMENT_SPARE)
		{
			spare = dir->entries[i];
			found = true;
			break;
		}
	pfree(dir);
	if (found)
	{
		spare_rel = topic_segment_open(RelationGetRelid(router), &spare,
									   RowExclusiveLock);
		if (spare_rel == NULL)
			topic_segdir_forget(router, spare.relid, spare.segno);
	}
	if (spare_rel != NULL)
	{
		topic_tail_lock(seg, &tail, NULL);
		/*
		 * The directory says under its own lock whether seg is still LIVE
		 * (a seal left by a crash is overruled).  The seal goes on the tail
		 * before anyone can lock it again; a zero page at the end cannot
		 * carry it, and writers check the directory there themselves.
		 */
		rolled = segdir_roll(router, RelationGetRelid(seg), spare.relid,
							 tail.next_offset, tail.max_timestamp, &newlive);
		if (rolled)
			(void) topic_tail_seal(&tail);
		topic_tail_release(&tail);
		relation_close(spare_rel, NoLock);
	}
	else
		topic_worker_wake();	/* no usable spare: ask for one */
	return rolled;
}

/*
 * Blocks of rel's main fork (main_blocks, if valid, instead of the file's),
 * and of every other fork that exists if maps
 */
static BlockNumber
relation_forks_blocks(Relation rel, BlockNumber main_blocks, bool maps)
{
	SMgrRelation smgr = RelationGetSmgr(rel);
	BlockNumber blocks = main_blocks != InvalidBlockNumber ? main_blocks :
		smgrnblocks(smgr, MAIN_FORKNUM);
	ForkNumber	fork;

	if (maps)
		for (fork = MAIN_FORKNUM + 1; fork <= MAX_FORKNUM; fork++)
			if (smgrexists(smgr, fork))
				blocks += smgrnblocks(smgr, fork);
	return blocks;
}

/*
 * The whole size of segment seg on disk, in blocks: every fork of it, of
 * its TOAST table and of that table's index, the space taken ahead of the
 * tail included.  This is what counts toward the partition's
 * retention_bytes and what topics.partitions.bytes shows; every process
 * finds the same (the files' sizes, not what one backend last wrote).
 * Without maps, only the main forks: what a writer measures after each
 * record it TOASTed (the maps are a small part, and asking whether they
 * exist is a failed open() each).  The caller holds a lock on seg, which
 * keeps its TOAST table.
 */
BlockNumber
topic_segment_disk_blocks(Relation seg, bool maps)
{
	return segment_blocks(seg, InvalidBlockNumber, maps);
}

/*
 * The size of segment seg that counts toward its roll: its whole size on
 * disk (topic_segment_disk_blocks) without the zero pages its writers took
 * ahead of the tail (log/storage.c): a segment rolls when its records fill
 * it, not when the space taken for the next ones does.  retention_bytes
 * and topics.partitions.bytes count what is on disk.
 */
BlockNumber
topic_segment_used_blocks(Relation seg, bool maps)
{
	return segment_blocks(seg, topic_storage_last_block(seg) + 1, maps);
}

/*
 * Blocks of segment seg, its TOAST table and that table's index, with
 * main_blocks (if valid) for the segment's own main fork
 */
static BlockNumber
segment_blocks(Relation seg, BlockNumber main_blocks, bool maps)
{
	BlockNumber blocks = relation_forks_blocks(seg, main_blocks, maps);

	if (OidIsValid(seg->rd_rel->reltoastrelid))
	{
		Relation	toast = RelationIdGetRelation(seg->rd_rel->reltoastrelid);

		if (RelationIsValid(toast))
		{
			List	   *indexes = RelationGetIndexList(toast);
			ListCell   *lc;

			blocks += relation_forks_blocks(toast, InvalidBlockNumber, maps);
			foreach(lc, indexes)
			{
				Relation	index = RelationIdGetRelation(lfirst_oid(lc));

				if (RelationIsValid(index))
				{
					blocks += relation_forks_blocks(index, InvalidBlockNumber, maps);
					RelationClose(index);
				}
			}
			list_free(indexes);
			RelationClose(toast);
		}
	}
	return blocks;
}

/* The size at which router's LIVE segment rolls, in blocks */
BlockNumber
topic_segdir_roll_blocks(const TopicSegmentDir *dir)
{
	BlockNumber limit = dir->segment_blocks > 0 ? dir->segment_blocks :
		(BlockNumber) pg_topics_segment_size;

	return Min(limit, TOPIC_SEGMENT_MAX_ROLL_BLOCKS);
}

static bool
edit_due(TopicLogMetaData *meta, void *arg)
{
	ForgetArgs *seg = (ForgetArgs *) arg;
	int			i;

	for (i = 0; i < meta->nsegments; i++)
		if (meta->segments[i].relid == seg->relid &&
			meta->segments[i].segno == seg->segno &&
			meta->segments[i].state == TOPIC_SEGMENT_LIVE &&
			!(meta->segments[i].flags & TOPIC_SEGENTRY_DUE))
		{
			meta->segments[i].flags |= TOPIC_SEGENTRY_DUE;
			return true;
		}
	return false;
}

/*
 * Flag router's LIVE segment relid/segno as due to roll: it reached its
 * size but there was no spare to roll to.  Every writer and the worker
 * read the flag from the directory (it is not one backend's memory), so
 * whoever comes next rolls it; the worker is asked for a spare.
 */
void
topic_segdir_mark_due(Relation router, Oid relid, uint32 segno)
{
	ForgetArgs	seg = {relid, segno};

	segdir_modify(router, edit_due, &seg);
	topic_worker_wake();
}

/*
 * Wait up to timeout_ms for router to have a spare segment, having woken
 * the worker: a produce call that filled its segment waits for the next
 * one rather than grow it far past its size.  True if one is there.  The
 * caller's locks (RowExclusiveLock on the router and its segments) do not
 * keep the worker from creating and adding a spare.
 */
bool
topic_segment_wait_for_spare(Relation router, long timeout_ms)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   timeout_ms);

	for (;;)
	{
		TopicSegmentDir *dir = topic_segdir_read(router);
		bool		found = false;

		for (int i = 0; i < dir->nentries; i++)
			if (dir->entries[i].state == TOPIC_SEGMENT_SPARE)
				found = true;
		pfree(dir);
		if (found)
			return true;
		if (GetCurrentTimestamp() >= deadline)
			return false;
		topic_worker_wake();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Roll router's LIVE segment if it is due: it holds records and has been
 * LIVE for longer than the topic's roll age (so that an idle topic's old
 * records still leave on time), or its whole size on disk reached the
 * segment size (large values fill the TOAST table, which no later produce
 * need notice), or a writer flagged it.  The worker calls this every
 * round, and topics.enforce_retention() does.
 */
TopicRollResult
topic_segment_roll_if_due(Relation router)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	TopicSegmentEntry *live = topic_segdir_live(dir);
	TopicRollResult result = TOPIC_ROLL_NOT_DUE;
	Relation	seg;

	if (live != NULL &&
		(seg = topic_segment_open(dir->router, live, RowExclusiveLock)) != NULL)
	{
		BlockNumber roll_blocks = topic_segdir_roll_blocks(dir);
		bool		due;

		/*
		 * The size on disk first: the space taken ahead stays within the
		 * roll size, so below it the segment's tail need not be looked for
		 * (a walk back over its zero pages, for this process that has no
		 * guess)
		 */
		due = (live->flags & TOPIC_SEGENTRY_DUE) != 0 ||
			(dir->segment_roll_usecs > 0 &&
			 GetCurrentTimestamp() - live->activated_at >= dir->segment_roll_usecs) ||
			(topic_segment_disk_blocks(seg, true) >= roll_blocks &&
			 topic_segment_used_blocks(seg, true) >= roll_blocks);
		/* and an empty segment has nothing to seal */
		if (due && topic_storage_last_block(seg) >= TOPIC_LOG_FIRST_DATA_BLKNO)
			result = topic_segment_roll(router, seg) ? TOPIC_ROLL_ROLLED :
				TOPIC_ROLL_NO_SPARE;
		relation_close(seg, RowExclusiveLock);
	}
	pfree(dir);
	return result;
}

/* --- retention --- */

typedef struct StartArgs
{
	int64		start;
	int64		hw;				/* the log's end: the start never passes it */
	int			retired;
} StartArgs;

static bool
edit_start(TopicLogMetaData *meta, void *arg)
{
	StartArgs  *args = (StartArgs *) arg;
	bool		changed = false;
	int			i;

	args->retired = 0;
	if (Min(args->start, args->hw) > meta->log_start_offset)
	{
		meta->log_start_offset = Min(args->start, args->hw);
		changed = true;
	}
	/* a SEALED segment whose successor starts at or below the log start */
	for (i = 0; i + 1 < meta->nsegments; i++)
	{
		TopicSegmentEntry *e = &meta->segments[i];
		TopicSegmentEntry *next = &meta->segments[i + 1];

		if (e->state == TOPIC_SEGMENT_SEALED &&
			topic_segment_readable(next) &&
			next->base_offset <= meta->log_start_offset)
		{
			e->state = TOPIC_SEGMENT_RETIRED;
			args->retired++;
			changed = true;
		}
	}
	return changed;
}

/*
 * Move the log start of router forward to start (never back, never past
 * the high watermark hw) and retire the segments wholly below it.  Not
 * transactional, as Kafka's DeleteRecords: readers below the new start
 * get the out-of-range error at once.  Returns the number retired.
 */
int
topic_segdir_advance_start(Relation router, int64 start, int64 hw)
{
	StartArgs	args;

	args.start = start;
	args.hw = hw;
	segdir_modify(router, edit_start, &args);
	return args.retired;
}

/*
 * Start router's log at start if it has no records and starts lower: what
 * a restore does with the log start pg_dump carried (topics.log_starts).
 * A log with records (or gaps) keeps its start: they must stay readable.
 */
void
topic_segdir_restart_empty(Relation router, int64 start)
{
	TopicLogEnd end;
	TopicSegmentDir *dir;
	TopicSegmentEntry *live;
	Relation	seg;
	TopicTail	tail;

	topic_log_end(router, &end);
	if (start <= end.log_start_offset || end.next_offset > end.log_start_offset)
		return;
	dir = topic_segdir_read(router);
	live = topic_segdir_live(dir);
	if (live != NULL &&
		(seg = topic_segment_open(dir->router, live, RowExclusiveLock)) != NULL)
	{
		/* the tail lock keeps producers out while the log moves */
		topic_tail_lock(seg, &tail, NULL);
		/* no record got in since we looked, in this segment or before it */
		if (tail.blkno == TOPIC_LOG_METAPAGE_BLKNO &&
			topic_segdir_log_is_empty(router, live))
		{
			topic_tail_move_start(seg, &tail, start, tail.max_timestamp);
			topic_segdir_advance_start(router, start, start);
		}
		topic_tail_release(&tail);
		relation_close(seg, RowExclusiveLock);
	}
	pfree(dir);
}

static bool
edit_forget(TopicLogMetaData *meta, void *arg)
{
	ForgetArgs *forget = (ForgetArgs *) arg;
	int			i;

	for (i = 0; i < meta->nsegments; i++)
		if (meta->segments[i].relid == forget->relid &&
			meta->segments[i].segno == forget->segno &&
			meta->segments[i].state != TOPIC_SEGMENT_LIVE)
		{
			memmove(&meta->segments[i], &meta->segments[i + 1],
					(meta->nsegments - i - 1) * sizeof(TopicSegmentEntry));
			meta->nsegments--;
			return true;
		}
	return false;
}

/* Remove the (not LIVE) entry naming relid/segno from router's directory */
static void
topic_segdir_forget(Relation router, Oid relid, uint32 segno)
{
	ForgetArgs	forget = {relid, segno};

	segdir_modify(router, edit_forget, &forget);
}

static bool
edit_unordered(TopicLogMetaData *meta, void *arg)
{
	ForgetArgs *seg = (ForgetArgs *) arg;
	int			i;

	for (i = 0; i < meta->nsegments; i++)
		if (meta->segments[i].relid == seg->relid &&
			meta->segments[i].segno == seg->segno &&
			!(meta->segments[i].flags & TOPIC_SEGENTRY_UNORDERED))
		{
			meta->segments[i].flags |= TOPIC_SEGENTRY_UNORDERED;
			return true;
		}
	return false;
}

/*
 * Flag segment relid/segno of router as holding batches out of offset
 * order, before the transaction that wrote them commits, so that every
 * reader learns it from the directory it reads anyway.  Not
 * transactional: a flag left by a rolled-back batch only makes readers
 * more careful.
 */
void
topic_segdir_mark_unordered(Relation router, Oid relid, uint32 segno)
{
	ForgetArgs	seg = {relid, segno};

	segdir_modify(router, edit_unordered, &seg);
}

/*
 * Does a reader at position meet a segment holding batches out of offset
 * order?
 */
bool
topic_segdir_unordered_from(const TopicSegmentDir *dir, int64 position)
{
	int			i;

	for (i = 0; i < dir->nentries; i++)
		if (!topic_segdir_reader_skips(dir, i, position) &&
			(dir->entries[i].flags & TOPIC_SEGENTRY_UNORDERED))
			return true;
	return false;
}

/* Drop a segment relation; the caller holds AccessExclusiveLock on it */
static void
drop_segment_relation(Oid relid)
{
	ObjectAddress seg;

	/* a member of the extension otherwise could not be dropped alone */
	deleteDependencyRecordsForClass(RelationRelationId, relid,
									ExtensionRelationId, DEPENDENCY_EXTENSION);
	CommandCounterIncrement();
	ObjectAddressSet(seg, RelationRelationId, relid);
	performDeletion(&seg, DROP_RESTRICT,
					PERFORM_DELETION_INTERNAL | PERFORM_DELETION_QUIETLY);
}

/*
 * Drop router's RETIRED segments that nobody is reading (or all of them,
 * waiting for readers, with wait), in the current transaction, and forget
 * entries whose relation is gone.  Returns the number dropped.
 */
int
topic_segments_drop_retired(Relation router, bool wait)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	int			dropped = 0;
	int			i;

	for (i = 0; i < dir->nentries; i++)
	{
		TopicSegmentEntry *e = &dir->entries[i];
		Relation	seg;

		if (e->state != TOPIC_SEGMENT_RETIRED)
			continue;
		if (!wait && !ConditionalLockRelationOid(e->relid, AccessExclusiveLock))
			continue;
		seg = topic_segment_open(dir->router, e, wait ? AccessExclusiveLock : NoLock);
		if (seg == NULL)
		{
			ForgetArgs	forget = {e->relid, e->segno};

			if (!wait)
				UnlockRelationOid(e->relid, AccessExclusiveLock);
			segdir_modify(router, edit_forget, &forget);
			continue;
		}
		relation_close(seg, NoLock);
		drop_segment_relation(e->relid);
		dropped++;
	}
	pfree(dir);
	return dropped;
}

/*
 * Forget the entries of segments dropped by earlier transactions: called
 * once those committed (the worker, at its next round).
 */
void
topic_segments_forget_gone(Relation router)
{
	TopicSegmentDir *dir = topic_segdir_read(router);
	int			i;

	for (i = 0; i < dir->nentries; i++)
	{
		TopicSegmentEntry *e = &dir->entries[i];
		Relation	seg;

		if (e->state != TOPIC_SEGMENT_RETIRED && e->state != TOPIC_SEGMENT_SPARE)
			continue;
		seg = topic_segment_open(dir->router, e, AccessShareLock);
		if (seg != NULL)
		{
			relation_close(seg, AccessShareLock);
			continue;
		}
		{
			ForgetArgs	forget = {e->relid, e->segno};

			segdir_modify(router, edit_forget, &forget);
		}
	}
	pfree(dir);
}

/*
 * Drop the segments of router, at most max of them, in the current
 * transaction: the router is being dropped or truncated, so those left are
 * orphans for the worker.  Returns how many were dropped.
 */
int
topic_segments_drop_all(Oid router, TopicSegmentDir *dir, int max)
{
	int			dropped = 0;
	int			i;

	for (i = 0; i < dir->nentries && dropped < max; i++)
	{
		Relation	seg = topic_segment_open(router, &dir->entries[i],
											 AccessExclusiveLock);

		if (seg == NULL)
			continue;
		relation_close(seg, NoLock);
		drop_segment_relation(dir->entries[i].relid);
		dropped++;
	}
	return dropped;
}

/*
 * Is segment relid (named seg_<router>_<segno>) listed by its router's
 * directory?  Looked up without a lock on the segment; the router is only
 * share-locked, conditionally: "unknown" (-1) when it is busy.
 */
static int
segment_listed(Oid relid)
{
	char	   *name = get_rel_name(relid);
	Oid			owner;
	uint32		segno;
	Relation	router;
	TopicSegmentDir *dir;
	int			listed = 0;

	if (name == NULL || sscanf(name, "seg_%u_%u", &owner, &segno) != 2)
		return -1;				/* not one of ours: leave it alone */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(owner)))
		return 0;
	if (!ConditionalLockRelationOid(owner, AccessShareLock))
		return -1;
	router = try_relation_open(owner, NoLock);
	if (router == NULL)
		return 0;
	/* the owner's OID now names something else: the segment is an orphan */
	if (!topic_is_log_relation(owner) || !topic_log_is_router(router))
	{
		relation_close(router, AccessShareLock);
		return 0;
	}
	/* a damaged directory: leave its segments for the operator */
	if ((dir = topic_segdir_read_tolerant(router)) == NULL)
	{
		relation_close(router, AccessShareLock);
		return -1;
	}
	for (int i = 0; i < dir->nentries; i++)
		if (dir->entries[i].relid == relid && dir->entries[i].segno == segno)
			listed = 1;
	pfree(dir);
	relation_close(router, AccessShareLock);
	return listed;
}

/*
 * Drop segment relid if no partition's directory names it: its owner is
 * gone, or it was created but never added (a crash).  The worker calls
 * this for the segments it finds; only a real candidate is locked, and
 * looked at again under the lock.
 */
bool
topic_segment_drop_if_orphan(Oid relid)
{
	if (segment_listed(relid) != 0)
		return false;
	if (!ConditionalLockRelationOid(relid, AccessExclusiveLock))
		return false;
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)) ||
		segment_listed(relid) != 0)
	{
		UnlockRelationOid(relid, AccessExclusiveLock);
		return false;
	}
	drop_segment_relation(relid);
	return true;
}

/*
 * Record where router's log starts now in topics.log_starts, which pg_dump
 * carries: a restored partition whose first records are gone starts there
 * again (topic_restore_log_start).  Called when the start moved.
 */
void
topic_log_start_record(Relation router)
{
	TopicLogEnd end;
	Oid			argtypes[2] = {REGCLASSOID, INT8OID};
	Datum		args[2];

	topic_log_end(router, &end);
	args[0] = ObjectIdGetDatum(RelationGetRelid(router));
	args[1] = Int64GetDatum(end.log_start_offset);

	if (topic_internal_sql_exec("INSERT INTO topics.log_starts AS s VALUES ($1, $2) "
								"ON CONFLICT (\"partition\") DO UPDATE "
								"SET log_start = excluded.log_start "
								"WHERE s.log_start < excluded.log_start",
								2, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record the log start of \"%s\"",
			 RelationGetRelationName(router));
}

/*
 * Log start, high watermark, newest timestamp and resolved mark of a log:
 * of a segment, or of a partition's whole log for a router (its log start,
 * and the end of its LIVE segment).
 */
void
topic_log_end(Relation rel, TopicLogEnd *end)
{
	TopicSegmentDir *dir;
	TopicSegmentEntry *live;
	Relation	seg;

	topic_storage_log_end(rel, end);
	if (!topic_log_is_router(rel))
		return;

	dir = topic_segdir_read(rel);
	live = topic_segdir_live(dir);
	if (live != NULL &&
		(seg = topic_segment_open(dir->router, live, AccessShareLock)) != NULL)
	{
		TopicLogEnd segend;

		topic_storage_log_end(seg, &segend);
		relation_close(seg, AccessShareLock);
		end->next_offset = Max(end->next_offset,
							   Max(segend.next_offset, live->base_offset));
		end->max_timestamp = Max(end->max_timestamp,
								 Max(segend.max_timestamp, live->base_timestamp));
	}
	pfree(dir);
}
