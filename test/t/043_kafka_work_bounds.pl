# The Kafka listener's work grows with a request's size, never with its
# square, and stops at the limits before the work: a record with many
# headers, an OffsetCommit of many partitions; a bystander client of the
# same listener process is served meanwhile.  One CreateTopics creates no
# more partitions than the shared lock table holds, and the background
# worker rides out a lock table someone else filled.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use Time::HiRes qw(sleep);

my $node = PostgreSQL::Test::Cluster->new('kafka_work_bounds');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $addr = "127.0.0.1:$kport";
$node->init;
# one listener process, so that the bystander shares it; a small lock
# table, so that a few wide topics fill it
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_workers = 1
max_connections = 20
max_locks_per_transaction = 16
pg_topics.worker_naptime = 200
pg_topics.kafka_trust_role = 'app'
pg_topics.max_groups = 4096
});
$node->start;
# Kafka clients act as app, which is no superuser: role shares apply
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app;
GRANT CREATE ON SCHEMA public TO app;
SET ROLE app;
SELECT topics.create_topic('t', 1, 'text', 'text');
});
wait_for_kafka_listener($kport);

sub work
{
	return kafka_script('work_bounds.py', $addr, @_);
}

# ---- headers: whether a record's header names are unique (so that they
# can be a jsonb object) is found in O(n log n), after the size limit
my $r = work('headers', 't', 200000, 1);
ok($r->{request_bytes} > 1_000_000, "a Produce of one record with 200,000 headers ($r->{request_bytes} bytes)");
is($r->{result}, 10, 'is MESSAGE_TOO_LARGE: its headers are over pg_topics.max_message_bytes');
# the check was quadratic, after the work: minutes for this request
ok($r->{seconds} < 15, "answered in $r->{seconds} s");
ok($r->{bystander_answers} > 0 && $r->{bystander_longest} < 15,
	"a bystander of the same listener was answered meanwhile (longest wait $r->{bystander_longest} s)");

$node->safe_psql('postgres', q{ALTER SYSTEM SET pg_topics.max_message_bytes = '16MB'; SELECT pg_reload_conf()});
# the listener reads the reloaded settings at its next loop turn
my $stored;
for my $try (1 .. 50)
{
	$r = work('headers', 't', 200000, 1);
	last if $r->{result} == 0;
	sleep 0.2;
}
is($r->{result}, 0, 'with pg_topics.max_message_bytes raised, 200,000 distinct headers are stored');
ok($r->{seconds} < 15, "in $r->{seconds} s");
is($node->safe_psql('postgres',
		q{SELECT jsonb_typeof(h) || ' ' || (SELECT count(*) FROM jsonb_object_keys(h))
		  FROM (SELECT headers AS h FROM t WHERE key = 'headers' ORDER BY "offset" DESC LIMIT 1) latest}),
	'object 200000', 'as a jsonb object');
$r = work('headers', 't', 200000, 2);
is($r->{result}, 0, 'and 200,000 headers of 100,000 names, each twice');
ok($r->{seconds} < 15, "in $r->{seconds} s");
is($node->safe_psql('postgres',
		q{SELECT jsonb_typeof(h) || ' ' || CASE jsonb_typeof(h) WHEN 'array' THEN jsonb_array_length(h) END
		  FROM (SELECT headers AS h FROM t WHERE key = 'headers' ORDER BY "offset" DESC LIMIT 1) latest}),
	'array 200000', 'as an array of pairs');
$node->safe_psql('postgres', q{ALTER SYSTEM RESET pg_topics.max_message_bytes; SELECT pg_reload_conf()});

