-- Workload 12: what the Kafka producer left in the topic, checked against what it sent:
-- records, key bytes, value bytes, last offset (committed records only: the harness's session
-- reads read_committed, so an open or aborted transaction's records are not counted).
SELECT count(*) || ' ' || coalesce(sum(octet_length(key)), 0) || ' ' ||
       coalesce(sum(octet_length(value)), 0) || ' ' || coalesce(max("offset"), -1)
FROM bench_topic;
