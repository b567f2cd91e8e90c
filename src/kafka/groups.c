/*-------------------------------------------------------------------------
 *
 * groups.c
 *	  The group coordinator's requests: JoinGroup (v0-9), SyncGroup (v0-5),
 *	  Heartbeat (v0-4), LeaveGroup (v0-5), DescribeGroups (v0-5) and
 *	  ListGroups (v0-5), on the schema codec (wire/msg_*.h).
 *
 * The rebalance protocol itself is shared/kafka_groups.c's; this file
 * reads and writes the requests, and parks a JoinGroup until its
 * rebalance ends and a follower's SyncGroup until the leader's came.
 * JoinGroup also keeps a group to one kind of consumer: a Kafka group G
 * subscribing to topic T while the pg_topics group G of T has members
 * that poll with SQL is refused (INCONSISTENT_GROUP_PROTOCOL), as poll
 * refuses while Kafka consumers read (the topic's owner excepted: her
 * consumers' join makes other roles' SQL members leave).  Who may be a
 * member follows SQL's rule for groups (judge_join): a role with the
 * privileges of the Kafka group's owner (the role of its first member), or
 * one that controls the pg_topics groups of every topic the group reads;
 * a member whose role lost its rights leaves at its next request
 * (GROUP_AUTHORIZATION_FAILED).  Static members (group.instance.id,
 * JoinGroup v5+) are shared/kafka_groups.c's: a restarted one gets its
 * place back without a rebalance, and fences its former member id.  A
 * fenced node
 * (fence.c) coordinates no group: JoinGroup, SyncGroup, Heartbeat and
 * LeaveGroup get NOT_COORDINATOR, and members look for the coordinator
 * again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_topics/api/groups.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/shared/group_state.h"
#include "pg_topics/shared/kafka_groups.h"
#include "pg_topics/wire/consumer_protocol.h"
#include "pg_topics/wire/msg_describe_groups.h"
#include "pg_topics/wire/msg_heartbeat.h"
#include "pg_topics/wire/msg_join_group.h"
#include "pg_topics/wire/msg_leave_group.h"
#include "pg_topics/wire/msg_list_groups.h"
#include "pg_topics/wire/msg_sync_group.h"
#include "pg_topics/wire/protocol.h"

/* A parked request gives up after its timeout and this much more */
#define PARK_GRACE_MS	5000

static const char *const state_names[] = {
	"Empty", "PreparingRebalance", "CompletingRebalance", "Stable"
};

/* A group id as a C string, or NULL if it cannot be a group's name */
static char *
group_name(KafkaBytes id)
{
	if (id.len <= 0 || id.len >= KAFKA_GROUP_NAME_LEN ||
		memchr(id.data, '\0', id.len) != NULL)
		return NULL;
	return kafka_bytes_cstring(id);
}

/* A request string as a C string of at most KAFKA_MEMBER_ID_LEN - 1 bytes */
static char *
short_string(KafkaBytes s)
{
	if (s.len < 0)
		return pstrdup("");
	return pnstrdup(s.data, Min(s.len, KAFKA_MEMBER_ID_LEN - 1));
}

/* Park the request until the group changes, at the latest at deadline */
static KafkaOutcome
park(KafkaRequest *req, const KafkaGroupReply *reply, int32 timeout_ms,
	 TimestampTz *deadline)
{
	kafka_watch_reset(req->watch);
	req->watch->group_slot = reply->slot;
	req->watch->group_seen = reply->version;
	*deadline = TimestampTzPlusMilliseconds(req->received,
											(int64) timeout_ms + PARK_GRACE_MS);
	return KAFKA_PARK;
}

