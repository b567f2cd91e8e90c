/*-------------------------------------------------------------------------
 *
 * settings.c
 *	  Every pg_topics.* setting, defined in one place.
 *
 * A setting pg_topics.x is the C variable pg_topics_x.  The prefix is
 * reserved, so a misspelt pg_topics setting is an error, not a silent
 * placeholder.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"
#include "postmaster/postmaster.h"
#include "replication/logicallauncher.h"
#if PG_VERSION_NUM >= 180000
#include "storage/procnumber.h"
#endif
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"

int			pg_topics_max_message_bytes = 1024 * 1024;
int			pg_topics_max_partitions_per_transaction = 128;
int			pg_topics_auto_offset_reset = TOPIC_RESET_EARLIEST;
int			pg_topics_session_timeout = 30000;
int			pg_topics_max_groups = 1024;
int			pg_topics_max_group_partitions = 65536;
int			pg_topics_max_groups_per_role = 256;
int			pg_topics_max_group_partitions_per_role = 16384;
int			pg_topics_segment_size = TOPIC_SEGMENT_MAX_ROLL_BLOCKS;
int			pg_topics_worker_naptime = 10000;
int			pg_topics_compaction_buffer_size = 16384;
double		pg_topics_compaction_cost_delay = 0;
int			pg_topics_compaction_cost_limit = 200;
int			pg_topics_max_producer_transaction_age = 0;
int			pg_topics_kafka_port = 0;
char	   *pg_topics_kafka_listen_addresses = NULL;
char	   *pg_topics_kafka_database = NULL;
char	   *pg_topics_kafka_schema = NULL;
int			pg_topics_kafka_workers = 2;
int			pg_topics_kafka_auth = TOPIC_KAFKA_AUTH_TRUST;
char	   *pg_topics_kafka_trust_role = NULL;
int			pg_topics_kafka_group_initial_rebalance_delay = 3000;
int			pg_topics_kafka_max_connections = 1000;
int			pg_topics_kafka_idle_timeout = 600000;
int			pg_topics_kafka_max_request_bytes = 100 * 1024 * 1024;
char	   *pg_topics_kafka_brokers = NULL;
int			pg_topics_kafka_listener_memory = 256 * 1024;
bool		pg_topics_kafka_auto_create_topics = false;
int			pg_topics_kafka_default_partitions = 1;
int			pg_topics_kafka_max_transactions = 16;
int			pg_topics_kafka_max_transactions_per_role = 8;
int			pg_topics_kafka_transaction_max_timeout = 900000;
int			pg_topics_kafka_transaction_worker_idle_timeout = 5000;
int			pg_topics_kafka_transactional_id_expiration = 7 * 24 * 3600 * 1000;

static const struct config_enum_entry offset_reset_options[] = {
	{"earliest", TOPIC_RESET_EARLIEST, false},
	{"latest", TOPIC_RESET_LATEST, false},
	{"error", TOPIC_RESET_ERROR, false},
	{NULL, 0, false}
};

static const struct config_enum_entry kafka_auth_options[] = {
	{"trust", TOPIC_KAFKA_AUTH_TRUST, false},
	{"scram-sha-256", TOPIC_KAFKA_AUTH_SCRAM, false},
	{"plain", TOPIC_KAFKA_AUTH_PLAIN, false},
	{NULL, 0, false}
};

/*
 * One entry of pg_topics.kafka_brokers: host:port, or [address]:port for an
 * IPv6 address.  False if it is not one; else *host (palloc'd) and *port.
 */
bool
topic_kafka_broker_parse(const char *entry, char **host, int *port)
{
	const char *colon = strrchr(entry, ':');
	const char *start = entry;
	const char *end = colon;
	char	   *endptr;
	long		p;

	if (colon == NULL || colon == entry)
		return false;
	if (entry[0] == '[')
	{
		if (colon[-1] != ']' || colon - entry < 3)
			return false;
		start = entry + 1;
		end = colon - 1;
	}
	else if (memchr(entry, ':', colon - entry) != NULL)
		return false;			/* an IPv6 address without brackets */
	errno = 0;
	p = strtol(colon + 1, &endptr, 10);
	if (colon[1] == '\0' || *endptr != '\0' || errno != 0 || p < 1 || p > 65535)
		return false;
	*host = pnstrdup(start, end - start);
	*port = (int) p;
	return true;
}

