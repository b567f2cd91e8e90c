# A logical subscriber that has caught up shows its publisher's log start,
# high watermark, last stable offset and gaps, so a consumer can move
# between them with its offsets: after a rolled-back transaction at the
# start of the log, a transaction at the start that commits after a later
# one, a rolled-back tail, delete_records and retention on the publisher.
# The subscriber's own retention settings do not apply to a replica, and
# delete_records there is refused.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $topics = q{
SELECT topics.create_topic('t', 1, 'text', 'text');
SELECT topics.create_topic('o', 1, 'text', 'text');
SELECT topics.create_topic('r', 1, 'text', 'text', retention_bytes => 65536);
SELECT topics.create_topic('c', 1, 'text', 'text');
};
# The publisher's worker runs only when woken (a rollback, delete_records,
# enforce_retention), so that a partition's first record can reach the
# subscriber before any marker does.  The subscriber's runs often: its own
# retention would show at once.
my $pub = start_logical_node('publisher', '1h', $topics);
my $sub = start_logical_node('subscriber', '200ms', $topics);

$pub->safe_psql('postgres',
	q{CREATE PUBLICATION p FOR TABLE t, r WITH (publish_via_partition_root = true)});
my $connstr = $pub->connstr('postgres');
$connstr =~ s/'/''/g;
$sub->safe_psql('postgres', qq{CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p});
$sub->wait_for_subscription_sync($pub, 's');

# the subscriber has caught up once its offsets are the publisher's
sub caught_up
{
	my ($topic) = @_;
	my $q = qq{SELECT string_agg(concat_ws(',', partition, log_start_offset, high_watermark, last_stable_offset), ';' ORDER BY partition) FROM topics.offsets('$topic')};
	my $expected = $pub->safe_psql('postgres', $q);
	$pub->wait_for_catchup('s');
	return $sub->poll_query_until('postgres', $q, $expected);
}

# the same statement gives the same answer (or the same error) on both
sub same
{
	my ($sql, $name) = @_;
	my (undef, $pout, $perr) = $pub->psql('postgres', $sql);
	my (undef, $sout, $serr) = $sub->psql('postgres', $sql);
	is("$sout$serr", "$pout$perr", $name);
	return $pout;
}

my $read_t = q{SELECT string_agg("offset" || ':' || value, ',' ORDER BY "offset") FROM topics.fetch(NULL::%s, 0, %d, 1000)};

# a rolled-back transaction at the start of the log: offsets 0-9 are a gap
$pub->safe_psql('postgres', q{
BEGIN;
SELECT count(*) FROM topics.produce_batch('t', (SELECT array_agg('x' || g) FROM generate_series(0, 9) g));
ROLLBACK;
SELECT count(*) FROM topics.produce_batch('t', (SELECT array_agg('v' || g) FROM generate_series(10, 19) g));
});
ok(caught_up('t'), 'after a rollback at the start, the subscriber\'s offsets are the publisher\'s');
same(q{SELECT log_start_offset, high_watermark, last_stable_offset FROM topics.offsets('t')},
	'log start 0, high watermark and last stable offset on both');
like(same(sprintf($read_t, 't', 0), 'fetch from offset 0 on both'),
	qr/^10:v10,/, 'fetch from 0 steps over the gap to offset 10');
same(q{SELECT topics.next_offset('t', 0, 0)}, 'next_offset steps over the gap on both');

# at the start, a transaction takes offsets 0-4 and commits after one that
# took 5-9 (o is published now: no marker of the worker's reaches it first)
$pub->safe_psql('postgres', q{ALTER PUBLICATION p ADD TABLE o});
$sub->safe_psql('postgres', q{ALTER SUBSCRIPTION s REFRESH PUBLICATION});
$sub->wait_for_subscription_sync($pub, 's');
my $a = $pub->background_psql('postgres');
$a->query_safe(q{BEGIN; SELECT count(*) FROM topics.produce_batch('o', ARRAY['a0','a1','a2','a3','a4']);});
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce_batch('o', ARRAY['b5','b6','b7','b8','b9'])});
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', q{SELECT string_agg("offset"::text, ',' ORDER BY "offset") FROM o}),
	'5,6,7,8,9', 'the later transaction arrived first');
$a->query_safe('COMMIT');
$a->quit;
ok(caught_up('o'), 'after the late commit at the start, the offsets are the publisher\'s');
is(same(sprintf($read_t, 'o', 0), 'fetch of o from 0 on both'),
	'0:a0,1:a1,2:a2,3:a3,4:a4,5:b5,6:b6,7:b7,8:b8,9:b9',
	'the late transaction at the start is read from offset 0');

