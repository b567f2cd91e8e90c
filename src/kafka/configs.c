/*-------------------------------------------------------------------------
 *
 * configs.c
 *	  DescribeConfigs (v0-4), AlterConfigs (v0-2) and IncrementalAlterConfigs
 *	  (v0-1): Kafka's view of the topic config model that SQL shares
 *	  (base/topic_config.h, api/topic_configs.h).
 *
 * A topic resource (type 2) is a topic of pg_topics.kafka_schema:
 *  - DescribeConfigs lists what topics.topic_configs shows for it, to those
 *    who may read that view's rows (SELECT on the topic, or pg_monitor;
 *    others get TOPIC_AUTHORIZATION_FAILED).  The view's sources are
 *    Kafka's: "topic" is DYNAMIC_TOPIC_CONFIG, "default" DEFAULT_CONFIG,
 *    and "server" (a pg_topics setting in postgresql.conf)
 *    STATIC_BROKER_CONFIG, Kafka's source for what its server.properties
 *    sets.  Synonyms (v1+, when asked for) are the key itself at its
 *    source, as Kafka lists a key's own level first.
 *  - AlterConfigs is Kafka's replacement of a topic's whole set: the keys
 *    named are set, every other key goes back to its default.
 *    IncrementalAlterConfigs sets (SET) and resets (DELETE) the keys named;
 *    APPEND and SUBTRACT apply to list keys (cleanup.policy) only, others
 *    are INVALID_REQUEST as in Kafka.  Both are topics.alter_topic_configs
 *    (topic_configs_alter): ownership of the topic, and every change of a
 *    resource applied or none, in a subtransaction of the request's so that
 *    one resource's failure leaves the others applied.  A key or value that
 *    SQL refuses with 22023 or 0A000 (cleanup.policy=compact until log
 *    compaction lands) is INVALID_CONFIG with the same message.
 *    validate_only runs the change and rolls it back, so it fails exactly
 *    as the change would.  A node that refuses writes (fence.c) is no
 *    controller: NOT_CONTROLLER, as CreateTopics answers.
 *
 * __consumer_offsets (consumer_offsets_topic.c) is described, to those
 * Metadata lists it to, as a topic that sets nothing, every key read-only;
 * altering it is TOPIC_AUTHORIZATION_FAILED, as deleting it is.
 *
 * A broker resource (type 4, named by this node's id or empty) lists, read
 * only, the broker settings that Kafka's tools read or show (kafka-ui
 * decides from delete.topic.enable whether topics may be deleted; admin UIs
 * list the topic defaults): each is what pg_topics does, most from a
 * pg_topics setting.  Altering them is
 * INVALID_REQUEST: they are PostgreSQL settings, set with ALTER SYSTEM.
 * Other resource types (groups, loggers, client metrics) are
 * INVALID_REQUEST, as Kafka answers for a type it does not know.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/rel.h"

#include "pg_topics/api/topic_configs.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/base/topic_config.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/brokers.h"
#include "pg_topics/kafka/configs.h"
#include "pg_topics/kafka/consumer_offsets_topic.h"
#include "pg_topics/kafka/fence.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/wire/msg_alter_configs.h"
#include "pg_topics/wire/msg_describe_configs.h"
#include "pg_topics/wire/msg_incremental_alter_configs.h"
#include "pg_topics/wire/protocol.h"

/* Kafka's source of a value from where topic_config_describe found it */
int8
kafka_config_source(TopicConfigSource source)
{
	switch (source)
	{
		case TOPIC_CONFIG_SOURCE_TOPIC:
			return KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC;
		case TOPIC_CONFIG_SOURCE_SERVER:
			return KAFKA_CONFIG_SOURCE_STATIC_BROKER;
		case TOPIC_CONFIG_SOURCE_DEFAULT:
			break;
	}
	return KAFKA_CONFIG_SOURCE_DEFAULT;
}

