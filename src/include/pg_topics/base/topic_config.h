/*-------------------------------------------------------------------------
 *
 * topic_config.h
 *	  Topic configuration: Kafka's topic config keys, their values and
 *	  meanings, one model for SQL (create_topic's configs,
 *	  topics.alter_topic_configs, topics.topic_configs) and for the Kafka
 *	  listener (CreateTopics, DescribeConfigs, AlterConfigs,
 *	  IncrementalAlterConfigs).
 *
 * What a topic sets is kept in topics.topic_config: retention.ms and
 * retention.bytes in its columns retention and retention_bytes (the same
 * settings as create_topic's retention and retention_bytes arguments), every
 * other key in its jsonb column configs, as Kafka's text of the value.  A key
 * the topic does not set has a default (source "default") or comes from a
 * pg_topics setting (source "server").  docs/topics.md ("Topic
 * configuration") describes each key.
 *
 * This layer knows the keys and reads what topics set; setting them
 * (privileges, locks, applying segment sizes at once) is the API layer's
 * (api/topic_configs.h).  For the Kafka handlers, in short:
 *  - CreateTopics with configs: topic_create_configured() (api/topics.h)
 *    with an array of TopicConfigChange;
 *  - DescribeConfigs: topic_config_describe(), after checking that the
 *    caller may describe the topic (topic_may_describe(), base/catalog.h);
 *  - AlterConfigs (set every key given, reset the others) and
 *    IncrementalAlterConfigs (SET = set, DELETE = reset; APPEND and
 *    SUBTRACT only make sense for cleanup.policy, which takes one value
 *    today): first topic_config_check_changes() to answer INVALID_CONFIG
 *    without throwing (validate_only stops there), then
 *    topic_configs_alter() (api/topic_configs.h), which applies all of
 *    them or none.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_TOPIC_CONFIG_H
#define TOPIC_TOPIC_CONFIG_H

/* The known keys, in the order topics.topic_configs lists them */
typedef enum TopicConfigKey
{
	TOPIC_CONFIG_CLEANUP_POLICY,
	TOPIC_CONFIG_COMPRESSION_TYPE,
	TOPIC_CONFIG_DELETE_RETENTION_MS,
	TOPIC_CONFIG_MAX_COMPACTION_LAG_MS,
	TOPIC_CONFIG_MAX_MESSAGE_BYTES,
	TOPIC_CONFIG_MESSAGE_TIMESTAMP_TYPE,
	TOPIC_CONFIG_MIN_CLEANABLE_DIRTY_RATIO,
	TOPIC_CONFIG_MIN_COMPACTION_LAG_MS,
	TOPIC_CONFIG_MIN_INSYNC_REPLICAS,
	TOPIC_CONFIG_RETENTION_BYTES,
	TOPIC_CONFIG_RETENTION_MS,
	TOPIC_CONFIG_SEGMENT_BYTES,
	TOPIC_CONFIG_SEGMENT_MS,
	TOPIC_CONFIG_NKEYS
} TopicConfigKey;

/*
 * Kafka's type of a config, with Kafka's numbers (DescribeConfigs v3 and
 * later, ConfigType): the ones our keys have
 */
typedef enum TopicConfigType
{
	TOPIC_CONFIG_TYPE_STRING = 2,
	TOPIC_CONFIG_TYPE_INT = 3,
	TOPIC_CONFIG_TYPE_LONG = 5,
	TOPIC_CONFIG_TYPE_DOUBLE = 6,
	TOPIC_CONFIG_TYPE_LIST = 7
} TopicConfigType;

/*
 * Where a value comes from: Kafka's DescribeConfigs sources are
 * DEFAULT_CONFIG (5), DYNAMIC_TOPIC_CONFIG (1) and STATIC_BROKER_CONFIG (4)
 */
typedef enum TopicConfigSource
{
	TOPIC_CONFIG_SOURCE_DEFAULT,	/* "default": pg_topics' own default */
	TOPIC_CONFIG_SOURCE_TOPIC,	/* "topic": the topic sets it */
	TOPIC_CONFIG_SOURCE_SERVER	/* "server": from a pg_topics setting */
} TopicConfigSource;

/* One key's effective value for one topic (topic_config_describe) */
typedef struct TopicConfigEntry
{
	TopicConfigKey key;
	const char *name;			/* Kafka's name, e.g. "retention.ms" */
	char	   *value;			/* as Kafka writes it (palloc'd) */
	TopicConfigSource source;
	bool		read_only;		/* false for every topic key today */
	TopicConfigType type;
	bool		sensitive;		/* false for every topic key */
} TopicConfigEntry;

/* One change asked for: set name to value, or reset it if value is NULL */
typedef struct TopicConfigChange
{
	const char *name;
	const char *value;
} TopicConfigChange;

/*
 * What a topic sets, parsed: each *_set false means the topic leaves that
 * key to its default or to the server's setting.  values[key] is the
 * stored text (NULL when not set), retention.ms and retention.bytes
 * included.
 */
