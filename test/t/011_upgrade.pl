# pg_upgrade --link keeps topics: a cluster with topics, a TOASTed value, a
# frozen partition and a consumer group is upgraded into a new cluster (the
# same major version here, which exercises the same binary-upgrade dump and
# file transfer as a major upgrade), and everything reads the same there.
# The on-disk format version is checked on first access: a page of a
# version this build does not know is refused with a clear error.
use strict;
use warnings;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

# The test writes into a page by hand (an unknown format version, a record
# that does not decode) to see pg_topics refuse it: data checksums, on by
# default from 18, would refuse the page before pg_topics reads it.  pg_upgrade
# needs both clusters alike.
my $old = PostgreSQL::Test::Cluster->new('old');
my @no_checksums = $old->pg_version >= 18 ? (extra => ['--no-data-checksums']) : ();
$old->init(@no_checksums);
$old->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'");
$old->start;
$old->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('orders', 2, 'text', 'jsonb', retention => '3 days');
SELECT count(*) FROM topics.produce_batch('orders',
	(SELECT array_agg(jsonb_build_object('n', g)) FROM generate_series(1, 500) g),
	(SELECT array_agg('k' || g) FROM generate_series(1, 500) g));
BEGIN; SELECT topics.produce('orders', '{"rolled": "back"}', 'k1'); ROLLBACK;
SELECT topics.produce('orders', jsonb_build_object('big',
	(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 3000) i)), 'big');
SELECT count(*) FROM topics.poll(NULL::orders, 'billing', max_records => 200);
});
$old->safe_psql('postgres', 'VACUUM (FREEZE) orders');
$old->safe_psql('postgres', q{SELECT topics.produce('orders', '{"after": "freeze"}', 'k2')});

my $content_sql = q{
SELECT count(*) || ':' || md5(string_agg(format('%s/%s/%s/%s/%s/%s', partition, "offset",
	"timestamp", key, value, headers), ',' ORDER BY partition, "offset")) FROM orders};
my $state_sql = q{
SELECT (SELECT string_agg(o::text, ',' ORDER BY o.partition) FROM topics.offsets('orders') o) || ' ' ||
	(SELECT string_agg(format('%s/%s/%s', group_name, partition, committed_offset), ',' ORDER BY partition) FROM topics.consumer_lag) || ' ' ||
	(SELECT format('%s/%s', retention, retention_bytes) FROM topics.topics)};
my $content = $old->safe_psql('postgres', $content_sql);
my $state = $old->safe_psql('postgres', $state_sql);
like($content, qr/^502:/, 'the old cluster has its records');
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init(@no_checksums);
$new->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'");

my $workdir = PostgreSQL::Test::Utils::tempdir;
chdir $workdir;
command_ok([
		'pg_upgrade', '--no-sync', '--link',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $old->config_data('--bindir'), '-B', $new->config_data('--bindir'),
		'-p', $old->port, '-P', $new->port,
		'-s', $new->host ],
	'pg_upgrade --link of a cluster with topics');

$new->start;
is($new->safe_psql('postgres', $content_sql), $content,
	'every column of every record reads the same after the upgrade');
is($new->safe_psql('postgres', $state_sql), $state,
	'offsets, group positions and topic settings survive the upgrade');
is($new->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('orders')}), '0',
	'verify finds nothing after the upgrade');
is($new->safe_psql('postgres', q{SELECT count(*) FROM topics.poll(NULL::orders, 'billing', max_records => 1000)}),
	'302', 'the group resumes after the 200 records it had committed');
my $hw = $new->safe_psql('postgres', q{SELECT high_watermark FROM topics.offsets('orders') WHERE partition = 1});
is($new->safe_psql('postgres', q{SELECT string_agg(partition || ':' || "offset", ',') FROM topics.produce('orders', '{"upgraded": true}', partition => 1)}),
	"1:$hw", 'produce continues at the high watermark');
my ($ret, $out, $err) = $new->psql('postgres', 'DROP EXTENSION pg_topics');
like($err, qr/other objects depend on it/, 'upgraded topics still depend on the extension');

# a page written by an unknown format version is refused on first access
my $file = $new->data_dir . '/' . $new->safe_psql('postgres', q{SELECT pg_relation_filepath('orders_p0')});
$new->stop;
open my $fh, '+<', $file or die "could not open $file: $!";
binmode $fh;
sysseek($fh, 8192 - 48 + 38, 0) or die "seek: $!";	# metapage: version byte of the special space
sysread($fh, my $version, 1) == 1 or die "read: $!";
sysseek($fh, 8192 - 48 + 38, 0) or die "seek: $!";
syswrite($fh, pack('C', 99), 1) == 1 or die "write: $!";
close $fh;
$new->start;
($ret, $out, $err) = $new->psql('postgres', q{SELECT count(*) FROM topics.fetch(NULL::orders, 0, 0)});
like($err, qr/topic_log relation "orders_p0" has unsupported on-disk format version 99/,
	'an unknown format version is refused on first access');
like($err, qr/HINT:  Install the pg_topics version that wrote this relation/, 'with a hint');

# a record that does not decode is data corruption (XX001) for every reader,
# offsets_for_times() included, and topics.verify() lists it; the metapage
# above gets its version back first
my ($seg, $segfile) = segment_with_records($new, 'orders_p1');
ok(defined $segfile, 'partition 1 has a segment with records');
$new->stop;
open $fh, '+<', $file or die "could not open $file: $!";
binmode $fh;
sysseek($fh, 8192 - 48 + 38, 0) or die "seek: $!";
syswrite($fh, $version, 1) == 1 or die "write: $!";
close $fh;
open $fh, '+<', $segfile or die "could not open $segfile: $!";
binmode $fh;
sysseek($fh, 8192 + 24 + 40, 0) or die "seek: $!";	# block 1: the first record's flags, after the page and batch headers
syswrite($fh, pack('C', 0xFF), 1) == 1 or die "write: $!";
close $fh;
$new->start;
expect_in_log($new, qr/XX001: page 1 of topic_log relation "\Q$seg\E" has a record that does not decode/,
	'a record is damaged on purpose');
($ret, $out, $err) = $new->psql('postgres', q{SELECT * FROM topics.offsets_for_times('orders', '-infinity')});
like($err, qr/page 1 of topic_log relation "\Q$seg\E" has a record that does not decode/,
	'offsets_for_times refuses a record that does not decode');
like($new->safe_psql('postgres', q{SELECT string_agg(problem, ',') FROM topics.verify('orders')}),
	qr/record 0 of batch 0 does not decode/, 'verify lists the damaged record');

$new->stop;
done_testing();