/* The owner of relation relid, or InvalidOid if it is gone (no lock taken) */
static Oid
relation_owner(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

/* Is relid one of the topics join lists already? */
static bool
topic_listed(const KafkaJoin *join, Oid relid)
{
	for (int t = 0; t < join->ntopics; t++)
		if (join->topics[t] == relid)
			return true;
	return false;
}

/*
 * The pg_topics group of topic relid has members that poll: those whose
 * role may not use it, and (when the joining role has the privileges of
 * the topic's owner) those whose role lacks them, leave it
 */
static void
yield_to_topic_owner(Oid relid, const char *group, Oid owner)
{
	Relation	topic = try_relation_open(relid, AccessShareLock);

	if (topic == NULL)
		return;
	topic_groups_yield_to_topic_owner(topic, group, owner);
	relation_close(topic, AccessShareLock);
}

/*
 * The topics a consumer's subscription names that are topics here and that
 * the joining role may read (a subscription to others reads nothing, and
 * must not keep poll from their groups); ntopics -1 when there are more
 * than a group records.  The error, if any, that refuses the join: the
 * subscription cannot be read (INCONSISTENT_GROUP_PROTOCOL); the pg_topics
 * group of the same name of one of the topics has members that poll with
 * SQL (the same), or was created by a role the joining one may not act
 * for (GROUP_AUTHORIZATION_FAILED, as poll would refuse it).
 */
static int16
subscribed_topics(KafkaJoin *join, const KafkaProtocol *protocol)
{
	KafkaBytes *names;
	int			n = kafka_subscription_topics(protocol->metadata, protocol->len,
											  &names);

	if (n < 0)
		return KAFKA_INCONSISTENT_GROUP_PROTOCOL;
	join->ntopics = 0;
	topic_groups_ensure_loaded();
	for (int i = 0; i < n; i++)
	{
		Oid			relid;
		Oid			owner;
		Oid			topic_owner;

		if (!kafka_topic_name_valid(names[i]))
			continue;
		relid = topic_kafka_lookup(names[i].data, names[i].len);
		if (!OidIsValid(relid) || !kafka_topic_allowed(relid, ACL_SELECT))
			continue;
		if (topic_group_exists(relid, join->group, &owner))
		{
			topic_owner = relation_owner(relid);
			if (!OidIsValid(topic_owner))
				continue;
			if (!topic_role_controls_group(join->role, topic_owner, owner))
				return KAFKA_GROUP_AUTHORIZATION_FAILED;
			if (topic_group_has_members(relid, join->group))
				yield_to_topic_owner(relid, join->group, owner);
		}
		if (topic_group_has_members(relid, join->group))
			return KAFKA_INCONSISTENT_GROUP_PROTOCOL;
		if (topic_listed(join, relid))
			continue;
		if (join->ntopics >= 0 && join->ntopics < KAFKA_GROUP_MAX_TOPICS)
			join->topics[join->ntopics++] = relid;
		else
			join->ntopics = -1;
	}
	return KAFKA_NONE;
}

/*
 * May the role that joins (with the topics it reads) be a member of the
 * Kafka group, as it is now?  A role with the privileges of the group's
 * owner may, as before.  Any other needs a claim of its own: it reads
 * topics, and controls the pg_topics group of that name of each of them
 * and of each topic the group reads already (as poll would let it read
 * them); the group's members that then have no right to the topics it
 * reads leave (the topic's owner takes her group back from a role that
 * took its name first).  Members whose role may no longer use the group
 * leave either way.  GROUP_AUTHORIZATION_FAILED if it may not join.
 */
static int16
judge_join(const KafkaJoin *join)
{
	KafkaGroupRights *rights = palloc(sizeof(KafkaGroupRights));
	bool		claim;
	int			nevict = 0;

	if (!kafka_group_rights(join->group, rights))
		return KAFKA_NONE;
	claim = !has_privs_of_role(join->role, rights->owner);
	if (claim &&
		(join->ntopics <= 0 || rights->ntopics < 0 ||
		 !topic_role_may_use_kafka_group(join->role, join->group,
										 join->topics, join->ntopics,
										 rights->owner) ||
		 (rights->ntopics > 0 &&
		  !topic_role_may_use_kafka_group(join->role, join->group,
										  rights->topics, rights->ntopics,
										  rights->owner))))
		return KAFKA_GROUP_AUTHORIZATION_FAILED;
	for (int i = 0; i < rights->nmembers; i++)
	{
		KafkaMemberRights *m = &rights->members[i];

		if (m->role == join->role)
			continue;
		if (!topic_role_may_use_kafka_group(m->role, join->group, m->topics,
											m->ntopics, rights->owner) ||
			(claim &&
			 !topic_role_may_use_kafka_group(m->role, join->group,
											 join->topics, join->ntopics,
											 rights->owner)))
			rights->members[nevict++] = *m;
	}
	if (nevict > 0)
		kafka_group_evict(join->group, rights->members, nevict);
	return KAFKA_NONE;
}

/*
 * May member member_id of group, of role, still use the group?  A REVOKE
 * (or role no longer being a member of the group's owner) ends its rights
 * at its next request: it leaves the group, and the request is
 * GROUP_AUTHORIZATION_FAILED.  The catalog is read in the request's
 * transaction, or, for the requests that run outside one (Heartbeat,
 * SyncGroup), in a transaction of its own, and only for a member.
 */
int16
kafka_group_member_rights(const char *group, const char *member_id, Oid role)
{
	MemoryContext caller = CurrentMemoryContext;
	KafkaGroupRights *rights = palloc(sizeof(KafkaGroupRights));
	KafkaMemberRights *m = NULL;
	bool		own_xact = !IsTransactionState();
	bool		allowed;

	if (!kafka_group_rights(group, rights))
		return KAFKA_NONE;
	for (int i = 0; i < rights->nmembers && m == NULL; i++)
		if (rights->members[i].role == role &&
			strcmp(rights->members[i].id, member_id) == 0)
			m = &rights->members[i];
	if (m == NULL)
		return KAFKA_NONE;		/* the coordinator answers for it */
	if (own_xact)
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
	}
	allowed = topic_role_may_use_kafka_group(role, group, m->topics,
											 m->ntopics, rights->owner);
	if (own_xact)
	{
		PopActiveSnapshot();
		CommitTransactionCommand();
		MemoryContextSwitchTo(caller);
	}
	if (allowed)
		return KAFKA_NONE;
	kafka_group_evict(group, m, 1);
	return KAFKA_GROUP_AUTHORIZATION_FAILED;
}

