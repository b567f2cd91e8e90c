# Idempotent Kafka producers of different roles are kept apart: a producer
# id is bound to the role that got it, so another role cannot write with it
# (taking its sequence numbers or fencing it); ids are not guessable; and
# one role filling the producer table cannot push out another's entries,
# which would make that role's retries be stored twice.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use Math::BigInt;
use Time::HiRes qw(time);

my $node = PostgreSQL::Test::Cluster->new('kafka_producer_roles');
my $kport = PostgreSQL::Test::Cluster::get_free_port();
my $bootstrap = "127.0.0.1:$kport";
$node->init;
$node->append_conf('postgresql.conf', kafka_node_conf($kport) . q{
pg_topics.kafka_auth = 'plain'
pg_topics.kafka_workers = 1
pg_topics.kafka_max_connections = 64
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
CREATE ROLE alice LOGIN PASSWORD 'alice-pw';
CREATE ROLE bob LOGIN PASSWORD 'bob-pw';
SELECT topics.create_topic('shared', 2, 'text', 'text');
SELECT topics.create_topic('alice_t', 1, 'text', 'text');
SELECT topics.create_topic('bob_t', 1, 'text', 'text');
SELECT topics.create_topic('bob_flood', 64, 'text', 'text');
GRANT SELECT, INSERT ON shared TO alice, bob;
GRANT SELECT, INSERT ON alice_t TO alice;
GRANT SELECT, INSERT ON bob_t, bob_flood TO bob;
});
wait_for_kafka_listener($kport);

sub roles
{
	return kafka_script('producer_roles.py', $bootstrap, @_);
}

sub values_of
{
	my ($topic, $partition) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT coalesce(string_agg(value, ',' ORDER BY "offset"), '') FROM $topic WHERE partition = $partition});
}

# what a batch with a producer id bound to another role is told
my $NOT_YOURS = 49;    # INVALID_PRODUCER_ID_MAPPING

# ---- (a) a stolen producer id
my $s = roles('stolen_id', 'shared', 'alice', 'alice-pw', 'bob', 'bob-pw', 'bob_t');
is($s->{init}, 0, 'alice gets a producer id');
is_deeply($s->{first}, [ 0, 0 ], 'alice\'s first batch is stored at offset 0');
is($s->{thief_next}[0], $NOT_YOURS,
	'bob\'s batch with alice\'s producer id and her next sequence number is refused (INVALID_PRODUCER_ID_MAPPING)');
is($s->{thief_fence}[0], $NOT_YOURS, 'so is bob\'s batch bumping her epoch');
is($s->{thief_new_partition}[0], $NOT_YOURS,
	'and one on a partition alice never wrote: the id is bound when issued');
is($s->{thief_own_topic}[0], $NOT_YOURS, 'even on bob\'s own topic');
is($s->{thief_retry}[0], $NOT_YOURS,
	'a copy of alice\'s stored batch sent by bob is refused, not answered with her offset');
is_deeply($s->{owner_next}, [ 0, 1 ], 'alice\'s next batch is stored normally, right after her first');
is_deeply($s->{owner_after}, [ 0, 2 ], 'and the one after');
is_deeply($s->{owner_retry}, [ 0, 2 ], 'and her own retry of it is answered with its offset');
is(values_of('shared', 0), 'owner-0,owner-1,owner-2',
	'the shared partition holds alice\'s records once each, nothing of bob\'s');
is(values_of('shared', 1), '', 'nothing was stored on the partition alice never wrote');
is(values_of('bob_t', 0), 'made-up-0', 'nor on bob\'s topic, but for his own made-up id below');
is_deeply($s->{made_up_thief}, [ 0, 0 ],
	'an id nobody was given may start at sequence 0 (as after a restart)');
is($s->{made_up_owner}[0], $NOT_YOURS, 'and is then bound to the role that used it first');

# ---- (c) ids are not guessable
my $ids = roles('issued_ids', 'alice', 'alice-pw', 8);
my @ids = map { Math::BigInt->new($_->[1]) } @$ids;
is_deeply([ map { $_->[0] } @$ids ], [ (0) x 8 ], 'eight InitProducerId requests are answered');
ok(!(grep { $_ <= 0 } @ids), 'every producer id is positive');
my @steps = map { ($ids[$_] - $ids[ $_ - 1 ])->babs } 1 .. $#ids;
ok(!(grep { $_ <= 1_000_000 } @steps), 'producer ids issued one after another are far apart, not consecutive')
  or diag("ids: @ids");
ok((grep { $_ > Math::BigInt->new(2)->bpow(48) } @ids),
	'and spread over the int64 range');

# ---- (b) one role flooding the producer table on its own topic
# The table holds max(4096, 8 x kafka_max_connections) entries, 4096 here;
# 4400 made-up ids at sequence 0 take more than that, as 69 requests of 64
# partitions.
my $t0 = time();
my $f = roles('flood', 'alice_t', 'alice', 'alice-pw', 'bob', 'bob-pw', 'bob_flood', 64, 4400);
diag(sprintf('bob\'s flood of 4400 producer ids took %.1f s', time() - $t0));
is_deeply($f->{first}, [ 0, 0 ], 'alice\'s batch is stored');
is_deeply($f->{retry_before}, [ 0, 0 ], 'and her retry answered with its offset');
is_deeply($f->{flood_errors}, { 0 => 4400 },
	'bob\'s 4400 batches with made-up ids are stored: he makes room among his own entries');
is_deeply($f->{retry_after}, [ 0, 0 ],
	'after bob filled the table, alice\'s retry is still answered with its offset');
is_deeply($f->{next}, [ 0, 1 ], 'her next batch follows it');
is_deeply($f->{fresh}, [ 0, 0, 2 ],
	'with the table full, alice, below her share, still gets a new producer id and writes with it');
is(values_of('alice_t', 0), 'kept-0,kept-1,fresh-0', 'and her first batch is stored once, not twice');
is($node->safe_psql('postgres', 'SELECT count(*) FROM bob_flood'), '4400',
	'bob\'s records are all there');

$node->stop;
done_testing();
