\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
SELECT count(pgq.insert_event('bench', key, vtext, NULL, NULL, NULL, NULL)) FROM payload_text WHERE id BETWEEN :lo AND :hi;
