-- Preserve mode (session_replication_role = replica): supplied offsets and
-- timestamps are kept, as restores and logical replication need
\set SHOW_CONTEXT never
CREATE TABLE restored (partition int NOT NULL DEFAULT 2, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;

SET session_replication_role = replica;
INSERT INTO restored ("offset", "timestamp", key, value) VALUES
    (10, '2026-01-01 00:00:00+00', 'r', 'a'),
    (11, '2026-01-01 00:00:01+00', 'r', 'b'),
    (15, '2026-01-01 00:00:01+00', 'r', 'c');
COPY restored ("offset", "timestamp", key, value) FROM stdin;
20	2026-01-02 00:00:00+00	copy	d
21	2026-01-02 00:00:00+00	copy	e
\.
-- placeholders still mean "let the log choose"
INSERT INTO restored (key, value) VALUES ('assigned', 'f') RETURNING "offset";

-- offsets must stay above the end of the log
INSERT INTO restored ("offset", key, value) VALUES (5, 'r', 'too low');
INSERT INTO restored ("offset", key, value) VALUES (30, 'r', 'x'), (29, 'r', 'out of order');
INSERT INTO restored ("offset", key, value) VALUES (-7, 'r', 'negative');
INSERT INTO restored ("offset", key, value) VALUES (9223372036854775807, 'r', 'too high');
INSERT INTO restored ("offset", key, value) VALUES (4611686018427387904, 'r', 'too high');
-- and timestamps never go back
INSERT INTO restored ("offset", "timestamp", key, value) VALUES (40, '2025-01-01 00:00:00+00', 'r', 'old');
RESET session_replication_role;

SELECT partition, "offset", "timestamp" < now() - interval '1 hour' AS restored_ts, key, value FROM restored ORDER BY "offset";
SELECT "timestamp" FROM restored WHERE "offset" = 10;
INSERT INTO restored (key, value) VALUES ('after', 'g') RETURNING "offset";
-- a record without a timestamp after one from the future is not older than it
SET session_replication_role = replica;
INSERT INTO restored ("offset", "timestamp", key, value) VALUES (50, '2100-01-01 00:00:00+00', 'future', 'h');
INSERT INTO restored (key, value) VALUES ('next', 'i') RETURNING "offset", "timestamp";
RESET session_replication_role;
SELECT * FROM topics.verify('restored');

-- topics dropped in preserve mode (as pg_restore --clean drops them) leave
-- no settings or groups behind that the views would trip over
SELECT topics.create_topic('pm_gone', 1, 'text', 'text');
SELECT count(*) FROM topics.poll(NULL::pm_gone, 'pm-group');
SELECT topics.create_topic('pm_gone_too', 1, 'text', 'text');
SET session_replication_role = replica;
DROP TABLE pm_gone;
SELECT topics.drop_topic('pm_gone_too');
RESET session_replication_role;
SELECT count(*) FROM topics.topics WHERE topic::text LIKE 'pm_gone%';
SELECT count(*) FROM topics.partitions WHERE topic::text LIKE 'pm_gone%';
SELECT count(*) FROM topics.consumer_groups WHERE group_name = 'pm-group';
