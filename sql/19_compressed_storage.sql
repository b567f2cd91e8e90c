-- Compressed storage (compression.type zstd and lz4): the config's values
-- and errors; every SQL reader gives a compressed topic's records exactly
-- as an uncompressed twin written by the same calls gives them (keys and
-- values of every type, NULL keys, tombstones, headers, TOASTed values
-- among small ones, rolled-back offsets); partitions mixing compressed and
-- uncompressed batches after a change of compression.type; offset and
-- time seeks; preserve mode; delete_records and retention; log compaction;
-- topics.verify; and that it compresses (disk and WAL bytes)
\set SHOW_CONTEXT never
-- the number and md5 of a query's rows, in the order it returns them
CREATE FUNCTION cs_digest(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    EXECUTE format('SELECT count(*) || '' '' || coalesce(md5(string_agg(cs_row::text, E''\n'')), ''-'') FROM (%s) cs_row', q)
        INTO r;
    RETURN r;
END
$$;
-- a topic's records as a group reads them with poll, n at a time, until
-- none is left: the number and md5 of them, sorted
CREATE FUNCTION cs_poll_all(t text, n int DEFAULT 7) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    got text[];
    acc text[] := '{}';
BEGIN
    LOOP
        EXECUTE format('SELECT array_agg(concat_ws(''|'', partition, "offset", key, value, headers)) '
                       'FROM topics.poll(NULL::%s, ''cs-poll'', max_records => %s)', t, n) INTO got;
        EXIT WHEN got IS NULL;
        acc := acc || got;
    END LOOP;
    RETURN (SELECT count(*) || ' ' || count(DISTINCT x) || ' ' || md5(string_agg(x, E'\n' ORDER BY x))
            FROM unnest(acc) x);
END
$$;
-- a text expression as a value of type typ
CREATE FUNCTION cs_expr(typ text, e text) RETURNS text LANGUAGE sql AS $$
SELECT CASE typ WHEN 'bytea' THEN format('convert_to((%s)::text, ''UTF8'')', e)
                WHEN 'jsonb' THEN format('to_jsonb((%s)::text)', e)
                ELSE format('(%s)::text', e) END
$$;
-- 100 kB that do not compress (the bytes of md5s), as typ
CREATE FUNCTION cs_big(typ text, seed int) RETURNS text LANGUAGE sql AS $$
SELECT CASE typ WHEN 'bytea' THEN format('(SELECT string_agg(decode(md5(%s || '':'' || i), ''hex''), ''''::bytea) FROM generate_series(1, 6400) i)', seed)
                ELSE cs_expr(typ, format('(SELECT string_agg(md5(%s || '':'' || i), '''') FROM generate_series(1, 3200) i)', seed)) END
$$;

