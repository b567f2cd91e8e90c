# The background worker's log compaction next to a reader that holds a
# sealed segment for long (a transaction that read the topic and stays
# open): the worker leaves the segment alone, without writing a new file
# it would only roll back at the swap (a whole segment of full-page images
# each round), and compacts it at the first round after the reader ends.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use PgTopicsTest;

my $node = PostgreSQL::Test::Cluster->new('readers');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_topics'
pg_topics.worker_naptime = '200ms'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('c', 1, 'text', 'text', configs => '{"segment.bytes": "32768"}');
});
# two sealed segments of 20 keys, 400 records each, then a LIVE one
for my $letter ('a', 'b')
{
	$node->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('c',
    (SELECT array_agg(repeat('$letter', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
});
	$node->safe_psql('postgres', q{SELECT count(*) FROM topics.enforce_retention('c')});
}
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('c', 'x', 'k1')});
my $sealed_bytes = $node->safe_psql('postgres', q{
SELECT sum(pg_relation_size(relation)) FROM topics.segments
WHERE topic = 'c'::regclass AND state = 'sealed'});
my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM c');
is($before, '801', 'two sealed segments and a record in the LIVE one');

# the reader: its transaction read the topic, so it holds every segment
my $reader = $node->background_psql('postgres');
$reader->query_safe('BEGIN');
$reader->query_safe('SELECT count(*) FROM c');

my $lsn0 = $node->safe_psql('postgres', q{
SELECT topics.alter_topic_configs('c', '{"cleanup.policy": "compact"}');
SELECT pg_current_wal_lsn()});
$lsn0 = (split /\n/, $lsn0)[-1];
# rounds of the worker (one tries the segment every few rounds)
sleep 5;
my $wal = $node->safe_psql('postgres',
	"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')");
cmp_ok($wal, '<', $sealed_bytes / 8,
	"the worker wrote no segment it could not swap in while the reader held it ($wal bytes of WAL in 5 s, sealed segments of $sealed_bytes bytes)");
is($node->safe_psql('postgres', 'SELECT count(*) FROM c'), '801',
	'nothing compacted while the reader holds the segments');

$reader->query_safe('COMMIT');
$reader->quit;
ok( $node->poll_query_until('postgres', q{SELECT count(*) < 801 FROM c}),
	'compacted by the worker once the reader ended');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM c o WHERE EXISTS (SELECT 1 FROM c n WHERE n.key = o.key AND n."offset" > o."offset")
  AND o."offset" + 1 NOT IN (SELECT base_offset FROM topics.segments WHERE topic = 'c'::regclass)
  AND o.key <> 'k1'}), '0', 'each key keeps its newest record of the sealed segments');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('c')}), '0',
	'verify finds nothing');

# Readers that come and go but never all let go at once (two sessions
# reading the topic in turn, each holding it 300 ms): the worker's
# conditional lock never gets a segment, which is fine until the dirty
# part is max.compaction.lag.ms old; then the worker waits for them (a
# bounded time) and compacts.
$node->safe_psql('postgres', q{
SELECT topics.create_topic('d', 1, 'text', 'text', configs => '{"segment.bytes": "32768"}');
});
for my $letter ('a', 'b')
{
	$node->safe_psql('postgres', qq{
SELECT count(*) FROM topics.produce_batch('d',
    (SELECT array_agg(repeat('$letter', 100) || g) FROM generate_series(0, 399) g),
    (SELECT array_agg('k' || g % 20) FROM generate_series(0, 399) g));
});
	$node->safe_psql('postgres', q{SELECT count(*) FROM topics.enforce_retention('d')});
}
$node->safe_psql('postgres', q{SELECT count(*) FROM topics.produce('d', 'x', 'k1')});
# each reader stops once it sees the topic compacted, and fails if that
# does not happen in 60 s
my $turns = q{
DO $$
DECLARE
	n bigint;
	started timestamptz := clock_timestamp();
BEGIN
	LOOP
		SELECT count(*) INTO n FROM d;
		EXIT WHEN n < 801;
		IF clock_timestamp() > started + interval '60 s' THEN
			RAISE EXCEPTION 'the topic was not compacted while it was read';
		END IF;
		PERFORM pg_sleep(0.3);
		COMMIT;
	END LOOP;
END
$$;
};
my ($turn1) = PgTopicsTest::start_psql_script($node, 'turn1', $turns);
usleep(150_000);
my ($turn2) = PgTopicsTest::start_psql_script($node, 'turn2', $turns);
$node->safe_psql('postgres', q{
SELECT topics.alter_topic_configs('d', '{"cleanup.policy": "compact"}')});
sleep 3;
is($node->safe_psql('postgres', 'SELECT count(*) FROM d'), '801',
	'readers in turn keep the worker off the segments before max.compaction.lag.ms');
