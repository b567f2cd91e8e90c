/*-------------------------------------------------------------------------
 *
 * poll.c
 *	  Consumer groups: topics.poll() with transactional commit-on-poll, and
 *	  the transaction's group positions, which group_admin.c moves too.
 *
 * A poll joins the group (group_state.c assigns partitions), takes the
 * transaction-scoped ownership lock of each assigned partition it can get
 * (a partition whose previous owner's transaction is still open is
 * skipped, so two members never process one partition at once), reads
 * each from the group's position by the stable-read rule (stable_read.c),
 * and commits the position it reached by appending a record to
 * topics.consumer_offsets in the caller's transaction.  A poll that found
 * nothing waits for records as fetch does (long_poll.c).
 *
 * The transaction's new positions wait in a backend-local list (per
 * subtransaction, so a rolled-back savepoint re-delivers) that a second
 * poll in the same transaction continues from, and reach the shared cache
 * when the transaction commits.  The ownership locks are released only
 * after that, so the next owner reads the updated position.  Before the
 * commit (XACT_EVENT_PRE_COMMIT) a member checks that it still owns every
 * partition it advanced; a rebalance that moved one makes the commit fail
 * with 40001, and the whole transaction -- its outside work included --
 * rolls back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database_d.h"
#include "catalog/pg_type_d.h"
#include "common/base64.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/am/insert_buffer.h"
#include "pg_topics/api/fetch.h"
#include "pg_topics/api/groups.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/internal_sql.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/subscription.h"
#include "pg_topics/log/topic_log.h"
#include "pg_topics/read/long_poll.h"
#include "pg_topics/read/read.h"
#include "pg_topics/segments/segment.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/worker/compaction.h"
#include "pg_topics/writer/writer.h"

PG_FUNCTION_INFO_V1(topic_poll);

/* A position this transaction committed, applied to the cache at commit */
typedef struct PendingOffset
{
	Oid			topic;
	char		group[GROUP_NAME_LEN];
	int32		partition;
	bool		has_offset;		/* false: a tombstone; one not arrived forgets
								 * the group (delete_group) */
	int64		offset;			/* any, negative too (a Kafka commit's) */
	Oid			owner;
	int64		version;		/* its record's offset in consumer_offsets */
	bytea	   *metadata;		/* a Kafka consumer's OffsetCommit metadata */
	bool		arrived;		/* applied by version as the log says: brought
								 * by replication or a restore, or one
								 * partition's position cleared */
	int			nest_level;
} PendingOffset;

/* A partition this transaction advanced as a member, checked at commit */
typedef struct PolledPartition
{
	Oid			topic;
	char		group[GROUP_NAME_LEN];
	char		member[GROUP_NAME_LEN];
	int32		partition;
	int			nest_level;
} PolledPartition;

static List *pending = NIL;		/* in TopTransactionContext */
static List *polled = NIL;
static bool polled_in_xact = false;	/* for PREPARE's refusal */
static bool reload_at_commit = false;	/* see topic_groups_topic_appeared */

/*
 * A partitioned table (perhaps a topic) or a database this transaction
 * drops: its groups leave shared memory when the drop commits, so that
 * they stop counting toward pg_topics.max_groups and their owner's share
 * at once, in every database (sweep_dropped_topics can only look at its
 * own database's catalog).
 */
typedef struct DroppedObject
{
	Oid			dbid;
	Oid			topic;			/* InvalidOid: the whole database */
	int			nest_level;
} DroppedObject;

static List *dropped = NIL;		/* in TopTransactionContext */
static object_access_hook_type prev_object_access_hook = NULL;

/* Is name usable as a group's or a consumer's name? */
static bool
name_fits(const char *name)
{
	return name[0] != '\0' && strlen(name) < GROUP_NAME_LEN;
}

/* Check a group_name argument; returns it as a C string */
char *
topic_groups_group_arg(text *arg)
{
	char	   *name = text_to_cstring(arg);

	if (!name_fits(name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("group_name must have 1 to %d bytes", GROUP_NAME_LEN - 1)));
	return name;
}

/* Check a consumer argument; returns it as a C string */
static char *
consumer_arg(text *arg)
{
	char	   *name = text_to_cstring(arg);

	if (!name_fits(name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("consumer must have 1 to %d bytes", GROUP_NAME_LEN - 1)));
	return name;
}

/*
 * May role control a group of a topic (owned by topic_owner) that owner
 * created?  Superusers, the members of the creator role, and whoever has
 * the privileges of the topic's owner (so that no role with SELECT can
 * take a group name from the topic's owner by polling it first).  SELECT
 * on the topic is checked separately, by whoever opens it.  Kafka's group
 * requests follow the same rule.
 */
bool
topic_role_controls_group(Oid role, Oid topic_owner, Oid owner)
{
	return superuser_arg(role) ||
		is_member_of_role(role, owner) ||
		has_privs_of_role(role, topic_owner);
}

static bool
role_controls_group(Oid role, Relation topic, Oid owner)
{
	return topic_role_controls_group(role, topic->rd_rel->relowner, owner);
}

/* Refuse a caller who may not control the group (42501) */
void
topic_groups_check_control(Relation topic, const char *group, Oid owner)
{
	const char *creator;

	if (role_controls_group(GetUserId(), topic, owner))
		return;
	/* groups do not keep their creator from being dropped */
	creator = GetUserNameFromId(owner, true);
	if (creator == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for consumer group \"%s\" of topic \"%s\"",
						group, RelationGetRelationName(topic)),
				 errdetail("The role that created the group was dropped; only members of the topic's owner \"%s\" may use it.",
						   GetUserNameFromId(topic->rd_rel->relowner, false))));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for consumer group \"%s\" of topic \"%s\"",
					group, RelationGetRelationName(topic)),
			 errdetail("Only members of role \"%s\", which created the group, and of the topic's owner \"%s\" may use it.",
					   creator,
					   GetUserNameFromId(topic->rd_rel->relowner, false))));
}

