# pg_topics.min_insync_replicas (Kafka's min.insync.replicas): while fewer
# synchronous standbys are streaming than it asks, every produce path fails
# at once with 53000 instead of waiting for a standby that is not there or
# acknowledging fewer copies; records flow again when the standby is back.
# Commits that do not wait for standbys (synchronous_commit = local) and
# group positions are not held to it; 0 turns it off.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use PgTopicsTest;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
});
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('events', 2, 'text', 'text');
CREATE ROLE app LOGIN;
GRANT SELECT, INSERT ON events TO app;
});

# no standby yet: with the setting on, every produce path fails at once
$primary->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.min_insync_replicas = 1;
SELECT pg_reload_conf();});
my %paths = (
	'produce'       => q{SELECT count(*) FROM topics.produce('events', 'v'::text, 'k'::text)},
	'produce_batch' => q{SELECT count(*) FROM topics.produce_batch('events', ARRAY['a', 'b'], ARRAY['k', 'l'])},
	'INSERT'        => q{INSERT INTO events (key, value) SELECT 'k' || i, 'v' FROM generate_series(1, 10) i},
	'COPY'          => qq{COPY events (key, value) FROM STDIN;\nk\tv\n\\.\n});
for my $path (sort keys %paths)
{
	my $t0 = time;
	my ($ret, $out, $err) = $primary->psql('postgres',
		$paths{$path},
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/53000: too few synchronous standbys are streaming to accept records/,
		"$path fails with 53000 while no synchronous standby streams");
	ok(time - $t0 < 10, "$path fails at once");
}
is($primary->safe_psql('postgres', q{SELECT sum(high_watermark) FROM topics.offsets('events')}),
	'0', 'nothing was written');
my (undef, undef, $detail) = $primary->psql('postgres', $paths{produce},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($detail, qr/0 synchronous standbys are streaming, and pg_topics\.min_insync_replicas requires 1\./,
	'the detail says how many stream and how many are required');

# a role cannot lower it for itself
my (undef, undef, $set_err) = $primary->psql('postgres',
	q{SET pg_topics.min_insync_replicas = 0}, extra_params => [ '-U', 'app' ]);
like($set_err, qr/permission denied to set parameter "pg_topics\.min_insync_replicas"/,
	'only a superuser can change the setting');

# a commit that does not wait for standbys is not held to it (Kafka: acks=1)
is($primary->safe_psql('postgres', q{
SET synchronous_commit = local;
SELECT count(*) FROM topics.produce('events', 'local'::text, 'k'::text);}),
	'1', 'synchronous_commit = local produces without standbys');

# a consumer's group position is not a record: poll commits it
is($primary->safe_psql('postgres',
	q{SELECT count(*) FROM topics.poll(NULL::events, 'g', consumer => 'c')}),
	'1', 'poll reads and commits its position');

# a synchronous standby streams: records flow
my $standby = start_sync_standby($primary, 'standby');
for my $path (sort keys %paths)
{
	my ($ret, $out, $err) = $primary->psql('postgres', $paths{$path});
	is($ret, 0, "$path succeeds with the standby streaming") or diag $err;
}
is($primary->safe_psql('postgres', q{SELECT sum(high_watermark) FROM topics.offsets('events')}),
	'15', 'every path wrote its records');

# two required, one streaming
$primary->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.min_insync_replicas = 2;
SELECT pg_reload_conf();});
$primary->poll_query_until('postgres', q{SELECT current_setting('pg_topics.min_insync_replicas') = '2'});
my (undef, undef, $two) = $primary->psql('postgres', $paths{produce});
like($two, qr/too few synchronous standbys are streaming/, 'one streaming standby is not two');

# the standby goes away: produce fails at once rather than waiting for it
$primary->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.min_insync_replicas = 1;
SELECT pg_reload_conf();});
$standby->stop;
ok($primary->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM pg_stat_replication}), 'the standby is gone');
my $t0 = time;
my (undef, undef, $gone) = $primary->psql('postgres', $paths{produce_batch});
like($gone, qr/too few synchronous standbys are streaming/,
	'with the standby gone, produce_batch fails');
ok(time - $t0 < 10, 'and does not wait for the standby');

# back again: records flow, and the standby has them
$standby->start;
ok($primary->poll_query_until('postgres',
	q{SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = 'standby'}),
	'the standby is back');
is($primary->safe_psql('postgres', $paths{produce}), '1', 'produce works again');
$primary->wait_for_catchup('standby');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM events WHERE key = 'k' AND value = 'v'}),
	$primary->safe_psql('postgres', q{SELECT count(*) FROM events WHERE key = 'k' AND value = 'v'}),
	'the standby has the records');

# 0 turns it off: without standbys, a synchronous commit is acknowledged
# locally once synchronous_standby_names is empty, as PostgreSQL does
$standby->stop;
$primary->safe_psql('postgres', q{
ALTER SYSTEM SET pg_topics.min_insync_replicas = 0;
ALTER SYSTEM SET synchronous_standby_names = '';
SELECT pg_reload_conf();});
$primary->poll_query_until('postgres', q{SELECT current_setting('pg_topics.min_insync_replicas') = '0'});
is($primary->safe_psql('postgres', $paths{produce}), '1', 'with the setting at 0, produce works without standbys');

$standby->stop;
done_testing();