/*
 * A member's request outside a transaction (SyncGroup, Heartbeat,
 * LeaveGroup) on a connection whose role may no longer log in: the member
 * leaves its group at once, so that its partitions go to the others, and
 * the connection closes, as for any other request of such a connection
 * (kafka_xact_begin checks those)
 */
static void
check_member_role(KafkaRequest *req, const char *group, KafkaBytes member_id)
{
	if (kafka_conn_still_allowed(req->conn))
		return;
	if (group != NULL)
		(void) kafka_group_leave(group, short_string(member_id), "",
								 kafka_conn_role(req->conn));
	kafka_conn_refuse(req->conn);
}

/* Write a JoinGroup response */
static void
write_join(KafkaRequest *req, int16 error, const KafkaGroupReply *reply)
{
	KafkaJoinGroupResponse out = {0};

	out.error_code = error;
	out.generation_id = error == KAFKA_NONE ? reply->generation : -1;
	out.protocol_type = kafka_bytes_of(error == KAFKA_NONE ?
									   reply->protocol_type : NULL);
	/* null from v7 on when there is none, "" before */
	out.protocol_name = kafka_bytes_of(error == KAFKA_NONE ? reply->protocol :
									   req->api_version >= 7 ? NULL : "");
	out.leader = kafka_bytes_of(error == KAFKA_NONE ? reply->leader : "");
	out.member_id = kafka_bytes_of(reply->member_id);
	out.skip_assignment = error == KAFKA_NONE && reply->skip_assignment;
	if (error == KAFKA_NONE && reply->nmembers > 0)
	{
		out.nmembers = reply->nmembers;
		out.members = palloc0(sizeof(KafkaJoinGroupResponseMember) *
							  reply->nmembers);
		for (int i = 0; i < reply->nmembers; i++)
		{
			out.members[i].member_id = kafka_bytes_of(reply->members[i].id);
			out.members[i].group_instance_id =
				kafka_bytes_of(reply->members[i].instance_id[0] ?
							   reply->members[i].instance_id : NULL);
			out.members[i].metadata.data = reply->members[i].metadata;
			out.members[i].metadata.len = reply->members[i].metadata_len;
		}
	}
	kafka_encode(req->response, &kafka_join_group_response, req->api_version,
				 &out);
}

