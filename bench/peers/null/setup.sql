-- null peer: nothing to store. null_fetch is the floor's "consume call": the same number of
-- pre-generated rows of the same shape, through a PL/pgSQL set-returning function like the
-- other peers' consume calls, with no queue logic.
CREATE OR REPLACE FUNCTION null_fetch(p_from int, p_max int)
RETURNS TABLE (id bigint, ts timestamptz, key text, value bytea)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY SELECT p.id::bigint, now(), p.key, p.value
                 FROM payload p WHERE p.id >= p_from ORDER BY p.id LIMIT p_max;
END $$;

-- workload 9's COPY floor copies into this table with WHERE false: it stays empty
CREATE TABLE IF NOT EXISTS w9_null_sink (key text, value bytea);
