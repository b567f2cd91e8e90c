/*-------------------------------------------------------------------------
 *
 * admin.c
 *	  CreateTopics (v0-4) and DeleteTopics (v0-1): what Kafka's admin
 *	  clients do to topics.
 *
 * CreateTopics is topics.create_topic in pg_topics.kafka_schema, as the
 * connection's role (who needs CREATE on the schema and owns the topic),
 * with bytea keys and values, since Kafka records are bytes.  It takes
 * the partition count (-1: one, Kafka's default), a replication factor of
 * -1 or 1 (pg_topics is one broker: copies are PostgreSQL's standbys),
 * and the configs retention.ms, retention.bytes and cleanup.policy=delete;
 * anything else is refused rather than ignored.  validate_only runs the
 * creation and rolls it back, so it fails exactly as the creation would.
 * DeleteTopics is topics.drop_topic, which needs ownership.  A node that
 * refuses writes (fence.c) is no controller: both answer NOT_CONTROLLER
 * for every topic, and admin clients look for the controller again.
 *
 * The topics of one CreateTopics are created in the request's transaction,
 * whose locks on every new partition last until it ends.  So the request
 * creates, together, at most as many partitions as create_topic allows one
 * topic (topic_width_limit: what the shared lock table can hold while
 * others hold their usual locks); a topic beyond that is POLICY_VIOLATION,
 * to be sent again in a request of its own, and one wider than that alone
 * is INVALID_PARTITIONS.  Otherwise one request would fill the lock table,
 * and every other session would fail with "out of shared memory".
 *
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg_topics/api/topics.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/requests.h"

/* Kafka's INVALID_REPLICA_ASSIGNMENT */
#define KAFKA_INVALID_REPLICA_ASSIGNMENT	39

/* One topic to create */
typedef struct NewTopic
{
	text	   *name;			/* schema-qualified, quoted */
	int32		partitions;
	Interval   *retention;		/* NULL: none */
	bool		has_retention_bytes;
	int64		retention_bytes;
} NewTopic;

static void
create_topic(void *arg)
{
	NewTopic   *t = (NewTopic *) arg;

	(void) topic_create(t->name, t->partitions, BYTEAOID, BYTEAOID,
						t->retention, t->has_retention_bytes,
						t->retention_bytes);
}

/* Read one config into t; an error code and message if it is not taken */
static int16
read_config(NewTopic *t, KafkaBytes name, KafkaBytes value, char **message)
{
	char	   *v = kafka_bytes_cstring(value);
	char	   *end;
	int64		n;

	if (kafka_bytes_equal(name, "cleanup.policy") && v && strcmp(v, "delete") == 0)
		return KAFKA_NONE;
	if ((kafka_bytes_equal(name, "retention.ms") ||
		 kafka_bytes_equal(name, "retention.bytes")) && v != NULL)
	{
		errno = 0;
		n = strtoi64(v, &end, 10);
		if (errno != 0 || *end != '\0' || (n <= 0 && n != -1))
		{
			*message = psprintf("invalid value \"%s\" for config %s", v,
								kafka_bytes_cstring(name));
			return KAFKA_INVALID_CONFIG;
		}
		if (n == -1)
			return KAFKA_NONE;	/* -1: unlimited, the default */
		if (kafka_bytes_equal(name, "retention.bytes"))
		{
			t->has_retention_bytes = true;
			t->retention_bytes = n;
		}
		else
		{
			t->retention = palloc0(sizeof(Interval));
			t->retention->time = (n % (int64) (SECS_PER_DAY * 1000)) * 1000;
			t->retention->day = (int32) Min(n / (int64) (SECS_PER_DAY * 1000), PG_INT32_MAX);
		}
		return KAFKA_NONE;
	}
	*message = psprintf("config %s is not supported: pg_topics takes retention.ms, retention.bytes and cleanup.policy=delete",
						name.len >= 0 ? kafka_bytes_cstring(name) : "(null)");
	return KAFKA_INVALID_CONFIG;
}