# a rolled-back tail: offsets 30-39 are consumed, no record ships
$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('t', (SELECT array_agg('v' || g) FROM generate_series(20, 29) g));
BEGIN;
SELECT count(*) FROM topics.produce_batch('t', (SELECT array_agg('x' || g) FROM generate_series(30, 39) g));
ROLLBACK;
});
ok(caught_up('t'), 'after a rolled-back tail, the offsets are the publisher\'s');
is(same(q{SELECT high_watermark FROM topics.offsets('t')}, 'high watermark past the rolled-back tail'),
	'40', 'the high watermark is 40 on both');
same(q{SELECT count(*) FROM topics.fetch(NULL::t, 0, 40)}, 'fetch at the high watermark on both');
same(q{SELECT topics.next_offset('t', 0, 25)}, 'next_offset into the rolled-back tail on both');
same(sprintf($read_t, 't', 15), 'fetch from the middle on both');

# delete_records on the publisher moves the subscriber's log start
$pub->safe_psql('postgres', q{SELECT topics.delete_records('t', 0, 25)});
ok(caught_up('t'), 'after delete_records on the publisher, the offsets are the publisher\'s');
same(q{SELECT log_start_offset FROM topics.offsets('t')}, 'log start 25 on both');
like(same(sprintf($read_t, 't', 0), 'fetch below the log start on both'),
	qr/^$/, 'fetch below the log start returns nothing');
my (undef, undef, $err) = $sub->psql('postgres', sprintf($read_t, 't', 24));
like($err, qr/offset 24 is out of range for partition 0 of topic "t"/,
	'fetch below the log start fails on the subscriber with the out-of-range error');
same(sprintf($read_t, 't', 25), 'fetch from the log start on both');
($_, undef, $err) = $sub->psql('postgres', q{SELECT topics.delete_records('t', 0, 27)});
like($err, qr/cannot delete records of partition "t_p0": it is a logical replica/,
	'delete_records on a replica is refused');

# retention on the publisher; the subscriber's own retention_bytes, which
# would cut elsewhere (its segments differ), does not apply to a replica
for my $round (1 .. 6)
{
	$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('r', (SELECT array_agg(repeat(md5(g::text), 8)) FROM generate_series(1, 100) g))});
}
my $pub_start = $pub->safe_psql('postgres', q{SELECT log_start_offset FROM topics.enforce_retention('r')});
cmp_ok($pub_start, '>', 0, "retention moved the publisher's log start to $pub_start");
ok(caught_up('r'), 'after retention on the publisher, the offsets are the publisher\'s');
same(q{SELECT log_start_offset, high_watermark FROM topics.offsets('r')}, 'retention: the same log start on both');
same(qq{SELECT count(*), min("offset") FROM topics.fetch(NULL::r, 0, $pub_start, 1000)},
	'retention: fetch from the log start on both');
same(q{SELECT count(*) FROM topics.fetch(NULL::r, 0, 0, 1000)}, 'retention: fetch from 0 on both');
# a few more rounds of the subscriber's worker change nothing
sleep 1;
same(q{SELECT log_start_offset FROM topics.offsets('r')}, 'the subscriber keeps following the publisher');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('r')}), '0',
	'verify accepts the subscriber\'s log');

# the initial copy of a log with a gap and deleted records: the copied
# records bring no log start, the markers do
$pub->safe_psql('postgres', q{
SELECT count(*) FROM topics.produce_batch('c', (SELECT array_agg('v' || g) FROM generate_series(0, 9) g));
BEGIN;
SELECT count(*) FROM topics.produce_batch('c', (SELECT array_agg('x' || g) FROM generate_series(10, 19) g));
ROLLBACK;
SELECT count(*) FROM topics.produce_batch('c', (SELECT array_agg('v' || g) FROM generate_series(20, 29) g));
SELECT topics.delete_records('c', 0, 5);
ALTER PUBLICATION p ADD TABLE c;
});
$sub->safe_psql('postgres', q{ALTER SUBSCRIPTION s REFRESH PUBLICATION});
$sub->wait_for_subscription_sync($pub, 's');
$pub->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('c', 'v30')});
ok(caught_up('c'), 'after the initial copy, the offsets are the publisher\'s');
same(sprintf($read_t, 'c', 5), 'initial copy: fetch from the log start on both');
same(q{SELECT topics.next_offset('c', 0, 10)}, 'initial copy: next_offset over the gap on both');

# detached, the subscriber continues after the publisher's rolled-back tail
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION s');
is($sub->safe_psql('postgres', q{SELECT "offset" FROM topics.produce('t', 'local')}), '40',
	'after detaching, local offsets continue at the publisher\'s high watermark');

done_testing();
