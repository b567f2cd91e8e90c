/*-------------------------------------------------------------------------
 *
 * offsets.c
 *	  OffsetCommit (v0-9) and OffsetFetch (v0-9): a Kafka group's committed
 *	  positions, which are its pg_topics groups' positions.
 *
 * Kafka group G reading topic T is pg_topics group G of T: one set of
 * positions, whoever commits (topics.commit, poll, a Kafka consumer), kept
 * as records of topics.consumer_offsets.  A Kafka commit is the same as
 * topics.commit (topic_groups_set_position), in the request's
 * transaction, each partition in a subtransaction of its own; its
 * metadata is kept in the position's record and read back from it by
 * OffsetFetch, byte for byte.  Unlike topics.commit, and as Kafka does, it stores any
 * offset: one outside the log (a consumer lagging behind retention, a
 * tool moving a group ahead, kafkajs's resetOffsets committing -2) is
 * kept with its metadata and answered back by OffsetFetch, and the
 * group's consumers, Kafka's and poll alike, reset from it as from a
 * position retention passed (a Kafka client takes a negative committed
 * offset for none).  The first commit of a group makes the committing role
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
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_topics/api/groups.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/transactions.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/wire/msg_offset_commit.h"
#include "pg_topics/wire/msg_offset_fetch.h"
#include "pg_topics/wire/protocol.h"

/* One partition's commit, run guarded */
typedef struct PartitionCommit
{
	Relation	topic;
	const char *group;
	int32		partition;
	int64		offset;
	bytea	   *metadata;
	bool		wait;			/* for the partition's lock */
} PartitionCommit;

static void
commit_partition(void *arg)
{
	PartitionCommit *pc = (PartitionCommit *) arg;

	topic_groups_set_position(pc->topic, pc->group, pc->partition, pc->offset,
							  pc->metadata, true, pc->wait);
}

/*
 * A partition's OffsetCommit metadata as the bytes to keep: any bytes, a
 * NUL or invalid UTF-8 included, which OffsetFetch answers back as they
 * came (Kafka's Java broker decodes the string as UTF-8, keeping NULs and
 * replacing malformed sequences with U+FFFD).  A null one is kept as "",
 * as Kafka keeps it.
 */
static bytea *
commit_metadata(KafkaBytes b)
{
	int			len = Max(b.len, 0);
	bytea	   *result = palloc(VARHDRSZ + len);

	if (len > 0)
		memcpy(VARDATA(result), b.data, len);
	SET_VARSIZE(result, VARHDRSZ + len);
	return result;
}

/*
 * Kafka's default offset.metadata.max.bytes: a commit's metadata may be
 * this long (OFFSET_METADATA_TOO_LARGE otherwise).  It also keeps every
 * metadata within what a string with an int16 length (OffsetFetch before
 * v6, __consumer_offsets' records) can carry.
 */
#define KAFKA_OFFSET_METADATA_MAX	4096

/*
 * The length Kafka measures metadata by: its Java String's, in UTF-16
 * units.  A character outside the BMP is two; each byte of malformed
 * UTF-8 counts one (the broker's decoder makes a U+FFFD of each malformed
 * sequence, which may be longer: never more units than here).  At most 3
 * bytes a unit, so KAFKA_OFFSET_METADATA_MAX units are at most 12288
 * bytes.
 */