/*
 * Members whose role may no longer use the group (SELECT on the topic
 * revoked, or no longer a member of the group's or the topic's owner)
 * leave it, so that they hold none of its partitions and cannot keep it
 * from being deleted.  Their privileges are checked here, outside
 * group_state.c's lock.
 */
void
topic_groups_evict_unauthorized(Relation topic, const char *group, Oid owner)
{
	Oid			topicid = RelationGetRelid(topic);
	TopicGroupMemberInfo *members;
	int			n = topic_group_member_roles(topicid, group, &members);
	int			nevict = 0;
	int			i;

	for (i = 0; i < n; i++)
		if (pg_class_aclcheck(topicid, members[i].role, ACL_SELECT) != ACLCHECK_OK ||
			!role_controls_group(members[i].role, topic, owner))
			members[nevict++] = members[i];
	if (nevict > 0)
		topic_group_evict(topicid, group, members, nevict);
	pfree(members);
}

/*
 * Kafka's JoinGroup by a role with the privileges of the topic's owner:
 * the group's members that poll with SQL and whose role lacks them leave
 * it (with those that may no longer use it), since Kafka consumers and
 * poll cannot share a group and the topic's owner always keeps control of
 * her topic's groups.
 */
void
topic_groups_yield_to_topic_owner(Relation topic, const char *group, Oid owner)
{
	Oid			topicid = RelationGetRelid(topic);
	Oid			topic_owner = topic->rd_rel->relowner;
	TopicGroupMemberInfo *members;
	int			n;
	int			nevict = 0;

	topic_groups_evict_unauthorized(topic, group, owner);
	if (!has_privs_of_role(GetUserId(), topic_owner))
		return;
	n = topic_group_member_roles(topicid, group, &members);
	for (int i = 0; i < n; i++)
		if (!has_privs_of_role(members[i].role, topic_owner))
			members[nevict++] = members[i];
	if (nevict > 0)
		topic_group_evict(topicid, group, members, nevict);
	pfree(members);
}

/*
 * May role be a member of Kafka group group, reading topics (ntopics -1:
 * more than a member records), the group's first member being of role
 * kafka_owner?  As poll would let it read each topic with the group: USAGE
 * on the topic's schema and SELECT on the topic, and control of the
 * topic's pg_topics group of that name (whose creator, until it has
 * positions, is the Kafka group's owner).  A member that reads no topic
 * here, or more than it records, needs the owner's privileges.
 */
bool
topic_role_may_use_kafka_group(Oid role, const char *group, const Oid *topics,
							   int ntopics, Oid kafka_owner)
{
	if (superuser_arg(role))
		return true;
	if (ntopics <= 0)
		return !OidIsValid(kafka_owner) || has_privs_of_role(role, kafka_owner);
	topic_groups_ensure_loaded();
	for (int t = 0; t < ntopics; t++)
	{
		HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(topics[t]));
		Oid			nspid;
		Oid			topic_owner;
		Oid			creator = kafka_owner;

		if (!HeapTupleIsValid(tuple))
			continue;			/* dropped meanwhile: read by nobody */
		nspid = ((Form_pg_class) GETSTRUCT(tuple))->relnamespace;
		topic_owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
		ReleaseSysCache(tuple);
		(void) topic_group_exists(topics[t], group, &creator);
		if (pg_namespace_aclcheck(nspid, role, ACL_USAGE) != ACLCHECK_OK ||
			pg_class_aclcheck(topics[t], role, ACL_SELECT) != ACLCHECK_OK ||
			!topic_role_controls_group(role, topic_owner, creator))
			return false;
	}
	return true;
}

/*
 * Before poll looks for a Kafka group reading topic: the group's Kafka
 * members whose role may no longer use it (REVOKE) leave it, and so, when
 * the caller has the privileges of the topic's owner, do the members
 * reading the topic whose role lacks them: the owner's poll takes
 * precedence, as Kafka consumers and poll cannot share a group.
 */
static void
evict_kafka_members(Relation topic, const char *group)
{
	Oid			topicid = RelationGetRelid(topic);
	Oid			topic_owner = topic->rd_rel->relowner;
	bool		owner_wins = has_privs_of_role(GetUserId(), topic_owner);
	KafkaGroupRights *rights = palloc(sizeof(KafkaGroupRights));
	int			nevict = 0;

	if (kafka_group_rights(group, rights))
	{
		for (int i = 0; i < rights->nmembers; i++)
		{
			KafkaMemberRights *m = &rights->members[i];
			bool		reads = false;

			/* one reading more topics than it records reads what it may */
			for (int t = 0; t < m->ntopics && !reads; t++)
				reads = m->topics[t] == topicid;
			if (m->ntopics < 0)
				reads = pg_class_aclcheck(topicid, m->role, ACL_SELECT) == ACLCHECK_OK;
			if (!topic_role_may_use_kafka_group(m->role, group, m->topics,
												m->ntopics, rights->owner) ||
				(owner_wins && reads && !has_privs_of_role(m->role, topic_owner)))
				rights->members[nevict++] = *m;
		}
		if (nevict > 0)
			kafka_group_evict(group, rights->members, nevict);
	}
	pfree(rights);
}

