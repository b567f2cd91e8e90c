-- Retention: delete_records, enforce_retention, and segments being internal
\set SHOW_CONTEXT never
SELECT topics.create_topic('trail', partitions => 2, value_type => 'text', retention_bytes => 1000000);
SELECT count(*) FROM topics.produce_batch('trail', ARRAY['a','b','c','d','e'], partition => 0);

-- delete_records moves the log start and returns it; records below are gone
SELECT topics.delete_records('trail', 0, 2);
SELECT "offset", value FROM trail WHERE partition = 0 ORDER BY "offset";
SELECT partition, log_start_offset, high_watermark FROM topics.offsets('trail') ORDER BY partition;
-- a lower offset changes nothing; the high watermark empties the partition
SELECT topics.delete_records('trail', 0, 1);
SELECT topics.delete_records('trail', 0, 5);
SELECT count(*) FROM trail WHERE partition = 0;
-- producing goes on after the deleted records
SELECT "offset" FROM topics.produce('trail', 'f', partition => 0);
SELECT * FROM topics.fetch(NULL::trail, 0, 3);
SELECT "offset", value FROM topics.fetch(NULL::trail, 0, 5);

-- bad input
SELECT topics.delete_records('trail', 0, 7);
SELECT topics.delete_records('trail', 0, -1);
SELECT topics.delete_records('trail', 2, 0);
SELECT topics.delete_records('no_such_topic', 0, 0);

-- enforce_retention applies the policy now: nothing to drop yet
SELECT * FROM topics.enforce_retention('trail');
-- the background worker that applies retention runs, and nothing is wrong
SELECT running, launcher_pid IS NOT NULL AS has_launcher, problem, problem_since
FROM topics.maintenance;
-- pg_topics' own SQL runs with a pinned search_path: an operator planted
-- ahead of pg_catalog's is not what runs as the superuser
CREATE SCHEMA planted;
CREATE FUNCTION planted.mul(numeric, integer) RETURNS numeric LANGUAGE plpgsql
    AS $$BEGIN RAISE EXCEPTION 'the planted operator ran'; END$$;
CREATE OPERATOR planted.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = planted.mul);
SET search_path = planted, public, pg_catalog;
SELECT * FROM topics.enforce_retention('trail');
RESET search_path;
DROP SCHEMA planted CASCADE;

-- privileges: removing records needs DELETE on the topic
CREATE ROLE trail_reader;
GRANT SELECT ON trail TO trail_reader;
SET ROLE trail_reader;
SELECT topics.delete_records('trail', 0, 6);
SELECT * FROM topics.enforce_retention('trail');
RESET ROLE;
GRANT DELETE ON trail TO trail_reader;
SET ROLE trail_reader;
SELECT topics.delete_records('trail', 0, 6);
RESET ROLE;
-- nobody moves a log start through the restore trigger by hand
SET ROLE trail_reader;
CREATE TEMP TABLE fake_starts (p regclass, s bigint);
CREATE TRIGGER fake AFTER INSERT ON fake_starts FOR EACH ROW EXECUTE FUNCTION topics.restore_log_start();
RESET ROLE;
CREATE TEMP TABLE fake_starts_su (p regclass, s bigint);
CREATE TRIGGER fake AFTER INSERT ON fake_starts_su FOR EACH ROW EXECUTE FUNCTION topics.restore_log_start();
INSERT INTO fake_starts_su VALUES ('trail_p1', 1000000);
SELECT partition, log_start_offset FROM topics.offsets('trail') WHERE partition = 1;
DROP OWNED BY trail_reader;
DROP ROLE trail_reader;

-- segments are managed by pg_topics alone
SELECT format('topics_segments.%I', relname) AS seg FROM pg_class
WHERE relnamespace = 'topics_segments'::regnamespace
  AND relname LIKE 'seg\_' || 'trail_p1'::regclass::oid || '\_%' ORDER BY relname LIMIT 1 \gset
-- (segment names carry OIDs: the helper shows the errors without them)
CREATE FUNCTION pg_temp.try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'done';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, 'seg_[0-9]+_[0-9]+', 'seg_N', 'g');
END $$;
SELECT pg_temp.try(format('INSERT INTO %s (partition, key, value) VALUES (1, %L, %L)', :'seg', 'k', 'v'));
SELECT pg_temp.try(format('TRUNCATE %s', :'seg'));
SELECT pg_temp.try(format('ALTER TABLE %s RENAME TO anything', :'seg'));
SELECT pg_temp.try(format('ALTER TABLE %s SET SCHEMA public', :'seg'));
SELECT pg_temp.try(format('DROP TABLE %s', :'seg'));
-- and a topic_log table is never made by CREATE TABLE AS
CREATE TABLE copied USING topic_log AS SELECT * FROM trail;

-- TRUNCATE and DROP take their segments along
SELECT count(*) > 0 AS has_segments FROM pg_class
WHERE relnamespace = 'topics_segments'::regnamespace AND relname LIKE 'seg\_' || 'trail_p0'::regclass::oid || '\_%';
-- topics.segments: each partition's segments, oldest first (a spare may
-- or may not have been made ahead of need yet)
SELECT partition, state, base_offset, relation IS NOT NULL AS present, bytes > 0 AS has_bytes
FROM topics.segments WHERE topic = 'trail'::regclass AND state <> 'spare' ORDER BY partition, segment;
TRUNCATE trail;
SELECT partition, log_start_offset, high_watermark FROM topics.offsets('trail') ORDER BY partition;
SELECT * FROM topics.verify('trail');
-- one fresh segment each, where the log goes on, however many TRUNCATEs
BEGIN;
TRUNCATE trail;
TRUNCATE trail;
COMMIT;
SELECT partition, state, base_offset FROM topics.segments
WHERE topic = 'trail'::regclass AND state <> 'spare' ORDER BY partition, segment;
SELECT topics.drop_topic('trail');
SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'topics_segments'::regnamespace
  AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE c.relname LIKE 'seg\_' || p.oid || '\_%' AND p.relnamespace <> c.relnamespace);