# ---- an OffsetCommit of many partitions: each is a subtransaction, whose
# end looked at every position committed before it in the request; and
# what each partition's commit allocated stayed until the answer (about
# 10 kB a partition: 200 MB more resident at the peak, and the time of
# faulting those pages in)
my $listener = $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_topics kafka listener'});
# the listener's peak resident memory from now (5: reset VmHWM to VmRSS)
sub reset_peak
{
	open my $fh, '>', "/proc/$listener/clear_refs" or die "clear_refs: $!";
	print $fh "5\n";
	close $fh;
	return proc_status_kb($listener, 'VmHWM');
}
sub proc_status_kb
{
	my ($pid, $field) = @_;
	open my $fh, '<', "/proc/$pid/status" or die "/proc/$pid/status: $!";
	while (<$fh>) { return $1 if /^$field:\s+(\d+)/; }
	die "no $field in /proc/$pid/status";
}
my $peak_before = reset_peak();
$r = work('offset_commit', 'oc', 't', 20000);
is_deeply($r->{result}, [ 0, 20000 ], 'an OffsetCommit of 20,000 partitions is answered for each');
ok($r->{seconds} < 30, "in $r->{seconds} s");
ok($r->{bystander_answers} > 0, 'and a bystander was answered meanwhile');
my $peak_growth = proc_status_kb($listener, 'VmHWM') - $peak_before;
ok($peak_growth < 64 * 1024,
	"the listener's resident memory grew by at most 64 MB meanwhile ($peak_growth kB)");
note("OffsetCommit of 20,000 partitions: $r->{seconds} s; bystander's longest wait $r->{bystander_longest} s");

# ---- a leader's SyncGroup naming many members: each assignment was
# checked against the whole member pool (16,384 slots), under the lock
# that every listener's group requests take
$r = work('sync_assignments', 'sg', 300000);
is($r->{result}, 0, "a leader's SyncGroup of 300,000 assignments ($r->{request_bytes} bytes) is answered");
ok($r->{seconds} < 6, "in $r->{seconds} s");
note("SyncGroup of 300,000 assignments: $r->{seconds} s; bystander's longest wait $r->{bystander_longest} s");

# ---- CreateTopics: as many partitions in one request as create_topic
# allows one topic, since the request's transaction holds a lock on each
my ($rc, $out, $err) = $node->psql('postgres', q{SELECT topics.create_topic('too_wide', 10000)});
my ($width) = $err =~ /at most about (\d+) partitions/;
ok($width && $width > 10, "create_topic allows a topic at most about $width partitions") or diag($err);
my $created = work('create_topics', $width, 'wide_a', 'wide_b', 'wide_c');
is($created->[0][0], 0, "a CreateTopics of three topics of $width partitions creates the first");
is_deeply([ map { $_->[0] } @$created[ 1, 2 ] ], [ 44, 44 ],
	'and answers the others POLICY_VIOLATION');
like($created->[1][1], qr/create it in a request of its own/, 'saying what to do');
is_deeply([ map { work('create_topics', $width, $_)->[0][0] } 'wide_b', 'wide_c' ], [ 0, 0 ],
	'which, sent one per request, are created');
is(work('create_topics', $width + 1, 'wider')->[0][0], 37,
	'a topic wider than one request may create is INVALID_PARTITIONS');
ok(!$node->log_contains(qr/out of shared memory/), 'nobody ran out of shared memory');

# ---- the background worker rides out a lock table another transaction
# filled: its rounds fail, it does not exit
my $launcher = $node->safe_psql('postgres', q{SELECT launcher_pid FROM topics.maintenance});
my $log_offset = -s $node->logfile;
my ($fill_out, $fill_err) = ('', '');
my $fill = IPC::Run::start(
	[ 'psql', '-X', '-At', '-h', $node->host, '-p', $node->port, '-d', 'postgres', '-c', q{
DO $$
DECLARE
	i int := 0;
BEGIN
	LOOP
		BEGIN
			PERFORM pg_advisory_xact_lock(i);
		EXCEPTION WHEN out_of_memory THEN
			EXIT;
		END;
		i := i + 1;
	END LOOP;
	RAISE NOTICE 'holding % locks', i;
	PERFORM pg_sleep(3);
END
$$} ],
	'>', \$fill_out, '2>', \$fill_err);
$fill->finish;
like($fill_err, qr/holding \d+ locks/, 'a transaction filled the lock table for 3 s');
ok($node->poll_query_until('postgres',
		q{SELECT last_round > now() - interval '1 second' FROM topics.maintenance}),
	'afterwards the worker finishes its rounds again');
is($node->safe_psql('postgres', q{SELECT launcher_pid FROM topics.maintenance}), $launcher,
	'with the same launcher');
my $log = substr(PostgreSQL::Test::Utils::slurp_file($node->logfile), $log_offset);
unlike($log, qr/pg_topics (launcher|worker).*exited with exit code/,
	'neither the launcher nor a worker exited with an error');
note(join "\n", grep { /out of shared memory/ } split /\n/, $log);

done_testing();