/* pg_topics.kafka_brokers: a comma-separated list of host:port */
static bool
check_kafka_brokers(char **newval, void **extra, GucSource source)
{
	char	   *raw = pstrdup(*newval);
	List	   *entries;
	ListCell   *lc;

	if (!SplitGUCList(raw, ',', &entries))
	{
		GUC_check_errdetail("List syntax is invalid.");
		return false;
	}
	foreach(lc, entries)
	{
		char	   *host;
		int			port;

		if (!topic_kafka_broker_parse((char *) lfirst(lc), &host, &port))
		{
			GUC_check_errdetail("\"%s\" is not host:port (an IPv6 address in brackets).",
								(char *) lfirst(lc));
			return false;
		}
	}
	return true;
}

/*
 * The Kafka listener's settings (src/kafka/).  Where it listens, how many
 * processes serve it and which database it serves need a restart: the
 * processes are registered when the library loads.
 */
static void
define_kafka_settings(void)
{
	DefineCustomIntVariable("pg_topics.kafka_port",
							"TCP port of the Kafka protocol listener.",
							"0 starts no listener.",
							&pg_topics_kafka_port,
							0, 0, 65535,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomStringVariable("pg_topics.kafka_listen_addresses",
							   "Addresses the Kafka listener binds to.",
							   "A comma-separated list of host names or IP addresses; * is every address.",
							   &pg_topics_kafka_listen_addresses,
							   "localhost",
							   PGC_POSTMASTER, GUC_LIST_INPUT,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("pg_topics.kafka_database",
							   "Database whose topics the Kafka listener serves.",
							   NULL,
							   &pg_topics_kafka_database,
							   "postgres",
							   PGC_POSTMASTER, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("pg_topics.kafka_schema",
							   "Schema whose topics are the Kafka topics.",
							   NULL,
							   &pg_topics_kafka_schema,
							   "public",
							   PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_workers",
							"Number of processes that serve Kafka clients.",
							"Each takes one of max_worker_processes.",
							&pg_topics_kafka_workers,
							2, 1, 64,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomEnumVariable("pg_topics.kafka_auth",
							 "How Kafka clients authenticate.",
							 "trust acts as pg_topics.kafka_trust_role and is allowed only while every listen address is a loopback one.",
							 &pg_topics_kafka_auth,
							 TOPIC_KAFKA_AUTH_TRUST,
							 kafka_auth_options,
							 PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomStringVariable("pg_topics.kafka_trust_role",
							   "Role that Kafka clients act as under trust authentication.",
							   "Empty means the owner of pg_topics.kafka_database.",
							   &pg_topics_kafka_trust_role,
							   "",
							   PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_group_initial_rebalance_delay",
							"How long a new Kafka consumer group waits for more members before its first assignment.",
							"Kafka's group.initial.rebalance.delay.ms.",
							&pg_topics_kafka_group_initial_rebalance_delay,
							3000, 0, 300000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_max_connections",
							"Most Kafka client connections served at once.",
							"Further connections are closed at once.",
							&pg_topics_kafka_max_connections,
							1000, 1, 1000000,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_max_transactions",
							"Most Kafka transactions open at once.",
							"Each open one holds a background worker of max_worker_processes; a transaction over the limit is answered CONCURRENT_TRANSACTIONS, which clients retry.",
							&pg_topics_kafka_max_transactions,
							16, 0, 10000,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_max_transactions_per_role",
							"Most Kafka transactions one role may have open at once.",
							"A transaction over the limit is answered CONCURRENT_TRANSACTIONS, which clients retry.",
							&pg_topics_kafka_max_transactions_per_role,
							8, 0, 10000,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_transaction_max_timeout",
							"Largest transaction timeout a Kafka producer may ask for.",
							"Kafka's transaction.max.timeout.ms: InitProducerId with a longer transaction.timeout.ms is answered INVALID_TRANSACTION_TIMEOUT.",
							&pg_topics_kafka_transaction_max_timeout,
							900000, 1000, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_transaction_worker_idle_timeout",
							"How long a Kafka transaction's worker waits for its producer's next transaction.",
							"The worker of a transaction its producer ended waits this long, holding no transaction, to serve the same producer's next one without a process to start; 0 ends it with its transaction.",
							&pg_topics_kafka_transaction_worker_idle_timeout,
							5000, 0, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_transactional_id_expiration",
							"How long a Kafka transactional id not in a transaction is kept unused.",
							"Kafka's transactional.id.expiration.ms: the background worker deletes an id idle for longer, and its next InitProducerId makes it anew.",
							&pg_topics_kafka_transactional_id_expiration,
							7 * 24 * 3600 * 1000, 1000, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_idle_timeout",
							"Closes Kafka client connections idle for longer than this.",
							"Kafka's connections.max.idle.ms.",
							&pg_topics_kafka_idle_timeout,
							600000, 1000, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_max_request_bytes",
							"Largest Kafka request accepted.",
							"A client that announces a larger one is disconnected (Kafka's socket.request.max.bytes).",
							&pg_topics_kafka_max_request_bytes,
							100 * 1024 * 1024, 1024, 256 * 1024 * 1024,
							PGC_SIGHUP, GUC_UNIT_BYTE,
							NULL, NULL, NULL);
	DefineCustomStringVariable("pg_topics.kafka_brokers",
							   "Kafka listeners of every node of the formation, as clients reach them.",
							   "A comma-separated list of host:port, the same on every node; Metadata lists each as a broker.",
							   &pg_topics_kafka_brokers,
							   "",
							   PGC_SIGHUP, GUC_LIST_INPUT,
							   check_kafka_brokers, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_listener_memory",
							"Memory each Kafka listener process may use for its clients' requests and answers.",
							"A request that would need more waits, or fails with a retriable error.",
							&pg_topics_kafka_listener_memory,
							256 * 1024, 1024, INT_MAX / 2,
							PGC_SIGHUP, GUC_UNIT_KB,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_topics.kafka_auto_create_topics",
							 "Creates a topic that a Kafka client's Metadata request names and that does not exist.",
							 "Kafka's auto.create.topics.enable: as the connection's role, which needs CREATE on pg_topics.kafka_schema.",
							 &pg_topics_kafka_auto_create_topics,
							 false,
							 PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("pg_topics.kafka_default_partitions",
							"Partitions of a topic created on first use.",
							"Kafka's num.partitions.",
							&pg_topics_kafka_default_partitions,
							1, 1, 10000,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);
}

/*
 * Define the settings of pg_topics.  Long on purpose: one
 * DefineCustom*Variable call per setting.
 */
/*
 * Each open Kafka transaction holds a background worker for its life, a
 * slot of max_worker_processes.  Transactions that took every slot left
 * would keep the workers the server needs from starting: pg_topics's
 * database worker (retention, spare segments, rolls, the round that ends
 * lost transactions), and the logical replication launcher.  So the
 * limit is lowered at start to what max_worker_processes leaves beside
 * the Kafka listener's processes, pg_topics's launcher, one database
 * worker and the logical replication launcher, with a WARNING: a
 * transaction over it is answered CONCURRENT_TRANSACTIONS, which clients
 * retry.  (Parallel query's workers take what is left when they can.)
 */
static void
clamp_kafka_max_transactions(void)
{
	int			reserved = pg_topics_kafka_workers + 2 +
		(max_logical_replication_workers > 0 ? 1 : 0);
	int			room = Max(max_worker_processes - reserved, 0);
	char		value[16];

	if (pg_topics_kafka_max_transactions <= room)
		return;
	ereport(WARNING,
			(errmsg("pg_topics.kafka_max_transactions is lowered from %d to %d",
					pg_topics_kafka_max_transactions, room),
			 errdetail("Each open Kafka transaction holds one of max_worker_processes (%d), of which %d are kept for the Kafka listener, pg_topics's launcher and database worker and the logical replication launcher.",
					   max_worker_processes, reserved),
			 errhint("Raise max_worker_processes to %d to keep %d Kafka transactions open at once.",
					 reserved + pg_topics_kafka_max_transactions,
					 pg_topics_kafka_max_transactions)));
	snprintf(value, sizeof(value), "%d", room);
	/* over the configuration file's value, which a reload reads again */
	SetConfigOption("pg_topics.kafka_max_transactions", value,
					PGC_POSTMASTER, PGC_S_OVERRIDE);
}

void
topic_guc_init(void)
{
	/*
	 * Superuser-only: a limit that every user may raise protects nothing.
	 */
	DefineCustomIntVariable("pg_topics.max_message_bytes",
							"Largest key, value or headers a record may have.",
							"Larger ones are refused with SQLSTATE 54000.",
							&pg_topics_max_message_bytes,
							1024 * 1024,
							1,
							MaxAllocSize - VARHDRSZ,
							PGC_SUSET,
							GUC_UNIT_BYTE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.segment_size",
							"Size at which a partition's log moves on to a new segment.",
							"Topics with retention_bytes use smaller segments when that asks for them.",
							&pg_topics_segment_size,
							TOPIC_SEGMENT_MAX_ROLL_BLOCKS,
							4,
							TOPIC_SEGMENT_MAX_ROLL_BLOCKS,
							PGC_SIGHUP,
							GUC_UNIT_BLOCKS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.worker_naptime",
							"Time between two rounds of the background worker in each database.",
							"A round creates segments ahead of need and applies retention.",
							&pg_topics_worker_naptime,
							10000,
							10,
							3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	/* the log cleaner's memory and I/O, as Kafka's log.cleaner.* */
	DefineCustomIntVariable("pg_topics.compaction_buffer_size",
							"Memory the log cleaner's key map may use in one pass.",
							"A pass ends where the map is full; the next one goes on from there.",
							&pg_topics_compaction_buffer_size,
							16384,
							64,
							MAX_KILOBYTES,
							PGC_SIGHUP,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomRealVariable("pg_topics.compaction_cost_delay",
							 "Time the log cleaner sleeps when its cost limit is reached.",
							 "Costs are counted as VACUUM counts them. Zero turns the delay off.",
							 &pg_topics_compaction_cost_delay,
							 0,
							 0,
							 100,
							 PGC_SIGHUP,
							 GUC_UNIT_MS,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.compaction_cost_limit",
							"Cost the log cleaner accumulates before it sleeps.",
							NULL,
							&pg_topics_compaction_cost_limit,
							200,
							1,
							10000,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_producer_transaction_age",
							"Longest a transaction may hold topic partitions back after producing to them.",
							"Its session is then terminated, so that the partitions' readers go on. Zero turns this off.",
							&pg_topics_max_producer_transaction_age,
							0,
							0,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_partitions_per_transaction",
							"Most topic partitions one transaction may produce to.",
							"Sizes the shared registry of in-flight producers.",
							&pg_topics_max_partitions_per_transaction,
							1024,
							1,
							100000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("pg_topics.auto_offset_reset",
							 "Where a consumer group starts without a valid committed offset.",
							 "earliest: the log start; latest: the high watermark; error: refuse.",
							 &pg_topics_auto_offset_reset,
							 TOPIC_RESET_EARLIEST,
							 offset_reset_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.session_timeout",
							"How long a durable consumer group member stays without polling.",
							NULL,
							&pg_topics_session_timeout,
							30000,
							100,
							INT_MAX,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_groups",
							"Most consumer groups the server keeps in shared memory, for all databases; a group name used on two topics is two groups.",
							"A poll that would create one more fails with SQLSTATE 53400.",
							&pg_topics_max_groups,
							1024,
							16,
							1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_group_partitions",
							"Most (group, partition) positions the server keeps in shared memory.",
							NULL,
							&pg_topics_max_group_partitions,
							65536,
							64,
							10000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	/*
	 * Shares of the two tables above that one role's groups may hold, so
	 * that a role cannot take them all; superuser-only, and settable per
	 * role with ALTER ROLE ... SET.
	 */
	DefineCustomIntVariable("pg_topics.max_groups_per_role",
							"Most consumer groups one role may own, in all databases together.",
							"A poll that would create one more fails with SQLSTATE 53400.",
							&pg_topics_max_groups_per_role,
							256,
							1,
							1000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_group_partitions_per_role",
							"Most (group, partition) positions the groups one role owns may hold, in all databases together.",
							"A group holds one per partition of its topic; a poll that would exceed it fails with SQLSTATE 53400.",
							&pg_topics_max_group_partitions_per_role,
							16384,
							1,
							10000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("pg_topics.wait_for_sync_standby",
							 "Consumers see records only once the synchronous standby has them.",
							 "fetch and poll wait until the standbys in synchronous_standby_names have flushed the commits of the records they return.",
							 &pg_topics_wait_for_sync_standby,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.min_insync_replicas",
							"Synchronous standbys that must be streaming for a topic to accept records.",
							"Produce, INSERT and COPY into a topic fail at once while fewer standbys named in synchronous_standby_names are streaming; 0 turns the check off.  Commits with synchronous_commit = local or off are not checked.",
							&pg_topics_min_insync_replicas,
							0, 0, MAX_BACKENDS,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	define_kafka_settings();
	MarkGUCPrefixReserved("pg_topics");
	clamp_kafka_max_transactions();
}
