-- commit floor for produce, 1 record per transaction, without synchronous commit: read the
-- same payload row, store nothing, but take a transaction id, so the commit writes a commit
-- record and updates the commit log as any transaction that stores something does
\set id random(1, :nrows)
SELECT octet_length(key) + octet_length(value), pg_current_xact_id() FROM payload WHERE id = :id;
