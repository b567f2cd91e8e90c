-- pgq.insert_event(7) is the public API that pgq.insert_event(3) wraps; key goes in ev_type
\set id random(1, :nrows)
SELECT pgq.insert_event('bench', key, vtext, NULL, NULL, NULL, NULL) FROM payload_text WHERE id = :id;
