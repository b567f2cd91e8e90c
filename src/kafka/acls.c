/*-------------------------------------------------------------------------
 *
 * acls.c
 *	  DescribeAcls (v0-3, read-only): the GRANTs on the Kafka topics and on
 *	  pg_topics.kafka_schema, as Kafka ACLs.
 *
 * pg_topics has no ACLs of its own: SQL privileges decide what a Kafka
 * client may do (docs/kafka.md, Security).  DescribeAcls shows them in
 * Kafka's terms, so that admin tools that list ACLs show who may do what.
 * Every ACL is an ALLOW of a literal resource, for host "*", to principal
 * User:ROLE (User:* for PUBLIC):
 *
 *	topic T, SELECT on T		READ and DESCRIBE
 *	topic T, INSERT on T		WRITE and DESCRIBE
 *	topic T, DELETE on T		DELETE (DeleteRecords)
 *	topic T, its owner			ALTER (CreatePartitions; DeleteTopics)
 *	cluster "kafka-cluster",
 *	  CREATE on the schema		CREATE (CreateTopics)
 *
 * These are the GRANTs themselves (the owner's implicit ones when there
 * are none): a role's members inherit them in SQL, which the list does not
 * spell out.  A caller sees the ACLs of the topics it may SELECT (those
 * Metadata lists to it) and the cluster's.  Filters are Kafka's: a filter
 * with an UNKNOWN element is INVALID_REQUEST; a name, principal or host
 * filter matches equal values (every resource here is literal, every host
 * "*"); DENY matches nothing.  Creating and deleting ACLs is GRANT and
 * REVOKE in SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/msg_describe_acls.h"
#include "pg_topics/wire/protocol.h"

/* Kafka's AclOperation codes */
#define KAFKA_OP_UNKNOWN	0
#define KAFKA_OP_ANY		1
#define KAFKA_OP_READ		3
#define KAFKA_OP_WRITE		4
#define KAFKA_OP_CREATE		5
#define KAFKA_OP_DELETE		6
#define KAFKA_OP_ALTER		7
#define KAFKA_OP_DESCRIBE	8

#define CLUSTER_NAME	"kafka-cluster"

/* The ACLs of one resource being collected, and the request's filter */
typedef struct AclList
{
	const KafkaDescribeAclsRequest *filter;
	KafkaDescribeAclsResource *resource;
	int			room;
} AclList;

static bool
bytes_match(KafkaBytes filter, const char *value)
{
	return filter.len < 0 || kafka_bytes_equal(filter, value);
}

/* Add the ACL of role's operation to list, if the filter takes it */
static void
add_acl(AclList *list, Oid role, int8 operation)
{
	const KafkaDescribeAclsRequest *f = list->filter;
	KafkaDescribeAclsResource *r = list->resource;
	char	   *principal;

	if (role == ACL_ID_PUBLIC)
		principal = "User:*";
	else
	{
		const char *name = GetUserNameFromId(role, true);

		if (name == NULL)
			return;
		principal = psprintf("User:%s", name);
	}
	if (!bytes_match(f->principal_filter, principal) ||
		!bytes_match(f->host_filter, "*") ||
		(f->operation != KAFKA_OP_ANY && f->operation != operation))
		return;
	if (r->nacls == list->room)
	{
		list->room = Max(list->room * 2, 8);
		r->acls = r->acls ? repalloc(r->acls, sizeof(KafkaAclDescription) * list->room) :
			palloc(sizeof(KafkaAclDescription) * list->room);
	}
	r->acls[r->nacls].principal = kafka_bytes_of(principal);
	r->acls[r->nacls].host = kafka_bytes_of("*");
	r->acls[r->nacls].operation = operation;
	r->acls[r->nacls].permission_type = KAFKA_PERMISSION_ALLOW;
	r->nacls++;
}

/* The ACL of an object: its GRANTs, or its owner's defaults */
static Acl *
object_acl(int cacheid, Oid oid, AttrNumber attr, ObjectType type, Oid *owner)
{
	HeapTuple	tuple = SearchSysCache1(cacheid, ObjectIdGetDatum(oid));
	Datum		datum;
	bool		isnull;
	Acl		   *acl;

	if (!HeapTupleIsValid(tuple))
		return NULL;
	*owner = cacheid == RELOID ?
		((Form_pg_class) GETSTRUCT(tuple))->relowner :
		((Form_pg_namespace) GETSTRUCT(tuple))->nspowner;
	datum = SysCacheGetAttr(cacheid, tuple, attr, &isnull);
	acl = isnull ? acldefault(type, *owner) : DatumGetAclPCopy(datum);
	ReleaseSysCache(tuple);
	return acl;
}

