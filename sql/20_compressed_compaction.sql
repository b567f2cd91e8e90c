-- Log compaction of compressed topics: a batch of which compaction keeps
-- part is compressed again, or written uncompressed when that saves
-- nothing (topics/docs: architecture.md §4).
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- A: a compressed batch of which compaction keeps one small record
SELECT topics.create_topic('rva', 1, 'text', 'text',
    configs => '{"segment.bytes": "32768", "compression.type": "zstd"}');
SELECT count(*) FROM topics.produce_batch('rva',
    (SELECT array_agg(md5(g::text)) FROM generate_series(0, 199) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 199) g));
SELECT count(*) FROM topics.produce_batch('rva',
    (SELECT array_agg(md5(g::text) || md5((g+1)::text) || md5((g+2)::text)) FROM generate_series(0, 999) g),
    (SELECT array_agg('f' || g) FROM generate_series(0, 999) g));
SELECT count(*) FROM topics.enforce_retention('rva');
SELECT count(*) FROM topics.produce_batch('rva',
    (SELECT array_agg('x' || g) FROM generate_series(0, 199) g WHERE g <> 7),
    (SELECT array_agg('k' || g) FROM generate_series(0, 199) g WHERE g <> 7));
SELECT count(*) FROM topics.produce_batch('rva',
    (SELECT array_agg(md5(g::text) || md5((g+1)::text) || md5((g+2)::text)) FROM generate_series(0, 999) g),
    (SELECT array_agg('g' || g) FROM generate_series(0, 999) g));
SELECT count(*) FROM topics.enforce_retention('rva');
SELECT count(*) FROM rva WHERE "offset" < 200;
BEGIN;
SELECT topics.alter_topic_configs('rva', '{"cleanup.policy": "compact"}');
SELECT topics.compact('rva') AS removed;
COMMIT;
SELECT "offset", key, value FROM rva WHERE "offset" < 200 AND key = 'k7';
SELECT count(*) FROM rva WHERE "offset" < 200;
SELECT * FROM topics.verify('rva');
SELECT count(*) FROM topics.fetch(NULL::rva, 0, 0, 100000);


-- B: a full contiguous compressed batch of small records, one removed
SELECT topics.create_topic('rvb', 1, 'text', 'text',
    configs => '{"segment.bytes": "32768", "compression.type": "zstd"}');
SELECT count(*) FROM topics.produce_batch('rvb',
    (SELECT array_agg('v' || g) FROM generate_series(0, 290) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 290) g));
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages FROM rvb;
SELECT count(*) FROM topics.produce_batch('rvb',
    (SELECT array_agg(md5(g::text) || md5((g+1)::text) || md5((g+2)::text)) FROM generate_series(0, 999) g),
    (SELECT array_agg('f' || g) FROM generate_series(0, 999) g));
SELECT count(*) FROM topics.enforce_retention('rvb');
SELECT count(*) FROM topics.produce('rvb', 'new', 'k5');
SELECT count(*) FROM topics.produce_batch('rvb',
    (SELECT array_agg(md5(g::text) || md5((g+1)::text) || md5((g+2)::text)) FROM generate_series(0, 999) g),
    (SELECT array_agg('g' || g) FROM generate_series(0, 999) g));
SELECT count(*) FROM topics.enforce_retention('rvb');
BEGIN;
SELECT topics.alter_topic_configs('rvb', '{"cleanup.policy": "compact"}');
SELECT topics.compact('rvb') AS removed;
COMMIT;
SELECT count(*) FROM rvb WHERE "offset" < 291;
SELECT * FROM topics.verify('rvb');

-- B2: the same with records of ~36 bytes (raw > 8kB: a malloc block of its own)
SELECT topics.create_topic('rvc', 1, 'text', 'text',
    configs => '{"segment.bytes": "32768", "compression.type": "zstd"}');
SELECT count(*) FROM topics.produce_batch('rvc',
    (SELECT array_agg(repeat('v', 25) || g) FROM generate_series(0, 290) g),
    (SELECT array_agg('k' || g) FROM generate_series(0, 290) g));
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages FROM rvc;
SELECT count(*) FROM topics.produce_batch('rvc',
    (SELECT array_agg(md5(g::text) || md5((g+1)::text) || md5((g+2)::text)) FROM generate_series(0, 999) g),
    (SELECT array_agg('f' || g) FROM generate_series(0, 999) g));
SELECT count(*) FROM topics.enforce_retention('rvc');
SELECT count(*) FROM topics.produce('rvc', 'new', 'k5');
SELECT count(*) FROM topics.produce_batch('rvc',
    (SELECT array_agg(md5(g::text) || md5((g+1)::text) || md5((g+2)::text)) FROM generate_series(0, 999) g),
    (SELECT array_agg('g' || g) FROM generate_series(0, 999) g));
SELECT count(*) FROM topics.enforce_retention('rvc');
BEGIN;
SELECT topics.alter_topic_configs('rvc', '{"cleanup.policy": "compact"}');
SELECT topics.compact('rvc') AS removed;
COMMIT;
SELECT count(*) FROM rvc WHERE "offset" < 291;
SELECT * FROM topics.verify('rvc');
SELECT topics.drop_topic(t) FROM unnest(ARRAY['rva', 'rvb', 'rvc']) AS t;
