-- Topic configuration: create_topic's configs, topics.alter_topic_configs
-- and topics.topic_configs, with Kafka's keys; each key's accepted and
-- refused values, reset, sources, privileges and what the keys change
\set SHOW_CONTEXT never
-- a statement's outcome: ok, or its SQLSTATE and message
CREATE FUNCTION tc_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- a topic without configs: every known key, from its default or the server
SELECT topics.create_topic('tc_plain', value_type => 'text');
SELECT name, value, source, read_only FROM topics.topic_configs
WHERE topic = 'tc_plain'::regclass ORDER BY name;

-- configs at creation, as strings (what Kafka tools send) or numbers
SELECT topics.create_topic('tc_made', 2, 'text', 'text', configs =>
    '{"retention.ms": "604800000", "segment.bytes": 1048576, "cleanup.policy": "delete",
      "max.message.bytes": "1000", "min.insync.replicas": "1",
      "message.timestamp.type": "CreateTime", "compression.type": "producer",
      "delete.retention.ms": 3600000, "min.compaction.lag.ms": "0",
      "max.compaction.lag.ms": "86400000", "retention.bytes": "1073741824",
      "segment.ms": "3600000"}');
SELECT name, value, source FROM topics.topic_configs
WHERE topic = 'tc_made'::regclass ORDER BY name;
-- one model: retention.ms and retention.bytes are topics.topics' retention
SELECT retention, retention_bytes FROM topics.topics WHERE topic = 'tc_made'::regclass;
-- and the other way round: create_topic's arguments are the configs
SELECT topics.create_topic('tc_args', retention => '2 days', retention_bytes => 5000000);
SELECT name, value, source FROM topics.topic_configs
WHERE topic = 'tc_args'::regclass AND name IN ('retention.ms', 'retention.bytes', 'segment.bytes', 'segment.ms')
ORDER BY name;

-- every key: values taken
SELECT k, v, tc_try(format('SELECT topics.alter_topic_configs(%L, jsonb_build_object(%L, %L))',
                           'tc_plain', k, v)) AS outcome
FROM (VALUES ('cleanup.policy', 'compact'), ('cleanup.policy', 'compact,delete'),
             ('cleanup.policy', 'delete,compact'), ('cleanup.policy', 'delete'),
             ('compression.type', 'uncompressed'), ('compression.type', 'producer'),
             ('compression.type', 'lz4'), ('compression.type', 'zstd'),
             ('compression.type', 'uncompressed'),
             ('delete.retention.ms', '0'), ('delete.retention.ms', '9223372036854775807'),
             ('max.compaction.lag.ms', '1'),
             ('max.message.bytes', '0'), ('max.message.bytes', '2147483647'),
             ('message.timestamp.type', 'LogAppendTime'), ('message.timestamp.type', 'CreateTime'),
             ('min.cleanable.dirty.ratio', '0'), ('min.cleanable.dirty.ratio', '1'),
             ('min.cleanable.dirty.ratio', '0.25'),
             ('min.compaction.lag.ms', '0'),
             ('min.insync.replicas', '1'), ('min.insync.replicas', '3'),
             ('retention.bytes', '-1'), ('retention.bytes', '1'),
             ('retention.ms', '-1'), ('retention.ms', '1'),
             ('segment.bytes', '14'), ('segment.bytes', '2147483647'),
             ('segment.ms', '1'), ('segment.ms', '9223372036854775807'),
             ('segment.ms', '604800000')) AS t(k, v);
-- every key: values refused, with the key named, and nothing applied
SELECT k, v, tc_try(format('SELECT topics.alter_topic_configs(%L, jsonb_build_object(%L, %L))',
                           'tc_plain', k, v)) AS outcome
FROM (VALUES ('cleanup.policy', 'remove'), ('cleanup.policy', 'compact,compact'),
             ('compression.type', 'gzip'), ('compression.type', 'snappy'),
             ('compression.type', 'brotli'), ('compression.type', 'none'),
             ('delete.retention.ms', '-1'), ('delete.retention.ms', '1.5'),
             ('max.compaction.lag.ms', '0'),
             ('max.message.bytes', '-1'), ('max.message.bytes', '2147483648'),
             ('message.timestamp.type', 'logappendtime'),
             ('min.cleanable.dirty.ratio', '1.5'), ('min.cleanable.dirty.ratio', 'half'),
             ('min.compaction.lag.ms', '-1'),
             ('min.insync.replicas', '0'), ('min.insync.replicas', 'two'),
             ('retention.bytes', '0'), ('retention.bytes', '-2'),
             ('retention.ms', '0'), ('retention.ms', '9223372036854775807'),
             ('retention.ms', ' 1'), ('retention.ms', '+1'), ('retention.ms', ''),
             ('segment.bytes', '13'), ('segment.ms', '0'),
             ('no.such.key', '1'), ('retention', '1')) AS t(k, v);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"retention.ms": 1e3}')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"retention.ms": null}')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"retention.ms": true}')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '["retention.ms"]')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', reset => '{no.such.key}')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', reset => ARRAY[NULL])$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"segment.ms": "5"}', '{segment.ms}')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_orders_nope', '{}')$$);
