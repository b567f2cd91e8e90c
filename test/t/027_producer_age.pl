# pg_topics.max_producer_transaction_age: a transaction that produced and
# then stays open holds every reader of its partitions at its first
# offset.  With the setting, its session is ended after that age (said in
# the server log), and the readers go on.  Run as unprivileged roles.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('producer_age');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '10s'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE app LOGIN;
CREATE ROLE reader LOGIN;
GRANT CREATE ON SCHEMA public TO app;
SET ROLE app;
SELECT topics.create_topic('t', 1, 'text', 'text');
GRANT SELECT ON t TO reader;
});
my $reader_conn = $node->connstr('postgres') . ' user=reader';
my $app_conn = $node->connstr('postgres') . ' user=app';

# off by default: an open producing transaction holds readers back
my $holder = $node->background_psql('postgres', on_error_stop => 0, extra_params => ['-U', 'app']);
my $holder_pid = $holder->query_safe(q{SELECT pg_backend_pid();});
chomp $holder_pid;
$holder->query_safe(q{BEGIN; SELECT count(*) FROM topics.produce_batch('t', ARRAY['held']);});
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('t', ARRAY['after'])},
	connstr => $app_conn);
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.fetch(NULL::t, 0, 0)},
	connstr => $reader_conn), '0', 'an open producing transaction holds its partition\'s readers back');
is($node->safe_psql('postgres', q{SELECT last_stable_offset FROM topics.offsets('t')},
	connstr => $reader_conn), '0', 'at its first offset');
sleep 2;
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.fetch(NULL::t, 0, 0)},
	connstr => $reader_conn), '0', 'for as long as it stays open');

# with the setting, the holder's session ends after the age
my $log_offset = -s $node->logfile;
$node->append_conf('postgresql.conf', q{pg_topics.max_producer_transaction_age = '3s'});
$node->reload;
my $start = time();
my $got = $node->safe_psql('postgres',
	q{SELECT string_agg(value, ',' ORDER BY "offset") FROM topics.fetch(NULL::t, 0, 0, wait => '30 s')},
	connstr => $reader_conn);
my $waited = time() - $start;
is($got, 'after', 'once the holder is ended, the reader gets the records after its offset');
cmp_ok($waited, '<', 15, sprintf('within the age and a little (%.1f s)', $waited));
ok($node->wait_for_log(qr/terminating process \d+ because its transaction has held topic partitions back for longer than pg_topics.max_producer_transaction_age/, $log_offset),
	'the server log says which process was ended and why');
expect_in_log($node, qr/FATAL:  57P01: terminating connection due to administrator command/,
	'the guard ends the holder\'s session on purpose');
ok($node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $holder_pid"),
	'the holder\'s session was ended');
$holder->quit;
is($node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE value = 'held'}), '0',
	'and its records were rolled back');

# a transaction younger than the age is left alone
$holder = $node->background_psql('postgres', on_error_stop => 0, extra_params => ['-U', 'app']);
$holder->query_safe(q{BEGIN; SELECT count(*) FROM topics.produce_batch('t', ARRAY['young']);});
sleep 1;
$holder->query_safe(q{COMMIT;});
is($node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE value = 'young'}), '1',
	'a younger producing transaction commits');
$holder->quit;

$node->stop;
done_testing();
