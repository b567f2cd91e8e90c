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

-- a segment whose newest record goes: its newest timestamp becomes its
-- newest kept record's, as in a segment Kafka cleaned; offsets_for_times
-- and a time seek for the removed record's time find the next record of
-- that time or later
SELECT topics.create_topic('lcr_ts', 1, 'text', 'text', configs => '{"segment.bytes": "65536"}');
SELECT count(*) FROM topics.produce_batch('lcr_ts',
    (SELECT array_agg('a' || g) FROM generate_series(0, 99) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 99) g));
SELECT pg_sleep(0.01);
SELECT count(*) FROM topics.produce('lcr_ts', 'b', 'k0');
SELECT topics.alter_topic_configs('lcr_ts', '{"segment.bytes": "65536", "segment.ms": "1"}');
SELECT pg_sleep(0.01);
-- (the worker may have rolled it first: the segments end where they would)
SELECT count(*) >= 0 AS rolled FROM topics.enforce_retention('lcr_ts');
SELECT count(*) FROM topics.produce('lcr_ts', 'c', 'k0');
SELECT count(*) >= 0 AS rolled FROM topics.enforce_retention('lcr_ts');
SELECT count(*) FROM topics.produce('lcr_ts', 'live', 'live');
SELECT base_offset FROM topics.segments WHERE topic = 'lcr_ts'::regclass AND base_offset <= 101 ORDER BY 1;
CREATE TABLE lcr_ts_before AS SELECT "offset", timestamp FROM lcr_ts;
BEGIN;
SELECT topics.alter_topic_configs('lcr_ts', '{"segment.bytes": "65536", "segment.ms": "1", "cleanup.policy": "compact"}');
SELECT topics.compact('lcr_ts');
COMMIT;
SELECT b."offset" AS removed,
       b.timestamp > (SELECT max(timestamp) FROM lcr_ts WHERE "offset" < 101) AS newest_of_its_segment,
       (SELECT "offset" FROM topics.offsets_for_times('lcr_ts', b.timestamp)) AS offsets_for_times,
       (SELECT min("offset") FROM lcr_ts WHERE timestamp >= b.timestamp) AS time_seek
FROM lcr_ts_before b WHERE b."offset" NOT IN (SELECT "offset" FROM lcr_ts);
SELECT * FROM topics.verify('lcr_ts');
DROP TABLE lcr_ts_before;
SELECT topics.drop_topic('lcr_ts');
