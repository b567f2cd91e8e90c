/*-------------------------------------------------------------------------
 *
 * segment.h
 *	  Segments of a partition's log and the directory of them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SEGMENT_H
#define TOPIC_SEGMENT_H

#include "storage/lockdefs.h"
#include "utils/rel.h"

#include "pg_topics/log/storage.h"
#include "pg_topics/log/topic_log.h"

/* A copy of a router's directory, as readers and writers use it */
typedef struct TopicSegmentDir
{
	Oid			router;
	int64		log_start;
	TimestampTz max_timestamp;	/* the metapage's: where timestamps start */
	uint32		next_segno;
	uint32		segment_blocks;
	int64		segment_roll_usecs;
	int			nentries;
	TopicSegmentEntry entries[FLEXIBLE_ARRAY_MEMBER];
} TopicSegmentDir;

/* Does the entry hold records readers may read? */
static inline bool
topic_segment_readable(const TopicSegmentEntry *e)
{
	return e->state == TOPIC_SEGMENT_LIVE || e->state == TOPIC_SEGMENT_SEALED;
}

/* Schema of the segment relations, owned by the bootstrap superuser */
#define TOPIC_SEGMENT_SCHEMA	"topics_segments"

extern bool topic_log_is_router(Relation rel);

extern uint32 topic_segment_kind_for_new_relation(Oid *owner, uint32 *segno);
extern Oid	topic_segment_namespace(void);

extern TopicSegmentDir *topic_segdir_read(Relation router);
extern TopicSegmentDir *topic_segdir_read_tolerant(Relation router);
extern TopicSegmentEntry *topic_segdir_live(TopicSegmentDir *dir);
extern TopicSegmentEntry *topic_segdir_by_tid_segno(TopicSegmentDir *dir,
													uint32 tid_segno);
extern Relation topic_segment_open(Oid router, const TopicSegmentEntry *entry,
								   LOCKMODE lockmode);

/*
 * One segment of topic_segdir_foreach, open: entry i of the directory.
 * True stops the walk.
 */
typedef bool (*TopicSegmentVisitor) (void *arg, Relation seg,
									 const TopicSegmentEntry *entry, int i);

#define TOPIC_SEGDIR_BACKWARD	0x01	/* the newest segment first */

extern bool topic_segdir_foreach(const TopicSegmentDir *dir, int64 from,
								 int flags, LOCKMODE lockmode,
								 TopicSegmentVisitor visit, void *arg);
extern bool topic_segdir_reader_skips(const TopicSegmentDir *dir, int i,
									  int64 position);
extern bool topic_segdir_unordered_from(const TopicSegmentDir *dir,
										int64 position);
extern void topic_segdir_mark_unordered(Relation router, Oid relid,
										uint32 segno);

extern bool topic_segdir_log_is_empty(Relation router,
									  const TopicSegmentEntry *entry);
extern void topic_segdir_set_policy(Relation router, uint32 segment_blocks,
									int64 segment_roll_usecs);
extern void topic_segment_create_first(Relation router, uint32 first_segno);
extern Oid	topic_segment_create_spare(Relation router, uint32 *segno);
extern void topic_segment_add_spare(Relation router, Oid relid, uint32 segno);
extern bool topic_segment_roll(Relation router, Relation seg);
typedef enum TopicRollResult
{
	TOPIC_ROLL_NOT_DUE,
	TOPIC_ROLL_ROLLED,
	TOPIC_ROLL_NO_SPARE			/* due, but there is no spare to roll to */
} TopicRollResult;

extern TopicRollResult topic_segment_roll_if_due(Relation router);
extern BlockNumber topic_segment_disk_blocks(Relation seg, bool maps);
extern BlockNumber topic_segment_used_blocks(Relation seg, bool maps);
extern BlockNumber topic_segdir_roll_blocks(const TopicSegmentDir *dir);
extern void topic_segdir_mark_due(Relation router, Oid relid, uint32 segno);
extern bool topic_segment_wait_for_spare(Relation router, long timeout_ms);
extern int	topic_segdir_advance_start(Relation router, int64 start, int64 hw);
extern void topic_segdir_restart_empty(Relation router, int64 start);
extern int	topic_segments_drop_retired(Relation router, bool wait);
extern void topic_segments_forget_gone(Relation router);
extern int	topic_segments_drop_all(Oid router, TopicSegmentDir *dir, int max);
extern bool topic_segment_drop_if_orphan(Oid relid);
extern void topic_log_start_record(Relation router);
extern void topic_log_end(Relation rel, TopicLogEnd *end);

#endif							/* TOPIC_SEGMENT_H */