$node->safe_psql('postgres', q{
SELECT topics.alter_topic_configs('d', '{"cleanup.policy": "compact", "max.compaction.lag.ms": "1000"}')});
ok($turn1->finish && $turn2->finish,
	'once the dirty part is max.compaction.lag.ms old, the worker compacts while the readers go on');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM d o WHERE EXISTS (SELECT 1 FROM d n WHERE n.key = o.key AND n."offset" > o."offset")
  AND o."offset" + 1 NOT IN (SELECT base_offset FROM topics.segments WHERE topic = 'd'::regclass)
  AND o.key <> 'k1'}), '0', 'each key keeps its newest record of the sealed segments');
is($node->safe_psql('postgres', q{SELECT count(*) FROM topics.verify('d')}), '0',
	'verify finds nothing');

# OpenSSL in FIPS mode refuses MD5 (initializing an MD5 digest fails):
# the key map must not need it.  A library loaded first that fails
# EVP_DigestInit_ex for MD5 makes the server refuse MD5 as FIPS mode does.
SKIP:
{
	skip 'a server built without OpenSSL hashes MD5 itself', 3
	  unless $node->config_data('--configure') =~ /--with-(openssl|ssl=openssl)/;
	my $cc = $node->config_data('--cc');
	my $shim = $node->basedir . '/no_md5';
	open my $src, '>', "$shim.c" or die "could not write $shim.c: $!";
	print $src <<'EOC';
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
typedef struct evp_md_st EVP_MD;
typedef struct evp_md_ctx_st EVP_MD_CTX;
typedef struct engine_st ENGINE;
int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
int
EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl)
{
	int (*real) (EVP_MD_CTX *, const EVP_MD *, ENGINE *) =
		dlsym(RTLD_NEXT, "EVP_DigestInit_ex");
	const EVP_MD *(*md5) (void) = dlsym(RTLD_NEXT, "EVP_md5");

	if (type != NULL && type == md5())
		return 0;
	return real(ctx, type, impl);
}
EOC
	close $src;
	system_or_bail(split(/\s+/, $cc), '-shared', '-fPIC', '-o', "$shim.so", "$shim.c");
	$node->stop;
	{
		local $ENV{LD_PRELOAD} = "$shim.so";
		$node->start;
	}
	PgTopicsTest::expect_in_log($node, qr/XX000: could not compute MD5 hash: OpenSSL failure/,
		'md5() under a server that refuses MD5, on purpose');
	my ($md5_ok, $md5_out, $md5_err) = $node->psql('postgres', q{SELECT md5('x')});
	like($md5_err, qr/could not compute MD5 hash/, 'the server refuses MD5, as in FIPS mode');
	$node->safe_psql('postgres', q{
	SELECT topics.create_topic('e', 1, 'text', 'text', configs => '{"segment.bytes": "32768"}');
	SELECT count(*) FROM generate_series(1, 2) r, LATERAL (SELECT count(*) FROM topics.produce_batch('e',
	    (SELECT array_agg('v' || r || '-' || g || repeat('x', 200)) FROM generate_series(0, 99) g),
	    (SELECT array_agg('k' || g) FROM generate_series(0, 99) g))) x;
	SELECT count(*) FROM topics.enforce_retention('e');
	});
	is($node->safe_psql('postgres', q{
	BEGIN;
	SELECT topics.alter_topic_configs('e', '{"cleanup.policy": "compact"}') \gset
	SELECT topics.compact('e');
	COMMIT;
	}), '100', 'compaction needs no MD5');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM e WHERE value LIKE 'v2-%'}), '100',
		'each key keeps its newest record');
}

$node->stop;
done_testing();
