-- Log compaction (cleanup.policy compact): topics.compact keeps each key's
-- newest record at its offset, tombstones for delete.retention.ms, keyless
-- records always; readers, verify and topics.partitions after it
\set SHOW_CONTEXT never
CREATE FUNCTION lc_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
-- distinct TOAST values held by the topic's segments
CREATE FUNCTION lc_toast_values(topic regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    t regclass;
    n bigint := 0;
    c bigint;
BEGIN
    FOR t IN SELECT r.reltoastrelid::regclass FROM topics.segments s
             JOIN pg_class r ON r.oid = s.relation WHERE s.topic = $1 LOOP
        EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s', t) INTO c;
        n := n + c;
    END LOOP;
    RETURN n;
END
$$;

-- four sealed segments: 20 keys in every one, a key of its own in each (so
-- no segment is left without records), a tombstone for k3 and a keyless
-- record in the second, a large (TOASTed) value for k5 in the first and
-- the third; then a LIVE segment holding newer records of k0..k9
-- (compact is set just before topics.compact, in its transaction, so
-- that the background worker does not compact the topic first)
SELECT topics.create_topic('lc', 1, 'text', 'text',
    configs => '{"segment.bytes": "32768"}');
SELECT count(*) FROM topics.produce_batch('lc',
    (SELECT array_agg(repeat('a', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.produce('lc', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g), 'k5');
SELECT count(*) FROM topics.produce('lc', 'first', 'only1');
SELECT count(*) FROM topics.enforce_retention('lc');
SELECT count(*) FROM topics.produce_batch('lc',
    (SELECT array_agg(repeat('b', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.produce('lc', NULL::text, 'k3');
SELECT count(*) FROM topics.produce('lc', 'no key');
SELECT count(*) FROM topics.produce('lc', 'second', 'only2');
SELECT count(*) FROM topics.enforce_retention('lc');
SELECT count(*) FROM topics.produce_batch('lc',
    (SELECT array_agg(repeat('c', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg(CASE WHEN g % 20 = 3 THEN 'z' ELSE 'k' || g % 20 END) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.produce('lc', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g), 'k5');
SELECT count(*) FROM topics.produce('lc', 'third', 'only3');
SELECT count(*) FROM topics.enforce_retention('lc');
SELECT count(*) FROM topics.produce_batch('lc',
    (SELECT array_agg(repeat('d', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg(CASE WHEN g % 20 = 3 THEN 'z' ELSE 'k' || g % 20 END) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.produce('lc', 'fourth', 'only4');
SELECT count(*) FROM topics.enforce_retention('lc');
SELECT count(*) FROM topics.produce_batch('lc',
    (SELECT array_agg('e' || g) FROM generate_series(0, 9) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 9) g));
SELECT count(*) FILTER (WHERE state = 'sealed') >= 4 AS sealed,
       count(*) FILTER (WHERE state = 'live') AS live
FROM topics.segments WHERE topic = 'lc'::regclass;

-- what must stay: below the LIVE segment, each key's newest record there
-- (the tombstone of k3 too), and the keyless record; the LIVE segment whole
CREATE TABLE lc_before AS SELECT "offset", key, value FROM lc;
CREATE TABLE lc_live AS SELECT base_offset, NULL::timestamptz AS last_compaction
FROM topics.segments WHERE topic = 'lc'::regclass AND state = 'live';
CREATE TABLE lc_expected AS
SELECT b.* FROM lc_before b, lc_live l
WHERE b."offset" >= l.base_offset OR b.key IS NULL
   OR b."offset" = (SELECT max(o."offset") FROM lc_before o
                    WHERE o.key = b.key AND o."offset" < l.base_offset);
SELECT count(*) AS records, (SELECT count(*) FROM lc_expected) BETWEEN 25 AND 70 AS to_keep
FROM lc_before;
SELECT lc_toast_values('lc') AS toast_values;
SELECT * FROM topics.offsets('lc');

BEGIN;
SELECT topics.alter_topic_configs('lc', '{"cleanup.policy": "compact"}');
CREATE TABLE lc_removed AS SELECT topics.compact('lc') AS removed;
COMMIT;
-- exactly the expected records, at their offsets, with their values
SELECT removed = 1618 - (SELECT count(*) FROM lc) AS removed_counted,
       removed > 1500 AS removed_most FROM lc_removed;
SELECT count(*) = (SELECT count(*) FROM lc_expected) AS all_expected
FROM lc WHERE "offset" IN (SELECT "offset" FROM lc_expected);
SELECT count(*) AS missing FROM lc_expected e
WHERE NOT EXISTS (SELECT 1 FROM lc WHERE lc."offset" = e."offset"
                  AND lc.key IS NOT DISTINCT FROM e.key
                  AND lc.value IS NOT DISTINCT FROM e.value);
-- beyond them only what the cleaner keeps of a segment every record of
-- which is superseded: its last record (a segment never ends up empty)
SELECT count(*) AS extra FROM lc
WHERE NOT EXISTS (SELECT 1 FROM lc_expected e WHERE e."offset" = lc."offset")
  AND lc."offset" + 1 NOT IN (SELECT base_offset FROM topics.segments
                               WHERE topic = 'lc'::regclass);
-- the removed large value of k5 left the TOAST table, a kept one stayed
-- (whether the newer one is below the LIVE segment depends on where the
-- segments rolled, which depends on when the worker made its spares)
SELECT lc_toast_values('lc') BETWEEN 1 AND 2 AS toast_values,
       lc_toast_values('lc') = (SELECT count(*) FROM lc WHERE key = 'k5' AND octet_length(value) > 2000)
         AS only_kept_ones;
SELECT "offset", key, value FROM lc WHERE key IN ('k3', 'only1', 'only2') OR key IS NULL ORDER BY "offset";
SELECT * FROM topics.offsets('lc');
SELECT * FROM topics.verify('lc');
SELECT dirty_ratio, last_compaction IS NOT NULL AS compacted
FROM topics.partitions WHERE topic = 'lc'::regclass;
UPDATE lc_live SET last_compaction = (SELECT last_compaction FROM topics.partitions
                                      WHERE topic = 'lc'::regclass);

-- readers over the holes: offsets inside a hole go on at the next record
SELECT "offset" = (SELECT min("offset") FROM lc WHERE "offset" >= 1) AS fetch_next
FROM topics.fetch(NULL::lc, 0, 1, 1);
SELECT topics.next_offset('lc', 0, 1) = (SELECT min("offset") FROM lc WHERE "offset" >= 1) AS next_offset_ok;
SELECT count(*) = (SELECT count(*) FROM lc) AS fetch_all
FROM topics.fetch(NULL::lc, 0, 0, 100000);

-- a second pass finds nothing new to remove
SELECT topics.compact('lc') AS removed;

-- the tombstone goes once its segment was cleaned delete.retention.ms ago
SELECT topics.alter_topic_configs('lc', '{"delete.retention.ms": "0"}');
SELECT topics.compact('lc') AS removed;
SELECT count(*) AS k3_records FROM lc WHERE key = 'k3';
SELECT * FROM topics.verify('lc');

-- new records make the log dirty again; keyless records always stay
SELECT count(*) FROM topics.produce_batch('lc',
    (SELECT array_agg(repeat('f', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
SELECT count(*) FROM topics.enforce_retention('lc');
SELECT dirty_ratio > 0 OR last_compaction > (SELECT last_compaction FROM lc_live) AS dirty_or_cleaned FROM topics.partitions WHERE topic = 'lc'::regclass;
SELECT topics.compact('lc') >= 0 AS compacted;
SELECT count(*) AS keyless FROM lc WHERE key IS NULL;

-- only compacted topics are compacted; only who may delete records
SELECT topics.create_topic('lc_plain', value_type => 'text');
SELECT lc_try($$SELECT topics.compact('lc_plain')$$);
SELECT dirty_ratio, last_compaction FROM topics.partitions WHERE topic = 'lc_plain'::regclass;
CREATE ROLE lc_reader;
GRANT SELECT ON lc TO lc_reader;
SET ROLE lc_reader;
SELECT lc_try($$SELECT topics.compact('lc')$$);
RESET ROLE;

-- compact,delete: compacted, and retention applies too
SELECT topics.alter_topic_configs('lc_plain', '{"cleanup.policy": "delete,compact"}');
SELECT value FROM topics.topic_configs WHERE topic = 'lc_plain'::regclass AND name = 'cleanup.policy';
SELECT topics.compact('lc_plain') AS removed;

-- more keys than the key map holds (64 kB: 1,024 keys): several passes,
-- each going on where the one before filled its map
ALTER SYSTEM SET pg_topics.compaction_buffer_size = '64kB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW pg_topics.compaction_buffer_size;
SELECT topics.create_topic('lc_many', 1, 'text', 'text', configs => '{"segment.bytes": "65536"}');
SELECT count(*) FROM generate_series(1, 3) r, LATERAL (SELECT count(*) FROM topics.produce_batch('lc_many',
    (SELECT array_agg('v' || r || '-' || i) FROM generate_series(1, 3000) i),
    (SELECT array_agg('k' || i) FROM generate_series(1, 3000) i))) x;
SELECT count(*) FROM topics.enforce_retention('lc_many');
SELECT count(*) FROM topics.produce('lc_many', 'live', 'live');
SELECT count(*) FROM topics.enforce_retention('lc_many');
BEGIN;
SELECT topics.alter_topic_configs('lc_many', '{"cleanup.policy": "compact"}');
CREATE TABLE lc_many_removed AS SELECT topics.compact('lc_many') AS removed;
COMMIT;
-- (a record superseded only in the LIVE segment stays, as in Kafka)
CREATE TABLE lc_many_live AS SELECT base_offset FROM topics.segments
WHERE topic = 'lc_many'::regclass AND state = 'live';
SELECT removed + (SELECT count(*) FROM lc_many) AS before_compaction,
       (SELECT count(DISTINCT key) FROM lc_many WHERE value LIKE 'v3-%') AS newest_kept,
       (SELECT count(*) FROM lc_many o, lc_many_live l
        WHERE EXISTS (SELECT 1 FROM lc_many n WHERE n.key = o.key AND n."offset" > o."offset"
                      AND n."offset" < l.base_offset)
          AND o."offset" + 1 NOT IN (SELECT base_offset FROM topics.segments
                                     WHERE topic = 'lc_many'::regclass)) AS superseded_kept
FROM lc_many_removed;
SELECT * FROM topics.verify('lc_many');
ALTER SYSTEM RESET pg_topics.compaction_buffer_size;
SELECT pg_reload_conf();

SELECT topics.drop_topic('lc');
SELECT topics.drop_topic('lc_plain');
SELECT topics.drop_topic('lc_many');
DROP ROLE lc_reader;
DROP TABLE lc_before, lc_live, lc_expected, lc_removed, lc_many_removed, lc_many_live;
DROP FUNCTION lc_try(text), lc_toast_values(regclass);