-- nothing half-applied: a good key next to a bad one is not set either
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"segment.ms": "5", "retention.bytes": "0"}')$$);
SELECT tc_try($$SELECT topics.create_topic('tc_bad', configs => '{"segment.ms": "5", "compression.type": "gzip"}')$$);
SELECT to_regclass('tc_bad') IS NULL AS not_created;
-- retention given twice
SELECT tc_try($$SELECT topics.create_topic('tc_bad', retention => '1 day', configs => '{"retention.ms": "1000"}')$$);
SELECT tc_try($$SELECT topics.create_topic('tc_bad', retention_bytes => 1000, configs => '{"retention.bytes": "1000"}')$$);
SELECT tc_try($$SELECT topics.create_topic('tc_bad', configs => '"retention.ms"')$$);
SELECT name, value, source FROM topics.topic_configs
WHERE topic = 'tc_plain'::regclass AND source = 'topic' ORDER BY name;

-- reset: back to the default, or to the server's setting
SELECT topics.alter_topic_configs('tc_plain', '{"retention.ms": "3600000", "retention.bytes": 100000}',
    reset => '{segment.ms, max.message.bytes, min.insync.replicas, segment.bytes}');
SELECT name, value, source FROM topics.topic_configs
WHERE topic = 'tc_plain'::regclass
  AND name IN ('retention.ms', 'retention.bytes', 'segment.ms', 'max.message.bytes',
               'min.insync.replicas', 'segment.bytes')
ORDER BY name;
SELECT retention, retention_bytes FROM topics.topics WHERE topic = 'tc_plain'::regclass;
-- -1 is retention's default: setting it resets it
SELECT topics.alter_topic_configs('tc_plain', '{"retention.ms": -1, "retention.bytes": "-1"}');
SELECT retention, retention_bytes FROM topics.topics WHERE topic = 'tc_plain'::regclass;
-- an alter that leaves retention.ms as it is keeps the interval as given
SELECT topics.alter_topic_configs('tc_args', '{"retention.ms": "172800000", "segment.ms": "60000"}');
SELECT retention FROM topics.topics WHERE topic = 'tc_args'::regclass;
SELECT topics.alter_topic_configs('tc_args', reset => '{retention.ms, retention.bytes, segment.ms}');
SELECT retention, retention_bytes FROM topics.topics WHERE topic = 'tc_args'::regclass;
-- the server's settings show through
SET pg_topics.max_message_bytes = 2000;
SELECT value, source FROM topics.topic_configs
WHERE topic = 'tc_plain'::regclass AND name = 'max.message.bytes';
RESET pg_topics.max_message_bytes;

-- max.message.bytes: what produce takes, on every produce path; the lower
-- of the topic's and pg_topics.max_message_bytes
SELECT count(*) FROM topics.produce('tc_made', repeat('x', 1000));
SELECT tc_try($$SELECT topics.produce('tc_made', repeat('x', 1001))$$);
SELECT tc_try($$SELECT topics.produce('tc_made', 'v', repeat('k', 1001))$$);
SELECT tc_try($$SELECT topics.produce_batch('tc_made', ARRAY['a', repeat('x', 1001)])$$);
SELECT tc_try($$INSERT INTO tc_made (value) VALUES (repeat('x', 1001))$$);
SELECT topics.alter_topic_configs('tc_made', '{"max.message.bytes": 5000}');
SELECT count(*) FROM topics.produce('tc_made', repeat('x', 1001));
SET pg_topics.max_message_bytes = 2000;
SELECT tc_try($$SELECT topics.produce('tc_made', repeat('x', 2001))$$);
RESET pg_topics.max_message_bytes;
-- in a transaction that changed it, and rolled back
BEGIN;
SELECT topics.alter_topic_configs('tc_made', '{"max.message.bytes": 10}');
SELECT tc_try($$SELECT topics.produce('tc_made', repeat('x', 11))$$);
ROLLBACK;
SELECT count(*) FROM topics.produce('tc_made', repeat('x', 11));

-- min.insync.replicas: counts the server, so 2 asks for one synchronous
-- standby streaming, and produce is refused at once while none is (only
-- where a commit would wait for standbys; these transactions roll back, as
-- a commit would wait for a standby that is not there)
SELECT topics.alter_topic_configs('tc_made', '{"min.insync.replicas": "2"}');
ALTER SYSTEM SET synchronous_standby_names = '*';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW synchronous_standby_names;
BEGIN;
SELECT tc_try($$SELECT topics.produce('tc_made', 'needs a standby')$$);
SELECT tc_try($$INSERT INTO tc_made (value) VALUES ('needs a standby')$$);
-- other topics keep the server's setting (none)
SELECT count(*) FROM topics.produce('tc_plain', 'no standby needed');
ROLLBACK;
ALTER SYSTEM RESET synchronous_standby_names;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW synchronous_standby_names;
SELECT topics.alter_topic_configs('tc_made', reset => '{min.insync.replicas}');
SELECT count(*) FROM topics.produce('tc_made', 'the setting again');

