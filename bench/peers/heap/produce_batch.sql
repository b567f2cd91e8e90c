\set lo random(1, :maxlo)
\set hi :lo + :batch - 1
INSERT INTO heap_topic (key, value) SELECT key, value FROM payload WHERE id BETWEEN :lo AND :hi;
