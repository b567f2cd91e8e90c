/*-------------------------------------------------------------------------
 *
 * offsets.c
 *	  OffsetCommit (v2-7) and OffsetFetch (v1-5): a Kafka group's committed
 *	  positions, which are its pg_topics groups' positions.
 *
 * Kafka group G reading topic T is pg_topics group G of T: one set of
 * positions, whoever commits (topics.commit, poll, a Kafka consumer), kept
 * as records of topics.consumer_offsets.  A Kafka commit is the same as
 * topics.commit (topic_groups_set_position), in the request's
 * transaction, each partition in a subtransaction of its own; its
 * metadata string is kept in the position's record and read back from it
 * by OffsetFetch.  Unlike topics.commit, and as Kafka does, it stores any
 * offset: one outside the log (a consumer lagging behind retention, a
 * tool moving a group ahead) is kept, and the group's consumers, Kafka's
 * and poll alike, reset from it as from a position retention passed; a
 * negative one (-1) clears the partition's position, which Kafka answers
 * back as none.  The first commit of a group makes the committing role
 * the group's owner; later ones need its privileges
 * (GROUP_AUTHORIZATION_FAILED), and the topic's SELECT
 * (TOPIC_AUTHORIZATION_FAILED).  A member's commit must carry the current
 * generation; a consumer outside any group (generation -1) may commit
 * while the group has no Kafka members.  A node that refuses writes
 * (fence.c) answers commits NOT_COORDINATOR: the consumer looks for the
 * coordinator again and commits there.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_topics/api/groups.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"

/* One partition's commit, run guarded */
typedef struct PartitionCommit
{
	Relation	topic;
	const char *group;
	int32		partition;
	int64		offset;
	const char *metadata;
} PartitionCommit;

static void
commit_partition(void *arg)
{
	PartitionCommit *pc = (PartitionCommit *) arg;

	topic_groups_set_position(pc->topic, pc->group, pc->partition, pc->offset,
							  pc->metadata ? pc->metadata : "", true);
}

/* The error of a commit that failed: an authorization error is the group's */
static int16
commit_error(int16 error, Relation topic, const char *group)
{
	Oid			owner;

	if (error != KAFKA_TOPIC_AUTHORIZATION_FAILED)
		return error;
	/* the topic's SELECT was checked when it was opened: the group's owner */
	if (topic_group_exists(RelationGetRelid(topic), group, &owner) &&
		!topic_role_controls_group(GetUserId(), topic->rd_rel->relowner, owner))
		return KAFKA_GROUP_AUTHORIZATION_FAILED;
	return error;
}

/* OffsetCommit v2-7 */
KafkaOutcome
kafka_offset_commit(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaOffsetCommitRequest cr;
	char	   *group;
	char	   *member_id;
	int16		group_error = KAFKA_NONE;

	if (!kafka_parse_offset_commit_request(&req->body, req->api_version, &cr))
		return KAFKA_CLOSE;
	group = cr.group_id.len > 0 && cr.group_id.len < KAFKA_GROUP_NAME_LEN &&
		memchr(cr.group_id.data, '\0', cr.group_id.len) == NULL ?
		kafka_bytes_cstring(cr.group_id) : NULL;
	member_id = cr.member_id.len > 0 ?
		pnstrdup(cr.member_id.data, cr.member_id.len) : "";
	if (group == NULL)
		group_error = KAFKA_INVALID_GROUP_ID;
	else if (kafka_writes_refused())
		group_error = KAFKA_NOT_COORDINATOR;
	else if (member_id[0] != '\0')
		group_error = kafka_group_member_rights(group, member_id, GetUserId());
	if (group != NULL && group_error == KAFKA_NONE)
		group_error = kafka_group_check_member(group, member_id,
											   cr.generation_id, GetUserId());

	if (req->api_version >= 3)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, cr.ntopics);
	for (int32 t = 0; t < cr.ntopics; t++)
	{
		KafkaTopicRequest *tr = &cr.topics[t];
		int16		topic_error = group_error;
		Relation	topic = NULL;

		if (topic_error == KAFKA_NONE)
			topic = kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT,
									 &topic_error);
		kafka_write_string_len(out, tr->name.data, Max(tr->name.len, 0));
		kafka_write_array_len(out, tr->npartitions);
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			KafkaPartitionRequest *part = &tr->partitions[p];
			PartitionCommit pc;
			int16		error = topic_error;

			CHECK_FOR_INTERRUPTS();
			pc.partition = part->partition;
			pc.offset = part->offset;
			if (topic != NULL)
			{
				pc.topic = topic;
				pc.group = group;
				pc.metadata = kafka_bytes_cstring(part->data);
				error = commit_error(kafka_run_guarded(commit_partition, &pc, NULL),
									 topic, group);
				/* 22023: the partition does not exist */
				if (error == KAFKA_INVALID_RECORD)
					error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
			}
			kafka_write_int32(out, pc.partition);
			kafka_write_int16(out, error);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	return KAFKA_ANSWER;
}

