-- workload 5: one fetch of :batch records from an offset in [:off_lo, :off_hi]
-- (head: off_lo = off_hi = records - batch; random: 0 .. records - batch). Every value is read.
\set off random(:off_lo, :off_hi)
SELECT count(*), sum(octet_length(value)) FROM topics.fetch(NULL::bench_topic, 0, :off, :batch);
