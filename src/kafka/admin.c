/*-------------------------------------------------------------------------
 *
 * admin.c
 *	  CreateTopics (v0-7) and DeleteTopics (v0-6): what Kafka's admin
 *	  clients do to topics.
 *
 * CreateTopics is topics.create_topic in pg_topics.kafka_schema, as the
 * connection's role (who needs CREATE on the schema and owns the topic),
 * with bytea keys and values, since Kafka records are bytes, and the
 * topic's configs as create_topic's configs argument takes them
 * (topic_create_configured: one model, base/topic_config.h): an unknown
 * key or a bad value is INVALID_CONFIG with SQL's message, which names the
 * key; a null value leaves its key at its default.  It takes the partition
 * count (-1: one, Kafka's default) and a replication factor of -1 or 1
 * (pg_topics is one broker: copies are PostgreSQL's standbys), or instead
 * of both, assignments naming this broker only, one per partition, from 0
 * up (Kafka's manual assignment; anything else is INVALID_REPLICA_ASSIGNMENT,
 * and a count or factor given with them INVALID_REQUEST, as Kafka answers).
 * From v5 on, the answer has the topic's partitions, replication factor
 * and every config with its source, as DescribeConfigs would answer them;
 * from v7 on its topic id.  validate_only runs the creation and rolls it
 * back, so it fails exactly as the creation would (and answers the same
 * configs, but no topic id).  DeleteTopics is topics.drop_topic, which
 * needs ownership, of topics named by name or (v6) by topic id.  A node
 * that refuses writes (fence.c) is no controller: both answer
 * NOT_CONTROLLER for every topic, and admin clients look for the
 * controller again.
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
#include "pg_topics/base/topic_config.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/configs.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/topic_by_id.h"
#include "pg_topics/kafka/topic_id.h"
#include "pg_topics/wire/msg_create_topics.h"
#include "pg_topics/wire/msg_delete_topics.h"
#include "pg_topics/wire/protocol.h"

/* Kafka's INVALID_REPLICA_ASSIGNMENT */
#define KAFKA_INVALID_REPLICA_ASSIGNMENT	39

/* One topic to create, and what its creation found */
typedef struct NewTopic
{
	text	   *name;			/* schema-qualified, quoted */
	int32		partitions;
	TopicConfigChange *changes;
	int			nchanges;
	bool		describe;		/* fill entries (v5+) */
	Oid			relid;			/* the answer */
	TopicConfigEntry entries[TOPIC_CONFIG_NKEYS];
} NewTopic;

static void
create_topic(void *arg)
{
	NewTopic   *t = (NewTopic *) arg;

	t->relid = topic_create_configured(t->name, t->partitions, BYTEAOID,
									   BYTEAOID, NULL, false, 0,
									   t->changes, t->nchanges);
	/* in the subtransaction, so that a trial answers them too */
	if (t->describe)
		topic_config_describe(t->relid, t->entries);
}

/*
 * Check in's partitions, replication factor, assignments and configs into
 * t; an error code and message (in *message) if the topic is refused
 */
static int16
check_new_topic(NewTopic *t, const KafkaCreatableTopic *in, int32 node_id,
				char **message)
{
	int			bad;
	int			sqlstate;

	t->partitions = in->num_partitions;
	if (in->nassignments > 0)
	{
		if (in->num_partitions != -1 || in->replication_factor != -1)
		{
			*message = "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.";
			return KAFKA_INVALID_REQUEST;
		}
		for (int32 a = 0; a < in->nassignments; a++)
		{
			const KafkaCreatableReplicaAssignment *as = &in->assignments[a];

			if (as->partition_index != a || as->nbroker_ids != 1 ||
				as->broker_ids[0] != node_id)
			{
				*message = psprintf("pg_topics is one broker: assignments must give partitions 0 to %d one replica each, broker %d",
									in->nassignments - 1, node_id);
				return KAFKA_INVALID_REPLICA_ASSIGNMENT;
			}
		}
		t->partitions = in->nassignments;
	}
	else if (in->replication_factor != -1 && in->replication_factor != 1)
	{
		*message = "pg_topics is one broker: a topic's copies are the server's standbys, so the replication factor is 1";
		return KAFKA_INVALID_REPLICATION_FACTOR;
	}
	if (t->partitions == -1)
		t->partitions = 1;
	if (!kafka_topic_name_valid(in->name))
		return KAFKA_INVALID_TOPIC_EXCEPTION;
	if (t->partitions <= 0)
		return KAFKA_INVALID_PARTITIONS;

	t->changes = palloc0(sizeof(TopicConfigChange) * Max(in->nconfigs, 1));
	t->nchanges = 0;
	for (int32 c = 0; c < in->nconfigs; c++)
	{
		KafkaBytes	name = in->configs[c].name;
		KafkaBytes	value = in->configs[c].value;

		if (memchr(name.data, '\0', Max(name.len, 0)) != NULL ||
			(value.len > 0 && memchr(value.data, '\0', value.len) != NULL))
		{
			*message = "a config name or value has a NUL byte";
			return KAFKA_INVALID_CONFIG;
		}
		/* a null value: the key at its default, as Kafka leaves it */
		if (value.len < 0)
		{
			if (topic_config_key_lookup(kafka_bytes_cstring(name)) >= 0)
				continue;
		}
		t->changes[t->nchanges].name = kafka_bytes_cstring(name);
		t->changes[t->nchanges].value = kafka_bytes_cstring(value);
		t->nchanges++;
	}
	if (!topic_config_check_changes(t->changes, t->nchanges, &bad, &sqlstate,
									message))
		return KAFKA_INVALID_CONFIG;
	return KAFKA_NONE;
}

