/*-------------------------------------------------------------------------
 *
 * acl_operations.c
 *	  Kafka's authorized operations (Metadata v8+), answered from the
 *	  role's privileges, as each API served checks them:
 *
 *	topic	READ		SELECT on it (Fetch, groups)
 *			WRITE		INSERT on it (Produce)
 *			DESCRIBE	SELECT or INSERT (Metadata lists it)
 *			DESCRIBE_CONFIGS	SELECT (DescribeConfigs, as topics.topic_configs)
 *			CREATE		CREATE on pg_topics.kafka_schema (CreateTopics)
 *			DELETE, ALTER, ALTER_CONFIGS
 *						owning it (DeleteTopics is topics.drop_topic,
 *						AlterConfigs topics.alter_topic_configs)
 *	cluster	DESCRIBE	always (Metadata, DescribeGroups are open)
 *			IDEMPOTENT_WRITE	always (InitProducerId is open)
 *			CREATE		CREATE on pg_topics.kafka_schema
 *
 * Usage on the schema is needed for any of them on a topic, as for the
 * APIs themselves (kafka_topic_allowed).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/acl_operations.h"
#include "pg_topics/kafka/handlers.h"

#define OP(code)	((int32) 1 << (code))

/* May the role create topics in the Kafka schema? */
static bool
may_create_topics(void)
{
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);

	return OidIsValid(nspid) &&
		pg_namespace_aclcheck(nspid, GetUserId(), ACL_CREATE) == ACLCHECK_OK;
}

int32
kafka_topic_authorized_operations(Oid relid)
{
	int32		ops = 0;

	if (kafka_topic_allowed(relid, ACL_SELECT))
		ops |= OP(KAFKA_ACL_READ) | OP(KAFKA_ACL_DESCRIBE) |
			OP(KAFKA_ACL_DESCRIBE_CONFIGS);
	if (kafka_topic_allowed(relid, ACL_INSERT))
		ops |= OP(KAFKA_ACL_WRITE) | OP(KAFKA_ACL_DESCRIBE);
	if (ops != 0 && pg_class_ownercheck(relid, GetUserId()))
		ops |= OP(KAFKA_ACL_DELETE) | OP(KAFKA_ACL_ALTER) |
			OP(KAFKA_ACL_ALTER_CONFIGS);
	if (ops != 0 && may_create_topics())
		ops |= OP(KAFKA_ACL_CREATE);
	return ops;
}

int32
kafka_cluster_authorized_operations(void)
{
	int32		ops = OP(KAFKA_ACL_DESCRIBE) | OP(KAFKA_ACL_IDEMPOTENT_WRITE);

	if (may_create_topics())
		ops |= OP(KAFKA_ACL_CREATE);
	return ops;
}