/* Lock a partition for the group, for the rest of the transaction */
bool
topic_groups_lock_partition(Oid topic, const char *group, int32 partition,
							bool wait)
{
	LOCKTAG		tag;

	/* field4 >= 3 never collides with SQL's advisory locks (1 and 2) */
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId,
						 hash_bytes((const unsigned char *) group, strlen(group)),
						 topic, 3 + partition);
	return LockAcquire(&tag, ExclusiveLock, false, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

/*
 * Does another transaction hold group's lock of partition: a member
 * processing it, or a transaction whose commit of its position has not
 * ended (a Kafka transaction's TxnOffsetCommit holds it until EndTxn)?
 * Never waits.
 */
bool
topic_groups_partition_busy(Oid topic, const char *group, int32 partition)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId,
						 hash_bytes((const unsigned char *) group, strlen(group)),
						 topic, 3 + partition);
	if (LockAcquire(&tag, ExclusiveLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(&tag, ExclusiveLock, false);
	return false;
}

/* Give back a partition the transaction did not advance */
static void
unlock_partition(Oid topic, const char *group, int32 partition)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId,
						 hash_bytes((const unsigned char *) group, strlen(group)),
						 topic, 3 + partition);
	LockRelease(&tag, ExclusiveLock, false);
}

/* This transaction's position for a partition, if it set one */
static bool
pending_offset(Oid topic, const char *group, int32 partition, int64 *offset)
{
	ListCell   *lc;
	bool		found = false;

	foreach(lc, pending)
	{
		PendingOffset *p = lfirst(lc);

		if (p->arrived)
			continue;
		if (p->topic == topic && p->partition == partition &&
			strcmp(p->group, group) == 0)
		{
			*offset = p->offset;
			found = p->has_offset;
		}
	}
	return found;
}

/* Does a subscription replicate topics.consumer_offsets here? */
bool
topic_groups_positions_replicated(void)
{
	return topic_partition_is_replica(topic_offsets_log_relid(), InvalidOid);
}

/*
 * While a subscription replicates topics.consumer_offsets, its publisher
 * keeps every group's positions: local ones would take its offsets.
 */
void
topic_groups_check_writable(void)
{
	if (topic_groups_positions_replicated())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot change consumer group positions while \"topics.consumer_offsets\" is a logical replica"),
				 errdetail("A subscription of this database replicates the groups' positions from a publisher."),
				 errhint("Consume on the publisher. To take the groups over here, drop the subscription, or stop publishing topics.consumer_offsets and refresh the subscription.")));
}

/*
 * A topic was created or renamed here.  On a replica, positions may have
 * arrived for its name before it existed: load the log again once this
 * transaction commits (topic_group_records_arrived skips what it cannot
 * resolve, loading does not).
 */
void
topic_groups_topic_appeared(void)
{
	if (topic_groups_positions_replicated())
		reload_at_commit = true;
}

/* Append a JSON string field to buf */
static void
json_field(StringInfo buf, const char *name, const char *value, bool first)
{
	if (!first)
		appendStringInfoString(buf, ", ");
	escape_json(buf, name);
	appendStringInfoString(buf, ": ");
	if (value)
		escape_json(buf, value);
	else
		appendStringInfoString(buf, "null");
}

/* Remember a position for this (sub)transaction, for the cache at commit */
static void
add_pending(Oid topic, const char *group, int32 partition, bool has_offset,
			int64 offset, Oid owner, int64 version, const bytea *metadata,
			bool arrived)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	PendingOffset *p = palloc0(sizeof(PendingOffset));

	p->topic = topic;
	strlcpy(p->group, group, GROUP_NAME_LEN);
	p->partition = partition;
	p->has_offset = has_offset;
	p->offset = offset;
	p->owner = owner;
	p->version = version;
	if (metadata != NULL)
	{
		p->metadata = palloc(VARSIZE_ANY(metadata));
		memcpy(p->metadata, metadata, VARSIZE_ANY(metadata));
	}
	p->arrived = arrived;
	p->nest_level = GetCurrentTransactionNestLevel();
	pending = lappend(pending, p);
	MemoryContextSwitchTo(old);
}

/*
 * Append a record with key and value (a NULL value: a tombstone) to
 * topics.consumer_offsets now, in the current transaction; returns its
 * offset (the record's version)
 */
static int64
append_position_record(Datum key, Datum value, bool value_null)
{
	Oid			logid = get_relname_relid("consumer_offsets",
										  get_namespace_oid("topics", false));
	Relation	log = table_open(logid, RowExclusiveLock);
	TupleTableSlot *slot = table_slot_create(log, NULL);
	int64		version;
	bool		isnull;
	TopicWriterOptions options;

	topic_fill_record_slot(slot, 0, key, false, value_null ? (Datum) 0 : value,
						   value_null, (Datum) 0, true);

	/*
	 * Written now, for its offset: an INSERT's rows may wait, this must
	 * not; after the rows an INSERT of this statement left waiting
	 */
	topic_writer_options_init(&options, GetCurrentCommandId(true));
	topic_buffer_flush();
	topic_writer_write(log, &slot, 1, &options);
	version = DatumGetInt64(slot_getattr(slot, Anum_topic_offset, &isnull));
	ExecDropSingleTupleTableSlot(slot);
	table_close(log, NoLock);
	return version;
}

/* The key of group's position of partition of topic in consumer_offsets */
static Datum
position_key(Relation topic, const char *group, int32 partition)
{
	StringInfoData key;

	initStringInfo(&key);
	appendStringInfoChar(&key, '{');
	json_field(&key, "group", group, true);
	json_field(&key, "topic",
			   quote_qualified_identifier(get_namespace_name(RelationGetNamespace(topic)),
										  RelationGetRelationName(topic)), false);
	appendStringInfo(&key, ", \"partition\": %d}", partition);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(key.data));
}

/*
 * Can metadata go into a position record as a jsonb string, byte for byte
 * and meaning the text the client meant (UTF-8)?  No NUL (jsonb cannot
 * hold it), and valid UTF-8 in a UTF8 database, plain ASCII in any other.
 */