/*
 * A name or value of a request as a C string; false if it has a NUL byte
 * (it would be read as a shorter key) or is null where one is needed
 */
static bool
config_text(KafkaBytes b, bool null_ok, const char **out)
{
	if (b.len < 0)
	{
		*out = NULL;
		return null_ok;
	}
	if (memchr(b.data, '\0', b.len) != NULL)
		return false;
	*out = kafka_bytes_cstring(b);
	return true;
}

/* Is name one of the keys a resource asked for (all if none were named)? */
static bool
key_asked(const KafkaDescribeConfigsResource *res, const char *name)
{
	if (res->nconfiguration_keys < 0)
		return true;
	for (int32 i = 0; i < res->nconfiguration_keys; i++)
		if (kafka_bytes_equal(res->configuration_keys[i], name))
			return true;
	return false;
}

/* Fill entry out from name, value, source, type, read-only */
static void
describe_entry(KafkaDescribeConfigsResourceResult *out, const char *name,
			   const char *value, int8 source, int8 type, bool read_only,
			   bool synonyms)
{
	out->name = kafka_bytes_of(name);
	out->value = kafka_bytes_of(value);
	out->read_only = read_only;
	out->is_default = source == KAFKA_CONFIG_SOURCE_DEFAULT;
	out->config_source = source;
	out->is_sensitive = false;
	out->config_type = type;
	out->documentation = kafka_bytes_of(NULL);
	if (synonyms)
	{
		KafkaDescribeConfigsSynonym *s = palloc0(sizeof(KafkaDescribeConfigsSynonym));

		s->name = out->name;
		s->value = out->value;
		s->source = source;
		out->nsynonyms = 1;
		out->synonyms = s;
	}
}

/* A topic's configs: what topics.topic_configs shows */
static void
describe_topic(KafkaDescribeConfigsResult *out,
			   const KafkaDescribeConfigsResource *res, bool synonyms)
{
	Relation	topic;
	TopicConfigEntry entries[TOPIC_CONFIG_NKEYS];
	int			n = 0;
	bool		offsets_topic = kafka_is_offsets_topic(res->resource_name);

	if (offsets_topic)
	{
		/*
		 * __consumer_offsets, to those Metadata lists it to: it sets
		 * nothing, and nothing may be set (tools that describe every topic
		 * listed describe it too)
		 */
		if (!kafka_offsets_topic_listed())
		{
			out->error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
			return;
		}
		topic_config_describe(InvalidOid, entries);
		for (int k = 0; k < TOPIC_CONFIG_NKEYS; k++)
			entries[k].read_only = true;
	}
	else
	{
		topic = kafka_open_topic(res->resource_name, AccessShareLock,
								 TOPIC_NO_ACL_CHECK, &out->error_code);
		if (topic == NULL)
			return;
		if (!topic_may_describe(RelationGetRelid(topic)))
		{
			relation_close(topic, AccessShareLock);
			out->error_code = KAFKA_TOPIC_AUTHORIZATION_FAILED;
			return;
		}
		topic_config_describe(RelationGetRelid(topic), entries);
		relation_close(topic, AccessShareLock);
	}

	out->configs = palloc0(sizeof(KafkaDescribeConfigsResourceResult) *
						   TOPIC_CONFIG_NKEYS);
	for (int k = 0; k < TOPIC_CONFIG_NKEYS; k++)
	{
		if (!key_asked(res, entries[k].name))
			continue;
		describe_entry(&out->configs[n++], entries[k].name, entries[k].value,
					   kafka_config_source(entries[k].source),
					   (int8) entries[k].type, entries[k].read_only, synonyms);
	}
	out->nconfigs = n;
}

/* Kafka's ConfigType numbers of the broker settings listed */
#define KAFKA_CONFIG_TYPE_BOOLEAN	1

/*
 * The broker's settings, as Kafka's tools read them: what pg_topics does,
 * each read-only (they are PostgreSQL settings)
 */
