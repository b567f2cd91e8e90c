-- rewind group 'bench' to the start of the backlog; before its first poll the group does not
-- exist (42704), so commit offset 0 for partition 0 instead (the group then starts there)
DO $$
BEGIN
    PERFORM topics.reset_group('bench_topic', 'bench', 'earliest');
EXCEPTION WHEN undefined_object THEN
    PERFORM topics.commit('bench_topic', 'bench', 0, 0);
END $$;