/* JoinGroup v0-9 */
KafkaOutcome
kafka_join_group(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaJoinGroupRequest jr;
	KafkaJoin	join;
	KafkaGroupReply reply;
	int16		error = KAFKA_NONE;
	bool		retry = req->conn->parked;

	if (!kafka_decode(&req->body, &kafka_join_group_request, req->api_version,
					  &jr))
		return KAFKA_CLOSE;
	memset(&join, 0, sizeof(join));
	memset(&reply, 0, sizeof(reply));
	join.session_timeout = jr.session_timeout_ms;
	/* v0 has none: Kafka's rebalance timeout is then the session's */
	join.rebalance_timeout = req->api_version >= 1 ? jr.rebalance_timeout_ms :
		jr.session_timeout_ms;
	join.member_id = short_string(jr.member_id);
	join.instance_id = short_string(jr.group_instance_id);
	/* parked: the member may have got its id when it first ran */
	if (retry)
		join.member_id = pstrdup(req->watch->member_id);
	join.protocol_type = short_string(jr.protocol_type);
	for (int32 i = 0; i < jr.nprotocols; i++)
	{
		KafkaJoinGroupRequestProtocol *offered = &jr.protocols[i];

		if (join.nprotocols < KAFKA_MAX_PROTOCOLS && offered->name.len > 0 &&
			offered->name.len < KAFKA_PROTOCOL_NAME_LEN)
		{
			KafkaProtocol *p = &join.protocols[join.nprotocols++];

			p->name = kafka_bytes_cstring(offered->name);
			p->metadata = offered->metadata.data;
			p->len = Max(offered->metadata.len, 0);
		}
	}
	join.group = group_name(jr.group_id);
	join.client_id = short_string(req->client_id);
	join.client_host = req->conn->peer;
	join.id_required = req->api_version >= 4;
	join.role = GetUserId();
	strlcpy(reply.member_id, join.member_id, KAFKA_MEMBER_ID_LEN);

	if (join.group == NULL)
		error = KAFKA_INVALID_GROUP_ID;
	else if (kafka_node_fenced())
		error = KAFKA_NOT_COORDINATOR;
	else if (join.nprotocols == 0)
		error = KAFKA_INCONSISTENT_GROUP_PROTOCOL;
	else if (!retry)
	{
		if (strcmp(join.protocol_type, "consumer") == 0)
			error = subscribed_topics(&join, &join.protocols[0]);
		if (error == KAFKA_NONE)
			error = judge_join(&join);
	}
	if (error == KAFKA_NONE)
	{
		error = kafka_group_join(&join, retry, &reply);
		if (error == KAFKA_NONE && !reply.done)
		{
			strlcpy(req->watch->member_id, reply.member_id, NAMEDATALEN);
			if (!req->last_try)
				return park(req, &reply, join.rebalance_timeout, deadline);
			error = KAFKA_REBALANCE_IN_PROGRESS;
		}
	}
	write_join(req, error, &reply);
	return KAFKA_ANSWER;
}

/*
 * SyncGroup v0-5.  From v5 the member names the protocol type and name it
 * joined with, and the answer names the group's (KIP-559).
 */