static void
describe_broker(KafkaDescribeConfigsResult *out,
				const KafkaDescribeConfigsResource *res, bool synonyms,
				int32 node_id)
{
	struct
	{
		const char *name;
		char	   *value;
		int8		source;
		int8		type;
	}			settings[] = {
		{"auto.create.topics.enable",
			pstrdup(pg_topics_kafka_auto_create_topics ? "true" : "false"),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, KAFKA_CONFIG_TYPE_BOOLEAN},
		{"broker.id", psprintf("%d", node_id),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, TOPIC_CONFIG_TYPE_INT},
		{"default.replication.factor", pstrdup("1"),
		KAFKA_CONFIG_SOURCE_DEFAULT, TOPIC_CONFIG_TYPE_INT},
		{"delete.topic.enable", pstrdup("true"),
		KAFKA_CONFIG_SOURCE_DEFAULT, KAFKA_CONFIG_TYPE_BOOLEAN},
		{"group.initial.rebalance.delay.ms",
			psprintf("%d", pg_topics_kafka_group_initial_rebalance_delay),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, TOPIC_CONFIG_TYPE_INT},
		{"log.cleanup.policy", pstrdup("delete"),
		KAFKA_CONFIG_SOURCE_DEFAULT, TOPIC_CONFIG_TYPE_LIST},
		{"log.retention.bytes", pstrdup("-1"),
		KAFKA_CONFIG_SOURCE_DEFAULT, TOPIC_CONFIG_TYPE_LONG},
		{"log.retention.ms", pstrdup("-1"),
		KAFKA_CONFIG_SOURCE_DEFAULT, TOPIC_CONFIG_TYPE_LONG},
		{"log.segment.bytes",
			psprintf(INT64_FORMAT, (int64) pg_topics_segment_size * BLCKSZ),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, TOPIC_CONFIG_TYPE_INT},
		{"message.max.bytes", psprintf("%d", pg_topics_max_message_bytes),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, TOPIC_CONFIG_TYPE_INT},
		{"min.insync.replicas", psprintf("%d", pg_topics_min_insync_replicas + 1),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, TOPIC_CONFIG_TYPE_INT},
		{"num.partitions", psprintf("%d", pg_topics_kafka_default_partitions),
		KAFKA_CONFIG_SOURCE_STATIC_BROKER, TOPIC_CONFIG_TYPE_INT},
		{"offsets.topic.replication.factor", pstrdup("1"),
		KAFKA_CONFIG_SOURCE_DEFAULT, TOPIC_CONFIG_TYPE_INT},
	};
	char	   *self = psprintf("%d", node_id);
	int			n = 0;

	/* Kafka answers for itself only (its ConfigHelper's check) */
	if (res->resource_name.len > 0 && !kafka_bytes_equal(res->resource_name, self))
	{
		out->error_code = KAFKA_INVALID_REQUEST;
		out->error_message = kafka_bytes_of(psprintf("Unexpected broker id, expected %s or empty string, but received %s",
													  self, kafka_bytes_cstring(res->resource_name)));
		return;
	}
	out->configs = palloc0(sizeof(KafkaDescribeConfigsResourceResult) *
						   lengthof(settings));
	for (int i = 0; i < lengthof(settings); i++)
		if (key_asked(res, settings[i].name))
			describe_entry(&out->configs[n++], settings[i].name,
						   settings[i].value, settings[i].source,
						   settings[i].type, true, synonyms);
	out->nconfigs = n;
}