-- The same calls on every topic given: a batch of keyed, keyless and
-- tombstone records; keyless batches; single records with headers (object
-- and array forms), keyless, tombstones; INSERT ... SELECT with headers;
-- 100 kB values (compressible and not) among small ones in one statement;
-- a batch rolled back (a gap of offsets); more batches after it
CREATE FUNCTION cs_fill(t text, kt text, vt text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT count(*) FROM topics.produce_batch(%L, '
        '(SELECT array_agg(%s ORDER BY g) FROM generate_series(1, 600) g), '
        '(SELECT array_agg(%s ORDER BY g) FROM generate_series(1, 600) g), partition => 0)', t,
        cs_expr(vt, $e$CASE WHEN g % 13 = 0 THEN NULL ELSE 'value ' || g || repeat(' lorem ipsum', g % 20) END$e$),
        cs_expr(kt, $e$CASE WHEN g % 10 = 0 THEN NULL ELSE 'key-' || g % 37 END$e$));
    EXECUTE format('SELECT count(*) FROM topics.produce_batch(%L, '
        '(SELECT array_agg(%s ORDER BY g) FROM generate_series(1, 300) g), partition => 1)', t,
        cs_expr(vt, $e$'keyless ' || g || repeat(' dolor', g % 30)$e$));
    EXECUTE format('SELECT topics.produce(%L, %s, %s, 0, %L)', t,
        cs_expr(vt, '''with headers'''), cs_expr(kt, '''h-1'''), '{"trace": "abc", "n": 2}');
    EXECUTE format('SELECT topics.produce(%L, %s, %s, 1, %L)', t,
        cs_expr(vt, '''array headers'''), cs_expr(kt, 'NULL'),
        '[["trace", "abc"], ["trace", "def"], ["solo", null], ["bin", {"base64": "/wE="}]]');
    EXECUTE format('SELECT topics.produce(%L, %s, %s, 0, %L)', t,
        cs_expr(vt, 'NULL'), cs_expr(kt, '''h-1'''), '{"deleted": "yes"}');
    EXECUTE format('SELECT topics.produce(%L, %s, %s, 1)', t,
        cs_expr(vt, 'NULL'), cs_expr(kt, 'NULL'));
    EXECUTE format('INSERT INTO %s (key, value, headers) SELECT %s, %s, '
        'CASE WHEN g %% 5 = 0 THEN jsonb_build_array(jsonb_build_array(''i'', g::text), jsonb_build_array(''i'', null)) '
        'WHEN g %% 3 = 0 THEN jsonb_build_object(''g'', g::text) END FROM generate_series(1, 400) g', t,
        cs_expr(kt, $e$'ins-' || g % 53$e$),
        cs_expr(vt, $e$CASE WHEN g % 17 = 0 THEN NULL ELSE 'inserted ' || g || repeat(' sit amet', g % 11) END$e$));
    EXECUTE format('INSERT INTO %s (key, value) VALUES (%s, %s), (%s, %s), (%s, %s), (%s, %s), (%s, %s), (%s, %s)', t,
        cs_expr(kt, '''big-1'''), cs_big(vt, 1),
        cs_expr(kt, '''small-1'''), cs_expr(vt, '''small between big ones'''),
        cs_expr(kt, '''big-2'''), cs_expr(vt, 'repeat(''compressible '', 8000)'),
        cs_expr(kt, '''big-3'''), cs_big(vt, 3),
        cs_expr(kt, '''small-2'''), cs_expr(vt, 'NULL'),
        cs_expr(kt, '''big-4'''), cs_big(vt, 4));
    BEGIN
        EXECUTE format('SELECT count(*) FROM topics.produce_batch(%L, '
            '(SELECT array_agg(%s) FROM generate_series(1, 50) g), partition => 0)', t,
            cs_expr(vt, $e$'rolled back ' || g$e$));
        RAISE EXCEPTION 'undone';
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    EXECUTE format('SELECT count(*) FROM topics.produce_batch(%L, '
        '(SELECT array_agg(%s ORDER BY g) FROM generate_series(1, 200) g), '
        '(SELECT array_agg(%s ORDER BY g) FROM generate_series(1, 200) g), partition => 0)', t,
        cs_expr(vt, $e$'after the gap ' || g || repeat(' consectetur', g % 9)$e$),
        cs_expr(kt, $e$'key-' || g % 37$e$));
END
$$;

------------------------------------------------------------------------
-- compression.type: uncompressed (default), producer (stored
-- uncompressed), zstd and lz4; gzip and snappy 0A000; anything else 22023
------------------------------------------------------------------------
SELECT topics.create_topic('cs_a_none', 2, 'text', 'jsonb');
SELECT topics.create_topic('cs_a_zstd', 2, 'text', 'jsonb', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_a_lz4', 2, 'text', 'jsonb', configs => '{"compression.type": "lz4"}');
SELECT topics.create_topic('cs_b_none', 2, 'bytea', 'bytea', configs => '{"compression.type": "producer"}');
SELECT topics.create_topic('cs_b_zstd', 2, 'bytea', 'bytea', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_b_lz4', 2, 'bytea', 'bytea');
SELECT topics.alter_topic_configs('cs_b_lz4', '{"compression.type": "lz4"}');
SELECT topics.create_topic('cs_c_none', 2, 'jsonb', 'text', configs => '{"compression.type": "uncompressed"}');
SELECT topics.create_topic('cs_c_zstd', 2, 'jsonb', 'text', configs => '{"compression.type": "lz4"}');
SELECT topics.alter_topic_configs('cs_c_zstd', '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_c_lz4', 2, 'jsonb', 'text', configs => '{"compression.type": "lz4"}');
SELECT topic, value, source FROM topics.topic_configs
WHERE name = 'compression.type' AND topic::text LIKE 'cs\_%' ORDER BY topic::text;
-- refused, naming the key and the value, and nothing applied (the
-- SQLSTATE, and whether the message names them: its wording is
-- 16_topic_configs' to show)
CREATE FUNCTION cs_refused(sql text, v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || CASE WHEN SQLERRM LIKE '%"compression.type"%' THEN ', names the key' ELSE '' END
                    || CASE WHEN SQLERRM LIKE '%"' || v || '"%' THEN ', names the value' ELSE '' END;
END
$$;
SELECT v, cs_refused(format('SELECT topics.alter_topic_configs(%L, jsonb_build_object(%L, %L))',
                            'cs_a_zstd', 'compression.type', v), v) AS outcome
FROM unnest(ARRAY['gzip', 'snappy', 'brotli', 'ZSTD', 'Lz4', 'zstd ', '', 'none', 'lz4,zstd']) v;
SELECT cs_refused($$SELECT topics.alter_topic_configs('cs_a_zstd', '{"compression.type": 4}')$$, '4');
SELECT v, cs_refused(format('SELECT topics.create_topic(%L, configs => jsonb_build_object(%L, %L))',
                            'cs_bad', 'compression.type', v), v) AS outcome
FROM unnest(ARRAY['gzip', 'snappy', 'zst']) v;
SELECT to_regclass('cs_bad') IS NULL AS not_created;
-- a good key beside a refused codec is not applied either
SELECT cs_refused($$SELECT topics.alter_topic_configs('cs_a_zstd', '{"segment.ms": "5", "compression.type": "gzip"}')$$, 'gzip');
SELECT name, value, source FROM topics.topic_configs
WHERE topic = 'cs_a_zstd'::regclass AND name IN ('compression.type', 'segment.ms') ORDER BY name;
-- reset: back to the default
SELECT topics.create_topic('cs_reset', 1, 'text', 'text', configs => '{"compression.type": "zstd"}');
SELECT topics.alter_topic_configs('cs_reset', reset => '{compression.type}');
SELECT value, source FROM topics.topic_configs WHERE topic = 'cs_reset'::regclass AND name = 'compression.type';
SELECT topics.drop_topic('cs_reset');

------------------------------------------------------------------------
-- the same calls on each, then every SQL reader: the compressed topics
-- give what the uncompressed one gives
------------------------------------------------------------------------
SELECT cs_fill(t, k, v) FROM (VALUES
    ('cs_a_none', 'text', 'jsonb'), ('cs_a_zstd', 'text', 'jsonb'), ('cs_a_lz4', 'text', 'jsonb'),
    ('cs_b_none', 'bytea', 'bytea'), ('cs_b_zstd', 'bytea', 'bytea'), ('cs_b_lz4', 'bytea', 'bytea'),
    ('cs_c_none', 'jsonb', 'text'), ('cs_c_zstd', 'jsonb', 'text'), ('cs_c_lz4', 'jsonb', 'text')) AS f(t, k, v);
-- COPY, a statement of its own: keyed records (headers too) and a large one
COPY cs_c_none (key, value, headers) FROM stdin;
"copy-1"	copied one	{"via": "copy"}
"copy-2"	\N	\N
{"k": [1, 2]}	copied three	[["a", "b"], ["a", "c"]]
\.
COPY cs_c_zstd (key, value, headers) FROM stdin;
"copy-1"	copied one	{"via": "copy"}
"copy-2"	\N	\N
{"k": [1, 2]}	copied three	[["a", "b"], ["a", "c"]]
\.
COPY cs_c_lz4 (key, value, headers) FROM stdin;
"copy-1"	copied one	{"via": "copy"}
"copy-2"	\N	\N
{"k": [1, 2]}	copied three	[["a", "b"], ["a", "c"]]
\.
-- what the calls left, on the uncompressed topics
SELECT topic, count(*) AS records, count(*) FILTER (WHERE key IS NULL) AS keyless,
       count(*) FILTER (WHERE value IS NULL) AS tombstones,
       count(*) FILTER (WHERE headers IS NOT NULL) AS with_headers,
       count(*) FILTER (WHERE octet_length(value::text) > 100000) AS large
FROM (SELECT 'cs_a_none' AS topic, key::text, value::text, headers FROM cs_a_none
      UNION ALL SELECT 'cs_b_none', key::text, value::text, headers FROM cs_b_none
      UNION ALL SELECT 'cs_c_none', key::text, value::text, headers FROM cs_c_none) r
GROUP BY topic ORDER BY topic;

-- the readers, each a query on a topic (%1$s)
CREATE TABLE cs_readers (reader text PRIMARY KEY, q text NOT NULL);
INSERT INTO cs_readers VALUES
('select', $$SELECT partition, "offset", key, value, headers FROM %1$s ORDER BY partition, "offset"$$),
('scan order', $$SELECT partition, "offset", key, value, headers FROM %1$s$$),
('partition scan', $$SELECT "offset", key, value, headers FROM %1$s_p0$$),
('values', $$SELECT value FROM %1$s WHERE partition = 0$$),
('keys', $$SELECT key FROM %1$s WHERE partition = 1$$),
('offsets', $$SELECT partition, "offset" FROM %1$s$$),
('count', $$SELECT count(*), count(key), count(value), count(headers), sum(octet_length(value::text)) FROM %1$s$$),
('tombstones', $$SELECT partition, "offset", key FROM %1$s WHERE value IS NULL$$),
('keyless', $$SELECT partition, "offset", value FROM %1$s WHERE key IS NULL$$),
('headers', $$SELECT partition, "offset", headers FROM %1$s WHERE headers IS NOT NULL$$),
('large', $$SELECT partition, "offset", key, octet_length(value::text), md5(value::text) FROM %1$s WHERE octet_length(value::text) > 2000$$),
('key filter', $$SELECT partition, "offset", value FROM %1$s WHERE md5(key::text) < '4'$$),
('offset seeks', $$SELECT x, (SELECT md5(string_agg(concat_ws('|', "offset", key, md5(value::text), headers), ',' ORDER BY "offset"))
                  FROM %1$s WHERE partition = 0 AND "offset" >= x) AS ge,
                 (SELECT count(*) FROM %1$s WHERE partition = 0 AND "offset" = x) AS eq,
                 (SELECT md5(string_agg(concat_ws('|', "offset", key, value), ',' ORDER BY "offset"))
                  FROM %1$s WHERE partition = 0 AND "offset" BETWEEN x - 3 AND x + 3) AS near,
                 (SELECT count(*) FROM %1$s WHERE partition = 0 AND "offset" < x) AS lt,
                 (SELECT count(*) FROM %1$s WHERE "offset" > x) AS gt_all
                 FROM unnest(ARRAY[0, 1, 2, 7, 64, 299, 300, 599, 600, 601, 605, 1005, 1011, 1012, 1061, 1062, 1063, 1200, 5000]) x$$),
('fetch', $$SELECT x, p, f."offset", f.key, f.value, f.headers
           FROM unnest(ARRAY[0, 1, 2, 3, 7, 100, 333, 599, 600, 601, 602, 1005, 1010, 1011, 1012, 1061, 1062, 1200]) x,
                (SELECT partition AS p, high_watermark AS h FROM topics.offsets('%1$s')) o,
                LATERAL topics.fetch(NULL::%1$s, p, x, 5) f WHERE x <= h$$),
('fetch all', $$SELECT p, f."offset", f.key, f.value, f.headers
               FROM (SELECT partition AS p FROM topics.offsets('%1$s')) o, LATERAL topics.fetch(NULL::%1$s, p, 0, 100000) f$$),
('next_offset', $$SELECT x, p, topics.next_offset('%1$s', p, x) FROM generate_series(0, 1300, 7) x,
                 (SELECT partition AS p FROM topics.offsets('%1$s')) o WHERE x <= (SELECT high_watermark FROM topics.offsets('%1$s') h WHERE h.partition = p)$$),
('latest', $$SELECT partition, "offset", key, value, headers FROM topics.latest(NULL::%1$s)$$),
('log offsets', $$SELECT * FROM topics.offsets('%1$s')$$),
('partitions', $$SELECT partition, log_start_offset, high_watermark, last_stable_offset, records FROM topics.partitions WHERE topic = '%1$s'::regclass ORDER BY partition$$),
('verify', $$SELECT * FROM topics.verify('%1$s')$$);

WITH d AS MATERIALIZED (
    SELECT s, r.reader, cs_digest(format(r.q, s || '_none')) AS n, cs_digest(format(r.q, s || '_zstd')) AS z,
           cs_digest(format(r.q, s || '_lz4')) AS l
    FROM cs_readers r, unnest(ARRAY['cs_a', 'cs_b', 'cs_c']) s)
SELECT reader, n AS uncompressed, z = n AS zstd_same, l = n AS lz4_same FROM d ORDER BY s, reader;
-- a parallel scan, and TID fetches (each record found again by its ctid)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(hashtext(concat_ws('|', partition, "offset", key, value, headers))) FROM cs_a_zstd;
SELECT (SELECT (count(*), sum(hashtext(concat_ws('|', partition, "offset", key, value, headers)))) FROM cs_a_zstd)
     = (SELECT (count(*), sum(hashtext(concat_ws('|', partition, "offset", key, value, headers)))) FROM cs_a_none) AS zstd_same,
       (SELECT (count(*), sum(hashtext(concat_ws('|', partition, "offset", key, value, headers)))) FROM cs_b_lz4)
     = (SELECT (count(*), sum(hashtext(concat_ws('|', partition, "offset", key, value, headers)))) FROM cs_b_none) AS lz4_same;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT count(*) AS records, count(DISTINCT ctid) AS ctids,
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM cs_b_zstd_p0 b WHERE b.ctid = a.ctid AND b."offset" = a."offset"
                                          AND b.key IS NOT DISTINCT FROM a.key AND b.value IS NOT DISTINCT FROM a.value))
         AS not_found_again
FROM cs_b_zstd_p0 a;
-- poll: a group reads every record once, 7 at a time
WITH p AS MATERIALIZED (
    SELECT s, cs_poll_all(s || '_none') AS n, cs_poll_all(s || '_zstd') AS z, cs_poll_all(s || '_lz4') AS l
    FROM unnest(ARRAY['cs_a', 'cs_b', 'cs_c']) s)
SELECT s, n AS uncompressed, z = n AS zstd_same, l = n AS lz4_same FROM p ORDER BY s;
-- and leaves its positions at each partition's end
SELECT topic, partition, lag FROM topics.consumer_lag
WHERE group_name = 'cs-poll' ORDER BY topic::text, partition;

-- timestamps (which differ between topics): within each topic, never
-- decreasing along a partition, the same through fetch as through SELECT,
-- and seeks by time answer what a scan that cannot seek answers
CREATE FUNCTION cs_time_checks(t text) RETURNS TABLE(monotonic boolean, fetch_same boolean,
    seeks_same boolean, offsets_for_times_same boolean) LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT bool_and(ts >= prev) FROM (SELECT "timestamp" AS ts, '
        'lag("timestamp", 1, ''-infinity'') OVER (PARTITION BY partition ORDER BY "offset") AS prev FROM %s) s', t)
        INTO monotonic;
    fetch_same := cs_digest(format('SELECT p, f."offset", f."timestamp" FROM (SELECT partition AS p FROM topics.offsets(%1$L)) o, '
                                   'LATERAL topics.fetch(NULL::%1$s, p, 0, 100000) f', t))
                = cs_digest(format('SELECT partition, "offset", "timestamp" FROM %s ORDER BY partition, "offset"', t));
    EXECUTE format('SELECT bool_and(a = b AND c = d AND e = f) FROM ('
        'SELECT (SELECT count(*) FROM %1$s WHERE "timestamp" >= x) AS a, '
        '       (SELECT count(*) FROM %1$s WHERE "timestamp" + interval ''0'' >= x) AS b, '
        '       (SELECT count(*) FROM %1$s WHERE partition = 0 AND "timestamp" > x) AS c, '
        '       (SELECT count(*) FROM %1$s WHERE partition = 0 AND "timestamp" + interval ''0'' > x) AS d, '
        '       (SELECT count(*) FROM %1$s WHERE "timestamp" < x) AS e, '
        '       (SELECT count(*) FROM %1$s WHERE "timestamp" + interval ''0'' < x) AS f '
        'FROM (SELECT DISTINCT "timestamp" AS x FROM %1$s) ts) s', t) INTO seeks_same;
    -- the offset may be a rolled-back one's (their time counts too): a
    -- reader there goes on at the first record at or after the time
    EXECUTE format('SELECT bool_and((o."offset" IS NULL) = (m IS NULL) AND (m IS NULL OR '
        '(o."offset" <= m AND NOT EXISTS (SELECT 1 FROM %1$s r WHERE r.partition = o.partition '
        '                                 AND r."offset" >= o."offset" AND r."offset" < m)))) '
        'FROM (SELECT DISTINCT "timestamp" AS x FROM %1$s) ts, LATERAL topics.offsets_for_times(%1$L, x) o, '
        'LATERAL (SELECT min("offset") AS m FROM %1$s r WHERE r.partition = o.partition AND r."timestamp" >= x) m', t)
        INTO offsets_for_times_same;
    RETURN NEXT;
END
$$;
SELECT t, c.* FROM unnest(ARRAY['cs_a_none', 'cs_a_zstd', 'cs_a_lz4', 'cs_b_none', 'cs_b_zstd', 'cs_b_lz4',
                                'cs_c_none', 'cs_c_zstd', 'cs_c_lz4']) t, LATERAL cs_time_checks(t) c;

-- preserve mode (as pg_restore and logical replication write): records
-- copied with their offsets and timestamps into compressed topics give
-- back every column, timestamps too, and seek by time the same
SELECT topics.create_topic('cs_a_zstd_copy', 2, 'text', 'jsonb', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_b_lz4_copy', 2, 'bytea', 'bytea', configs => '{"compression.type": "lz4"}');
SET session_replication_role = replica;
INSERT INTO cs_a_zstd_copy SELECT * FROM cs_a_none;
INSERT INTO cs_b_lz4_copy SELECT * FROM cs_b_none;
RESET session_replication_role;
SELECT cs_digest('SELECT * FROM cs_a_zstd_copy ORDER BY partition, "offset"')
         = cs_digest('SELECT * FROM cs_a_none ORDER BY partition, "offset"') AS a_same,
       cs_digest('SELECT * FROM cs_b_lz4_copy ORDER BY partition, "offset"')
         = cs_digest('SELECT * FROM cs_b_none ORDER BY partition, "offset"') AS b_same,
       cs_digest('SELECT * FROM topics.offsets(''cs_a_zstd_copy'')')
         = cs_digest('SELECT * FROM topics.offsets(''cs_a_none'')') AS a_offsets_same;
SELECT t, c.* FROM unnest(ARRAY['cs_a_zstd_copy', 'cs_b_lz4_copy']) t, LATERAL cs_time_checks(t) c;
SELECT count(*) AS same_time_answers FROM (SELECT DISTINCT "timestamp" AS x FROM cs_a_none) ts
WHERE (SELECT count(*) FROM cs_a_zstd_copy WHERE "timestamp" >= x)
    = (SELECT count(*) FROM cs_a_none WHERE "timestamp" >= x)
HAVING count(*) = (SELECT count(DISTINCT "timestamp") FROM cs_a_none);
SELECT * FROM topics.verify('cs_a_zstd_copy') UNION ALL SELECT * FROM topics.verify('cs_b_lz4_copy');

------------------------------------------------------------------------
-- a change of compression.type applies to records written after it: a
-- partition of compressed and uncompressed batches, read across them,
-- and in one transaction that writes on both sides of the change
------------------------------------------------------------------------
CREATE FUNCTION cs_events(first int, n int) RETURNS text[] LANGUAGE sql AS $$
SELECT array_agg(jsonb_build_object(
    'event_id', 'evt-' || lpad(g::text, 10, '0'),
    'event_type', (ARRAY['order_created', 'order_paid', 'order_shipped', 'order_delivered'])[g % 4 + 1],
    'occurred_at', to_char(timestamptz '2026-03-01 00:00:00+00' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
    'customer', jsonb_build_object('customer_id', 'cust-' || (g * 7919) % 50000,
        'segment', (ARRAY['consumer', 'business', 'enterprise'])[g % 3 + 1],
        'country', (ARRAY['DE', 'FR', 'US', 'JP', 'BR', 'IN'])[g % 6 + 1],
        'email_verified', g % 5 <> 0),
    'order', jsonb_build_object('order_id', 'ord-' || (g * 31) % 1000003, 'currency', 'EUR',
        'total_cents', (g * 7907) % 100000, 'channel', (ARRAY['web', 'ios', 'android'])[g % 3 + 1],
        'items', (SELECT jsonb_agg(jsonb_build_object('sku', 'sku-' || (g * i * 104729) % 20000,
                                                     'quantity', i % 4 + 1,
                                                     'unit_price_cents', (g * i * 7) % 10000,
                                                     'category', (ARRAY['books', 'garden', 'toys', 'food', 'tools'])[(g + i) % 5 + 1]))
                  FROM generate_series(1, 3) i)),
    'shipping', jsonb_build_object('method', (ARRAY['standard', 'express'])[g % 2 + 1],
        'address', jsonb_build_object('street', (g % 997) || ' ' || (ARRAY['Main Street', 'High Street', 'Station Road'])[g % 3 + 1],
                                      'city', (ARRAY['Berlin', 'Paris', 'Austin', 'Osaka'])[g % 4 + 1],
                                      'postal_code', lpad(((g * 13) % 99999)::text, 5, '0'))),
    'trace', jsonb_build_object('trace_id', md5(g::text), 'span_id', substr(md5((g + 1)::text), 1, 16),
        'source', 'checkout-service', 'version', '2.14.1'))::text ORDER BY g)
FROM generate_series(first, first + n - 1) g
$$;
SELECT avg(octet_length(e))::int BETWEEN 900 AND 1100 AS about_1_kb FROM unnest(cs_events(1, 100)) e;

SELECT topics.create_topic('cs_mix', 2, 'text', 'text');
SELECT topics.create_topic('cs_mix_none', 2, 'text', 'text');
CREATE FUNCTION cs_mix_phase(t text, first int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM topics.produce_batch(t, cs_events(first, 300), (SELECT array_agg('c' || g % 41) FROM generate_series(1, 300) g), partition => 0);
    PERFORM topics.produce_batch(t, cs_events(first + 300, 200), partition => 1);
    PERFORM topics.produce(t, 'single ' || first, 'c1', 0, jsonb_build_object('phase', first));
    PERFORM topics.produce(t, NULL::text, 'c2', 0);
    EXECUTE format('INSERT INTO %s (key, value) SELECT ''c'' || g %% 41, e FROM unnest(cs_events(%s, 100)) WITH ORDINALITY AS u(e, g)',
                   t, first + 500);
END
$$;
SELECT cs_mix_phase('cs_mix', 1), cs_mix_phase('cs_mix_none', 1);
SELECT topics.alter_topic_configs('cs_mix', '{"compression.type": "zstd"}');
SELECT cs_mix_phase('cs_mix', 1001), cs_mix_phase('cs_mix_none', 1001);
SELECT topics.alter_topic_configs('cs_mix', '{"compression.type": "lz4"}');
SELECT cs_mix_phase('cs_mix', 2001), cs_mix_phase('cs_mix_none', 2001);
SELECT topics.alter_topic_configs('cs_mix', '{"compression.type": "uncompressed"}');
SELECT cs_mix_phase('cs_mix', 3001), cs_mix_phase('cs_mix_none', 3001);
-- in one transaction, before and after a change
BEGIN;
SELECT cs_mix_phase('cs_mix', 4001), cs_mix_phase('cs_mix_none', 4001);
SELECT topics.alter_topic_configs('cs_mix', '{"compression.type": "zstd"}');
SELECT cs_mix_phase('cs_mix', 5001), cs_mix_phase('cs_mix_none', 5001);
COMMIT;
-- INSERT ... RETURNING answers the same offsets; a transaction rolled
-- back leaves the same gap
WITH m AS (INSERT INTO cs_mix (key, value) SELECT 'r' || g, 'returned ' || g FROM generate_series(1, 300) g
           RETURNING partition, "offset", substr(value, 10)::int AS g),
     n AS (INSERT INTO cs_mix_none (key, value) SELECT 'r' || g, 'returned ' || g FROM generate_series(1, 300) g
           RETURNING partition, "offset", substr(value, 10)::int AS g)
SELECT (SELECT array_agg(partition || '/' || "offset" ORDER BY g) FROM m)
     = (SELECT array_agg(partition || '/' || "offset" ORDER BY g) FROM n) AS returning_same,
       (SELECT count(*) FROM m) AS returned;
BEGIN;
SELECT cs_mix_phase('cs_mix', 1), cs_mix_phase('cs_mix_none', 1);
ROLLBACK;
-- a change rolled back changes nothing
BEGIN;
SELECT topics.alter_topic_configs('cs_mix', '{"compression.type": "lz4"}');
ROLLBACK;
SELECT value FROM topics.topic_configs WHERE topic = 'cs_mix'::regclass AND name = 'compression.type';
SELECT cs_mix_phase('cs_mix', 6001), cs_mix_phase('cs_mix_none', 6001);
WITH d AS MATERIALIZED (
    SELECT r.reader, cs_digest(format(r.q, 'cs_mix_none')) AS n, cs_digest(format(r.q, 'cs_mix')) AS m
    FROM cs_readers r)
SELECT reader, n AS uncompressed, m = n AS mixed_same FROM d ORDER BY reader;
SELECT cs_poll_all('cs_mix') = cs_poll_all('cs_mix_none') AS poll_same;
SELECT * FROM cs_time_checks('cs_mix');
-- the compressed phases took less room than the same records uncompressed
SELECT (SELECT bytes FROM topics.partitions WHERE topic = 'cs_mix'::regclass AND partition = 0) * 1.5
     < (SELECT bytes FROM topics.partitions WHERE topic = 'cs_mix_none'::regclass AND partition = 0) AS smaller;

------------------------------------------------------------------------
-- delete_records inside a compressed batch, retention by bytes
------------------------------------------------------------------------
SELECT topics.create_topic('cs_del', 1, 'text', 'text', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_del_none', 1, 'text', 'text');
SELECT count(*) FROM unnest(ARRAY['cs_del', 'cs_del_none']) t,
    LATERAL topics.produce_batch(t, cs_events(1, 1000), (SELECT array_agg('d' || g % 13) FROM generate_series(1, 1000) g)) p;
SELECT topics.delete_records(t, 0, 333) FROM unnest(ARRAY['cs_del', 'cs_del_none']) t;
SELECT min("offset"), count(*) FROM cs_del;
SELECT count(*) AS fetched, min("offset") AS first FROM topics.fetch(NULL::cs_del, 0, 333, 10000);
SELECT "offset", key FROM topics.fetch(NULL::cs_del, 0, 334, 2);
SELECT "offset", key FROM topics.fetch(NULL::cs_del, 0, 998, 5);
SELECT count(*) FROM cs_del WHERE "offset" >= 330 AND "offset" < 340;
SELECT r.reader, cs_digest(format(r.q, 'cs_del')) = cs_digest(format(r.q, 'cs_del_none')) AS same
FROM cs_readers r WHERE r.reader IN ('select', 'values', 'offsets', 'log offsets', 'verify', 'key filter', 'latest')
ORDER BY r.reader;
-- retention by bytes over many compressed segments drops whole segments
-- from the oldest: what stays is the newest records, whole, at their offsets
SELECT topics.create_topic('cs_ret', 1, 'text', 'text',
    configs => '{"compression.type": "lz4", "segment.bytes": "32768"}');
-- (a statement each: the worker adds the spare segment each roll takes)
SELECT count(*) FROM topics.produce_batch('cs_ret', cs_events(1, 300));
SELECT count(*) FROM topics.enforce_retention('cs_ret');
SELECT count(*) FROM topics.produce_batch('cs_ret', cs_events(301, 300));
SELECT count(*) FROM topics.enforce_retention('cs_ret');
SELECT count(*) FROM topics.produce_batch('cs_ret', cs_events(601, 300));
SELECT count(*) FROM topics.enforce_retention('cs_ret');
SELECT count(*) FROM topics.produce_batch('cs_ret', cs_events(901, 300));
SELECT count(*) FROM topics.enforce_retention('cs_ret');
SELECT count(*) FROM topics.produce_batch('cs_ret', cs_events(1201, 300));
SELECT count(*) FROM topics.enforce_retention('cs_ret');
SELECT count(*) FROM topics.produce_batch('cs_ret', cs_events(1501, 300));
SELECT count(*) >= 4 AS segments FROM topics.segments WHERE topic = 'cs_ret'::regclass AND state IN ('sealed', 'live');
SELECT topics.alter_topic_configs('cs_ret', '{"retention.bytes": "65536"}');
SELECT log_start_offset > 0 AS dropped FROM topics.enforce_retention('cs_ret');
SELECT o.log_start_offset > 0 AS started_later, o.log_start_offset = (SELECT min("offset") FROM cs_ret) AS starts_at_a_record,
       (SELECT max("offset") FROM cs_ret) = 1799 AS newest_kept
FROM topics.offsets('cs_ret') o;
SELECT count(*) = 1800 - (SELECT min("offset") FROM cs_ret) AS dense,
       bool_and(value = (cs_events(("offset" + 1)::int, 1))[1]) AS values_kept
FROM cs_ret;
SELECT * FROM topics.verify('cs_ret');

------------------------------------------------------------------------
-- log compaction over compressed segments: each key's newest record at
-- its original offset, tombstones kept, the LIVE segment whole
------------------------------------------------------------------------
SELECT topics.create_topic('cs_lc', 1, 'text', 'text',
    configs => '{"compression.type": "zstd", "segment.bytes": "32768"}');
CREATE FUNCTION cs_lc_round(r int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM topics.produce_batch('cs_lc',
        (SELECT array_agg(CASE WHEN g % 97 = 5 AND r = 2 THEN NULL ELSE md5(r || ':' || g) || md5(g::text) || md5(r::text) END ORDER BY g)
         FROM generate_series(0, 999) g),
        (SELECT array_agg('k' || g % 20 ORDER BY g) FROM generate_series(0, 999) g));
    PERFORM topics.produce('cs_lc', (SELECT string_agg(md5(r || ':' || i), '') FROM generate_series(1, 2000) i), 'big' || r % 2);
    PERFORM topics.produce('cs_lc', 'only ' || r, 'only' || r);
    IF r > 1 THEN
        PERFORM topics.produce('cs_lc', NULL::text, 'only' || (r - 1));
    END IF;
    PERFORM topics.enforce_retention('cs_lc');
END
$$;
SELECT cs_lc_round(1);
SELECT cs_lc_round(2);
SELECT cs_lc_round(3);
SELECT cs_lc_round(4);
SELECT cs_lc_round(5);
SELECT count(*) FROM topics.produce_batch('cs_lc', (SELECT array_agg('e' || g) FROM generate_series(0, 9) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 9) g));
SELECT count(*) FILTER (WHERE state = 'sealed') >= 4 AS sealed, count(*) FILTER (WHERE state = 'live') AS live
FROM topics.segments WHERE topic = 'cs_lc'::regclass;
CREATE TABLE cs_lc_before AS SELECT "offset", "timestamp", key, value, headers FROM cs_lc;
CREATE TABLE cs_lc_expected AS
SELECT b.* FROM cs_lc_before b,
    (SELECT base_offset FROM topics.segments WHERE topic = 'cs_lc'::regclass AND state = 'live') l
WHERE b."offset" >= l.base_offset
   OR b."offset" = (SELECT max(o."offset") FROM cs_lc_before o WHERE o.key = b.key AND o."offset" < l.base_offset);
BEGIN;
SELECT topics.alter_topic_configs('cs_lc', '{"cleanup.policy": "compact"}');
CREATE TABLE cs_lc_removed AS SELECT topics.compact('cs_lc') AS removed;
COMMIT;
SELECT removed = (SELECT count(*) FROM cs_lc_before) - (SELECT count(*) FROM cs_lc) AS removed_counted,
       removed > 3000 AS removed_most FROM cs_lc_removed;
-- every expected record at its offset with every column, timestamps too
SELECT count(*) AS missing FROM cs_lc_expected e
WHERE NOT EXISTS (SELECT 1 FROM cs_lc c WHERE c."offset" = e."offset" AND c."timestamp" = e."timestamp"
                  AND c.key IS NOT DISTINCT FROM e.key AND c.value IS NOT DISTINCT FROM e.value
                  AND c.headers IS NOT DISTINCT FROM e.headers);
-- beyond them only a segment's last record, and nothing made up
SELECT count(*) AS extra FROM cs_lc c
WHERE NOT EXISTS (SELECT 1 FROM cs_lc_expected e WHERE e."offset" = c."offset")
  AND c."offset" + 1 NOT IN (SELECT base_offset FROM topics.segments
                             WHERE topic = 'cs_lc'::regclass AND base_offset IS NOT NULL);
SELECT count(*) AS changed FROM cs_lc c JOIN cs_lc_before b USING ("offset")
WHERE (c."timestamp", c.key, c.value) IS DISTINCT FROM (b."timestamp", b.key, b.value);
SELECT count(*) AS tombstones_kept FROM cs_lc WHERE value IS NULL;
SELECT cs_digest('SELECT "offset", key, value FROM topics.latest(NULL::cs_lc)')
     = cs_digest('SELECT "offset", key, value FROM cs_lc_before b WHERE key IS NOT NULL AND "offset" = (SELECT max("offset") FROM cs_lc_before o WHERE o.key = b.key) ORDER BY "offset"')
       AS latest_same;
SELECT count(*) = (SELECT count(*) FROM cs_lc) AS fetch_all FROM topics.fetch(NULL::cs_lc, 0, 0, 100000);
SELECT * FROM cs_time_checks('cs_lc');
SELECT * FROM topics.verify('cs_lc');

------------------------------------------------------------------------
-- batches of every shape, each one call: thousands of empty values (more
-- records than a page holds rows), only tombstones, compressible records
-- then incompressible ones and the other way round, values on both sides
-- of the TOAST threshold, large values TOAST compresses
------------------------------------------------------------------------
SELECT topics.create_topic('cs_shape_none', 1, 'text', 'text');
SELECT topics.create_topic('cs_shape_zstd', 1, 'text', 'text', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_shape_lz4', 1, 'text', 'text', configs => '{"compression.type": "lz4"}');
CREATE FUNCTION cs_shapes(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM topics.produce_batch(t, (SELECT array_agg(''::text) FROM generate_series(1, 5000) g));
    PERFORM topics.produce_batch(t, (SELECT array_agg(NULL::text) FROM generate_series(1, 2000) g),
                                 (SELECT array_agg('k' || g % 3) FROM generate_series(1, 2000) g));
    PERFORM topics.produce_batch(t, (SELECT array_agg('x'::text) FROM generate_series(1, 2000) g),
                                 (SELECT array_agg(NULL::text) FROM generate_series(1, 2000) g));
    PERFORM topics.produce_batch(t, (SELECT array_agg(CASE WHEN g <= 300 THEN repeat('a', 1000)
        ELSE (SELECT string_agg(md5(g || ':' || i), '') FROM generate_series(1, 30) i) END ORDER BY g) FROM generate_series(1, 600) g));
    PERFORM topics.produce_batch(t, (SELECT array_agg(CASE WHEN g > 300 THEN repeat('b', 1000)
        ELSE (SELECT string_agg(md5(g || ':' || i), '') FROM generate_series(1, 30) i) END ORDER BY g) FROM generate_series(1, 600) g));
    PERFORM topics.produce_batch(t, (SELECT array_agg(CASE WHEN g % 2 = 0 THEN repeat('c', 1990 + g % 20)
        ELSE (SELECT substr(string_agg(md5(g || ':' || i), ''), 1, 1990 + g % 20) FROM generate_series(1, 63) i) END ORDER BY g)
        FROM generate_series(1, 200) g));
    PERFORM topics.produce_batch(t, (SELECT array_agg(repeat(md5(g::text), 10000) ORDER BY g) FROM generate_series(1, 10) g));
END
$$;
SELECT cs_shapes('cs_shape_none'), cs_shapes('cs_shape_zstd'), cs_shapes('cs_shape_lz4');
WITH d AS MATERIALIZED (
    SELECT r.reader, cs_digest(format(r.q, 'cs_shape_none')) AS n, cs_digest(format(r.q, 'cs_shape_zstd')) AS z,
           cs_digest(format(r.q, 'cs_shape_lz4')) AS l
    FROM cs_readers r WHERE r.reader IN ('select', 'fetch all', 'fetch', 'offset seeks', 'tombstones', 'keyless', 'large', 'latest', 'verify'))
SELECT reader, n AS uncompressed, z = n AS zstd_same, l = n AS lz4_same FROM d ORDER BY reader;
WITH p AS MATERIALIZED (
    SELECT cs_poll_all('cs_shape_none', 333) AS n, cs_poll_all('cs_shape_zstd', 333) AS z,
           cs_poll_all('cs_shape_lz4', 333) AS l)
SELECT n AS uncompressed, z = n AS zstd_poll_same, l = n AS lz4_poll_same FROM p;

------------------------------------------------------------------------
-- it compresses: 1 kB JSON events, disk bytes (topics.partitions) and WAL
------------------------------------------------------------------------
SELECT topics.create_topic('cs_json_none', 1, 'text', 'jsonb');
SELECT topics.create_topic('cs_json_zstd', 1, 'text', 'jsonb', configs => '{"compression.type": "zstd"}');
SELECT topics.create_topic('cs_json_lz4', 1, 'text', 'jsonb', configs => '{"compression.type": "lz4"}');
-- the WAL of the topic's own records (pg_walinspect), counted right after
-- its load: the background worker's segments and a checkpoint's full-page
-- images come at any time
CREATE EXTENSION pg_walinspect;
CREATE TABLE cs_wal (topic text PRIMARY KEY, start_lsn pg_lsn, end_lsn pg_lsn, wal_bytes numeric);
CREATE FUNCTION cs_load(t text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    start pg_lsn := pg_current_wal_insert_lsn();
BEGIN
    FOR b IN 0 .. 5 LOOP
        PERFORM topics.produce_batch(t, cs_events(b * 1000 + 1, 1000)::jsonb[],
            (SELECT array_agg('cust-' || g % 500) FROM generate_series(1, 1000) g));
    END LOOP;
    INSERT INTO cs_wal VALUES (t, start, pg_current_wal_insert_lsn());
END
$$;
CREATE FUNCTION cs_count_wal(t text) RETURNS void LANGUAGE sql AS $$
UPDATE cs_wal SET wal_bytes = (SELECT sum(record_length) FROM pg_get_wal_records_info(start_lsn, end_lsn)
                               WHERE resource_manager = 'pg_topics')
WHERE topic = t
$$;
CHECKPOINT;
SELECT cs_load('cs_json_none');
SELECT cs_count_wal('cs_json_none');
CHECKPOINT;
SELECT cs_load('cs_json_zstd');
SELECT cs_count_wal('cs_json_zstd');
CHECKPOINT;
SELECT cs_load('cs_json_lz4');
SELECT cs_count_wal('cs_json_lz4');
DROP FUNCTION cs_count_wal(text);
DROP EXTENSION pg_walinspect;
WITH d AS MATERIALIZED (
    SELECT r.reader, cs_digest(format(r.q, 'cs_json_none')) AS n, cs_digest(format(r.q, 'cs_json_zstd')) AS z,
           cs_digest(format(r.q, 'cs_json_lz4')) AS l
    FROM cs_readers r WHERE r.reader IN ('select', 'fetch', 'verify'))
SELECT reader, z = n AS zstd_same, l = n AS lz4_same FROM d ORDER BY reader;
-- zstd at least 3 times smaller on disk, lz4 at least 2 times (the
-- numbers show only when not)
SELECT CASE WHEN n.bytes >= 3 * z.bytes THEN 'ok' ELSE format('%s / %s', n.bytes, z.bytes) END AS zstd_disk,
       CASE WHEN n.bytes >= 2 * l.bytes THEN 'ok' ELSE format('%s / %s', n.bytes, l.bytes) END AS lz4_disk
FROM topics.partitions n, topics.partitions z, topics.partitions l
WHERE n.topic = 'cs_json_none'::regclass AND z.topic = 'cs_json_zstd'::regclass AND l.topic = 'cs_json_lz4'::regclass;
-- and the WAL carries the compressed bytes
SELECT CASE WHEN n.wal_bytes >= 2 * z.wal_bytes THEN 'ok' ELSE format('%s / %s', n.wal_bytes, z.wal_bytes) END AS zstd_wal,
       CASE WHEN n.wal_bytes >= 1.5 * l.wal_bytes THEN 'ok' ELSE format('%s / %s', n.wal_bytes, l.wal_bytes) END AS lz4_wal
FROM cs_wal n, cs_wal z, cs_wal l
WHERE n.topic = 'cs_json_none' AND z.topic = 'cs_json_zstd' AND l.topic = 'cs_json_lz4';
-- records that do not compress are stored as they are, not larger
SELECT topics.create_topic('cs_rand_none', 1, 'text', 'bytea');
SELECT topics.create_topic('cs_rand_zstd', 1, 'text', 'bytea', configs => '{"compression.type": "zstd"}');
CREATE TABLE cs_rand AS SELECT array_agg((SELECT string_agg(decode(md5(g || ':' || i), 'hex'), ''::bytea)
                                          FROM generate_series(1, 30) i) ORDER BY g) AS v
FROM generate_series(1, 1000) g;
SELECT count(*) FROM cs_rand, unnest(ARRAY['cs_rand_none', 'cs_rand_zstd']) t, LATERAL topics.produce_batch(t, v) p;
SELECT CASE WHEN z.bytes <= n.bytes * 1.02 + 8192 THEN 'ok' ELSE format('%s / %s', z.bytes, n.bytes) END AS not_larger,
       cs_digest('SELECT "offset", value FROM cs_rand_zstd ORDER BY "offset"')
         = cs_digest('SELECT "offset", value FROM cs_rand_none ORDER BY "offset"') AS same
FROM topics.partitions n, topics.partitions z
WHERE n.topic = 'cs_rand_none'::regclass AND z.topic = 'cs_rand_zstd'::regclass;
SELECT * FROM topics.verify('cs_rand_zstd');