KafkaOutcome
kafka_sync_group(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaSyncGroupRequest sr;
	KafkaSyncGroupResponse out = {0};
	KafkaAssignment *assignments;
	KafkaGroupReply reply;
	char	   *group;
	int16		error = KAFKA_NONE;

	if (!kafka_decode(&req->body, &kafka_sync_group_request, req->api_version,
					  &sr))
		return KAFKA_CLOSE;
	group = group_name(sr.group_id);
	check_member_role(req, group, sr.member_id);
	assignments = palloc(sizeof(KafkaAssignment) * Max(sr.nassignments, 1));
	for (int32 i = 0; i < sr.nassignments; i++)
	{
		KafkaBytes	data = sr.assignments[i].assignment;

		CHECK_FOR_INTERRUPTS();
		assignments[i].member_id = short_string(sr.assignments[i].member_id);
		assignments[i].data = data.data;
		assignments[i].len = Max(data.len, 0);
	}

	memset(&reply, 0, sizeof(reply));
	if (group == NULL)
		error = KAFKA_INVALID_GROUP_ID;
	else if (kafka_node_fenced())
		error = KAFKA_NOT_COORDINATOR;
	else if (!req->conn->parked)
		error = kafka_group_member_rights(group, short_string(sr.member_id),
										  kafka_conn_role(req->conn));
	if (group != NULL && error == KAFKA_NONE)
	{
		error = kafka_group_sync(group, short_string(sr.member_id),
								 short_string(sr.group_instance_id),
								 sr.generation_id, kafka_conn_role(req->conn),
								 req->conn->parked, assignments,
								 sr.nassignments, &reply);
		if (error == KAFKA_NONE && !reply.done)
		{
			if (!req->last_try)
				return park(req, &reply, pg_topics_session_timeout, deadline);
			error = KAFKA_REBALANCE_IN_PROGRESS;
		}
	}
	out.error_code = error;
	out.protocol_type = kafka_bytes_of(NULL);
	out.protocol_name = kafka_bytes_of(NULL);
	if (error == KAFKA_NONE)
	{
		out.protocol_type = kafka_bytes_of(reply.protocol_type[0] ?
										   reply.protocol_type : NULL);
		out.protocol_name = kafka_bytes_of(reply.protocol[0] ?
										   reply.protocol : NULL);
		out.assignment.data = reply.assignment;
		out.assignment.len = reply.assignment_len;
	}
	kafka_encode(req->response, &kafka_sync_group_response, req->api_version,
				 &out);
	return KAFKA_ANSWER;
}

/* Heartbeat v0-4 */
KafkaOutcome
kafka_heartbeat(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaHeartbeatRequest hr;
	KafkaHeartbeatResponse out = {0};
	char	   *group;
	char	   *member_id;
	int16		error;

	if (!kafka_decode(&req->body, &kafka_heartbeat_request, req->api_version,
					  &hr))
		return KAFKA_CLOSE;
	group = group_name(hr.group_id);
	check_member_role(req, group, hr.member_id);
	member_id = short_string(hr.member_id);
	if (group == NULL)
		error = KAFKA_INVALID_GROUP_ID;
	else if (kafka_node_fenced())
		error = KAFKA_NOT_COORDINATOR;
	else if ((error = kafka_group_member_rights(group, member_id,
												kafka_conn_role(req->conn))) == KAFKA_NONE)
		error = kafka_group_heartbeat(group, member_id,
									  short_string(hr.group_instance_id),
									  hr.generation_id,
									  kafka_conn_role(req->conn));
	out.error_code = error;
	kafka_encode(req->response, &kafka_heartbeat_response, req->api_version,
				 &out);
	return KAFKA_ANSWER;
}

/*
 * LeaveGroup v0-5: one member (v0-2), or a batch of them (v3+), each
 * answered on its own; the request's error is the group's
 */
KafkaOutcome
kafka_leave_group(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaLeaveGroupRequest lr;
	KafkaLeaveGroupResponse out = {0};
	char	   *group;
	int16		group_error = KAFKA_NONE;

	if (!kafka_decode(&req->body, &kafka_leave_group_request, req->api_version,
					  &lr))
		return KAFKA_CLOSE;
	group = group_name(lr.group_id);
	if (req->api_version < 3)
		check_member_role(req, group, lr.member_id);
	else
		for (int32 i = 0; i < lr.nmembers; i++)
			check_member_role(req, group, lr.members[i].member_id);
	if (group == NULL)
		group_error = KAFKA_INVALID_GROUP_ID;
	else if (kafka_node_fenced())
		group_error = KAFKA_NOT_COORDINATOR;

	if (req->api_version < 3)
		out.error_code = group_error != KAFKA_NONE ? group_error :
			kafka_group_leave(group, short_string(lr.member_id), "",
							  kafka_conn_role(req->conn));
	else
	{
		out.error_code = group_error;
		out.nmembers = group_error == KAFKA_NONE ? lr.nmembers : 0;
		out.members = palloc0(sizeof(KafkaLeaveGroupMemberResponse) *
							  Max(lr.nmembers, 1));
		for (int32 i = 0; i < out.nmembers; i++)
		{
			KafkaLeaveGroupMemberIdentity *m = &lr.members[i];

			CHECK_FOR_INTERRUPTS();
			out.members[i].member_id = m->member_id;
			out.members[i].group_instance_id = m->group_instance_id;
			out.members[i].error_code =
				kafka_group_leave(group, short_string(m->member_id),
								  short_string(m->group_instance_id),
								  kafka_conn_role(req->conn));
		}
	}
	kafka_encode(req->response, &kafka_leave_group_response, req->api_version,
				 &out);
	return KAFKA_ANSWER;
}