/* CreateTopics v0-4 */
KafkaOutcome
kafka_create_topics(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaCreateTopicsRequest cr;
	int32		ntopics;
	int16	   *errors;
	char	  **messages;
	NewTopic   *topics;
	int32		node_id;
	bool		refused;
	int64		width = topic_width_limit();
	int64		budget = width;

	/* timeout_ms: the creation is done when the answer goes out */
	if (!kafka_parse_create_topics_request(&req->body, req->api_version, &cr))
		return KAFKA_CLOSE;
	ntopics = cr.ntopics;
	node_id = kafka_self_broker(req->conn).node_id;
	refused = kafka_writes_refused();
	errors = palloc(sizeof(int16) * Max(ntopics, 1));
	messages = palloc0(sizeof(char *) * Max(ntopics, 1));
	topics = palloc0(sizeof(NewTopic) * Max(ntopics, 1));

	for (int32 i = 0; i < ntopics; i++)
	{
		KafkaNewTopicRequest *t = &cr.topics[i];

		topics[i].partitions = t->num_partitions;
		errors[i] = KAFKA_NONE;
		for (int32 a = 0; a < t->nassignments; a++)
			for (int32 b = 0; b < t->assignments[a].nbrokers; b++)
				if (t->assignments[a].broker_ids[b] != node_id)
					errors[i] = KAFKA_INVALID_REPLICA_ASSIGNMENT;
		if (t->nassignments > 0 && topics[i].partitions == -1)
			topics[i].partitions = t->nassignments;
		for (int32 c = 0; c < t->nconfigs && errors[i] == KAFKA_NONE; c++)
			errors[i] = read_config(&topics[i], t->configs[c].name,
									t->configs[c].value, &messages[i]);
		if (errors[i] != KAFKA_NONE)
			continue;
		if (topics[i].partitions == -1)
			topics[i].partitions = 1;
		if (!kafka_topic_name_valid(t->name))
			errors[i] = KAFKA_INVALID_TOPIC_EXCEPTION;
		else if (topics[i].partitions <= 0)
			errors[i] = KAFKA_INVALID_PARTITIONS;
		else if (t->replication_factor != -1 && t->replication_factor != 1)
		{
			errors[i] = KAFKA_INVALID_REPLICATION_FACTOR;
			messages[i] = "pg_topics is one broker: a topic's copies are the server's standbys, so the replication factor is 1";
		}
	}

	if (req->api_version >= 2)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, ntopics);
	for (int32 i = 0; i < ntopics; i++)
	{
		KafkaBytes	name = cr.topics[i].name;

		CHECK_FOR_INTERRUPTS();
		if (refused)
		{
			errors[i] = KAFKA_NOT_CONTROLLER;
			messages[i] = NULL;
		}
		else if (errors[i] == KAFKA_NONE)
		{
			char	   *relname = kafka_bytes_cstring(name);
			Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);

			/* the topic, or any relation its table would be named as */
			if (topic_kafka_name_reserved(name.data, name.len))
			{
				errors[i] = KAFKA_INVALID_TOPIC_EXCEPTION;
				messages[i] = psprintf("%s is one of Kafka's internal topics", relname);
			}
			else if (OidIsValid(topic_kafka_lookup(name.data, name.len)) ||
				(OidIsValid(nspid) &&
				 OidIsValid(get_relname_relid(topic_kafka_table_name(name.data, name.len),
											  nspid))))
				errors[i] = KAFKA_TOPIC_ALREADY_EXISTS;
			else if (topics[i].partitions > width)
			{
				errors[i] = KAFKA_INVALID_PARTITIONS;
				messages[i] = psprintf("a topic can have at most about %lld partitions with max_locks_per_transaction = %d",
									   (long long) width, max_locks_per_xact);
			}
			else if (topics[i].partitions > budget && !cr.validate_only)
			{
				errors[i] = KAFKA_POLICY_VIOLATION;
				messages[i] = psprintf("the topics before it in this request already lock %lld of the about %lld partitions one request may create; create it in a request of its own",
									   (long long) (width - budget), (long long) width);
			}
			else
			{
				topics[i].name = cstring_to_text(quote_qualified_identifier(pg_topics_kafka_schema,
																			relname));
				errors[i] = cr.validate_only ?
					kafka_run_trial(create_topic, &topics[i], &messages[i]) :
					kafka_run_guarded(create_topic, &topics[i], &messages[i]);
				if (errors[i] == KAFKA_INVALID_RECORD)
					errors[i] = KAFKA_INVALID_REQUEST;
				/* what it created keeps its locks until the request ends */
				if (errors[i] == KAFKA_NONE && !cr.validate_only)
					budget -= topics[i].partitions;
			}
		}
		kafka_write_string_len(out, name.data, Max(name.len, 0));
		kafka_write_int16(out, errors[i]);
		if (req->api_version >= 1)
			kafka_write_string(out, errors[i] == KAFKA_NONE ? NULL : messages[i]);
	}
	return KAFKA_ANSWER;
}

/* One topic to drop */
static void
drop_topic(void *arg)
{
	topic_drop((text *) arg);
}

/* DeleteTopics v0-1 */
KafkaOutcome
kafka_delete_topics(KafkaRequest *req, TimestampTz *deadline)
{
	StringInfo	out = req->response;
	KafkaDeleteTopicsRequest dr;
	int32		ntopics;
	KafkaBytes *names;
	bool		refused = kafka_writes_refused();

	/* timeout_ms: the drop is done when the answer goes out */
	if (!kafka_parse_delete_topics_request(&req->body, req->api_version, &dr))
		return KAFKA_CLOSE;
	ntopics = dr.ntopics;
	names = dr.topics;

	if (req->api_version >= 1)
		kafka_write_int32(out, 0);	/* throttle_time_ms */
	kafka_write_array_len(out, ntopics);
	for (int32 i = 0; i < ntopics; i++)
	{
		int16		error = KAFKA_NOT_CONTROLLER;
		Relation	topic = NULL;

		/* no principal may delete __consumer_offsets */
		if (!refused && topic_kafka_name_reserved(names[i].data, names[i].len))
			error = KAFKA_TOPIC_AUTHORIZATION_FAILED;
		else if (!refused)
			topic = kafka_open_topic(names[i], AccessShareLock,
									 TOPIC_NO_ACL_CHECK, &error);

		CHECK_FOR_INTERRUPTS();
		if (topic != NULL)
		{
			text	   *qualified = cstring_to_text(quote_qualified_identifier(get_namespace_name(RelationGetNamespace(topic)),
																			   RelationGetRelationName(topic)));

			relation_close(topic, AccessShareLock);
			error = kafka_run_guarded(drop_topic, qualified, NULL);
		}
		kafka_write_string_len(out, names[i].data, Max(names[i].len, 0));
		kafka_write_int16(out, error);
	}
	return KAFKA_ANSWER;
}
