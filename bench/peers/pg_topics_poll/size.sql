-- whole database: a topic's partitions, segments, their TOAST and the extension's internal
-- tables may live in relations outside the topic's partition tree; the harness takes the
-- difference around the load, and nothing else changes the database meanwhile.
SELECT pg_database_size(current_database());