/* DescribeConfigs v0-4 */
KafkaOutcome
kafka_describe_configs(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaDescribeConfigsRequest dr;
	KafkaDescribeConfigsResponse resp = {0};
	int32		node_id = kafka_self_broker(req->conn).node_id;

	if (!kafka_decode(&req->body, &kafka_describe_configs_request,
					  req->api_version, &dr))
		return KAFKA_CLOSE;

	resp.nresults = dr.nresources;
	resp.results = palloc0(sizeof(KafkaDescribeConfigsResult) *
						   Max(dr.nresources, 1));
	for (int32 i = 0; i < dr.nresources; i++)
	{
		const KafkaDescribeConfigsResource *res = &dr.resources[i];
		KafkaDescribeConfigsResult *out = &resp.results[i];

		CHECK_FOR_INTERRUPTS();
		out->resource_type = res->resource_type;
		out->resource_name = res->resource_name;
		out->error_message = kafka_bytes_of(NULL);
		if (res->resource_type == KAFKA_CONFIG_RESOURCE_TOPIC)
			describe_topic(out, res, dr.include_synonyms);
		else if (res->resource_type == KAFKA_CONFIG_RESOURCE_BROKER)
			describe_broker(out, res, dr.include_synonyms, node_id);
		else
		{
			out->error_code = KAFKA_INVALID_REQUEST;
			out->error_message = kafka_bytes_of(psprintf("resource type %d has no configs here: pg_topics describes topics (2) and its broker (4)",
														 res->resource_type));
		}
	}
	kafka_encode(req->response, &kafka_describe_configs_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/* One resource's changes, for topic_configs_alter in a subtransaction */
typedef struct Alteration
{
	Oid			topic;
	TopicConfigChange *changes;
	int			nchanges;
} Alteration;

static void
alter_topic(void *arg)
{
	Alteration *a = (Alteration *) arg;

	topic_configs_alter(a->topic, a->changes, a->nchanges);
}

/*
 * Apply a's changes to the topic named name (or only try them, if
 * validate_only), all or none; the error and its message in out.  a's
 * changes are checked first, so that a bad key or value is INVALID_CONFIG
 * with SQL's message whoever asks.
 */
static void
alter_resource(KafkaAlterConfigsResourceResponse *out, Alteration *a,
			   bool validate_only)
{
	int			bad;
	int			sqlstate;
	char	   *message = NULL;

	if (!topic_config_check_changes(a->changes, a->nchanges, &bad, &sqlstate,
									&message))
		out->error_code = KAFKA_INVALID_CONFIG;
	else
	{
		out->error_code = validate_only ?
			kafka_run_trial(alter_topic, a, &message) :
			kafka_run_guarded(alter_topic, a, &message);
		/* 22023 or 0A000 of a change: as the check above would say */
		if (out->error_code == KAFKA_INVALID_RECORD)
			out->error_code = KAFKA_INVALID_CONFIG;
	}
	if (out->error_code != KAFKA_NONE)
		out->error_message = kafka_bytes_of(message);
}

/*
 * The topic a resource of an alteration names, locked for the request
 * (its settings' writer locks it more strongly), with out's resource named
 * and its error cleared; InvalidOid with the error in out if it is not a
 * topic resource, not a topic, or the node takes no writes
 */
static Oid
alter_target(KafkaAlterConfigsResourceResponse *out, int8 type,
			 KafkaBytes name, bool refused)
{
	Relation	topic;
	Oid			relid;

	out->resource_type = type;
	out->resource_name = name;
	out->error_message = kafka_bytes_of(NULL);
	if (type == KAFKA_CONFIG_RESOURCE_BROKER)
	{
		out->error_code = KAFKA_INVALID_REQUEST;
		out->error_message = kafka_bytes_of("the broker's settings are PostgreSQL settings (pg_topics.*): set them with ALTER SYSTEM");
		return InvalidOid;
	}
	if (type != KAFKA_CONFIG_RESOURCE_TOPIC)
	{
		out->error_code = KAFKA_INVALID_REQUEST;
		out->error_message = kafka_bytes_of(psprintf("resource type %d has no configs here: pg_topics alters topics (2)",
													 type));
		return InvalidOid;
	}
	if (refused)
	{
		out->error_code = KAFKA_NOT_CONTROLLER;
		return InvalidOid;
	}
	/* no principal may alter __consumer_offsets (as DeleteTopics) */
	if (topic_kafka_name_reserved(name.data, name.len))
	{
		out->error_code = KAFKA_TOPIC_AUTHORIZATION_FAILED;
		return InvalidOid;
	}
	topic = kafka_open_topic(name, AccessShareLock, TOPIC_NO_ACL_CHECK,
							 &out->error_code);
	if (topic == NULL)
		return InvalidOid;
	relid = RelationGetRelid(topic);
	relation_close(topic, NoLock);
	return relid;
}

/* AlterConfigs v0-2: each topic's whole set */
KafkaOutcome
kafka_alter_configs(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaAlterConfigsRequest ar;
	KafkaAlterConfigsResponse resp = {0};
	bool		refused = kafka_writes_refused();

	if (!kafka_decode(&req->body, &kafka_alter_configs_request,
					  req->api_version, &ar))
		return KAFKA_CLOSE;

	resp.nresponses = ar.nresources;
	resp.responses = palloc0(sizeof(KafkaAlterConfigsResourceResponse) *
							 Max(ar.nresources, 1));
	for (int32 i = 0; i < ar.nresources; i++)
	{
		const KafkaAlterConfigsResource *res = &ar.resources[i];
		KafkaAlterConfigsResourceResponse *out = &resp.responses[i];
		Alteration	a;
		bool		named[TOPIC_CONFIG_NKEYS] = {0};
		int32		c;

		CHECK_FOR_INTERRUPTS();
		a.topic = alter_target(out, res->resource_type, res->resource_name,
							   refused);
		if (!OidIsValid(a.topic))
			continue;

		/* the keys named, then every other key reset */
		a.changes = palloc0(sizeof(TopicConfigChange) *
							(res->nconfigs + TOPIC_CONFIG_NKEYS));
		a.nchanges = 0;
		for (c = 0; c < res->nconfigs; c++)
		{
			TopicConfigChange *ch = &a.changes[a.nchanges++];
			int			k;

			if (!config_text(res->configs[c].name, false, &ch->name) ||
				!config_text(res->configs[c].value, true, &ch->value))
				break;
			/* a null value: Kafka's AlterConfigs leaves the key unset */
			k = topic_config_key_lookup(ch->name);
			if (k >= 0)
				named[k] = true;
		}
		if (c < res->nconfigs)
		{
			out->error_code = KAFKA_INVALID_CONFIG;
			out->error_message = kafka_bytes_of("a config name or value has a NUL byte");
			continue;
		}
		for (int k = 0; k < TOPIC_CONFIG_NKEYS; k++)
			if (!named[k])
			{
				a.changes[a.nchanges].name = topic_config_key_name(k);
				a.changes[a.nchanges].value = NULL;
				a.nchanges++;
			}
		alter_resource(out, &a, ar.validate_only);
	}
	kafka_encode(req->response, &kafka_alter_configs_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/*
 * The value of list key name for topic after op (APPEND or SUBTRACT) of
 * the items of value to what it is now: items kept in order, none twice
 */
static char *
list_operation(Oid topic, const char *name, int8 op, const char *value)
{
	TopicConfigEntry entries[TOPIC_CONFIG_NKEYS];
	const char *current = NULL;
	List	   *items = NIL;
	List	   *operands = NIL;
	char	   *copy;
	char	   *tok;
	char	   *save;
	StringInfoData out;
	ListCell   *lc;

	topic_config_describe(topic, entries);
	for (int k = 0; k < TOPIC_CONFIG_NKEYS; k++)
		if (strcmp(entries[k].name, name) == 0)
			current = entries[k].value;

	copy = pstrdup(current ? current : "");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		items = lappend(items, tok);
	copy = pstrdup(value);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		operands = lappend(operands, tok);

	initStringInfo(&out);
	foreach(lc, items)
	{
		char	   *item = lfirst(lc);
		bool		drop = false;
		ListCell   *lo;

		if (op == KAFKA_CONFIG_OP_SUBTRACT)
			foreach(lo, operands)
				if (strcmp(item, lfirst(lo)) == 0)
					drop = true;
		if (!drop)
			appendStringInfo(&out, "%s%s", out.len > 0 ? "," : "", item);
	}
	if (op == KAFKA_CONFIG_OP_APPEND)
		foreach(lc, operands)
		{
			char	   *operand = lfirst(lc);
			bool		present = false;
			ListCell   *li;

			foreach(li, items)
				if (strcmp(operand, lfirst(li)) == 0)
					present = true;
			if (!present)
				appendStringInfo(&out, "%s%s", out.len > 0 ? "," : "", operand);
		}
	return out.data;
}

/* IncrementalAlterConfigs v0-1: SET, DELETE, APPEND, SUBTRACT per key */
KafkaOutcome
kafka_incremental_alter_configs(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaIncrementalAlterConfigsRequest ar;
	KafkaAlterConfigsResponse resp = {0};
	bool		refused = kafka_writes_refused();

	if (!kafka_decode(&req->body, &kafka_incremental_alter_configs_request,
					  req->api_version, &ar))
		return KAFKA_CLOSE;

	resp.nresponses = ar.nresources;
	resp.responses = palloc0(sizeof(KafkaAlterConfigsResourceResponse) *
							 Max(ar.nresources, 1));
	for (int32 i = 0; i < ar.nresources; i++)
	{
		const KafkaIncrementalAlterConfigsResource *res = &ar.resources[i];
		KafkaAlterConfigsResourceResponse *out = &resp.responses[i];
		Alteration	a;
		char	   *problem = NULL;

		CHECK_FOR_INTERRUPTS();
		a.topic = alter_target(out, res->resource_type, res->resource_name,
							   refused);
		if (!OidIsValid(a.topic))
			continue;

		a.changes = palloc0(sizeof(TopicConfigChange) * Max(res->nconfigs, 1));
		a.nchanges = res->nconfigs;
		for (int32 c = 0; c < res->nconfigs && problem == NULL; c++)
		{
			const KafkaIncrementalAlterableConfig *in = &res->configs[c];
			TopicConfigChange *ch = &a.changes[c];
			const char *value;
			int			k;

			if (!config_text(in->name, false, &ch->name) ||
				!config_text(in->value, true, &value))
			{
				out->error_code = KAFKA_INVALID_CONFIG;
				problem = "a config name or value has a NUL byte";
				break;
			}
			k = topic_config_key_lookup(ch->name);
			switch (in->config_operation)
			{
				case KAFKA_CONFIG_OP_SET:
					/* a null value is caught by the check as SQL's null */
					ch->value = value;
					break;
				case KAFKA_CONFIG_OP_DELETE:
					ch->value = NULL;
					break;
				case KAFKA_CONFIG_OP_APPEND:
				case KAFKA_CONFIG_OP_SUBTRACT:
					/* an unknown key: the check names it */
					if (k < 0)
					{
						ch->value = value ? value : "";
						break;
					}
					if (k != TOPIC_CONFIG_CLEANUP_POLICY)
					{
						out->error_code = KAFKA_INVALID_REQUEST;
						problem = psprintf("config %s is not a list: it takes SET and DELETE, not %s",
										   ch->name,
										   in->config_operation == KAFKA_CONFIG_OP_APPEND ?
										   "APPEND" : "SUBTRACT");
						break;
					}
					ch->value = list_operation(a.topic, ch->name,
											   in->config_operation,
											   value ? value : "");
					break;
				default:
					out->error_code = KAFKA_INVALID_REQUEST;
					problem = psprintf("unknown config operation %d for config %s",
									   in->config_operation, ch->name);
					break;
			}
		}
		if (problem != NULL)
		{
			out->error_message = kafka_bytes_of(problem);
			continue;
		}
		alter_resource(out, &a, ar.validate_only);
	}
	kafka_encode(req->response, &kafka_incremental_alter_configs_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}
