-- floor for consume (server side): the next :batch pre-generated payload rows, no queue logic.
-- :pos is this client's running position (pgbench keeps variables between transactions);
-- it wraps around the payload table.
\set lo 1 + (:pos % :maxlo)
\set pos :pos + :batch
SELECT count(*) FROM null_fetch(:lo, :batch);