-- segment.bytes: smaller segments (whole pages, at least four).  Both
-- topics get the same records; only tc_segs rolls to new segments
SELECT topics.create_topic('tc_segs', value_type => 'text', configs => '{"segment.bytes": "32768"}');
SELECT topics.create_topic('tc_bigsegs', value_type => 'text');
SELECT count(*) FROM topics.produce_batch('tc_segs', (SELECT array_agg(repeat(md5(g::text), 20)) FROM generate_series(1, 100) g));
SELECT count(*) FROM topics.produce_batch('tc_bigsegs', (SELECT array_agg(repeat(md5(g::text), 20)) FROM generate_series(1, 100) g));
SELECT count(*) FROM topics.enforce_retention('tc_segs');
SELECT count(*) FROM topics.enforce_retention('tc_bigsegs');
SELECT count(*) FROM topics.produce_batch('tc_segs', (SELECT array_agg(repeat(md5(g::text), 20)) FROM generate_series(1, 100) g));
SELECT count(*) FROM topics.produce_batch('tc_bigsegs', (SELECT array_agg(repeat(md5(g::text), 20)) FROM generate_series(1, 100) g));
SELECT count(*) FROM topics.enforce_retention('tc_segs');
SELECT count(*) FROM topics.enforce_retention('tc_bigsegs');
SELECT topic, count(*) FILTER (WHERE state = 'sealed') >= 2 AS rolled
FROM topics.segments WHERE topic IN ('tc_segs'::regclass, 'tc_bigsegs'::regclass)
GROUP BY topic ORDER BY topic::text;

-- retention.bytes: sealed segments beyond it go (here all of them)
SELECT topics.alter_topic_configs('tc_segs', '{"retention.bytes": "1"}');
SELECT log_start_offset > 0 AS moved FROM topics.enforce_retention('tc_segs');
SELECT count(*) FROM topics.segments WHERE topic = 'tc_segs'::regclass AND state = 'sealed';

-- retention.ms: records older than it go with their segment (segment.ms
-- rolls the live one on time)
SELECT topics.create_topic('tc_aged', value_type => 'text');
SELECT count(*) FROM topics.produce_batch('tc_aged', ARRAY['a', 'b', 'c']);
SELECT log_start_offset FROM topics.enforce_retention('tc_aged');
SELECT topics.alter_topic_configs('tc_aged', '{"retention.ms": "1", "segment.ms": "1"}');
SELECT pg_sleep(0.01);
SELECT log_start_offset FROM topics.enforce_retention('tc_aged');
SELECT count(*) FROM tc_aged;

-- privileges: only the owner alters (42501); the view shows only topics
-- the caller may SELECT (superusers and pg_monitor members: all)
CREATE ROLE tc_other;
CREATE ROLE tc_watcher IN ROLE pg_monitor;
GRANT SELECT ON tc_plain TO tc_other;
SET ROLE tc_other;
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"segment.ms": "5"}')$$);
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_made', reset => '{segment.ms}')$$);
SELECT DISTINCT topic FROM topics.topic_configs ORDER BY topic;
SELECT tc_try($$SELECT * FROM topics.topic_config_info('tc_made')$$);
SELECT tc_try($$SELECT * FROM topics.topic_config$$);
RESET ROLE;
SET ROLE tc_watcher;
SELECT count(DISTINCT topic) FROM topics.topic_configs
WHERE topic::text IN ('tc_plain', 'tc_made', 'tc_args', 'tc_segs', 'tc_aged');
RESET ROLE;
-- read-only transactions change nothing
BEGIN READ ONLY;
SELECT tc_try($$SELECT topics.alter_topic_configs('tc_plain', '{"segment.ms": "5"}')$$);
ROLLBACK;

-- DROP forgets a topic's configs
SELECT 'tc_made'::regclass::oid AS made_oid \gset
SELECT topics.drop_topic('tc_made');
SELECT count(*) FROM topics.topic_config WHERE topic::oid = :made_oid;
SELECT count(*) FROM topics.topic_configs WHERE topic::oid = :made_oid;

SELECT topics.drop_topic(t) FROM unnest(ARRAY['tc_plain', 'tc_args', 'tc_segs', 'tc_bigsegs', 'tc_aged']) t;
DROP ROLE tc_other;
DROP ROLE tc_watcher;
DROP FUNCTION tc_try(text);
