# Two servers, each leading half of a topic's partitions and following the
# other half with logical replication: both take produce for the
# partitions they lead, a client finds a partition's leader in
# topics.partitions, writes to a follower's copy are refused, and both
# servers end with the same records, offsets included, readable by fetch
# and by a consumer group on either side.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;

my $orders = q{SELECT topics.create_topic('orders', 4, 'text', 'text')};
my $node_a = start_logical_node('a', '200ms', $orders);
my $node_b = start_logical_node('b', '200ms', $orders);

# a leads partitions 0 and 1, b leads 2 and 3; each follows the other
$node_a->safe_psql('postgres', q{CREATE PUBLICATION a_leads FOR TABLE orders_p0, orders_p1});
$node_b->safe_psql('postgres', q{CREATE PUBLICATION b_leads FOR TABLE orders_p2, orders_p3});
for ([ $node_a, $node_b, 'a_follows_b', 'b_leads' ], [ $node_b, $node_a, 'b_follows_a', 'a_leads' ])
{
	my ($follower, $leader, $sub, $pub) = @$_;
	my $connstr = $leader->connstr('postgres');
	$connstr =~ s/'/''/g;
	$follower->safe_psql('postgres',
		qq{CREATE SUBSCRIPTION $sub CONNECTION '$connstr' PUBLICATION $pub});
	$follower->wait_for_subscription_sync($leader, $sub);
}

my $led_sql = q{
SELECT string_agg(partition::text, ',' ORDER BY partition)
FROM topics.partitions WHERE topic = 'orders'::regclass AND NOT logical_replica};
is($node_a->safe_psql('postgres', $led_sql), '0,1', 'topics.partitions shows a leading partitions 0 and 1');
is($node_b->safe_psql('postgres', $led_sql), '2,3', 'and b leading 2 and 3');

# A client routes each key to the leader of its partition: Kafka's
# partitioner (topics.murmur2) gives the partition, topics.partitions the
# server that leads it.
my %leader_of;
for my $node ([ 'a', $node_a ], [ 'b', $node_b ])
{
	$leader_of{$_} = $node->[1] for split /,/, $node->[1]->safe_psql('postgres', $led_sql);
}
my %keys_for;
for my $row (split /\n/, $node_a->safe_psql('postgres', q{
SELECT k, (topics.murmur2(convert_to(k, 'UTF8')) & 2147483647) % 4
FROM (SELECT 'key-' || g AS k FROM generate_series(1, 400) g) s}))
{
	my ($k, $p) = split /\|/, $row;
	push @{ $keys_for{$p} }, $k;
}
for my $p (0 .. 3)
{
	my $keys = join(',', map { "'$_'" } @{ $keys_for{$p} });
	my $got = $leader_of{$p}->safe_psql('postgres', qq{
SELECT string_agg(DISTINCT partition::text, ',')
FROM topics.produce_batch('orders', ARRAY[$keys]::text[], ARRAY[$keys]::text[])});
	is($got, $p, "keys of partition $p, produced on its leader, land in partition $p");
}

# a follower refuses writes into the partitions it follows
my ($ret, $out, $err) = $node_a->psql('postgres',
	q{SELECT topics.produce('orders', 'wrong server', partition => 2)});
like($err, qr/cannot write to partition "orders_p2": it is a logical replica/,
	'a refuses produce into a partition b leads');
($ret, $out, $err) = $node_b->psql('postgres',
	qq{SELECT topics.produce('orders', 'wrong server', '$keys_for{0}[0]'::text)});
like($err, qr/cannot write to partition "orders_p0": it is a logical replica/,
	'b refuses a keyed record whose partition a leads');

$node_a->wait_for_catchup('b_follows_a');
$node_b->wait_for_catchup('a_follows_b');

my $content = q{
SELECT count(*), md5(string_agg(concat_ws('|', partition, "offset", "timestamp", key, value, headers), ','
                                ORDER BY partition, "offset"))
FROM orders};
my $on_a = $node_a->safe_psql('postgres', $content);
like($on_a, qr/^400\|/, 'a has every record');
is($node_b->safe_psql('postgres', $content), $on_a,
	'both servers have the same records, with partition, offset and timestamp');

# consumers read every partition on either server: followed partitions up
# to the leader's stable-offset marker
for my $node ($node_a, $node_b)
{
	ok($node->poll_query_until('postgres', q{
SELECT count(*) = 400 FROM (
    SELECT * FROM topics.fetch(NULL::orders, 0, 0) UNION ALL
    SELECT * FROM topics.fetch(NULL::orders, 1, 0) UNION ALL
    SELECT * FROM topics.fetch(NULL::orders, 2, 0) UNION ALL
    SELECT * FROM topics.fetch(NULL::orders, 3, 0)) f}),
		$node->name . ': fetch reads every partition, led or followed');
	is($node->safe_psql('postgres', q{
SELECT count(*) FROM topics.poll(NULL::orders, 'everything', max_records => 1000)}),
		'400', $node->name . ': a consumer group there gets all 400 records');
}

$node_a->stop;
$node_b->stop;
done_testing();