static int
metadata_length(KafkaBytes b)
{
	const unsigned char *s = (const unsigned char *) b.data;
	int			n = 0;

	for (int i = 0; i < b.len;)
	{
		int			l = IS_HIGHBIT_SET(s[i]) ? pg_utf_mblen(&s[i]) : 1;

		if (l > 1 && i + l <= b.len && pg_utf8_islegal(&s[i], l))
		{
			n += l == 4 ? 2 : 1;
			i += l;
		}
		else
		{
			n++;
			i++;
		}
	}
	return n;
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

/* A group id as a C string, or NULL if it cannot be a group's name */
char *
kafka_offsets_group_name(KafkaBytes id)
{
	if (id.len <= 0 || id.len >= KAFKA_GROUP_NAME_LEN ||
		memchr(id.data, '\0', id.len) != NULL)
		return NULL;
	return kafka_bytes_cstring(id);
}

/*
 * Commit group's position of partition of topic (open, its SELECT
 * checked) in a subtransaction: Kafka's error code (REQUEST_TIMED_OUT if
 * the partition's lock is busy and not wait).  What it allocates goes in
 * partition_context, reset after.
 */
static int16
commit_one_position(Relation topic, const char *group, int32 partition,
					int64 offset, KafkaBytes metadata, bool wait,
					MemoryContext partition_context)
{
	PartitionCommit pc;
	MemoryContext oldcontext;
	int16		error;

	if (metadata_length(metadata) > KAFKA_OFFSET_METADATA_MAX)
		return KAFKA_OFFSET_METADATA_TOO_LARGE;
	oldcontext = MemoryContextSwitchTo(partition_context);
	pc.topic = topic;
	pc.group = group;
	pc.partition = partition;
	pc.offset = offset;
	pc.metadata = commit_metadata(metadata);
	pc.wait = wait;
	error = commit_error(kafka_run_guarded(commit_partition, &pc, NULL),
						 topic, group);
	/* 22023: the partition does not exist */
	if (error == KAFKA_INVALID_RECORD)
		error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
	MemoryContextSwitchTo(oldcontext);
	MemoryContextReset(partition_context);
	return error;
}

/*
 * The error, if any, that refuses every position of a commit to group
 * (NULL: not a group's name) by member_id (empty: none) of generation: a
 * node that takes no writes, a member whose role may no longer use the
 * group, a member or generation the coordinator does not know.
 * OffsetCommit and TxnOffsetCommit (v3+ names the member) share it.
 */
int16
kafka_commit_group_error(const char *group, KafkaBytes member_id,
						 KafkaBytes group_instance_id, int32 generation)
{
	char	   *member = member_id.len > 0 ?
		pnstrdup(member_id.data, member_id.len) : "";
	int16		error = KAFKA_NONE;

	if (group == NULL)
		return KAFKA_INVALID_GROUP_ID;
	if (kafka_writes_refused())
		return KAFKA_NOT_COORDINATOR;
	if (member[0] != '\0')
		error = kafka_group_member_rights(group, member, GetUserId());
	if (error == KAFKA_NONE)
		error = kafka_group_check_member(group, member,
										 group_instance_id.len > 0 ?
										 kafka_bytes_cstring(group_instance_id) : "",
										 generation, GetUserId());
	return error;
}

/*
 * Commit group's positions of the ntopics topics of request (an
 * OffsetCommit's or a TxnOffsetCommit's, read by reader), as OffsetCommit
 * commits them: the answer's topics, each partition with its error; every
 * one error if that is not KAFKA_NONE.  Each topic is opened (its SELECT
 * checked) here.  What a partition's commit allocates (its record's key
 * and value, as text and as jsonb) is freed after it: a request of many
 * partitions would otherwise grow the process by kilobytes a partition.
 * OffsetCommit, in the listener, does not wait for a partition's lock
 * (wait false: topic_groups_take_partition); a transaction's
 * TxnOffsetCommit, in the transaction's worker (txn_worker.c, so that the
 * positions are committed with the transaction), waits as
 * topics.commit does.
 */
KafkaOffsetCommitResponseTopic *
kafka_commit_positions(const char *group, int16 error, const void *request,
					   int32 ntopics, const KafkaCommitReader *reader,
					   bool wait)
{
	KafkaOffsetCommitResponseTopic *out;
	MemoryContext partition_context;

	out = palloc0(sizeof(KafkaOffsetCommitResponseTopic) * Max(ntopics, 1));
	partition_context = AllocSetContextCreate(CurrentMemoryContext,
											  "Kafka OffsetCommit partition",
											  ALLOCSET_DEFAULT_SIZES);
	for (int32 t = 0; t < ntopics; t++)
	{
		KafkaOffsetCommitResponseTopic *to = &out[t];
		int16		topic_error = error;
		Relation	topic = NULL;

		reader->topic(request, t, &to->name, &to->npartitions);
		to->partitions = palloc0(sizeof(KafkaOffsetCommitResponsePartition) *
								 Max(to->npartitions, 1));
		if (topic_error == KAFKA_NONE)
			topic = kafka_open_topic(to->name, AccessShareLock, ACL_SELECT,
									 &topic_error);
		for (int32 p = 0; p < to->npartitions; p++)
		{
			KafkaOffsetCommitResponsePartition *po = &to->partitions[p];
			int64		offset;
			KafkaBytes	metadata;

			CHECK_FOR_INTERRUPTS();
			reader->position(request, t, p, &po->partition_index, &offset,
							 &metadata);
			po->error_code = topic == NULL ? topic_error :
				commit_one_position(topic, group, po->partition_index, offset,
									metadata, wait, partition_context);
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	MemoryContextDelete(partition_context);
	return out;
}

/* OffsetCommit's topics (a KafkaCommitReader) */
static void
offset_commit_topic(const void *request, int32 t, KafkaBytes *name,
					int32 *npartitions)
{
	const KafkaOffsetCommitRequestTopic *topic =
		&((const KafkaOffsetCommitRequest *) request)->topics[t];

	*name = topic->name;
	*npartitions = topic->npartitions;
}

static void
offset_commit_position(const void *request, int32 t, int32 p,
					   int32 *partition, int64 *offset, KafkaBytes *metadata)
{
	const KafkaOffsetCommitRequestPartition *part =
		&((const KafkaOffsetCommitRequest *) request)->topics[t].partitions[p];

	*partition = part->partition_index;
	*offset = part->committed_offset;
	*metadata = part->committed_metadata;
}

static const KafkaCommitReader offset_commit_reader = {
	offset_commit_topic, offset_commit_position
};

/*
 * OffsetCommit v0-9.  v0 carries neither generation nor member: it is the
 * commit of a consumer outside any group (generation -1), which old Kafka
 * kept in ZooKeeper and Kafka 3.9 stores as any other; so is it here.
 * v1's commit timestamp and v2-4's retention time are not kept: a
 * position lasts as long as its group (topics.consumer_offsets).  The
 * listener does not wait for a partition's lock: one that a SQL session
 * processes, or whose position an open Kafka transaction committed, is
 * answered REQUEST_TIMED_OUT at once (clients retry it).
 */
KafkaOutcome
kafka_offset_commit(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaOffsetCommitRequest cr;
	KafkaOffsetCommitResponse out = {0};
	char	   *group;

	if (!kafka_decode(&req->body, &kafka_offset_commit_request,
					  req->api_version, &cr))
		return KAFKA_CLOSE;
	group = kafka_offsets_group_name(cr.group_id);
	out.ntopics = cr.ntopics;
	out.topics = kafka_commit_positions(group,
										kafka_commit_group_error(group, cr.member_id,
																 cr.group_instance_id,
																 cr.generation_id_or_member_epoch),
										&cr, cr.ntopics, &offset_commit_reader,
										false);
	kafka_encode(req->response, &kafka_offset_commit_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}

/*
 * One partition's committed position (-1 and no error if none).  With
 * require_stable, a partition whose position another transaction may be
 * committing (its group lock is held: an open Kafka transaction's
 * TxnOffsetCommit, or a member processing it) is UNSTABLE_OFFSET_COMMIT,
 * as Kafka answers for a pending transactional commit: a read_committed
 * consumer retries, and does not start from a position the transaction
 * is about to move.
 */
static void
fill_position(KafkaOffsetFetchResponsePartition *out, Relation topic,
			  const char *group, int32 partition, int16 error,
			  bool require_stable)
{
	int64		offset = -1;
	bytea	   *metadata = NULL;

	if (error == KAFKA_NONE &&
		(partition < 0 || partition >= topic_partition_count(topic)))
		error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
	if (error == KAFKA_NONE && require_stable &&
		topic_groups_partition_busy(RelationGetRelid(topic), group, partition))
		error = KAFKA_UNSTABLE_OFFSET_COMMIT;
	if (error == KAFKA_NONE &&
		!topic_groups_committed_position(topic, group, partition, &offset,
										 &metadata))
		offset = -1;
	out->partition_index = partition;
	out->committed_offset = error == KAFKA_NONE ? offset : -1;
	out->committed_leader_epoch = -1;
	if (metadata != NULL)
	{
		out->metadata.data = VARDATA_ANY(metadata);
		out->metadata.len = VARSIZE_ANY_EXHDR(metadata);
	}
	else
		out->metadata = kafka_bytes_of("");
	out->error_code = error;
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
all_positions(const char *group, bool require_stable, int32 *ntopics,
			  KafkaOffsetFetchResponseTopic **topics_out)
{
	List	   *topics = topic_list_topics();
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	KafkaOffsetFetchResponseTopic *out;
	int32		n = 0;
	ListCell   *lc;

	out = palloc0(sizeof(KafkaOffsetFetchResponseTopic) *
				  Max(list_length(topics), 1));
	foreach(lc, topics)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	topic;
		int32		nparts;
		KafkaOffsetFetchResponseTopic *to;
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
		to = &out[n++];
		to->name = kafka_bytes_of(name);
		nparts = topic_partition_count(topic);
		to->partitions = palloc0(sizeof(KafkaOffsetFetchResponsePartition) *
								 Max(nparts, 1));
		for (int32 p = 0; p < nparts; p++)
		{
			int64		offset;

			CHECK_FOR_INTERRUPTS();
			if (!topic_group_committed(relid, group, p, &offset))
				continue;
			fill_position(&to->partitions[to->npartitions++], topic, group, p,
						  KAFKA_NONE, require_stable);
		}
		relation_close(topic, AccessShareLock);
	}
	*ntopics = n;
	*topics_out = out;
}

/*
 * One group's positions of the topics asked for (ntopics -1: every topic);
 * an error of the group is each partition's, as versions 0-1 have nowhere
 * else to put it
 */
static void
group_positions(const char *group, int32 ntopics,
				KafkaOffsetFetchRequestTopic *topics, bool require_stable,
				int32 *nout, KafkaOffsetFetchResponseTopic **out_topics)
{
	KafkaOffsetFetchResponseTopic *out;

	if (ntopics < 0)
	{
		if (group != NULL)
			all_positions(group, require_stable, nout, out_topics);
		else
		{
			*nout = 0;
			*out_topics = NULL;
		}
		return;
	}
	out = palloc0(sizeof(KafkaOffsetFetchResponseTopic) * Max(ntopics, 1));
	for (int32 t = 0; t < ntopics; t++)
	{
		KafkaOffsetFetchRequestTopic *tr = &topics[t];
		KafkaOffsetFetchResponseTopic *to = &out[t];
		int16		error = group == NULL ? KAFKA_INVALID_GROUP_ID : KAFKA_NONE;
		Relation	topic = NULL;

		if (error == KAFKA_NONE)
			topic = kafka_open_topic(tr->name, AccessShareLock, ACL_SELECT, &error);
		if (topic != NULL)
			error = fetch_error(topic, group);
		to->name = tr->name;
		to->npartitions = tr->npartition_indexes;
		to->partitions = palloc0(sizeof(KafkaOffsetFetchResponsePartition) *
								 Max(tr->npartition_indexes, 1));
		for (int32 p = 0; p < tr->npartition_indexes; p++)
		{
			KafkaOffsetFetchResponsePartition *po = &to->partitions[p];
			int32		partition = tr->partition_indexes[p];

			CHECK_FOR_INTERRUPTS();
			if (topic != NULL)
				fill_position(po, topic, group, partition, error,
							  require_stable);
			else
			{
				po->partition_index = partition;
				po->committed_offset = -1;
				po->committed_leader_epoch = -1;
				po->metadata = kafka_bytes_of("");
				po->error_code = error;
			}
		}
		if (topic != NULL)
			relation_close(topic, NoLock);
	}
	*nout = ntopics;
	*out_topics = out;
}

/*
 * OffsetFetch v0-9: one group's positions (v0-7), or many groups' (v8+),
 * each answered on its own.  v0 read ZooKeeper's positions in old Kafka;
 * Kafka 3.9 answers it from the same positions as any other, as here.
 * require_stable (v7+) asks for no position an open transaction may still
 * move (fill_position).
 */
KafkaOutcome
kafka_offset_fetch(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaOffsetFetchRequest fr;
	KafkaOffsetFetchResponse out = {0};

	if (!kafka_decode(&req->body, &kafka_offset_fetch_request,
					  req->api_version, &fr))
		return KAFKA_CLOSE;
	topic_groups_ensure_loaded();
	if (req->api_version < 8)
	{
		char	   *group = kafka_offsets_group_name(fr.group_id);

		group_positions(group, fr.ntopics, fr.topics, fr.require_stable,
						&out.ntopics, &out.topics);
		out.error_code = group == NULL ? KAFKA_INVALID_GROUP_ID : KAFKA_NONE;
	}
	else
	{
		out.ngroups = fr.ngroups;
		out.groups = palloc0(sizeof(KafkaOffsetFetchResponseGroup) *
							 Max(fr.ngroups, 1));
		for (int32 g = 0; g < fr.ngroups; g++)
		{
			KafkaOffsetFetchRequestGroup *gr = &fr.groups[g];
			KafkaOffsetFetchResponseGroup *go = &out.groups[g];
			char	   *group = kafka_offsets_group_name(gr->group_id);

			go->group_id = gr->group_id;
			go->error_code = group == NULL ? KAFKA_INVALID_GROUP_ID : KAFKA_NONE;
			if (group != NULL)
				group_positions(group, gr->ntopics, gr->topics,
								fr.require_stable, &go->ntopics, &go->topics);
		}
	}
	kafka_encode(req->response, &kafka_offset_fetch_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}
