/*-------------------------------------------------------------------------
 *
 * groups.h
 *	  poll, shared by the function and the TopicPoll scan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_GROUPS_H
#define TOPIC_GROUPS_H

#include "fmgr.h"
#include "utils/rel.h"

#include "pg_topics/api/fetch.h"

/* poll's arguments, checked */
typedef struct TopicPollArgs
{
	char	   *group;
	char	   *member;			/* the consumer, or the session's own name */
	bool		durable;		/* a named consumer, kept across sessions */
	int32		max_records;
	int64		wait_us;
} TopicPollArgs;

extern Relation topic_poll_begin(Oid rowtype, Datum *values, bool *nulls,
								 TopicPollArgs *args);
extern void topic_poll_read(Relation topic, const TopicPollArgs *args,
							const StableRead *sink);
extern Datum topic_poll(PG_FUNCTION_ARGS);

extern void topic_groups_init(void);
extern void topic_groups_topic_renamed(Oid topicid);
extern void topic_groups_topic_appeared(void);

#endif							/* TOPIC_GROUPS_H */