static bool
metadata_is_text(const char *data, int len)
{
	if (GetDatabaseEncoding() == PG_UTF8)
		return pg_verify_mbstr(PG_UTF8, data, len, true);	/* NUL too */
	for (int i = 0; i < len; i++)
		if (data[i] == '\0' || IS_HIGHBIT_SET(data[i]))
			return false;
	return true;
}

/*
 * Append a Kafka consumer's OffsetCommit metadata to the position record
 * being written in buf: "metadata" is a string when the bytes are text
 * (metadata_is_text), otherwise {"base64": "..."} of the bytes, as
 * binary Kafka headers are kept (kafka/record_map.c).  Kafka's metadata is
 * a string on the wire, but clients send any bytes (librdkafka's are
 * opaque), and OffsetFetch gives them back as they came.
 */
static void
append_metadata(StringInfo buf, const bytea *metadata)
{
	const char *data = VARDATA_ANY(metadata);
	int			len = VARSIZE_ANY_EXHDR(metadata);

	if (metadata_is_text(data, len))
	{
		char	   *s = pnstrdup(data, len);

		json_field(buf, "metadata", s, false);
		pfree(s);
	}
	else
	{
		int			enclen = pg_b64_enc_len(len);
		char	   *enc = palloc(enclen + 1);

		enclen = pg_b64_encode((const void *) data, len, enc, enclen);
		enc[enclen] = '\0';
		appendStringInfoString(buf, ", \"metadata\": {\"base64\": ");
		escape_json(buf, enc);
		appendStringInfoChar(buf, '}');
		pfree(enc);
	}
}

/*
 * The metadata of a position record's value (NULL if none), in either form
 * append_metadata writes; a string is its bytes as they are, which is also
 * what records written before the base64 form hold.
 */
bytea *
topic_groups_record_metadata(Jsonb *value)
{
	JsonbValue *field;
	const char *data;
	int			len;
	bytea	   *result;

	if (value == NULL || !JB_ROOT_IS_OBJECT(value))
		return NULL;
	field = getKeyJsonValueFromContainer(&value->root, "metadata", 8, NULL);
	if (field == NULL)
		return NULL;
	if (field->type == jbvString)
	{
		data = field->val.string.val;
		len = field->val.string.len;
		result = palloc(VARHDRSZ + len);
		memcpy(VARDATA(result), data, len);
		SET_VARSIZE(result, VARHDRSZ + len);
		return result;
	}
	if (field->type == jbvBinary && JsonContainerIsObject(field->val.binary.data))
	{
		JsonbValue *enc = getKeyJsonValueFromContainer(field->val.binary.data,
													   "base64", 6, NULL);

		if (enc != NULL && enc->type == jbvString)
		{
			int			maxlen = pg_b64_dec_len(enc->val.string.len);

			result = palloc(VARHDRSZ + maxlen + 1);
			len = pg_b64_decode(enc->val.string.val, enc->val.string.len,
								(void *) VARDATA(result), maxlen);
			if (len >= 0)
			{
				SET_VARSIZE(result, VARHDRSZ + len);
				return result;
			}
		}
	}
	return NULL;				/* not a form this library writes */
}

/*
 * Record a group position in topics.consumer_offsets, in the current
 * transaction, and remember it for this transaction and for the cache.
 * Any offset is recorded as it is: a Kafka consumer's commit may be
 * negative (kafkajs's resetOffsets commits -2), which Kafka keeps and
 * answers back; what reads the position treats a negative one as none
 * (group_position, topics.consumer_lag).
 */
void
topic_groups_commit_position(Relation topic, const char *group,
							 int32 partition, int64 offset, Oid owner,
							 const bytea *metadata)
{
	StringInfoData value;
	int64		version;

	topic_groups_check_writable();

	initStringInfo(&value);
	appendStringInfo(&value, "{\"offset\": %lld, ", (long long) offset);
	/* a dropped owner is recorded as none: loading makes it the bootstrap superuser */
	json_field(&value, "owner", GetUserNameFromId(owner, true), true);
	/* a Kafka consumer's OffsetCommit metadata, for its OffsetFetch */
	if (metadata != NULL)
		append_metadata(&value, metadata);
	appendStringInfoChar(&value, '}');

	version = append_position_record(position_key(topic, group, partition),
									 DirectFunctionCall1(jsonb_in,
														 CStringGetDatum(value.data)),
									 false);

	add_pending(RelationGetRelid(topic), group, partition, true, offset,
				owner, version, metadata, false);
}

/*
 * A tombstone of group's position of one partition, in the current
 * transaction.  as_replicated says how the cache takes it at commit: as a
 * replicated tombstone (the partition has no position any more, and the
 * group goes with its last position unless it has members), or else as
 * part of forgetting the whole group.
 */
static void
append_position_tombstone(Relation topic, const char *group, int32 partition,
						  bool as_replicated)
{
	int64		version;

	topic_groups_check_writable();
	version = append_position_record(position_key(topic, group, partition),
									 (Datum) 0, true);
	add_pending(RelationGetRelid(topic), group, partition, false, -1,
				InvalidOid, version, NULL, as_replicated);
}

/*
 * Delete group's position of one partition as deleting the group does
 * (topics.delete_group, Kafka's DeleteGroups), in the current transaction:
 * the group is forgotten when the transaction commits.
 */
void
topic_groups_delete_group_position(Relation topic, const char *group,
								   int32 partition)
{
	append_position_tombstone(topic, group, partition, false);
}

/*
 * Clear group's position of one partition, in the current transaction,
 * applied to the cache at commit as a replicated tombstone is.  Kafka's
 * OffsetDelete.
 */
void
topic_groups_clear_position(Relation topic, const char *group,
							int32 partition)
{
	append_position_tombstone(topic, group, partition, true);
}

