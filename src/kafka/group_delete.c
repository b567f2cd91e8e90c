/*-------------------------------------------------------------------------
 *
 * group_delete.c
 *	  DeleteGroups (v0-2) and OffsetDelete (v0): a Kafka group's positions
 *	  removed, as topics.delete_group removes a pg_topics group's.
 *
 * Kafka group G is pg_topics group G of each topic of the Kafka schema it
 * has positions in (offsets.c).  DeleteGroups follows topics.delete_group
 * for each of them: only a group without members may go (NON_EMPTY_GROUP
 * while a Kafka consumer or a poll holds it; members whose role lost its
 * rights leave first, as in SQL, and Kafka members whose session timeout
 * has passed are gone even if the group tick has not yet seen them), and
 * the caller needs what SQL asks for, SELECT on the topic and control of
 * the group (its creator's or the topic owner's privileges), for every
 * topic the group reads, else GROUP_AUTHORIZATION_FAILED and nothing is
 * removed.  A group with no positions in a topic the caller may read, and
 * no Kafka members, is GROUP_ID_NOT_FOUND.  Each group goes in a
 * subtransaction of its own: all its positions, or none.
 *
 * OffsetDelete removes a group's positions of some partitions, which
 * then have none (OffsetFetch answers -1 for them), but not of a topic a live member of the
 * group subscribes to, or that a member polls with SQL
 * (GROUP_SUBSCRIBED_TO_TOPIC, as Kafka refuses it for a topic a member's
 * subscription names).
 *
 * Neither waits for a partition's lock (the listener serves other
 * connections meanwhile): a partition a SQL session is processing, or
 * whose position an open Kafka transaction committed (TxnOffsetCommit),
 * is answered REQUEST_TIMED_OUT at once, which clients retry; DeleteGroups
 * then removes nothing of the group.
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
#include "pg_topics/wire/msg_delete_groups.h"
#include "pg_topics/wire/msg_offset_delete.h"
#include "pg_topics/wire/protocol.h"

/* A group id as a C string, or NULL if it cannot be a group's name */
static char *
delete_group_name(KafkaBytes id)
{
	if (id.len <= 0 || id.len >= KAFKA_GROUP_NAME_LEN ||
		memchr(id.data, '\0', id.len) != NULL)
		return NULL;
	return kafka_bytes_cstring(id);
}

/* One group's deletion, run guarded */
typedef struct GroupDeletion
{
	const char *group;
	int16		error;			/* what refused it, before any write */
} GroupDeletion;

/*
 * Delete the group's positions in every topic of the Kafka schema, or set
 * gd->error and write nothing.  Raises only what is not the client's
 * doing (a full disk); the subtransaction then rolls everything back.
 */
static void
delete_group(void *arg)
{
	GroupDeletion *gd = (GroupDeletion *) arg;
	List	   *relids = topic_list_topics();
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	List	   *topics = NIL;
	KafkaGroupReply *reply = palloc0(sizeof(KafkaGroupReply));
	bool		kafka_known;
	Oid			kafka_owner;
	ListCell   *lc;

	kafka_group_expire(gd->group);
	kafka_known = kafka_group_describe(gd->group, reply);
	kafka_owner = kafka_group_owner(gd->group);

	if (kafka_known && OidIsValid(kafka_owner) &&
		!has_privs_of_role(GetUserId(), kafka_owner))
	{
		gd->error = KAFKA_GROUP_AUTHORIZATION_FAILED;
		return;
	}
	if (kafka_known && reply->nmembers > 0)
	{
		gd->error = KAFKA_NON_EMPTY_GROUP;
		return;
	}

	/* every topic the group has positions in: all must be ours to clear */
	topic_groups_ensure_loaded();
	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		Oid			owner;
		Relation	topic;

		if (get_rel_namespace(relid) != nspid ||
			!topic_group_exists(relid, gd->group, &owner))
			continue;
		topic = topic_try_open(relid, AccessShareLock, TOPIC_NO_ACL_CHECK);
		if (topic == NULL)
			continue;
		if (!kafka_topic_allowed(relid, ACL_SELECT) ||
			!topic_role_controls_group(GetUserId(), topic->rd_rel->relowner,
									   owner))
		{
			relation_close(topic, AccessShareLock);
			gd->error = KAFKA_GROUP_AUTHORIZATION_FAILED;
			break;
		}
		topic_groups_evict_unauthorized(topic, gd->group, owner);
		if (topic_group_has_members(relid, gd->group))
		{
			relation_close(topic, AccessShareLock);
			gd->error = KAFKA_NON_EMPTY_GROUP;
			break;
		}
		topics = lappend(topics, topic);
	}
	if (topics == NIL && !kafka_known && gd->error == KAFKA_NONE)
		gd->error = KAFKA_GROUP_ID_NOT_FOUND;
	if (gd->error != KAFKA_NONE)
	{
		foreach(lc, topics)
			relation_close(lfirst(lc), AccessShareLock);
		return;
	}

	topic_groups_check_writable();
	foreach(lc, topics)
	{
		Relation	topic = lfirst(lc);
		int32		nparts = topic_partition_count(topic);

		for (int32 p = 0; p < nparts; p++)
		{
			CHECK_FOR_INTERRUPTS();
			topic_groups_take_partition(topic, gd->group, p, false);
			topic_groups_delete_group_position(topic, gd->group, p);
		}
		relation_close(topic, NoLock);
	}
}