/* The configs of a topic created, for the answer (v5+) */
static void
answer_configs(KafkaCreatableTopicResult *out, const NewTopic *t)
{
	out->num_partitions = t->partitions;
	out->replication_factor = 1;
	out->nconfigs = TOPIC_CONFIG_NKEYS;
	out->configs = palloc0(sizeof(KafkaCreatableTopicConfigs) * TOPIC_CONFIG_NKEYS);
	for (int k = 0; k < TOPIC_CONFIG_NKEYS; k++)
	{
		KafkaCreatableTopicConfigs *c = &out->configs[k];

		c->name = kafka_bytes_of(t->entries[k].name);
		c->value = kafka_bytes_of(t->entries[k].value);
		c->read_only = t->entries[k].read_only;
		c->config_source = kafka_config_source(t->entries[k].source);
		c->is_sensitive = false;
	}
}

/* CreateTopics v0-7 */
KafkaOutcome
kafka_create_topics(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaCreateTopicsRequest cr;
	KafkaCreateTopicsResponse resp = {0};
	NewTopic   *topics;
	int32		node_id;
	bool		refused;
	int64		width = topic_width_limit();
	int64		budget = width;
	Oid			nspid;

	/* timeout_ms: the creation is done when the answer goes out */
	if (!kafka_decode(&req->body, &kafka_create_topics_request,
					  req->api_version, &cr))
		return KAFKA_CLOSE;
	node_id = kafka_self_broker(req->conn).node_id;
	refused = kafka_writes_refused();
	nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	topics = palloc0(sizeof(NewTopic) * Max(cr.ntopics, 1));
	resp.ntopics = cr.ntopics;
	resp.topics = palloc0(sizeof(KafkaCreatableTopicResult) * Max(cr.ntopics, 1));

	for (int32 i = 0; i < cr.ntopics; i++)
	{
		KafkaBytes	name = cr.topics[i].name;
		KafkaCreatableTopicResult *out = &resp.topics[i];
		NewTopic   *t = &topics[i];
		char	   *message = NULL;

		CHECK_FOR_INTERRUPTS();
		out->name = name;
		out->num_partitions = -1;
		out->replication_factor = -1;
		out->nconfigs = -1;
		t->describe = req->api_version >= 5;
		if (refused)
			out->error_code = KAFKA_NOT_CONTROLLER;
		else
			out->error_code = check_new_topic(t, &cr.topics[i], node_id,
											  &message);
		if (out->error_code == KAFKA_NONE)
		{
			char	   *relname = kafka_bytes_cstring(name);

			/* the topic, or any relation its table would be named as */
			if (topic_kafka_name_reserved(name.data, name.len))
			{
				out->error_code = KAFKA_INVALID_TOPIC_EXCEPTION;
				message = psprintf("%s is one of Kafka's internal topics", relname);
			}
			else if (OidIsValid(topic_kafka_lookup(name.data, name.len)) ||
					 (OidIsValid(nspid) &&
					  OidIsValid(get_relname_relid(topic_kafka_table_name(name.data, name.len),
												   nspid))))
				out->error_code = KAFKA_TOPIC_ALREADY_EXISTS;
			else if (t->partitions > width)
			{
				out->error_code = KAFKA_INVALID_PARTITIONS;
				message = psprintf("a topic can have at most about %lld partitions with max_locks_per_transaction = %d",
								   (long long) width, max_locks_per_xact);
			}
			else if (t->partitions > budget && !cr.validate_only)
			{
				out->error_code = KAFKA_POLICY_VIOLATION;
				message = psprintf("the topics before it in this request already lock %lld of the about %lld partitions one request may create; create it in a request of its own",
								   (long long) (width - budget), (long long) width);
			}
			else
			{
				t->name = cstring_to_text(quote_qualified_identifier(pg_topics_kafka_schema,
																	 relname));
				out->error_code = cr.validate_only ?
					kafka_run_trial(create_topic, t, &message) :
					kafka_run_guarded(create_topic, t, &message);
				/* what SQL refuses as 22023 or 0A000 */
				if (out->error_code == KAFKA_INVALID_RECORD)
					out->error_code = t->nchanges > 0 ?
						KAFKA_INVALID_CONFIG : KAFKA_INVALID_REQUEST;
				if (out->error_code == KAFKA_NONE)
				{
					/* what it created keeps its locks until the request ends */
					if (!cr.validate_only)
					{
						budget -= t->partitions;
						out->topic_id = kafka_topic_id(t->relid);
					}
					if (t->describe)
						answer_configs(out, t);
				}
			}
		}
		out->error_message = out->error_code == KAFKA_NONE ?
			kafka_bytes_of(NULL) : kafka_bytes_of(message);
	}
	kafka_encode(req->response, &kafka_create_topics_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/* One topic to drop */
static void
drop_topic(void *arg)
{
	topic_drop((text *) arg);
}

/* Drop the topic named name; its id in *id */
static int16
delete_topic(KafkaBytes name, KafkaUuid *id, char **message)
{
	int16		error;
	Relation	topic;
	text	   *qualified;

	/* no principal may delete __consumer_offsets */
	if (topic_kafka_name_reserved(name.data, name.len))
		return KAFKA_TOPIC_AUTHORIZATION_FAILED;
	topic = kafka_open_topic(name, AccessShareLock, TOPIC_NO_ACL_CHECK, &error);
	if (topic == NULL)
		return error;
	*id = kafka_topic_id(RelationGetRelid(topic));
	qualified = cstring_to_text(quote_qualified_identifier(get_namespace_name(RelationGetNamespace(topic)),
														   RelationGetRelationName(topic)));
	relation_close(topic, AccessShareLock);
	return kafka_run_guarded(drop_topic, qualified, message);
}

/* DeleteTopics v0-6 */
KafkaOutcome
kafka_delete_topics(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDeleteTopicsRequest dr;
	KafkaDeleteTopicsResponse resp = {0};
	bool		refused = kafka_writes_refused();
	KafkaTopicIds *ids = NULL;
	int32		n;

	/* timeout_ms: the drop is done when the answer goes out */
	if (!kafka_decode(&req->body, &kafka_delete_topics_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;
	n = req->api_version >= 6 ? dr.ntopics : dr.ntopic_names;
	resp.nresponses = n;
	resp.responses = palloc0(sizeof(KafkaDeletableTopicResult) * Max(n, 1));
	for (int32 i = 0; i < n; i++)
	{
		KafkaDeletableTopicResult *out = &resp.responses[i];
		char	   *message = NULL;

		CHECK_FOR_INTERRUPTS();
		if (req->api_version >= 6)
		{
			out->name = dr.topics[i].name;
			out->topic_id = dr.topics[i].topic_id;
			/* by id when no name is given, as Kafka reads it */
			if (out->name.len < 0 && !refused)
			{
				if (ids == NULL)
					ids = kafka_topic_ids();
				out->name = kafka_topic_name_of_id(ids, &out->topic_id);
			}
		}
		else
			out->name = dr.topic_names[i];

		if (refused)
			out->error_code = KAFKA_NOT_CONTROLLER;
		else if (out->name.len < 0)
			out->error_code = KAFKA_UNKNOWN_TOPIC_ID;
		else
			out->error_code = delete_topic(out->name, &out->topic_id, &message);
		out->error_message = out->error_code == KAFKA_NONE ?
			kafka_bytes_of(NULL) : kafka_bytes_of(message);
	}
	kafka_encode(req->response, &kafka_delete_topics_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
