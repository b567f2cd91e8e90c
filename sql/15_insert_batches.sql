-- INSERT writes its rows as batches, as produce_batch does: offsets dense and
-- in the order the rows came, the same bytes on disk and in the WAL, and a
-- failed or rolled-back INSERT leaves nothing behind
\set SHOW_CONTEXT never
SELECT topics.create_topic('ib_batch', 1, value_type => 'text');
SELECT topics.create_topic('ib_insert', 1, value_type => 'text');

-- the same 2,000 records of 100 bytes, by produce_batch and by INSERT ... SELECT
SELECT pg_current_wal_insert_lsn() AS lsn0 \gset
SELECT count(*) FROM topics.produce_batch('ib_batch',
    (SELECT array_agg(lpad(i::text, 100, 'v') ORDER BY i) FROM generate_series(1, 2000) i),
    (SELECT array_agg(lpad(i::text, 16, 'k') ORDER BY i) FROM generate_series(1, 2000) i));
SELECT pg_current_wal_insert_lsn() AS lsn1 \gset
INSERT INTO ib_insert (key, value)
SELECT lpad(i::text, 16, 'k'), lpad(i::text, 100, 'v') FROM generate_series(1, 2000) i ORDER BY i;
SELECT pg_current_wal_insert_lsn() AS lsn2 \gset

-- within 5% of produce_batch's WAL bytes (one batch per row took 1.8 times as much)
SELECT (:'lsn2'::pg_lsn - :'lsn1'::pg_lsn) <= 1.05 * (:'lsn1'::pg_lsn - :'lsn0'::pg_lsn) AS wal_as_batch;
-- and as many pages
SELECT (SELECT bytes FROM topics.partitions WHERE topic = 'ib_insert'::regclass) <=
       (SELECT bytes FROM topics.partitions WHERE topic = 'ib_batch'::regclass) + 8192 AS disk_as_batch;
-- offsets 0..1999 in the order of the SELECT
SELECT count(*), min("offset"), max("offset"),
       bool_and(value = lpad(("offset" + 1)::text, 100, 'v')) AS in_order
FROM ib_insert;
SELECT * FROM topics.verify('ib_insert');

-- rows of several partitions: each partition's offsets dense, in arrival order
SELECT topics.create_topic('ib_parts', 4);
INSERT INTO ib_parts (key, value)
SELECT 'k' || (i % 11), jsonb_build_object('i', i) FROM generate_series(1, 3000) i ORDER BY i;
SELECT partition, count(*) = max("offset") + 1 AS dense,
       bool_and(prev < cur) AS in_order
FROM (SELECT partition, "offset", (value->>'i')::int AS cur,
             lag((value->>'i')::int) OVER (PARTITION BY partition ORDER BY "offset") AS prev
      FROM ib_parts) s
GROUP BY partition ORDER BY partition;
-- and each key in the partition produce_batch would choose
SELECT count(*) AS misrouted FROM ib_parts t
WHERE partition <> (SELECT p.partition FROM topics.produce('ib_parts', '{}'::jsonb, t.key) p);

-- a multi-row VALUES: one batch, offsets in the order written
INSERT INTO ib_insert (key, value) VALUES ('a', 'first'), ('b', 'second'), ('c', 'third');
SELECT "offset", key, value FROM ib_insert WHERE "offset" >= 2000 ORDER BY "offset";

-- an INSERT that fails part-way stores nothing (and, failing before its
-- rows were written, uses no offsets); nor does a longer one
INSERT INTO ib_parts (key, value)
SELECT 'k', CASE WHEN i < 500 THEN '{}' ELSE 'not json' END::jsonb FROM generate_series(1, 800) i;
INSERT INTO ib_insert (key, value)
SELECT 'late', CASE WHEN i < 500 THEN 'x' ELSE (1 / (i - i))::text END FROM generate_series(1, 800) i;
SELECT * FROM topics.offsets('ib_insert');
INSERT INTO ib_insert (key, value)
SELECT 'later', CASE WHEN i < 2500 THEN 'x' ELSE (1 / (i - i))::text END FROM generate_series(1, 3000) i;
SELECT count(*) FROM ib_insert WHERE key IN ('late', 'later');
SELECT * FROM topics.verify('ib_insert');

-- so does one rolled back to a savepoint, and one whose transaction rolls back
BEGIN;
INSERT INTO ib_insert (key, value) VALUES ('kept', '1');
SAVEPOINT s;
INSERT INTO ib_insert (key, value) SELECT 'undone', i::text FROM generate_series(1, 10) i;
ROLLBACK TO SAVEPOINT s;
INSERT INTO ib_insert (key, value) VALUES ('kept', '2');
COMMIT;
BEGIN;
INSERT INTO ib_insert (key, value) SELECT 'aborted', i::text FROM generate_series(1, 10) i;
ROLLBACK;
SELECT key, value FROM ib_insert WHERE "offset" >= 2003 ORDER BY "offset";

-- a later statement of the transaction sees every row of the INSERT
BEGIN;
INSERT INTO ib_insert (key, value) SELECT 'seen', i::text FROM generate_series(1, 5) i;
SELECT count(*) FROM ib_insert WHERE key = 'seen';
COMMIT;

