# The stable-offset rule under load: producers commit and roll back out of
# order on two partitions while two readers advance with fetch.  Every
# reader must get exactly the committed records, each once, in offset
# order per partition, and never a rolled-back one.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PgTopicsTest;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('lso');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_topics'\n");
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION pg_topics;
SELECT topics.create_topic('t', partitions => 2, key_type => 'text', value_type => 'text');
CREATE TABLE seen (reader text, partition int, "offset" bigint, value text, seq bigserial);
CREATE TABLE producers_done (n int);
INSERT INTO producers_done VALUES (0);

-- a reader: advance through both partitions with fetch, record what it got
CREATE PROCEDURE reader(name text, nproducers int) LANGUAGE plpgsql AS $$
DECLARE
    pos bigint[] := ARRAY[0, 0];
    p int;
    got int;
    last bigint;
    done int;
    hw bigint;
    at_end boolean;
BEGIN
    LOOP
        -- read before the partitions: if every producer was done then,
        -- reaching the end now means there is nothing left
        SELECT n INTO done FROM producers_done;
        at_end := true;
        FOR p IN 0..1 LOOP
            INSERT INTO seen (reader, partition, "offset", value)
            SELECT name, f.partition, f."offset", f.value
            FROM topics.fetch(NULL::t, p, pos[p + 1], max_records => 50, wait => '20 ms') f;
            GET DIAGNOSTICS got = ROW_COUNT;
            IF got > 0 THEN
                SELECT max(s."offset") INTO last FROM seen s WHERE s.reader = name AND s.partition = p;
                pos[p + 1] := last + 1;
            ELSE
                -- step over aborted records, up to the last stable offset
                pos[p + 1] := topics.next_offset('t', p, pos[p + 1]);
            END IF;
            SELECT o.high_watermark INTO hw FROM topics.offsets('t') o WHERE o.partition = p;
            IF pos[p + 1] < hw THEN
                at_end := false;
            END IF;
        END LOOP;
        COMMIT;
        EXIT WHEN done = nproducers AND at_end;
    END LOOP;
END $$;
});

my $nproducers = 4;
my $ntxn = 400;
srand(7);
my (@producers, @readers, %plan);
for my $p (1 .. $nproducers)
{
	my $script = "SET synchronous_commit = off;\n";    # durability is checked by fetch; make it matter
	for my $i (1 .. $ntxn)
	{
		my $n = 1 + int(rand(4));
		my $part = int(rand(2));
		my $values = join(',', map { "'p$p-$i-$_'" } 1 .. $n);
		my $commit = rand() < 0.7;
		my $sleep = sprintf('%.3f', rand(0.01));
		$plan{"p$p-$i"} = [ $n, $commit ];
		$script .= "BEGIN;\n";
		$script .= "SELECT count(*) FROM topics.produce_batch('t', ARRAY[$values], partition => $part);\n";
		$script .= "SELECT pg_sleep($sleep);\n";
		$script .= $commit ? "COMMIT;\n" : "ROLLBACK;\n";
	}
	$script .= "UPDATE producers_done SET n = n + 1;\n";
	my $file = $node->basedir . "/producer$p.sql";
	open my $fh, '>', $file or die;
	print $fh $script;
	close $fh;
	push @producers, IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $file ],
		'>', '/dev/null', '2>', $node->basedir . "/producer$p.err");
}
for my $r (1 .. 2)
{
	push @readers, IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		  '-c', "CALL reader('r$r', $nproducers)" ],
		'>', '/dev/null', '2>', $node->basedir . "/reader$r.err");
}
$_->finish for @producers;
ok(!$_->result, 'producer finished cleanly') for @producers;
$_->finish for @readers;
ok(!$_->result, 'reader finished cleanly') for @readers;

my $expected = 0;
$expected += $_->[0] for grep { $_->[1] } values %plan;
my $committed = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
is($committed, $expected, "the topic holds every committed record ($expected)");

for my $r (1 .. 2)
{
	my $missing = $node->safe_psql('postgres',
		"SELECT count(*) FROM t WHERE (partition, \"offset\") NOT IN (SELECT partition, \"offset\" FROM seen WHERE reader = 'r$r')");
	is($missing, '0', "reader r$r skipped no committed record");
	my $extra = $node->safe_psql('postgres',
		"SELECT count(*) FROM seen s WHERE reader = 'r$r' AND NOT EXISTS (SELECT 1 FROM t WHERE t.partition = s.partition AND t.\"offset\" = s.\"offset\" AND t.value = s.value)");
	is($extra, '0', "reader r$r got nothing that is not committed");
	my $dups = $node->safe_psql('postgres',
		"SELECT count(*) - count(DISTINCT (partition, \"offset\")) FROM seen WHERE reader = 'r$r'");
	is($dups, '0', "reader r$r got every record once");
	my $disorder = $node->safe_psql('postgres',
		"SELECT count(*) FROM (SELECT \"offset\" < lag(\"offset\") OVER (PARTITION BY partition ORDER BY seq) AS back FROM seen WHERE reader = 'r$r') s WHERE back");
	is($disorder, '0', "reader r$r got each partition in offset order");
}
my $rolled_back = grep { !$_->[1] } values %plan;
ok($rolled_back > 20, "producers rolled back transactions ($rolled_back), so there were gaps to step over");

$node->stop;
done_testing();
