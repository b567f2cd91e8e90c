/*-------------------------------------------------------------------------
 *
 * fence.c
 *	  Whether this node takes Kafka writes: a Kafka client's write is
 *	  refused wherever a SQL session's would be.
 *
 * The node is fenced while it is in recovery, and while its configuration
 * files (postgresql.conf, its includes, postgresql.auto.conf) set
 * default_transaction_read_only: that is how pg_auto_failover keeps a
 * promoted standby from taking writes until the old primary is known to
 * have stopped (ALTER SYSTEM and a reload), and how an operator freezes
 * writes.  A fenced node stores nothing: Produce is answered
 * NOT_LEADER_OR_FOLLOWER, group requests NOT_COORDINATOR, topic changes
 * NOT_CONTROLLER, InitProducerId COORDINATOR_NOT_AVAILABLE, and Metadata
 * lists no leader and no controller, FindCoordinator no coordinator.  All
 * of them are errors Kafka clients retry after asking for metadata again,
 * here or at another bootstrap server, so they find the writable primary
 * by themselves and meanwhile lose nothing (metadata.c, brokers.c).
 *
 * ALTER DATABASE and ALTER ROLE ... SET default_transaction_read_only make
 * some sessions read-only without fencing the node: the writes of a role
 * whose SQL sessions in pg_topics.kafka_database would be read-only are
 * refused with the same errors (they go on once the setting is gone), and
 * its reads go on.  The most specific of those settings decides, as for a
 * SQL session; but none of them lifts the node's own fence.
 *
 * The listener reads the configuration files itself, at start and at each
 * reload, rather than trusting its own default_transaction_read_only: the
 * listener process is a session of pg_topics.kafka_database too, and a
 * database's or role's setting of that name, applied when it started,
 * would hide the files' value from it for as long as it runs.  For the
 * same reason its own transactions are never read-only by that setting
 * (kafka_session_init): this file decides.
 *
 * Refusals are not logged per request: the node's fence once when it
 * starts and once when it ends (by the first listener process), a role's
 * at most once a minute per listener process.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_db_role_setting.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/kafka/fence.h"

/* a role's refusals are logged at most this often (ms) per process */
#define ROLE_REFUSAL_LOG_INTERVAL	60000

/* default_transaction_read_only as the configuration files set it */
static bool files_read_only = false;

/* what the log was last told of the node's fence: -1 nothing yet */
static int	said_fenced = -1;

/*
 * default_transaction_read_only as the configuration files set it, read
 * the way the server reads them (the last value wins, postgresql.auto.conf
 * last).  False if they cannot be read now: the server then keeps its
 * settings as they were, and so does the listener.
 */
static bool
read_files(bool *read_only)
{
	ConfigVariable *head = NULL;
	ConfigVariable *tail = NULL;
	bool		ok;
	bool		value = false;

	ok = ParseConfigFile(ConfigFileName, true, NULL, 0, 0, DEBUG2,
						 &head, &tail);
	if (ok && DataDir != NULL)
		ok = ParseConfigFile(PG_AUTOCONF_FILENAME, false, NULL, 0, 0, DEBUG2,
							 &head, &tail);
	if (ok)
	{
		for (ConfigVariable *item = head; item != NULL; item = item->next)
		{
			bool		b;

			if (item->name != NULL && item->value != NULL &&
				pg_strcasecmp(item->name, "default_transaction_read_only") == 0 &&
				parse_bool(item->value, &b))
				value = b;
		}
		*read_only = value;
	}
	FreeConfigVariables(head);
	return ok;
}

/*
 * Read the configuration files again (the listener's start and every
 * reload); say says whether this process tells the log when the node's
 * fence starts or ends
 */
void
kafka_fence_reload(bool say)
{
	bool		read_only;

	if (read_files(&read_only))
		files_read_only = read_only;
	if (!say || said_fenced == (int) files_read_only)
		return;
	if (files_read_only)
		ereport(LOG,
				(errmsg("Kafka listener refuses writes: default_transaction_read_only is on in the server's configuration"),
				 errdetail("Until it is off, Kafka producers, offset commits and topic changes get errors that send clients to another server, Metadata lists no partition leader and FindCoordinator no coordinator.")));
	else if (said_fenced == 1)
		ereport(LOG,
				(errmsg("Kafka listener takes writes again: default_transaction_read_only is off in the server's configuration")));
	said_fenced = (int) files_read_only;
}

