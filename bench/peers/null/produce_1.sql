-- floor for produce, 1 record per transaction: read the same payload row, store nothing
\set id random(1, :nrows)
SELECT octet_length(key) + octet_length(value) FROM payload WHERE id = :id;