/* Is name one of names (C strings)? */
static bool
name_listed(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp(lfirst(lc), name) == 0)
			return true;
	return false;
}

/* A pg_topics group, as collect_group copies it */
typedef struct CollectedGroup
{
	Oid			topic;
	Oid			owner;
	char		name[GROUP_NAME_LEN];
} CollectedGroup;

/* Copies a pg_topics group (visitors run under the groups' lock: copy only) */
static void
collect_group(void *arg, Oid topic, const char *group, Oid owner,
			  int32 generation, int nmembers)
{
	List	  **groups = (List **) arg;
	CollectedGroup *g = palloc(sizeof(CollectedGroup));

	g->topic = topic;
	g->owner = owner;
	strlcpy(g->name, group, GROUP_NAME_LEN);
	*groups = lappend(*groups, g);
}

/*
 * The names of the groups a client may see: those with Kafka members, and
 * those that only have positions (Kafka's Empty groups) of the Kafka
 * schema's topics that the role may read and control
 */
static List *
visible_groups(void)
{
	List	   *names = kafka_group_names();
	List	   *groups = NIL;
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	ListCell   *lc;

	topic_groups_ensure_loaded();
	topic_groups_visit(collect_group, NULL, NULL, &groups);
	foreach(lc, groups)
	{
		CollectedGroup *g = lfirst(lc);
		Oid			topic_owner;

		if (get_rel_namespace(g->topic) != nspid ||
			!kafka_topic_allowed(g->topic, ACL_SELECT) ||
			!OidIsValid(topic_owner = relation_owner(g->topic)) ||
			!topic_role_controls_group(GetUserId(), topic_owner, g->owner) ||
			name_listed(names, g->name))
			continue;
		names = lappend(names, pstrdup(g->name));
	}
	list_free_deep(groups);
	return names;
}