typedef struct TopicConfig
{
	bool		found;			/* the topic has a row in topics.topic_config */
	char	   *values[TOPIC_CONFIG_NKEYS];
	int64		retention_ms;	/* -1: forever */
	int64		retention_bytes;	/* -1: unlimited */
	int64		segment_bytes;	/* -1: not set */
	int64		segment_ms;		/* -1: not set */
	int64		max_message_bytes;	/* -1: not set */
	int64		min_insync_replicas;	/* -1: not set */
	/* cleanup.policy and the log cleaner's keys, always set */
	bool		compact;		/* the policy includes compact */
	bool		delete;			/* the policy includes delete */
	int64		delete_retention_ms;
	int64		min_compaction_lag_ms;
	int64		max_compaction_lag_ms;
	double		min_cleanable_dirty_ratio;
} TopicConfig;

/*
 * Longest retention.ms: as create_topic's retention; a longer segment.ms
 * is never
 */
#define TOPIC_MAX_RETENTION_YEARS 100000
#define TOPIC_CONFIG_MAX_MS \
	((int64) TOPIC_MAX_RETENTION_YEARS * 36525 / 100 * 86400 * 1000)

extern const char *topic_config_key_name(TopicConfigKey key);
extern int	topic_config_key_lookup(const char *name);
extern const char *topic_config_source_name(TopicConfigSource source);

/*
 * Check one key and value; true if both are good, with *normalized set to
 * the text to store (palloc'd; e.g. "CreateTime" is stored as
 * "LogAppendTime").  Otherwise false, with *sqlstate (ERRCODE_*:
 * INVALID_PARAMETER_VALUE for an unknown key or bad value, Kafka's
 * INVALID_CONFIG; FEATURE_NOT_SUPPORTED for a Kafka value pg_topics does
 * not do yet, such as cleanup.policy compact) and *message (palloc'd, naming
 * the key and the value).  Never throws for bad input.
 */
extern bool topic_config_check(const char *name, const char *value,
							   char **normalized, int *sqlstate,
							   char **message);

/*
 * Check a whole set of changes as topic_config_check() does, and also that
 * no key comes twice.  On the first problem, returns false with *bad the
 * index of the change, and *sqlstate and *message.  Never throws for bad
 * input; changes[i].value is left as given (use topic_config_check for the
 * normalized text).
 */
extern bool topic_config_check_changes(const TopicConfigChange *changes,
									   int nchanges, int *bad, int *sqlstate,
									   char **message);

/*
 * What topic sets, read from topics.topic_config now (not cached): for
 * the writer of the settings, which holds a lock on the topic
 */
extern void topic_config_read(Oid topic, TopicConfig *config);

/*
 * What topic sets, cached for the backend; invalidated with the topic's
 * relation cache entry (topic_config_invalidate).  A topic without a row
 * (being restored, or dropped) gets a config that sets nothing, which is
 * not cached.
 */
extern const TopicConfig *topic_config_of(Oid topic);

/* Forget the cached configs of topic in every backend, at commit */
extern void topic_config_invalidate(Oid topic);

/* Every key's effective value for topic: entries has TOPIC_CONFIG_NKEYS */
extern void topic_config_describe(Oid topic, TopicConfigEntry *entries);

/*
 * Largest key, value or headers topic takes from a producer: its
 * max.message.bytes, bounded by pg_topics.max_message_bytes (the lower of
 * the two); *from_topic says whether the topic's own value is the bound
 */
extern int64 topic_config_max_message_bytes(Oid topic, bool *from_topic);

/*
 * What topic asks of every record a producer sends, from one lookup of its
 * cached configs: the insert path looks them up once per call, not per
 * record
 */
typedef struct TopicProducerRules
{
	int64		max_message_bytes;	/* as topic_config_max_message_bytes */
	bool		limit_from_topic;	/* ... and its *from_topic */
	bool		needs_key;		/* as topic_config_needs_key */
} TopicProducerRules;

extern void topic_config_producer_rules(Oid topic, TopicProducerRules *rules);

/*
 * Synchronous standbys that must be streaming for topic to take records:
 * its min.insync.replicas less one (Kafka counts the leader), or
 * pg_topics.min_insync_replicas; *from_topic as above
 */
extern int	topic_config_insync_standbys(Oid topic, bool *from_topic);

/*
 * Does topic refuse records without a key?  A compacted topic does
 * (cleanup.policy includes compact), as Kafka's: the cleaner keeps the
 * newest record of each key, and a keyless record has none
 */
extern bool topic_config_needs_key(Oid topic);

/*
 * Segment size in blocks (0: pg_topics.segment_size) and roll age in
 * microseconds (0: none) of the partitions of a topic with config
 */
extern uint32 topic_config_segment_blocks(const TopicConfig *config);
extern int64 topic_config_segment_roll_usecs(const TopicConfig *config);

extern void topic_config_init(void);

#endif							/* TOPIC_TOPIC_CONFIG_H */