/*
 * A topic was renamed or moved away from old_name (schema-qualified and
 * quoted, as positions' keys name topics): append a tombstone for every key
 * of topics.consumer_offsets under that name whose latest record is a
 * position, in the current transaction, as dropping a topic does
 * (topics.forget_dropped_topics).  Otherwise a topic created later under
 * the old name would take those positions when the log is loaded again
 * after a restart, and its groups would skip its first records.  The
 * cache is keyed by the topic's OID and stays as it is.
 */
void
topic_groups_tombstone_name(const char *old_name)
{
	MemoryContext caller = CurrentMemoryContext;
	TopicInternalSql internal;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(old_name)};
	List	   *keys = NIL;
	ListCell   *lc;
	SPIPlanPtr	plan;
	int			rc;
	uint64		i;

	topic_internal_sql_begin(&internal);
	plan = SPI_prepare("SELECT l.key FROM ("
					   "SELECT DISTINCT ON (o.key) o.key, o.value "
					   "FROM topics.consumer_offsets o "
					   "WHERE o.key->>'topic' = $1 "
					   "ORDER BY o.key, "
					   "coalesce((o.value->>'v')::bigint, o.\"offset\") DESC, "
					   "o.\"offset\" DESC) l "
					   "WHERE l.value IS NOT NULL",
					   1, argtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare a read of topics.consumer_offsets: %s",
			 SPI_result_code_string(SPI_result));

	/*
	 * The latest snapshot, even in REPEATABLE READ: a position committed
	 * under the old name after this transaction's snapshot was taken (the
	 * caller holds the topic's lock, so none can come later) needs its
	 * tombstone too.  Not read-only, so this transaction's own records
	 * are seen as well.
	 */
	rc = SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
							  InvalidSnapshot, false, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not read topics.consumer_offsets: %s",
			 SPI_result_code_string(rc));
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		key = SPI_getbinval(SPI_tuptable->vals[i],
										SPI_tuptable->tupdesc, 1, &isnull);
		MemoryContext old;

		if (isnull)
			continue;
		old = MemoryContextSwitchTo(caller);
		keys = lappend(keys, DatumGetPointer(datumCopy(key, false, -1)));
		MemoryContextSwitchTo(old);
	}
	topic_internal_sql_end(&internal);

	foreach(lc, keys)
		(void) append_position_record(PointerGetDatum(lfirst(lc)), (Datum) 0,
									  true);
	list_free_deep(keys);
}

/*
 * The positions of topic that a rename records again under its new name:
 * the committed ones, overridden by those this transaction set and not
 * yet committed (with their metadata; a partition whose group this
 * transaction deleted is left out), so that the new name's records say
 * what the cache will say once this transaction commits
 */
List *
topic_groups_renamed_positions(Oid topic)
{
	List	   *positions = topic_group_positions(topic);
	ListCell   *lc;
	ListCell   *lp;

	foreach(lc, pending)
	{
		PendingOffset *p = lfirst(lc);
		TopicGroupPosition *found = NULL;

		if (p->arrived || p->topic != topic)
			continue;
		foreach(lp, positions)
		{
			TopicGroupPosition *q = lfirst(lp);

			if (q->partition == p->partition && strcmp(q->group, p->group) == 0)
			{
				found = q;
				if (!p->has_offset)
					positions = foreach_delete_current(positions, lp);
				break;
			}
		}
		if (!p->has_offset)
			continue;			/* the group was deleted */
		if (found == NULL)
		{
			found = palloc0(sizeof(TopicGroupPosition));
			strlcpy(found->group, p->group, GROUP_NAME_LEN);
			found->partition = p->partition;
			positions = lappend(positions, found);
		}
		found->offset = p->offset;
		found->owner = p->owner;
		found->version = -1;
		found->metadata = p->metadata;
	}
	return positions;
}

/* The text of field name of a jsonb object, or NULL */
static char *
jsonb_text_field(Jsonb *jb, const char *name)
{
	JsonbValue	v;

	if (jb == NULL || !JB_ROOT_IS_OBJECT(jb) ||
		getKeyJsonValueFromContainer(&jb->root, name, strlen(name), &v) == NULL ||
		v.type != jbvString)
		return NULL;
	return pnstrdup(v.val.string.val, v.val.string.len);
}

/* The integer field name of a jsonb object, or false */
static bool
jsonb_int_field(Jsonb *jb, const char *name, int64 *result)
{
	JsonbValue	v;
	char	   *text;
	char	   *end;

	if (jb == NULL || !JB_ROOT_IS_OBJECT(jb) ||
		getKeyJsonValueFromContainer(&jb->root, name, strlen(name), &v) == NULL ||
		v.type != jbvNumeric)
		return false;
	/* apply must not fail on a record it cannot use: skip it instead */
	text = DatumGetCString(DirectFunctionCall1(numeric_out,
											   NumericGetDatum(v.val.numeric)));
	errno = 0;
	*result = strtoll(text, &end, 10);
	return errno == 0 && *end == '\0';
}

/*
 * Records that logical replication's apply or a restore (both in preserve
 * mode) wrote into topics.consumer_offsets at the given offsets: positions
 * committed elsewhere.  They reach the cache when this transaction
 * commits, like our own, but by version (topic_group_apply_record).  A
 * record of a topic this database does not have is kept and ignored, as
 * loading does.
 */