/* Write one partition's committed position (-1 and no error if none) */
static void
write_position(KafkaRequest *req, Relation topic, const char *group,
			   int32 partition, int16 error)
{
	StringInfo	out = req->response;
	int64		offset = -1;
	char	   *metadata = NULL;

	if (error == KAFKA_NONE &&
		(partition < 0 || partition >= topic_partition_count(topic)))
		error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
	if (error == KAFKA_NONE &&
		!topic_groups_committed_position(topic, group, partition, &offset,
										 &metadata))
		offset = -1;
	kafka_write_int32(out, partition);
	kafka_write_int64(out, error == KAFKA_NONE ? offset : -1);
	if (req->api_version >= 5)
		kafka_write_int32(out, -1);	/* committed_leader_epoch */
	kafka_write_string(out, metadata ? metadata : "");
	kafka_write_int16(out, error);
}

/* The error, if any, for reading group's positions of topic */
static int16
fetch_error(Relation topic, const char *group)
{
	Oid			owner;

	if (topic_group_exists(RelationGetRelid(topic), group, &owner) &&
		!topic_role_controls_group(GetUserId(), topic->rd_rel->relowner, owner))
		return KAFKA_GROUP_AUTHORIZATION_FAILED;
	return KAFKA_NONE;
}

/* Every position group has in the schema's topics (OffsetFetch of all) */
static void
write_all_positions(KafkaRequest *req, const char *group)
{
	StringInfo	out = req->response;
	List	   *topics = topic_list_topics();
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	int			count_at = out->len;
	int32		n = 0;
	ListCell   *lc;

	kafka_write_array_len(out, 0);
	foreach(lc, topics)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	topic;
		int32		nparts;
		int			parts_at;
		int32		written = 0;

		char	   *name;

		if (get_rel_namespace(relid) != nspid ||
			!kafka_topic_allowed(relid, ACL_SELECT) ||
			(name = topic_kafka_name(relid)) == NULL)
			continue;
		topic = topic_try_open(relid, AccessShareLock, TOPIC_NO_ACL_CHECK);
		if (topic == NULL)
			continue;
		if (!topic_group_exists(relid, group, NULL) ||
			fetch_error(topic, group) != KAFKA_NONE)
		{
			relation_close(topic, AccessShareLock);
			continue;
		}
		kafka_write_string(out, name);
		parts_at = out->len;
		kafka_write_array_len(out, 0);
		nparts = topic_partition_count(topic);
		for (int32 p = 0; p < nparts; p++)
		{
			int64		offset;

			if (!topic_group_committed(relid, group, p, &offset))
				continue;
			write_position(req, topic, group, p, KAFKA_NONE);
			written++;
		}
		kafka_patch_int32(out, parts_at, written);
		relation_close(topic, AccessShareLock);
		n++;
	}
	kafka_patch_int32(out, count_at, n);
}

/* OffsetFetch v1-5 */
KafkaOutcome
kafka_offset_fetch(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaOffsetFetchRequest fr;
	char	   *group;

	if (!kafka_parse_offset_fetch_request(&req->body, req->api_version, &fr))
		return KAFKA_CLOSE;
	group = fr.group_id.len > 0 && fr.group_id.len < KAFKA_GROUP_NAME_LEN &&
		memchr(fr.group_id.data, '\0', fr.group_id.len) == NULL ?
		kafka_bytes_cstring(fr.group_id) : NULL;

	if (req->api_version >= 3)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	topic_groups_ensure_loaded();
	if (fr.all_topics && group != NULL)
		write_all_positions(req, group);
	else
	{
		kafka_write_array_len(out, fr.ntopics);
		for (int32 t = 0; t < fr.ntopics; t++)
		{
			KafkaTopicRequest *tr = &fr.topics[t];
			int16		error = group == NULL ? KAFKA_INVALID_GROUP_ID : KAFKA_NONE;
			Relation	topic = NULL;

			if (error == KAFKA_NONE)
				topic = kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT, &error);
			if (topic != NULL)
				error = fetch_error(topic, group);
			kafka_write_string_len(out, tr->name.data, Max(tr->name.len, 0));
			kafka_write_array_len(out, tr->npartitions);
			for (int32 p = 0; p < tr->npartitions; p++)
			{
				int32		partition = tr->partitions[p].partition;

				CHECK_FOR_INTERRUPTS();
				if (topic != NULL)
					write_position(req, topic, group, partition, error);
				else
				{
					kafka_write_int32(out, partition);
					kafka_write_int64(out, -1);
					if (req->api_version >= 5)
						kafka_write_int32(out, -1);
					kafka_write_string(out, "");
					kafka_write_int16(out, error);
				}
			}
			if (topic != NULL)
				relation_close(topic, NoLock);
		}
	}
	if (req->api_version >= 2)
		kafka_write_int16(out, group == NULL ? KAFKA_INVALID_GROUP_ID : KAFKA_NONE);
	return KAFKA_ANSWER;
}
