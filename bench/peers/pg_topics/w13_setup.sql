-- workload 13 (1 kB JSON events): a fresh topic of 1 partition, key text, value jsonb, stored
-- as :'compression' says (topic config compression.type: uncompressed, zstd, lz4; one run of
-- the workload per value of peer.conf's w13_compression). A build that refuses a codec fails
-- here with 0A000, which the harness reports as that variant skipped: VERBOSITY verbose puts
-- the SQLSTATE in psql's message.
\set VERBOSITY verbose
CREATE EXTENSION IF NOT EXISTS pg_topics;
DO $$
BEGIN
    IF to_regclass('w13_topic') IS NOT NULL THEN
        PERFORM topics.drop_topic('w13_topic');
    END IF;
END $$;
SELECT topics.create_topic('w13_topic', 1, 'text'::regtype, 'jsonb'::regtype,
                           configs => jsonb_build_object('compression.type', :'compression'));