static void
topic_group_records_arrived(TupleTableSlot **slots, const int64 *offsets,
							const bool *skip, int nslots)
{
	int			i;

	for (i = 0; i < nslots; i++)
	{
		Jsonb	   *key;
		Jsonb	   *value = NULL;
		char	   *topic_name;
		char	   *group;
		char	   *owner_name;
		int64		partition;
		int64		offset = -1;
		bool		has_offset = false;
		int64		version = offsets[i];
		Oid			topic;
		Oid			owner = InvalidOid;
		bool		isnull;
		Datum		d;
		List	   *names;

		if (skip[i])
			continue;
		d = slot_getattr(slots[i], Anum_topic_key, &isnull);
		if (isnull)
			continue;
		key = DatumGetJsonbP(d);
		d = slot_getattr(slots[i], Anum_topic_value, &isnull);
		if (!isnull)
			value = DatumGetJsonbP(d);

		topic_name = jsonb_text_field(key, "topic");
		group = jsonb_text_field(key, "group");
		if (topic_name == NULL || group == NULL || strlen(group) >= GROUP_NAME_LEN ||
			!jsonb_int_field(key, "partition", &partition) ||
			partition < 0 || partition > PG_INT32_MAX)
			continue;
#if PG_VERSION_NUM >= 160000
		names = stringToQualifiedNameList(topic_name, NULL);
#else
		names = stringToQualifiedNameList(topic_name);
#endif
		topic = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
		if (!OidIsValid(topic))
			continue;
		if (value != NULL)
		{
			/* any offset, as a commit here records it */
			if (!jsonb_int_field(value, "offset", &offset))
				continue;
			has_offset = true;
			(void) jsonb_int_field(value, "v", &version);
			owner_name = jsonb_text_field(value, "owner");
			if (owner_name != NULL)
				owner = get_role_oid(owner_name, true);
			if (!OidIsValid(owner))
				owner = BOOTSTRAP_SUPERUSERID;
		}

		add_pending(topic, group, (int32) partition, has_offset, offset, owner,
					version, NULL, true);
	}
}

/* Remember a partition this (sub)transaction advanced, for the commit check */
static void
remember_polled(Oid topic, const char *group, const char *member,
				int32 partition)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	PolledPartition *p = palloc0(sizeof(PolledPartition));

	p->topic = topic;
	strlcpy(p->group, group, GROUP_NAME_LEN);
	strlcpy(p->member, member, GROUP_NAME_LEN);
	p->partition = partition;
	p->nest_level = GetCurrentTransactionNestLevel();
	polled = lappend(polled, p);
	MemoryContextSwitchTo(old);
}

/*
 * Where the group reads a partition next: this transaction's position,
 * else the committed one, else (or when retention passed it)
 * pg_topics.auto_offset_reset.  *reset tells the caller that the position
 * is not the stored one, so that it stores it: a reset that is not kept
 * happens again at every poll, each time to a later high watermark, and
 * the records produced in between are never delivered.
 */
static int64
group_position(Relation topic, const char *group, int32 partition,
			   const TopicLogEnd *end, bool *reset)
{
	Oid			topicid = RelationGetRelid(topic);
	int64		position;

	*reset = false;
	if (pending_offset(topicid, group, partition, &position) ||
		topic_group_committed(topicid, group, partition, &position))
	{
		if (position >= end->log_start_offset && position <= end->next_offset)
			return position;
		/* retention has passed the group's position */
	}

	*reset = true;
	switch (pg_topics_auto_offset_reset)
	{
		case TOPIC_RESET_LATEST:
			return end->next_offset;
		case TOPIC_RESET_EARLIEST:
			return end->log_start_offset;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("consumer group \"%s\" has no valid position in partition %d of topic \"%s\"",
							group, partition, RelationGetRelationName(topic)),
					 errdetail("The log holds offsets %lld to %lld.",
							   (long long) end->log_start_offset,
							   (long long) end->next_offset),
					 errhint("Set pg_topics.auto_offset_reset to earliest or latest, or use topics.seek().")));
	}
	return 0;					/* keep compiler quiet */
}

/* The session ends: its members leave their groups */
static void
leave_groups_at_exit(int code, Datum arg)
{
	topic_group_leave_session();
}

/*
 * Does group have Kafka members reading topic?  A Kafka group whose
 * subscription is too long to record reads, at most, the topics its owner
 * may read.
 */
static bool
kafka_members_read(Relation topic, const char *group)
{
	Oid			kafka_owner;

	return kafka_group_reads_topic(group, RelationGetRelid(topic),
								   &kafka_owner) &&
		(!OidIsValid(kafka_owner) ||
		 pg_class_aclcheck(RelationGetRelid(topic), kafka_owner,
						   ACL_SELECT) == ACLCHECK_OK);
}

/*
 * Check poll's arguments (values and nulls of group_name, consumer,
 * max_records and wait) into *args, and open the topic whose row type is
 * rowtype.  Shared by the function and the TopicPoll scan (read_scan.c),
 * so both fail alike.
 */
Relation
topic_poll_begin(Oid rowtype, Datum *values, bool *nulls, TopicPollArgs *args)
{
	static bool exit_hook = false;
	Relation	topic;
	Oid			owner;
	bool		exists;

	if (nulls[0] || nulls[2])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("group_name and max_records must not be null")));
	args->group = topic_groups_group_arg(DatumGetTextPP(values[0]));
	args->durable = !nulls[1];
	args->member = args->durable ?
		consumer_arg(DatumGetTextPP(values[1])) :
		psprintf("session-%d", MyProcPid);
	args->max_records = DatumGetInt32(values[2]);
	args->wait_us = nulls[3] ? 0 :
		topic_interval_usecs(DatumGetIntervalP(values[3]));
	topic_check_read_args(TOPIC_READER_POLL, args->max_records, args->wait_us);
	PreventCommandIfReadOnly("poll");
	topic_groups_check_writable();

	topic = topic_open_by_rowtype(rowtype, ACL_SELECT);
	topic_groups_ensure_loaded();
	exists = topic_group_exists(RelationGetRelid(topic), args->group, &owner);
	if (exists)
		topic_groups_check_control(topic, args->group, owner);

	/*
	 * One group, one kind of member at a time: Kafka consumers or poll
	 * (unless the Kafka members must leave first)
	 */
	if (kafka_members_read(topic, args->group))
	{
		evict_kafka_members(topic, args->group);
		if (kafka_members_read(topic, args->group))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("consumer group \"%s\" of topic \"%s\" has Kafka consumers",
							args->group, RelationGetRelationName(topic)),
					 errdetail("Kafka clients divide the group's partitions among themselves, so poll cannot take part."),
					 errhint("Stop the group's Kafka consumers, or poll with another group.")));
	}
	if (exists)
		topic_groups_evict_unauthorized(topic, args->group, owner);
	if (!exit_hook)
	{
		before_shmem_exit(leave_groups_at_exit, (Datum) 0);
		exit_hook = true;
	}
	return topic;
}

