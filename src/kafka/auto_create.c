/*-------------------------------------------------------------------------
 *
 * auto_create.c
 *	  Topics created on first use: a Metadata request naming a topic that
 *	  does not exist creates it, when pg_topics.kafka_auto_create_topics
 *	  is on (Kafka's auto.create.topics.enable).
 *
 * Kafka creates a topic there when the broker allows it and the request
 * does (Metadata v4+'s allow_auto_topic_creation; always before v4).  So
 * does this file, with what CreateTopics would make of the name (admin.c):
 * a topic of pg_topics.kafka_default_partitions partitions (Kafka's
 * num.partitions) in pg_topics.kafka_schema, bytea keys and values, made
 * as the connection's role, who owns it.  Kafka checks the principal's
 * CREATE right before it creates and answers TOPIC_AUTHORIZATION_FAILED
 * without it; here that right is CREATE on the schema, as for
 * topics.create_topic.  A name Kafka could not have is answered by the
 * caller as it is without this setting (INVALID_TOPIC_EXCEPTION), and
 * nothing is created.
 *
 * Kafka creates asynchronously, answering LEADER_NOT_AVAILABLE until the
 * new partitions have leaders; clients ask again.  Here the topic is made
 * in the request's transaction, which commits before the answer goes
 * out, so the answer lists its partitions at once (clients accept either,
 * and the topic is usable with one round trip less).  Only a request that
 * could not create it now answers LEADER_NOT_AVAILABLE, for the client to
 * ask again: another connection is creating the same topic (the first
 * to take a lock on the name creates it, and the others find it when
 * they ask again, rather than waiting for it or failing on the
 * catalog's unique index), the request has already created as many
 * partitions as one transaction may lock (admin.c's budget), or this node
 * refuses writes (fence.c: a standby, a fenced primary, a role made
 * read-only), where the client goes on asking until the writable primary
 * answers.
 *
 * Produce, Fetch and ListOffsets never create (nor do they in Kafka):
 * they answer UNKNOWN_TOPIC_OR_PARTITION, and clients then ask Metadata,
 * which creates.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"

#include "pg_topics/api/topics.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/auto_create.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/protocol.h"

/*
 * The advisory lock's field4 for a topic name being created: SQL's
 * advisory locks use 1 and 2, the group partition locks (api/poll.c) 3
 * and up
 */
#define AUTO_CREATE_LOCK_FIELD4		0

/* What create_topic makes */
typedef struct AutoTopic
{
	text	   *name;			/* schema-qualified, quoted */
	int32		partitions;
} AutoTopic;

static void
create_topic(void *arg)
{
	AutoTopic  *t = (AutoTopic *) arg;

	(void) topic_create(t->name, t->partitions, BYTEAOID, BYTEAOID,
						NULL, false, 0);
}

/*
 * Does the topic a Kafka client names exist, or a relation its table would
 * be named as (a name over 63 bytes maps to a shorter one: topic_names.c)?
 * Either way it is not created.
 */
static bool
topic_exists(Oid nspid, KafkaBytes name)
{
	return OidIsValid(topic_kafka_lookup(name.data, name.len)) ||
		OidIsValid(get_relname_relid(topic_kafka_table_name(name.data, name.len),
									 nspid));
}

/*
 * Take the transaction's lock on creating relname in nspid, if nobody
 * holds it
 */
static bool
lock_name(Oid nspid, const char *relname)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, nspid,
						 hash_bytes((const unsigned char *) relname,
									strlen(relname)),
						 AUTO_CREATE_LOCK_FIELD4);
	return LockAcquire(&tag, ExclusiveLock, false, true) != LOCKACQUIRE_NOT_AVAIL;
}

/*
 * Create the topic name that a Metadata request names, if it does not
 * exist and may be created now.  KAFKA_NONE if the caller is to answer
 * for the topic as usual (it exists now, or it does not and cannot be
 * created: unknown, or an invalid name); otherwise the error to answer
 * instead, with no partitions.  *locks_left is what the request may still
 * create, in partitions; -1 before its first creation.
 */
int16
kafka_auto_create_topic(KafkaBytes name, int64 *locks_left)
{
	char	   *relname;
	Oid			nspid;
	AutoTopic	topic;
	int16		error;

	if (!pg_topics_kafka_auto_create_topics || !kafka_topic_name_valid(name))
		return KAFKA_NONE;
	nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	if (!OidIsValid(nspid))
		return KAFKA_NONE;
	/* __consumer_offsets is served as it is; the others exist or not */
	if (topic_kafka_name_reserved(name.data, name.len) ||
		topic_exists(nspid, name))
		return KAFKA_NONE;
	relname = kafka_bytes_cstring(name);

	/* as Kafka: no right to create is an authorization failure */
	if (pg_namespace_aclcheck(nspid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		return KAFKA_TOPIC_AUTHORIZATION_FAILED;
	if (kafka_writes_refused())
		return KAFKA_LEADER_NOT_AVAILABLE;

	/*
	 * A topic wider than any transaction may create (admin.c) is refused
	 * for good; one wider than what this request may still create is made
	 * when the client asks again
	 */
	if (pg_topics_kafka_default_partitions > topic_width_limit())
		return KAFKA_INVALID_PARTITIONS;
	if (*locks_left < 0)
		*locks_left = topic_width_limit();
	if (pg_topics_kafka_default_partitions > *locks_left)
		return KAFKA_LEADER_NOT_AVAILABLE;

	/*
	 * Another connection creating it holds the lock until its transaction
	 * ends: it will exist when the client asks again.  Whoever takes the
	 * lock looks again, with the catalog as of now, since the holder it
	 * waited for may have created it meanwhile.
	 */
	if (!lock_name(nspid, relname))
		return KAFKA_LEADER_NOT_AVAILABLE;
	AcceptInvalidationMessages();
	if (topic_exists(nspid, name))
		return KAFKA_NONE;

	topic.name = cstring_to_text(quote_qualified_identifier(pg_topics_kafka_schema,
															relname));
	topic.partitions = pg_topics_kafka_default_partitions;
	error = kafka_run_guarded(create_topic, &topic, NULL);
	if (error == KAFKA_NONE)
	{
		/* what it created keeps its locks until the request ends */
		*locks_left -= topic.partitions;
		return KAFKA_NONE;
	}

	/*
	 * A right the creation needs besides CREATE on the schema is missing;
	 * anything else (a SQL session created it meanwhile and the catalog's
	 * unique index refused ours, a lock in the way, the node fenced since,
	 * the server's own trouble, which kafka_run_guarded logged) passes:
	 * the client asks again.
	 */
	if (error == KAFKA_TOPIC_AUTHORIZATION_FAILED)
		return error;
	return KAFKA_LEADER_NOT_AVAILABLE;
}
