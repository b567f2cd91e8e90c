-- Workload 13's payload (issue 34): realistic ~1 kB JSON order events, created BEFORE any
-- timing. psql variables: :nrows (distinct events), :batch (records per produce call).
-- The shape of a web shop's order_created event, as the events issue 34's compression figures
-- were measured on: repeated field names, a nested customer, shipping address, 1-4 line items
-- of a catalogue of 2,000 products, payment, a request context (IP, 32-hex session id, one of
-- four user agents, locale, campaign) and a status history; a UUID event id, ISO 8601
-- timestamps 1-50 ms apart, increasing order ids.
-- Deterministic: every choice is a hash of the event number and the field (md5), so every run
-- and every machine stores the same bytes (no random(), whose sequence depends on the order
-- PostgreSQL evaluates the rows in).
-- w13_payload (id, key, value jsonb): key = the order id as text (a Kafka producer keys order
--                                     events by order)
-- w13_batches (b, keys text[], vals jsonb[]): the same rows as arrays of :batch for
--                                     produce_batch and the heap's INSERT … SELECT unnest, so
--                                     that no array is built inside a timed statement
-- UNLOGGED: the payload is input, not a measured object.

-- a deterministic number in 0 .. 2^48 - 1 for event i, field k
CREATE OR REPLACE FUNCTION w13_h(i int, k int) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('x' || substr(md5(i::text || '/' || k::text), 1, 12))::bit(48)::bigint
$$;

DROP TABLE IF EXISTS w13_payload, w13_batches;
CREATE UNLOGGED TABLE w13_payload (id int PRIMARY KEY, key text NOT NULL, value jsonb NOT NULL);

INSERT INTO w13_payload
SELECT e.i, (1000000 + e.i)::text, jsonb_build_object(
    'event_type', 'order_created',
    'event_id', md5(e.i::text || '/event')::uuid::text,
    'occurred_at', to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'order_id', 1000000 + e.i,
    'customer', jsonb_build_object(
        'id', 1 + w13_h(e.i, 3) % 200000,
        'email', 'user' || (1 + w13_h(e.i, 4) % 200000) || '@example.com',
        'tier', (ARRAY['gold', 'silver', 'bronze'])[1 + w13_h(e.i, 5) % 3]),
    'shipping_address', jsonb_build_object(
        'street', (1 + w13_h(e.i, 6) % 999) || ' '
                  || (ARRAY['Main', 'High', 'Park', 'Oak', 'Pine'])[1 + w13_h(e.i, 7) % 5]
                  || ' Street',
        'city', (ARRAY['Berlin', 'Paris', 'Lisbon', 'Madrid', 'Rome', 'Oslo', 'Vienna',
                       'Prague', 'Warsaw', 'Dublin'])[1 + w13_h(e.i, 8) % 10],
        'postal_code', lpad((w13_h(e.i, 9) % 100000)::text, 5, '0'),
        'country', 'EU'),
    'items', it.items,
    'currency', 'EUR',
    'total', it.total,
    'payment', jsonb_build_object(
        'method', (ARRAY['card', 'paypal', 'sepa'])[1 + w13_h(e.i, 10) % 3],
        'status', 'authorized'),
    'source', 'web',
    'schema_version', 3,
    'context', jsonb_build_object(
        'ip', '10.' || w13_h(e.i, 11) % 256 || '.' || w13_h(e.i, 12) % 256 || '.'
              || w13_h(e.i, 13) % 256,
        'session_id', md5(e.i::text || '/session'),
        'user_agent', (ARRAY[
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
            'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
            'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
            'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
            ])[1 + w13_h(e.i, 14) % 4],
        'locale', (ARRAY['de-DE', 'fr-FR', 'pt-PT', 'es-ES', 'it-IT'])[1 + w13_h(e.i, 15) % 5],
        'campaign', (ARRAY['none', 'black_friday', 'newsletter_12',
                           'retargeting'])[1 + w13_h(e.i, 16) % 4]),
    'status_history', jsonb_build_array(
        jsonb_build_object('status', 'created',
                           'at', to_char(e.at AT TIME ZONE 'UTC',
                                         'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
        jsonb_build_object('status', 'payment_authorized',
                           'at', to_char((e.at + (100 + w13_h(e.i, 17) % 800) * interval '1 ms')
                                         AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))
FROM (SELECT i, timestamptz '2024-12-07 11:13:20+00'
                + (25 * i + w13_h(i, 1) % 25) * interval '1 ms' AS at
      FROM generate_series(1, :nrows) AS i) AS e,
LATERAL (
    SELECT jsonb_agg(jsonb_build_object(
               'sku', 'SKU-' || lpad(p.n::text, 5, '0'),
               'name', 'Product ' || p.n || ' '
                       || (ARRAY['Deluxe', 'Basic', 'Pro', 'Mini', 'Max'])[1 + p.n % 5],
               'unit_price', p.price,
               'quantity', p.q) ORDER BY j) AS items,
           sum(p.price * p.q) AS total
    FROM generate_series(1, 1 + (w13_h(e.i, 2) % 4)::int) AS j,
    LATERAL (SELECT w13_h(e.i, 20 + j) % 2000 AS n, 1 + w13_h(e.i, 30 + j) % 5 AS q) AS c,
    LATERAL (SELECT c.n, c.q, round(1 + (w13_h(c.n::int, 99) % 49900) / 100.0, 2) AS price) AS p
) AS it;

-- stored uncompressed, like the rows the heap reads in its INSERT … SELECT: a compressed array
-- would make the timed statement decompress its input
CREATE UNLOGGED TABLE w13_batches (b int PRIMARY KEY, keys text[] NOT NULL, vals jsonb[] NOT NULL);
ALTER TABLE w13_batches ALTER keys SET STORAGE EXTERNAL, ALTER vals SET STORAGE EXTERNAL;
INSERT INTO w13_batches
SELECT (id - 1) / :batch AS b, array_agg(key ORDER BY id), array_agg(value ORDER BY id)
FROM w13_payload GROUP BY 1 HAVING count(*) = :batch;

VACUUM ANALYZE w13_payload, w13_batches;

-- what the report prints about the payload: events, the average jsonb image (what a jsonb
-- column stores), the average JSON text as jsonb prints it, and as compact JSON (what a
-- producer's serializer sends: jsonb prints a blank after every ':' and ','; of the strings,
-- only the user agents hold ", ")
SELECT count(*) || ' ' || round(avg(pg_column_size(value)), 1) || ' '
       || round(avg(octet_length(t)), 1) || ' '
       || round(avg(octet_length(replace(replace(t, ', ', ','), ': ', ':'))
                    + (value #>> '{context,user_agent}' LIKE '%, %')::int), 1)
FROM (SELECT value, value::text AS t FROM w13_payload) AS s;