/* DescribeGroups v0-5 */
KafkaOutcome
kafka_describe_groups(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDescribeGroupsRequest dr;
	KafkaDescribeGroupsResponse out = {0};
	List	   *positions = NIL;
	bool		positions_read = false;

	/* include_authorized_operations (v3): never answered (below) */
	if (!kafka_decode(&req->body, &kafka_describe_groups_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;

	out.ngroups = dr.ngroups;
	out.groups = palloc0(sizeof(KafkaDescribedGroup) * Max(dr.ngroups, 1));
	for (int32 i = 0; i < dr.ngroups; i++)
	{
		KafkaDescribedGroup *d = &out.groups[i];
		char	   *group = group_name(dr.groups[i]);
		KafkaGroupReply *reply = palloc0(sizeof(KafkaGroupReply));
		bool		known = group != NULL && kafka_group_describe(group, reply);
		Oid			owner = known ? kafka_group_owner(group) : InvalidOid;

		CHECK_FOR_INTERRUPTS();
		/* a group with positions only is Empty, without members */
		if (!known && group != NULL && !positions_read)
		{
			/* once: a request naming millions of groups costs no more */
			positions = visible_groups();
			positions_read = true;
		}
		if (!known && group != NULL && name_listed(positions, group))
		{
			memset(reply, 0, sizeof(*reply));
			reply->state = KAFKA_GROUP_EMPTY;
			/* positions are a consumer group's, as ListGroups says */
			strlcpy(reply->protocol_type, "consumer", KAFKA_PROTOCOL_NAME_LEN);
			known = true;
		}

		/* another role's group is answered as one that does not exist */
		if (known && OidIsValid(owner) && !has_privs_of_role(GetUserId(), owner))
			known = false;
		d->error_code = group == NULL ? KAFKA_INVALID_GROUP_ID : KAFKA_NONE;
		d->group_id = dr.groups[i];
		if (d->group_id.len < 0)
			d->group_id = kafka_bytes_of("");
		/* an unknown group is reported Dead, as Kafka does */
		d->group_state = kafka_bytes_of(known ? state_names[reply->state] : "Dead");
		d->protocol_type = kafka_bytes_of(known ? reply->protocol_type : "");
		d->protocol_data = kafka_bytes_of(known ? reply->protocol : "");
		/* operations: never asked for (Kafka's "not requested") */
		d->authorized_operations = PG_INT32_MIN;
		if (!known || reply->nmembers == 0)
			continue;
		d->nmembers = reply->nmembers;
		d->members = palloc0(sizeof(KafkaDescribedGroupMember) * reply->nmembers);
		for (int m = 0; m < reply->nmembers; m++)
		{
			KafkaMemberView *v = &reply->members[m];
			KafkaDescribedGroupMember *dm = &d->members[m];

			dm->member_id = kafka_bytes_of(v->id);
			dm->group_instance_id = kafka_bytes_of(v->instance_id[0] ?
												   v->instance_id : NULL);
			dm->client_id = kafka_bytes_of(v->client_id);
			dm->client_host = kafka_bytes_of(v->client_host);
			dm->member_metadata.data = v->metadata;
			dm->member_metadata.len = v->metadata_len;
			dm->member_assignment.data = v->assignment;
			dm->member_assignment.len = v->assignment_len;
		}
	}
	kafka_encode(req->response, &kafka_describe_groups_response,
				 req->api_version, &out);
	return KAFKA_ANSWER;
}

/*
 * Is s (a C string) one of filter's strings, case aside, as Kafka compares
 * states and types?  An empty filter takes all.
 */
static bool
filter_takes(int32 n, const KafkaBytes *filter, const char *s)
{
	if (n <= 0)
		return true;
	for (int32 i = 0; i < n; i++)
	{
		if (filter[i].len == (int32) strlen(s) &&
			pg_strncasecmp(filter[i].data, s, filter[i].len) == 0)
			return true;
	}
	return false;
}

/*
 * ListGroups v0-5: the groups whose owner's privileges the role has, each
 * with its protocol type (a group's members' "consumer", or what else
 * they joined with; a group with positions only is a consumer group's),
 * from v4 its state, filtered by the states asked for, and from v5 its
 * type: every group here is a "classic" one (Kafka's rebalance protocol,
 * not KIP-848's), filtered by the types asked for.
 */
KafkaOutcome
kafka_list_groups(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaListGroupsRequest lr;
	KafkaListGroupsResponse out = {0};
	List	   *names;
	ListCell   *lc;

	if (!kafka_decode(&req->body, &kafka_list_groups_request, req->api_version,
					  &lr))
		return KAFKA_CLOSE;
	names = visible_groups();
	out.groups = palloc0(sizeof(KafkaListedGroup) * Max(list_length(names), 1));
	foreach(lc, names)
	{
		char	   *group = lfirst(lc);
		Oid			owner = kafka_group_owner(group);
		KafkaGroupReply *reply = palloc0(sizeof(KafkaGroupReply));
		KafkaListedGroup *g;
		const char *state;
		const char *type;

		CHECK_FOR_INTERRUPTS();
		if (OidIsValid(owner) && !has_privs_of_role(GetUserId(), owner))
			continue;
		if (kafka_group_describe(group, reply))
		{
			state = state_names[reply->state];
			/* a group whose members all left keeps no protocol here */
			type = reply->protocol_type[0] ? reply->protocol_type : "consumer";
		}
		else
		{
			state = state_names[KAFKA_GROUP_EMPTY];
			type = "consumer";
		}
		if (!filter_takes(lr.nstates_filter, lr.states_filter, state) ||
			!filter_takes(lr.ntypes_filter, lr.types_filter, "classic"))
			continue;
		g = &out.groups[out.ngroups++];
		g->group_id = kafka_bytes_of(group);
		g->protocol_type = kafka_bytes_of(pstrdup(type));
		g->group_state = kafka_bytes_of(state);
		g->group_type = kafka_bytes_of("classic");
	}
	out.error_code = KAFKA_NONE;
	kafka_encode(req->response, &kafka_list_groups_response, req->api_version,
				 &out);
	return KAFKA_ANSWER;
}
