-- Log compaction from a session's point of view: what topics.compact()
-- refuses, and what it leaves to the session after an error
\set SHOW_CONTEXT never
-- two sealed segments of 20 keys each, then a LIVE one; compact is set in
-- each test's transaction, so that the background worker leaves it alone
SELECT topics.create_topic('lcr', 1, 'text', 'text', configs => '{"segment.bytes": "32768"}');
SELECT count(*) FROM topics.produce_batch('lcr',
    (SELECT array_agg(repeat('a', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.enforce_retention('lcr');
SELECT count(*) FROM topics.produce_batch('lcr',
    (SELECT array_agg(repeat('b', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.enforce_retention('lcr');
SELECT count(*) FROM topics.produce('lcr', 'x', 'k1');
-- (how many depends on where the calls rolled into the worker's spares)
SELECT count(*) FILTER (WHERE state = 'sealed') >= 2 AS sealed FROM topics.segments WHERE topic = 'lcr'::regclass;

-- a cursor of this session reading a segment: its scan would go on in the
-- new file at the old one's block numbers
BEGIN;
SELECT topics.alter_topic_configs('lcr', '{"cleanup.policy": "compact"}');
DECLARE c CURSOR FOR SELECT "offset", key FROM lcr;
FETCH 2 FROM c;
SELECT topics.compact('lcr');
ROLLBACK;

-- not in a read-only transaction
BEGIN READ ONLY;
SELECT topics.compact('lcr');
ROLLBACK;

-- a savepoint rolled back keeps the old segments
BEGIN;
SELECT topics.alter_topic_configs('lcr', '{"cleanup.policy": "compact"}');
SAVEPOINT s;
SELECT topics.compact('lcr') AS removed \gset
SELECT :removed > 700 AS removed_most, :removed + count(*) AS records FROM lcr;
ROLLBACK TO s;
SELECT count(*) FROM lcr;
SELECT * FROM topics.verify('lcr');
ROLLBACK;

-- the pass's cost delay is the session's VACUUM setting while it runs: a
-- cancel while the pass maps the keys gives the session its own back
ALTER SYSTEM SET pg_topics.compaction_cost_delay = 50;
ALTER SYSTEM SET pg_topics.compaction_cost_limit = 1;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW vacuum_cost_delay;
BEGIN;
SELECT topics.alter_topic_configs('lcr', '{"cleanup.policy": "compact"}');
SET LOCAL statement_timeout = '100ms';
SELECT topics.compact('lcr');
ROLLBACK;
SHOW vacuum_cost_delay;
SHOW vacuum_cost_limit;
ALTER SYSTEM RESET pg_topics.compaction_cost_delay;
ALTER SYSTEM RESET pg_topics.compaction_cost_limit;
SELECT pg_reload_conf();

SELECT topics.drop_topic('lcr');