/* A topic's ACLs into list */
static void
topic_acls(AclList *list, Oid relid)
{
	Oid			owner;
	Acl		   *acl = object_acl(RELOID, relid, Anum_pg_class_relacl,
								 OBJECT_TABLE, &owner);

	if (acl == NULL)
		return;
	for (int i = 0; i < ACL_NUM(acl); i++)
	{
		AclItem    *item = &ACL_DAT(acl)[i];
		AclMode		privs = ACLITEM_GET_PRIVS(*item);

		if (privs & ACL_SELECT)
			add_acl(list, item->ai_grantee, KAFKA_OP_READ);
		if (privs & ACL_INSERT)
			add_acl(list, item->ai_grantee, KAFKA_OP_WRITE);
		if (privs & ACL_DELETE)
			add_acl(list, item->ai_grantee, KAFKA_OP_DELETE);
		if (privs & (ACL_SELECT | ACL_INSERT))
			add_acl(list, item->ai_grantee, KAFKA_OP_DESCRIBE);
	}
	add_acl(list, owner, KAFKA_OP_ALTER);
}

/* The cluster's ACLs into list: CREATE on the Kafka schema */
static void
cluster_acls(AclList *list, Oid nspid)
{
	Oid			owner;
	Acl		   *acl = object_acl(NAMESPACEOID, nspid, Anum_pg_namespace_nspacl,
								 OBJECT_SCHEMA, &owner);

	if (acl == NULL)
		return;
	for (int i = 0; i < ACL_NUM(acl); i++)
		if (ACLITEM_GET_PRIVS(ACL_DAT(acl)[i]) & ACL_CREATE)
			add_acl(list, ACL_DAT(acl)[i].ai_grantee, KAFKA_OP_CREATE);
}

/* Does the filter take a resource of type and name (literal, as all are)? */
static bool
resource_match(const KafkaDescribeAclsRequest *f, int8 type, const char *name)
{
	return (f->resource_type_filter == KAFKA_RESOURCE_ANY ||
			f->resource_type_filter == type) &&
		f->pattern_type_filter != KAFKA_PATTERN_UNKNOWN &&
		(f->pattern_type_filter == KAFKA_PATTERN_ANY ||
		 f->pattern_type_filter == KAFKA_PATTERN_MATCH ||
		 f->pattern_type_filter == KAFKA_PATTERN_LITERAL) &&
		bytes_match(f->resource_name_filter, name) &&
		(f->permission_type == KAFKA_PERMISSION_ANY ||
		 f->permission_type == KAFKA_PERMISSION_ALLOW);
}

/* DescribeAcls v0-3 */
KafkaOutcome
kafka_describe_acls(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDescribeAclsRequest dr;
	KafkaDescribeAclsResponse resp = {0};
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	List	   *topics;
	AclList		list;
	ListCell   *lc;

	if (!kafka_decode(&req->body, &kafka_describe_acls_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;

	resp.error_message = kafka_bytes_of(NULL);
	if (dr.resource_type_filter == KAFKA_RESOURCE_UNKNOWN ||
		dr.pattern_type_filter == KAFKA_PATTERN_UNKNOWN ||
		dr.operation == KAFKA_OP_UNKNOWN ||
		dr.permission_type == KAFKA_PERMISSION_UNKNOWN)
	{
		resp.error_code = KAFKA_INVALID_REQUEST;
		resp.error_message = kafka_bytes_of("the filter has an UNKNOWN element");
		kafka_encode(req->response, &kafka_describe_acls_response,
					 req->api_version, &resp);
		return KAFKA_ANSWER;
	}

	topics = OidIsValid(nspid) ? topic_list_topics() : NIL;
	resp.resources = palloc0(sizeof(KafkaDescribeAclsResource) *
							 (list_length(topics) + 1));
	list.filter = &dr;
	if (OidIsValid(nspid) &&
		resource_match(&dr, KAFKA_RESOURCE_CLUSTER, CLUSTER_NAME))
	{
		list.resource = &resp.resources[resp.nresources];
		list.room = 0;
		list.resource->resource_type = KAFKA_RESOURCE_CLUSTER;
		list.resource->resource_name = kafka_bytes_of(CLUSTER_NAME);
		list.resource->pattern_type = KAFKA_PATTERN_LITERAL;
		cluster_acls(&list, nspid);
		if (list.resource->nacls > 0)
			resp.nresources++;
	}
	foreach(lc, topics)
	{
		Oid			relid = lfirst_oid(lc);
		char	   *name;
		KafkaBytes	kname;

		CHECK_FOR_INTERRUPTS();
		if (get_rel_namespace(relid) != nspid ||
			!kafka_topic_allowed(relid, ACL_SELECT))
			continue;
		/* a long name's table name is no Kafka name of it */
		name = topic_kafka_name(relid);
		if (name == NULL)
			continue;
		kname.data = name;
		kname.len = strlen(name);
		if (!kafka_topic_name_valid(kname) ||
			!resource_match(&dr, KAFKA_RESOURCE_TOPIC, name))
			continue;
		list.resource = &resp.resources[resp.nresources];
		list.room = 0;
		list.resource->resource_type = KAFKA_RESOURCE_TOPIC;
		list.resource->resource_name = kafka_bytes_of(name);
		list.resource->pattern_type = KAFKA_PATTERN_LITERAL;
		topic_acls(&list, relid);
		if (list.resource->nacls > 0)
			resp.nresources++;
	}
	kafka_encode(req->response, &kafka_describe_acls_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