-- a function the INSERT calls sees the rows inserted before it, as with heap
CREATE FUNCTION ib_count() RETURNS text LANGUAGE plpgsql VOLATILE
AS $$ BEGIN RETURN (SELECT count(*) FROM ib_insert WHERE key = 'counted')::text; END $$;
INSERT INTO ib_insert (key, value) SELECT 'counted', ib_count() FROM generate_series(1, 4);
SELECT "offset" - min("offset") OVER () AS n, value FROM ib_insert WHERE key = 'counted' ORDER BY "offset";

-- produce() inside an INSERT: its record follows the rows before it
INSERT INTO ib_insert (key, value)
SELECT 'around', CASE WHEN i = 2 THEN (SELECT "offset"::text FROM topics.produce('ib_insert', 'inner', 'produced')) ELSE i::text END
FROM generate_series(1, 3) i;
SELECT "offset" - min("offset") OVER () AS n, key, value FROM ib_insert WHERE key IN ('around', 'produced') ORDER BY "offset";

-- a subtransaction under the INSERT (a PL/pgSQL block with EXCEPTION): its own
-- writes roll back with it, the INSERT's rows stay
CREATE FUNCTION ib_try(i int) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    BEGIN
        PERFORM topics.produce('ib_insert', 'doomed ' || i, 'doomed');
        IF i % 2 = 0 THEN
            RAISE EXCEPTION 'even';
        END IF;
        RETURN 'odd ' || i;
    EXCEPTION WHEN raise_exception THEN
        RETURN 'caught ' || i;
    END;
END $$;
INSERT INTO ib_insert (key, value) SELECT 'tried', ib_try(i) FROM generate_series(1, 4) i;
SELECT key, value FROM ib_insert WHERE key IN ('tried', 'doomed') ORDER BY "offset";
SELECT * FROM topics.verify('ib_insert');

-- RETURNING still gets each row's offset and timestamp at once
INSERT INTO ib_insert (key, value) SELECT 'returned', i::text FROM generate_series(1, 3) i
RETURNING "offset" - (SELECT max("offset") FROM ib_insert) AS after_max, "timestamp" IS NOT NULL AS stamped;

-- the rules of the moment a row is inserted apply, whatever a function the
-- INSERT calls does to the session's settings before the row is written
SELECT topics.create_topic('ib_rules', 1, value_type => 'text');
CREATE ROLE ib_user;
GRANT INSERT, SELECT ON ib_rules TO ib_user;
CREATE FUNCTION ib_replica_mode() RETURNS text LANGUAGE plpgsql SECURITY DEFINER
    SET session_replication_role = replica AS $$ BEGIN PERFORM 1; RETURN 'h'; END $$;
GRANT EXECUTE ON FUNCTION ib_replica_mode() TO ib_user;
SET ROLE ib_user;
INSERT INTO ib_rules (key, value, "offset", "timestamp")
VALUES ('a', 'forged', 1000000, '2001-01-01'), ('b', ib_replica_mode(), -1, '-infinity');
RESET ROLE;
SELECT * FROM topics.offsets('ib_rules');
-- and rows inserted in preserve mode keep their offsets
CREATE FUNCTION ib_origin_mode() RETURNS text LANGUAGE plpgsql
    SET session_replication_role = origin AS $$ BEGIN PERFORM 1; RETURN 'o'; END $$;
SET session_replication_role = replica;
INSERT INTO ib_rules (key, value, "offset", "timestamp")
VALUES ('r', 'restored', 5, '2020-01-01 00:00:00+00'), ('s', ib_origin_mode(), 6, '2020-01-02 00:00:00+00');
RESET session_replication_role;
SELECT "offset", "timestamp", key, value FROM ib_rules ORDER BY "offset";
-- a size limit is the one in force when the row is inserted
INSERT INTO ib_rules (key, value) SELECT 'big', repeat('x', 2000000);

-- a utility statement run by a function the INSERT calls sees the rows so far
SELECT topics.create_topic('ib_util', 1, value_type => 'text');
SELECT relation AS ib_util_p FROM topics.partitions WHERE topic = 'ib_util'::regclass \gset
CREATE FUNCTION ib_copy_lines(i int, part regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    f text := current_setting('data_directory') || '/ib_copy_' || i || '.out';
BEGIN
    EXECUTE format('COPY %s TO %L', part, f);
    RETURN coalesce(array_length(string_to_array(rtrim(pg_read_file(f), E'\n'), E'\n'), 1), 0);
END $$;
INSERT INTO ib_util (key, value) SELECT 'k', ib_copy_lines(i, :'ib_util_p') FROM generate_series(1, 3) i;
SELECT value FROM ib_util ORDER BY "offset";

SELECT topics.drop_topic('ib_batch');
SELECT topics.drop_topic('ib_insert');
SELECT topics.drop_topic('ib_parts');
DROP FUNCTION ib_count();
DROP FUNCTION ib_try(int);
SELECT topics.drop_topic('ib_rules');
SELECT topics.drop_topic('ib_util');
DROP FUNCTION ib_replica_mode();
DROP FUNCTION ib_origin_mode();
DROP FUNCTION ib_copy_lines(int, regclass);
DROP ROLE ib_user;
