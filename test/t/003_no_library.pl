# A server whose WAL holds pg_topics records cannot replay it without the
# library: it refuses to start with the error documented in
# docs/architecture.md, and starts again once the library is back.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('nolib');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE TABLE t (partition int NOT NULL DEFAULT 0, "offset" bigint NOT NULL DEFAULT -1,
    "timestamp" timestamptz NOT NULL DEFAULT '-infinity', key text, value text, headers jsonb) USING topic_log;
CHECKPOINT;
INSERT INTO t (key, value) SELECT 'k', 'v' FROM generate_series(1, 100);
});
# crash, so that the records must be replayed
$node->stop('immediate');

$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
# PostgreSQL's own refusal (RmgrNotFound) carries no SQLSTATE of its own
expect_in_log($node, qr/FATAL:  XX000: resource manager with ID 163 not registered/,
	'the test starts the server without the library on purpose');
ok(!$node->start(fail_ok => 1), 'server without the library refuses to start');
ok($node->log_contains('resource manager with ID 163 not registered'),
	'the log names the missing resource manager');
# (17 and later quote the setting's name)
ok($node->log_contains('Include the extension module that implements this resource manager in "?shared_preload_libraries"?'),
	'the log says what to do');

$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "'pg_topics'");
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '100', 'records are back with the library');

# loading the library late is refused with a clear error
my ($ret, $out, $err) = $node->psql('postgres', q{LOAD 'pg_topics'});
is($ret, 0, 'LOAD of an already preloaded library is a no-op');
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->restart;
($ret, $out, $err) = $node->psql('postgres', q{CREATE DATABASE other});
($ret, $out, $err) = $node->psql('other', q{CREATE EXTENSION pg_topics});
like($err, qr/pg_topics must be loaded via shared_preload_libraries/, 'CREATE EXTENSION without preload explains the fix');

$node->stop;
done_testing();
