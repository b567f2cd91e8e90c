-- backlog load for workloads 4 and 5 (untimed as a produce number; its time is reported as
-- "load"): the fastest produce path, INSERT ... SELECT, routed by the planner hook like produce.
-- :batch records per transaction (10 000), rows :lo .. :lo + :batch - 1 of the payload.
\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
INSERT INTO bench_topic (key, value) SELECT key, value FROM payload WHERE id BETWEEN :lo AND :hi;
