-- backlog load for workloads 4 and 5: INSERT ... SELECT, :batch (10 000) records per transaction.
-- ts = clock_timestamp() (not the default now()) so that records of one load transaction get
-- distinct, increasing timestamps, like a topic's log-append time: workload 5's time range
-- then selects records, not whole load transactions.
\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
INSERT INTO heap_topic (ts, key, value) SELECT clock_timestamp(), key, value FROM payload WHERE id BETWEEN :lo AND :hi;
