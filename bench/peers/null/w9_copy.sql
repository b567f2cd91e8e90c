-- workload 9 floor for COPY: the same rows sent and parsed by COPY, none kept (WHERE false);
-- the harness replaces @FILE@ with the data file and repeats the \copy line once per call
\copy w9_null_sink (key, value) from '@FILE@' where false