/* How soon a poll that found a partition busy looks again */
#define TOPIC_BUSY_RECHECK_MS	10

/* A poll's long-poll: what its tries need */
typedef struct GroupPoll
{
	const TopicPollArgs *args;
	const TopicStableRead *sink;
	Oid		   *opened;			/* the partitions the last try read */
	int			nopened;
} GroupPoll;

/*
 * Read partition number partition of topic (its ownership lock taken) for
 * the group, up to max_records, and move the group's position in this
 * transaction; returns how many records it delivered.
 */
static int64
poll_partition(GroupPoll *gp, Relation topic, int32 partition,
			   int64 max_records, Oid owner)
{
	const char *group = gp->args->group;
	Oid			topicid = RelationGetRelid(topic);
	Relation	router;
	TopicLogEnd end;
	int64		position;
	int64		committed;
	bool		reset;
	TopicStableRead	read;
	int			attempt;

	router = table_open(topic_partition_relid(topic, partition), AccessShareLock);
	gp->opened[gp->nopened++] = RelationGetRelid(router);
	for (attempt = 1;; attempt++)
	{
		topic_log_end(router, &end);
		position = group_position(topic, group, partition, &end, &reset);

		memset(&read, 0, sizeof(read));
		read.sink = gp->sink->sink;
		read.sink_arg = gp->sink->sink_arg;
		read.store = gp->sink->store;
		read.desc = gp->sink->desc;
		read.max_records = max_records;
		/* retention passing the read is retention passing the group */
		read.passed_ok = attempt < 3;
		topic_read_partition(router, partition, position, &end, &read);
		if (!read.passed || read.returned > 0)
			break;
	}
	table_close(router, NoLock);

	/* a reset is kept like any other move of the position */
	if (reset || read.position != position ||
		!topic_group_committed(topicid, group, partition, &committed))
	{
		topic_groups_commit_position(topic, group, partition, read.position,
									 owner, NULL);
		remember_polled(topicid, group, gp->args->member, partition);
	}
	else
		unlock_partition(topicid, group, partition);
	return read.returned;
}

/*
 * One try of a poll: join the group and read the partitions assigned to
 * this member whose ownership lock it gets, starting at a partition that
 * changes from poll to poll, so that each gets its turn.
 */
static int64
poll_try(TopicLongPoll *lp, Relation topic, void *arg)
{
	static uint32 rotation = 0;
	GroupPoll  *gp = (GroupPoll *) arg;
	const TopicPollArgs *args = gp->args;
	Oid			topicid = RelationGetRelid(topic);
	TopicGroupView	view;
	int64		total = 0;
	int			busy = 0;
	int			i;

	/* any partition of the topic may be assigned to us by the next join */
	topic_long_poll_watch(lp, topicid);

	topic_group_join(topicid, args->group, args->member, args->durable,
					 topic_partition_count(topic), &view);
	gp->opened = palloc(sizeof(Oid) * Max(view.nassigned, 1));
	gp->nopened = 0;

	for (i = 0; i < view.nassigned && total < args->max_records; i++)
	{
		int32		partition = view.assigned[(i + rotation) % view.nassigned];

		if (!topic_groups_lock_partition(topicid, args->group, partition,
										 false))
		{
			busy++;				/* its previous owner is still at work */
			continue;
		}
		total += poll_partition(gp, topic, partition,
								args->max_records - total, view.owner);
	}
	rotation++;

	/*
	 * A busy partition frees up when its previous owner's transaction ends,
	 * which wakes nobody: look again soon.
	 */
	if (busy > 0)
		lp->recheck_ms = TOPIC_BUSY_RECHECK_MS;
	return total;
}

/*
 * After a try of a poll: a sleeping poll holds none of the partitions it
 * looked at (nothing was read from them), so a drop never waits.
 */
static void
poll_release(void *arg, bool sleeping)
{
	GroupPoll  *gp = (GroupPoll *) arg;
	int			i;

	if (sleeping)
		for (i = 0; i < gp->nopened; i++)
			UnlockRelationOid(gp->opened[i], AccessShareLock);
	pfree(gp->opened);
}

/*
 * Poll topic (opened by topic_poll_begin, and closed here) as args say:
 * join the group, read its share of partitions after the group's
 * positions, and move the positions in this transaction, long-polling up
 * to args->wait_us for a first record.  Records go to sink's sink.
 */
void
topic_poll_read(Relation topic, const TopicPollArgs *args,
				const TopicStableRead *sink)
{
	GroupPoll	gp = {args, sink, NULL, 0};

	polled_in_xact = true;
	topic_long_poll(TOPIC_READER_POLL, topic, args->wait_us, poll_try,
					poll_release, &gp);
}

/*
 * topics.poll(topic anyelement, group_name text, consumer text,
 *		max_records int, wait interval) RETURNS SETOF anyelement
 *
 * In a query's FROM the TopicPoll scan runs instead (read_scan.c); this
 * is the function for every other place.
 */
