-- workload 9: COPY FROM STDIN into the topic through psql's \copy; the harness replaces @FILE@
-- with the data file (:batch payload rows, COPY text format) and repeats the line once per call
\copy bench_topic (key, value) from '@FILE@'
