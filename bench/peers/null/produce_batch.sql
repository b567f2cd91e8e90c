-- floor for produce, :batch records per call: read the same payload rows, store nothing
\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
SELECT sum(octet_length(key) + octet_length(value)) FROM payload WHERE id BETWEEN :lo AND :hi;
