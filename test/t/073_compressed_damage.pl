# A compressed batch whose bytes are damaged on disk (docs/architecture.md
# §4): every reader refuses it as data corruption (XX001) instead of making
# up records from what a decompressor returns, topics.verify() lists it,
# and the records of the other pages still read.  Each codec's batch keeps
# a checksum of its compressed bytes, checked before they are inflated.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

# data checksums (on by default from 18) would refuse the page before
# pg_topics reads it
my $node = PostgreSQL::Test::Cluster->new('damage');
my @no_checksums = $node->pg_version >= 18 ? (extra => ['--no-data-checksums']) : ();
$node->init(@no_checksums);
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'");
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION pg_topics});

for my $codec ('zstd', 'lz4')
{
	my $t = "damaged_$codec";
	$node->safe_psql('postgres', qq{
SELECT topics.create_topic('$t', 1, 'text', 'jsonb', configs => '{"compression.type": "$codec"}');
SELECT count(*) FROM topics.produce_batch('$t',
	(SELECT array_agg(jsonb_build_object('order', g, 'status', 'paid', 'customer', g % 10))
	 FROM generate_series(1, 2000) g));
CHECKPOINT;
});
	my $pages = $node->safe_psql('postgres', qq{
SELECT count(DISTINCT (ctid::text::point)[0]) FROM $t});
	cmp_ok($pages, '>', 1, "$codec: the records fill more than one page");
	my ($seg, $file) = segment_with_records($node, "${t}_p0");
	ok(defined $file, "$codec: the partition has a segment with records");
	my $second = $node->safe_psql('postgres', qq{
SELECT min("offset") FROM $t WHERE (ctid::text::point)[0] <> (SELECT (ctid::text::point)[0] FROM $t WHERE "offset" = 0)});
	$node->stop;

	# block 1: page header (24), batch header (40), compression (40), then
	# the compressed bytes: flip a few of them
	open my $fh, '+<', $file or die "could not open $file: $!";
	binmode $fh;
	sysseek($fh, 8192 + 24 + 40 + 40 + 200, 0) or die "seek: $!";
	sysread($fh, my $bytes, 4) == 4 or die "read: $!";
	sysseek($fh, 8192 + 24 + 40 + 40 + 200, 0) or die "seek: $!";
	syswrite($fh, pack('C4', map { $_ ^ 0x55 } unpack('C4', $bytes)), 4) == 4 or die "write: $!";
	close $fh;
	$node->start;

	expect_in_log($node, qr/XX001: .*damaged compressed records|XX001: compressed records of the topic_log batch at offset 0 are damaged/,
		'a compressed batch is damaged on purpose');
	my ($ret, $out, $err) = $node->psql('postgres', qq{SELECT count(*) FROM $t});
	like($err, qr/compressed records of the topic_log batch at offset 0 are damaged/,
		"$codec: a scan refuses the damaged batch");
	($ret, $out, $err) = $node->psql('postgres', qq{SELECT count(*) FROM topics.fetch(NULL::$t, 0, 0)});
	like($err, qr/page 1 of topic_log relation "\Q$seg\E" has damaged compressed records/,
		"$codec: fetch refuses it");
	($ret, $out, $err) = $node->psql('postgres', qq{SELECT count(*) FROM topics.fetch(NULL::$t, 0, 0)},
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/XX001/, "$codec: as data corruption");
	is($node->safe_psql('postgres', qq{SELECT count(*) FROM topics.fetch(NULL::$t, 0, $second, 100000)}),
		2000 - $second, "$codec: the records of the other pages read");
	like($node->safe_psql('postgres', qq{SELECT string_agg(problem, ',') FROM topics.verify('$t')}),
		qr/compressed records of batch 0 do not match their checksum or do not inflate/,
		"$codec: verify lists the damaged batch");
}

$node->stop;
done_testing();