Datum
topic_poll(PG_FUNCTION_ARGS)
{
	Datum		values[TOPIC_READ_NARGS];
	bool		nulls[TOPIC_READ_NARGS];
	TopicPollArgs args;
	Relation	topic;
	TopicStableRead	sink;

	topic_read_fn_args(fcinfo, values, nulls);
	topic = topic_poll_begin(get_fn_expr_argtype(fcinfo->flinfo, 0), values,
							 nulls, &args);
	topic_read_into_result(&sink, fcinfo);
	topic_poll_read(topic, &args, &sink);
	return (Datum) 0;
}

/* Transaction end: fence, publish, or forget this transaction's positions */
static void
groups_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			foreach(lc, polled)
			{
				PolledPartition *p = lfirst(lc);

				/* a topic this transaction dropped took its groups along */
				if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(p->topic)))
				{
					polled = foreach_delete_current(polled, lc);
					continue;
				}
				if (!topic_group_owns(p->topic, p->group, p->member, p->partition))
					ereport(ERROR,
							(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
							 errmsg("partition %d of topic \"%s\" was reassigned to another member of group \"%s\"",
									p->partition, get_rel_name(p->topic), p->group),
							 errdetail("A rebalance moved the partition while this transaction processed it."),
							 errhint("Retry the transaction; its records go to the partition's new owner.")));
			}
			/* the last moment a full table can still be refused */
			foreach(lc, pending)
			{
				PendingOffset *p = lfirst(lc);

				if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(p->topic)))
				{
					pending = foreach_delete_current(pending, lc);
					continue;
				}
				if (p->arrived || p->has_offset)
					topic_group_reserve(p->topic, p->group, p->partition,
										p->owner, p->has_offset);
			}
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (polled_in_xact || pending != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that has polled or committed group offsets"),
						 errhint("Commit the transaction instead.")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			foreach(lc, pending)
			{
				PendingOffset *p = lfirst(lc);

				if (p->arrived)
					topic_group_apply_record(p->topic, p->group, p->partition,
											 p->has_offset, p->offset,
											 p->owner, p->version);
				else if (!p->has_offset)
					topic_group_forget(p->topic, p->group);
				else
					topic_group_set_committed(p->topic, p->group, p->partition,
											  p->offset, p->owner, p->version);
			}
			foreach(lc, dropped)
			{
				DroppedObject *d = lfirst(lc);

				topic_groups_forget_dropped(d->dbid, d->topic);
			}
			pending = NIL;
			polled = NIL;
			dropped = NIL;
			polled_in_xact = false;
			if (reload_at_commit)
				topic_groups_reload_later();
			reload_at_commit = false;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			pending = NIL;
			polled = NIL;
			dropped = NIL;
			polled_in_xact = false;
			reload_at_commit = false;
			break;
		default:
			break;
	}
}

/*
 * The entries of list made at nest level level or deeper: its tail from
 * the index returned.  Entries are appended at the current level, which is
 * at least that of every entry already there (deeper ones were handed up
 * or dropped when their subtransaction ended), so the levels never go down
 * along a list and a subtransaction's entries are its tail: found from the
 * end, so that a request of many subtransactions (a Kafka OffsetCommit of
 * many partitions) costs in proportion to them and not to their square.
 */
static int
deeper_tail(List *list, int level, size_t level_offset)
{
	int			i = list_length(list);

	while (i > 0 &&
		   *(int *) ((char *) list_nth(list, i - 1) + level_offset) >= level)
		i--;
	return i;
}

/* A subtransaction ended: its entries of list go, or go up to its parent */
static List *
end_subxact_entries(List *list, bool commit, int level, size_t level_offset)
{
	int			from = deeper_tail(list, level, level_offset);

	if (!commit)
		return list_truncate(list, from);
	for (int i = from; i < list_length(list); i++)
		*(int *) ((char *) list_nth(list, i) + level_offset) = level - 1;
	return list;
}

/* A rolled-back savepoint takes its positions back; a released one hands them up */
static void
groups_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();
	bool		commit;

	if (event == SUBXACT_EVENT_ABORT_SUB)
		commit = false;
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		commit = true;
	else
		return;
	pending = end_subxact_entries(pending, commit, level,
								  offsetof(PendingOffset, nest_level));
	polled = end_subxact_entries(polled, commit, level,
								 offsetof(PolledPartition, nest_level));
	dropped = end_subxact_entries(dropped, commit, level,
								  offsetof(DroppedObject, nest_level));
}

/*
 * A drop: remember partitioned tables (a topic's parent is one; whether
 * this one is a topic no longer matters once it is gone, and its
 * partitions may already be detached here) and databases.
 */
static void
groups_object_access(ObjectAccessType access, Oid classId, Oid objectId,
					 int subId, void *arg)
{
	DroppedObject *d;
	MemoryContext old;

	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access != OAT_DROP || subId != 0)
		return;
	if (!(classId == RelationRelationId &&
		  get_rel_relkind(objectId) == RELKIND_PARTITIONED_TABLE) &&
		classId != DatabaseRelationId)
		return;

	old = MemoryContextSwitchTo(TopTransactionContext);
	d = palloc(sizeof(DroppedObject));
	d->dbid = classId == DatabaseRelationId ? objectId : MyDatabaseId;
	d->topic = classId == DatabaseRelationId ? InvalidOid : objectId;
	d->nest_level = GetCurrentTransactionNestLevel();
	dropped = lappend(dropped, d);
	MemoryContextSwitchTo(old);
}

void
topic_groups_init(void)
{
	RegisterXactCallback(groups_xact_callback, NULL);
	RegisterSubXactCallback(groups_subxact_callback, NULL);
	topic_positions_arrived_hook = topic_group_records_arrived;
	prev_object_access_hook = object_access_hook;
	object_access_hook = groups_object_access;
}
