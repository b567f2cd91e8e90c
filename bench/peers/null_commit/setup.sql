-- nothing to set up: null_commit stores nothing
SELECT 1;
