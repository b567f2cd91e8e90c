-- commit floor for produce, 1 record per transaction: read the same payload row, store
-- nothing, but write a transactional WAL message of no content. The transaction then has a
-- transaction id and WAL of its own, so it commits as any transaction that stores something:
-- a commit record, a commit-log update and, with synchronous_commit on, the WAL flush. (A
-- transaction id alone is not enough: PostgreSQL commits a transaction that wrote no WAL but
-- its commit record asynchronously.)
\set id random(1, :nrows)
SELECT octet_length(key) + octet_length(value), pg_logical_emit_message(true, 'bench', '')
FROM payload WHERE id = :id;
