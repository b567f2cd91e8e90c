-- backlog load: one produce call per transaction, then a tick (what pgqd would do)
\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
SELECT count(pgq.insert_event('bench', key, vtext, NULL, NULL, NULL, NULL)) FROM payload_text WHERE id BETWEEN :lo AND :hi;
SELECT pgq.ticker('bench');