/*
 * Is this node fenced (in recovery, or read-only by its configuration)?
 * Then it leads no partition and coordinates no group.
 */
bool
kafka_node_fenced(void)
{
	return files_read_only || RecoveryInProgress();
}

/*
 * What the setconfig array of a pg_db_role_setting row says of
 * default_transaction_read_only: 1 on, 0 off, -1 nothing (the last entry
 * wins, as when a session applies them)
 */
static int
setting_in(Datum setconfig)
{
	ArrayType  *array = DatumGetArrayTypeP(setconfig);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			result = -1;

	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *name;
		char	   *value;
		bool		b;

		if (nulls[i])
			continue;
		ParseLongOption(TextDatumGetCString(elems[i]), &name, &value);
		if (value != NULL &&
			pg_strcasecmp(name, "default_transaction_read_only") == 0 &&
			parse_bool(value, &b))
			result = b ? 1 : 0;
	}
	return result;
}

/*
 * Would a SQL session of role in this database be read-only by ALTER
 * DATABASE or ALTER ROLE ... SET default_transaction_read_only?  The most
 * specific setting decides: the role's in this database, then the role's,
 * then the database's for every role, then ALTER ROLE ALL's.  One scan of
 * pg_db_role_setting, which has a row per (database, role) pair given a
 * setting: a handful.
 */
static bool
role_read_only(Oid role)
{
	Relation	rel = table_open(DbRoleSettingRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple;
	int			best = -1;
	bool		read_only = false;

	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_db_role_setting s = (Form_pg_db_role_setting) GETSTRUCT(tuple);
		int			rank;
		int			value;
		bool		isnull;
		Datum		setconfig;

		if (s->setdatabase == MyDatabaseId && s->setrole == role)
			rank = 3;
		else if (s->setdatabase == InvalidOid && s->setrole == role)
			rank = 2;
		else if (s->setdatabase == MyDatabaseId && s->setrole == InvalidOid)
			rank = 1;
		else if (s->setdatabase == InvalidOid && s->setrole == InvalidOid)
			rank = 0;
		else
			continue;
		if (rank <= best)
			continue;
		setconfig = heap_getattr(tuple, Anum_pg_db_role_setting_setconfig,
								 RelationGetDescr(rel), &isnull);
		if (isnull || (value = setting_in(setconfig)) < 0)
			continue;
		best = rank;
		read_only = value == 1;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return read_only;
}

/* Say that role's writes are refused, at most once a minute */
static void
say_role_refused(Oid role)
{
	static TimestampTz last = 0;
	TimestampTz now = GetCurrentTimestamp();
	char	   *name;
	char	   *db;

	if (last != 0 && !TimestampDifferenceExceeds(last, now, ROLE_REFUSAL_LOG_INTERVAL))
		return;
	last = now;
	name = GetUserNameFromId(role, true);
	db = get_database_name(MyDatabaseId);
	ereport(LOG,
			(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
			 errmsg("Kafka writes of role \"%s\" are refused: its sessions in database \"%s\" are read-only",
					name ? name : "?", db ? db : "?"),
			 errdetail("ALTER ROLE or ALTER DATABASE sets default_transaction_read_only for them. Its producers and offset commits get errors they retry until the setting is gone; this message is repeated at most once a minute.")));
}

/*
 * Must the request's writes be refused: is the node fenced, or, in a
 * transaction (which the role's settings need), would the request's
 * role's SQL sessions be read-only?  Looked up once per transaction.
 */
bool
kafka_writes_refused(void)
{
	static LocalTransactionId lxid = InvalidLocalTransactionId;
	static Oid	role = InvalidOid;
	static bool refused = false;

	if (kafka_node_fenced())
		return true;
	if (!IsTransactionState())
		return false;
	if (MyProcLocalTransactionId != lxid || GetUserId() != role)
	{
		lxid = MyProcLocalTransactionId;
		role = GetUserId();
		refused = role_read_only(role);
		if (refused)
			say_role_refused(role);
	}
	return refused;
}