/* DeleteGroups v0-2 */
KafkaOutcome
kafka_delete_groups(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDeleteGroupsRequest dr;
	KafkaDeleteGroupsResponse out = {0};

	if (!kafka_decode(&req->body, &kafka_delete_groups_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;
	out.nresults = dr.ngroups_names;
	out.results = palloc0(sizeof(KafkaDeletableGroupResult) *
						  Max(dr.ngroups_names, 1));
	for (int32 i = 0; i < dr.ngroups_names; i++)
	{
		KafkaDeletableGroupResult *res = &out.results[i];
		GroupDeletion gd;
		int16		error;

		CHECK_FOR_INTERRUPTS();
		res->group_id = dr.groups_names[i];
		if (res->group_id.len < 0)
			res->group_id = kafka_bytes_of("");
		gd.group = delete_group_name(dr.groups_names[i]);
		gd.error = KAFKA_NONE;
		if (gd.group == NULL)
			error = KAFKA_INVALID_GROUP_ID;
		else if (kafka_writes_refused())
			error = KAFKA_NOT_COORDINATOR;
		else
		{
			error = kafka_run_guarded(delete_group, &gd, NULL);
			if (error == KAFKA_NONE)
				error = gd.error;
		}
		res->error_code = error;
	}
	kafka_encode(req->response, &kafka_delete_groups_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}

/* One partition's position cleared, run guarded */
typedef struct PositionDeletion
{
	Relation	topic;
	const char *group;
	int32		partition;
} PositionDeletion;

static void
delete_position(void *arg)
{
	PositionDeletion *pd = (PositionDeletion *) arg;

	topic_groups_delete_offset(pd->topic, pd->group, pd->partition, false);
}

/*
 * The error of every partition of topic for OffsetDelete, before any is
 * cleared: the caller's rights, and whether the group reads the topic
 */
static int16
offset_delete_topic_error(Relation topic, const char *group)
{
	Oid			relid = RelationGetRelid(topic);
	Oid			owner;
	Oid			unlisted_owner;

	if (topic_group_exists(relid, group, &owner) &&
		!topic_role_controls_group(GetUserId(), topic->rd_rel->relowner, owner))
		return KAFKA_GROUP_AUTHORIZATION_FAILED;
	if (kafka_group_reads_topic(group, relid, &unlisted_owner) ||
		topic_group_has_members(relid, group))
		return KAFKA_GROUP_SUBSCRIBED_TO_TOPIC;
	return KAFKA_NONE;
}

/* Does group exist: Kafka members, or positions in a topic of the schema? */
static bool
group_exists(const char *group, const KafkaOffsetDeleteRequest *dr)
{
	KafkaGroupReply *reply = palloc0(sizeof(KafkaGroupReply));

	if (kafka_group_describe(group, reply))
		return true;
	for (int32 t = 0; t < dr->ntopics; t++)
	{
		Oid			relid;

		if (!kafka_topic_name_valid(dr->topics[t].name))
			continue;
		relid = topic_kafka_lookup(dr->topics[t].name.data,
								   dr->topics[t].name.len);
		if (OidIsValid(relid) && topic_group_exists(relid, group, NULL))
			return true;
	}
	return false;
}

/* OffsetDelete v0 */
KafkaOutcome
kafka_offset_delete(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaOffsetDeleteRequest dr;
	KafkaOffsetDeleteResponse out = {0};
	char	   *group;

	if (!kafka_decode(&req->body, &kafka_offset_delete_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;
	group = delete_group_name(dr.group_id);
	topic_groups_ensure_loaded();
	if (group == NULL)
		out.error_code = KAFKA_INVALID_GROUP_ID;
	else if (kafka_writes_refused())
		out.error_code = KAFKA_NOT_COORDINATOR;
	else if (!group_exists(group, &dr))
		out.error_code = KAFKA_GROUP_ID_NOT_FOUND;
	else if (OidIsValid(kafka_group_owner(group)) &&
			 !has_privs_of_role(GetUserId(), kafka_group_owner(group)))
		out.error_code = KAFKA_GROUP_AUTHORIZATION_FAILED;
	if (out.error_code != KAFKA_NONE)
	{
		kafka_encode(req->response, &kafka_offset_delete_response,
					 req->api_version, &out);
		return KAFKA_ANSWER;
	}

	out.ntopics = dr.ntopics;
	out.topics = palloc0(sizeof(KafkaOffsetDeleteResponseTopic) *
						 Max(dr.ntopics, 1));
	for (int32 t = 0; t < dr.ntopics; t++)
	{
		KafkaOffsetDeleteRequestTopic *tr = &dr.topics[t];
		KafkaOffsetDeleteResponseTopic *to = &out.topics[t];
		int16		topic_error = KAFKA_NONE;
		Relation	topic;

		topic = kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT,
								 &topic_error);
		if (topic != NULL)
			topic_error = offset_delete_topic_error(topic, group);
		to->name = tr->name;
		to->npartitions = tr->npartitions;
		to->partitions = palloc0(sizeof(KafkaOffsetDeleteResponsePartition) *
								 Max(tr->npartitions, 1));
		for (int32 p = 0; p < tr->npartitions; p++)
		{
			int32		partition = tr->partitions[p].partition_index;
			int16		error = topic_error;

			CHECK_FOR_INTERRUPTS();
			if (error == KAFKA_NONE &&
				(partition < 0 || partition >= topic_partition_count(topic)))
				error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
			if (error == KAFKA_NONE)
			{
				PositionDeletion pd = {topic, group, partition};

				error = kafka_run_guarded(delete_position, &pd, NULL);
				if (error == KAFKA_TOPIC_AUTHORIZATION_FAILED)
					error = KAFKA_GROUP_AUTHORIZATION_FAILED;
			}
			to->partitions[p].partition_index = partition;
			to->partitions[p].error_code = error;
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	kafka_encode(req->response, &kafka_offset_delete_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}
