/*-------------------------------------------------------------------------
 *
 * session.c
 *	  What every Kafka request that reaches the database shares: its
 *	  transaction, the role it acts as, finding a topic by its Kafka name,
 *	  and turning errors into Kafka's error codes.
 *
 * A request runs in one transaction as the connection's role (the one it
 * authenticated as, or pg_topics.kafka_trust_role under trust), with
 * SECURITY_LOCAL_USERID_CHANGE like a SECURITY DEFINER function: GRANTs and
 * ownership decide, and nothing the request does can change the role.
 * Work that may fail for one partition and not the others (Kafka answers
 * errors per partition) runs in a subtransaction (kafka_run_guarded), as a
 * PL/pgSQL exception block does.
 *
 * A request must never wait on a lock for long, since its process serves
 * other clients meanwhile: lock_timeout is 1 s, and a timed-out request
 * answers REQUEST_TIMED_OUT, which clients retry.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_database.h"
#include "catalog/pg_db_role_setting.h"
#include "catalog/pg_type_d.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/sync_standby.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/handlers.h"
#include "pg_topics/kafka/log_limit.h"
#include "pg_topics/kafka/sasl.h"
#include "pg_topics/wire/protocol.h"

/* how long a request waits for a lock (lock_timeout, in ms) */
#define KAFKA_LOCK_TIMEOUT_MS	"1000"

/* the relations the request's transaction waited for in vain */
static Oid	timed_out[16];
static int	ntimed_out = 0;

/* the role the running request acts as, and what to restore */
static Oid	saved_user;
static int	saved_sec_context;

/* The trust role as this process last found it (kafka_conn_role) */
static Oid	last_trust_role = InvalidOid;

/*
 * An authenticated connection lasts, unlike the checks made when it
 * authenticated: its role must still exist, may still log in and may still
 * connect to the database, or the connection is closed (the error closes
 * it, kafka_serve_frames).  A dropped role's connection would otherwise
 * act as an OID that any role created later could get.
 */
static bool
role_still_allowed(Oid role)
{
	HeapTuple	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(role));
	bool		can_login = false;

	if (HeapTupleIsValid(tuple))
	{
		can_login = ((Form_pg_authid) GETSTRUCT(tuple))->rolcanlogin;
		ReleaseSysCache(tuple);
	}
	return can_login &&
		pg_database_aclcheck(MyDatabaseId, role, ACL_CONNECT) == ACLCHECK_OK;
}

/* Close conn (by an error) because its role may no longer use it */
void
kafka_conn_refuse(KafkaConn *conn)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION),
			 errmsg("role \"%s\" may no longer use this Kafka connection",
					conn->role_name ? conn->role_name : "?"),
			 errdetail("Since the connection authenticated, the role was dropped, lost LOGIN, or lost CONNECT on the database.")));
}

static void
check_still_allowed(KafkaConn *conn)
{
	if (!role_still_allowed(conn->role))
		kafka_conn_refuse(conn);
}

/*
 * The same check for the group coordinator's requests, which run outside
 * a transaction (so that heartbeats cost little): may conn's role still
 * use it?  Checked in a transaction of its own.
 */
bool
kafka_conn_still_allowed(KafkaConn *conn)
{
	MemoryContext caller = CurrentMemoryContext;
	bool		allowed;

	if (conn->auth != KAFKA_AUTH_DONE)
		return true;
	StartTransactionCommand();
	allowed = role_still_allowed(conn->role);
	CommitTransactionCommand();
	/* the commit left TopMemoryContext current: the request's allocates */
	MemoryContextSwitchTo(caller);
	return allowed;
}

/* The role unauthenticated connections act as under trust */
static Oid
trust_role(void)
{
	HeapTuple	tuple;
	Oid			owner;

	if (pg_topics_kafka_trust_role[0] != '\0')
		return get_role_oid(pg_topics_kafka_trust_role, false);
	tuple = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for database %u", MyDatabaseId);
	owner = ((Form_pg_database) GETSTRUCT(tuple))->datdba;
	ReleaseSysCache(tuple);
	return owner;
}

/*
 * The settings of a role (ALTER ROLE ... SET, also IN DATABASE) that a
 * Kafka request applies as a session of the role would: the limits one
 * role's groups may reach.  The listener is a process of its own, logged
 * in as no client role, so PostgreSQL applied none of them.
 */
static const char *const role_limits[] = {
	"pg_topics.max_groups_per_role",
	"pg_topics.max_group_partitions_per_role",
};

/*
 * Apply, for the current transaction (as SET LOCAL), the role_limits that
 * pg_db_role_setting gives role in this database, or else everywhere
 */
static void
apply_role_limits(Oid role)
{
	Relation	rel = table_open(DbRoleSettingRelationId, AccessShareLock);
	bool		applied[lengthof(role_limits)] = {false};
	Oid			databases[2] = {MyDatabaseId, InvalidOid};

	for (int d = 0; d < lengthof(databases); d++)
	{
		ScanKeyData keys[2];
		SysScanDesc scan;
		HeapTuple	tuple;

		ScanKeyInit(&keys[0], Anum_pg_db_role_setting_setdatabase,
					BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(databases[d]));
		ScanKeyInit(&keys[1], Anum_pg_db_role_setting_setrole,
					BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(role));
		scan = systable_beginscan(rel, DbRoleSettingDatidRolidIndexId, true,
								  NULL, 2, keys);
		while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		{
			bool		isnull;
			Datum		config = heap_getattr(tuple, Anum_pg_db_role_setting_setconfig,
											  RelationGetDescr(rel), &isnull);
			Datum	   *items;
			int			nitems;

			if (isnull)
				continue;
			deconstruct_array(DatumGetArrayTypeP(config), TEXTOID, -1, false,
							  TYPALIGN_INT, &items, NULL, &nitems);
			for (int i = 0; i < nitems; i++)
			{
				char	   *name;
				char	   *value;

				ParseLongOption(TextDatumGetCString(items[i]), &name, &value);
				for (int l = 0; l < lengthof(role_limits); l++)
					if (!applied[l] && value != NULL &&
						pg_strcasecmp(name, role_limits[l]) == 0)
					{
						/* as a superuser set it (the limits are SUSET) */
						(void) set_config_option(role_limits[l], value,
												 PGC_SUSET, PGC_S_SESSION,
												 GUC_ACTION_LOCAL, true,
												 WARNING, false);
						applied[l] = true;
					}
			}
		}
		systable_endscan(scan);
	}
	table_close(rel, AccessShareLock);
}

/*
 * Set up the session of a listener process or a transaction worker for
 * serving requests: every request's lock waits end after 1 s; its
 * transactions are not made read-only by default_transaction_read_only,
 * which fence.c reads for every request instead (this process's own value
 * may be a database's or role's setting as of its start); and they are
 * READ COMMITTED whatever the server's, database's or role's
 * default_transaction_isolation: a transaction worker's transaction lives
 * across requests and must see what the listener committed meanwhile (the
 * partitions added to it, the row it marks at commit), which a snapshot
 * taken once would hide.
 *
 * The other settings of a SQL session's life do not reach these processes:
 * statement_timeout, idle_in_transaction_session_timeout (and
 * transaction_timeout from PostgreSQL 17) are armed only by a client
 * backend's command loop, which background workers do not run.
 */
void
kafka_session_init(void)
{
	(void) set_config_option("lock_timeout", KAFKA_LOCK_TIMEOUT_MS, PGC_SUSET,
							 PGC_S_SESSION, GUC_ACTION_SET, true, 0, false);
	(void) set_config_option("default_transaction_read_only", "off", PGC_SUSET,
							 PGC_S_OVERRIDE, GUC_ACTION_SET, true, 0, false);
	(void) set_config_option("default_transaction_isolation", "read committed",
							 PGC_SUSET, PGC_S_OVERRIDE, GUC_ACTION_SET, true,
							 0, false);
}

/*
 * Start the request's transaction, acting as the connection's role (not
 * yet authenticated connections, which only authenticate, act as none)
 */
void
kafka_xact_begin(KafkaConn *conn)
{
	Oid			role = InvalidOid;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	ntimed_out = 0;

	GetUserIdAndSecContext(&saved_user, &saved_sec_context);
	if (conn->auth == KAFKA_AUTH_DONE)
	{
		role = conn->role;
		check_still_allowed(conn);
	}
	else if (pg_topics_kafka_auth == TOPIC_KAFKA_AUTH_TRUST)
		role = last_trust_role = trust_role();
	if (OidIsValid(role))
	{
		apply_role_limits(role);
		SetUserIdAndSecContext(role, saved_sec_context |
							   SECURITY_LOCAL_USERID_CHANGE |
							   SECURITY_RESTRICTED_OPERATION);
	}
}

/*
 * The role conn's requests act as, for the group requests that run outside
 * a transaction (and so cannot look it up): InvalidOid while unknown
 */
Oid
kafka_conn_role(KafkaConn *conn)
{
	if (conn->auth == KAFKA_AUTH_DONE)
		return conn->role;
	if (pg_topics_kafka_auth == TOPIC_KAFKA_AUTH_TRUST)
		return last_trust_role;
	return InvalidOid;
}

/*
 * May the request's role use topic relid with privilege?  As in SQL, which
 * needs USAGE on a table's schema to name it at all.  A topic dropped
 * meanwhile may not be used.
 */
bool
kafka_topic_allowed(Oid relid, AclMode privilege)
{
	Oid			nspid = get_rel_namespace(relid);
	bool		is_missing = false;

	return OidIsValid(nspid) &&
		pg_namespace_aclcheck(nspid, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
		pg_class_aclcheck_ext(relid, GetUserId(), privilege,
							  &is_missing) == ACLCHECK_OK;
}

/*
 * Commit the request's transaction.  A commit never waits here for the
 * synchronous standbys, which would hold up every client of the process:
 * it is made with synchronous_commit = local, and if the server's setting
 * would have waited, *hold_lsn and *hold_mode say what the standbys must
 * reach before the answer may go out (the listener holds it until then).
 */
void
kafka_xact_commit(XLogRecPtr *hold_lsn, int *hold_mode)
{
	int			mode = topic_sync_commit_wait_mode();
	XLogRecPtr	before = XactLastCommitEnd;

	/*
	 * As PostgreSQL's own commit: only a transaction with an xid waits.
	 * One without (which may still have written WAL, pruning a page) ends
	 * without a commit record but does move XactLastCommitEnd.
	 */
	if (!TransactionIdIsValid(GetTopTransactionIdIfAny()))
		mode = SYNC_REP_NO_WAIT;
	if (mode != SYNC_REP_NO_WAIT)
		(void) set_config_option("synchronous_commit", "local", PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
	SetUserIdAndSecContext(saved_user, saved_sec_context);
	if (ActiveSnapshotSet())
		PopActiveSnapshot();
	CommitTransactionCommand();
	if (mode != SYNC_REP_NO_WAIT && XactLastCommitEnd > before &&
		XactLastCommitEnd > *hold_lsn)
	{
		*hold_lsn = XactLastCommitEnd;
		*hold_mode = mode;
	}
}

/*
 * Hold req's answer until the synchronous standbys (waiting as mode says)
 * have all the WAL written so far, which holds every commit the request
 * could see or is answering for: a Fetch under wait_for_sync_standby, an
 * idempotent batch answered from an earlier try that may still be waiting
 * for them.  The WAL is flushed first, since standbys only get flushed WAL.
 */
void
kafka_hold_for_standbys(KafkaRequest *req, int mode)
{
	XLogRecPtr	target;

	if (mode == SYNC_REP_NO_WAIT || RecoveryInProgress())
		return;
	target = GetXLogInsertEndRecPtr();
	XLogFlush(target);
	if (target > req->hold_lsn)
	{
		req->hold_lsn = target;
		req->hold_mode = Max(req->hold_mode, mode);
	}
}

/* Roll the request's transaction back (which restores the role too) */
void
kafka_xact_abort(void)
{
	AbortCurrentTransaction();
}

/* A topic's lock, waited for in a subtransaction */
typedef struct TopicLock
{
	Oid			relid;
	LOCKMODE	lockmode;
} TopicLock;

static void
wait_for_topic_lock(void *arg)
{
	TopicLock  *lock = (TopicLock *) arg;

	LockRelationOid(lock->relid, lock->lockmode);
}

/*
 * Lock the topic relid for a request: at once if nobody is in the way,
 * else waiting up to lock_timeout in a subtransaction, so that a timeout
 * (a SQL session's DDL or LOCK TABLE holds the topic) is the client's
 * REQUEST_TIMED_OUT, which it retries, and not the end of the request and
 * of the requests sharing its transaction.  The lock is held until the
 * request's transaction ends.
 */
int16
kafka_lock_topic(Oid relid, LOCKMODE lockmode)
{
	TopicLock	lock;
	int16		error;

	if (ConditionalLockRelationOid(relid, lockmode))
		return KAFKA_NONE;

	/*
	 * A relation this transaction waited for in vain is not waited for
	 * again: the requests sharing it would each wait a second, and the
	 * listener with them
	 */
	for (int i = 0; i < ntimed_out; i++)
		if (timed_out[i] == relid)
			return KAFKA_REQUEST_TIMED_OUT;
	lock.relid = relid;
	lock.lockmode = lockmode;
	error = kafka_run_guarded(wait_for_topic_lock, &lock, NULL);
	if (error != KAFKA_NONE && ntimed_out < lengthof(timed_out))
		timed_out[ntimed_out++] = relid;
	return error;
}

/*
 * Open partition of topic (which the request holds open) for reading, or
 * NULL with *error: UNKNOWN_TOPIC_OR_PARTITION if there is no such
 * partition, REQUEST_TIMED_OUT if a SQL session holds it locked for longer
 * than lock_timeout
 */
Relation
kafka_open_partition(Relation topic, int32 partition, int16 *error)
{
	Oid			relid;

	if (partition < 0 || partition >= topic_partition_count(topic))
	{
		*error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		return NULL;
	}
	relid = topic_partition_relid(topic, partition);
	*error = kafka_lock_topic(relid, AccessShareLock);
	if (*error != KAFKA_NONE)
		return NULL;
	/* the topic's lock keeps its partitions from being dropped */
	return table_open(relid, NoLock);
}

/*
 * Is name a legal Kafka topic name (topic_names.c: up to 249 characters,
 * mapped to a shorter table name past 63 bytes)
 */
bool
kafka_topic_name_valid(KafkaBytes name)
{
	return topic_kafka_name_legal(name.data, name.len);
}

/*
 * Open the topic a Kafka client names, in pg_topics.kafka_schema, locked in
 * lockmode and checked for privilege (unless TOPIC_NO_ACL_CHECK); NULL
 * with *error if it cannot be: INVALID_TOPIC_EXCEPTION,
 * UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED, or
 * REQUEST_TIMED_OUT if a SQL session holds it locked (after lock_timeout,
 * or at once when !wait).  Nothing the client names raises an error.
 */
static Relation
open_topic(KafkaBytes name, LOCKMODE lockmode, AclMode privilege, bool wait,
		   int16 *error)
{
	Oid			relid;
	Relation	rel;

	if (!kafka_topic_name_valid(name))
	{
		*error = KAFKA_INVALID_TOPIC_EXCEPTION;
		return NULL;
	}
	/* Kafka's internal topics take no records (Kafka's answer) */
	if (topic_kafka_name_reserved(name.data, name.len))
	{
		*error = (privilege & ACL_INSERT) ? KAFKA_INVALID_TOPIC_EXCEPTION :
			KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		return NULL;
	}
	relid = topic_kafka_lookup(name.data, name.len);
	if (!OidIsValid(relid))
	{
		*error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		return NULL;
	}
	if (privilege != TOPIC_NO_ACL_CHECK && !kafka_topic_allowed(relid, privilege))
	{
		/* a topic dropped since it was looked up is unknown */
		*error = OidIsValid(get_rel_namespace(relid)) ?
			KAFKA_TOPIC_AUTHORIZATION_FAILED : KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		return NULL;
	}
	if (wait)
		*error = kafka_lock_topic(relid, lockmode);
	else
		*error = ConditionalLockRelationOid(relid, lockmode) ? KAFKA_NONE :
			KAFKA_REQUEST_TIMED_OUT;
	if (*error != KAFKA_NONE)
		return NULL;

	/*
	 * Found without a lock: while it was waited for, it may have been
	 * dropped, renamed or moved (as RangeVarGetRelidExtended checks again)
	 */
	rel = try_relation_open(relid, NoLock);
	if (rel == NULL || !topic_is_topic_parent(rel) ||
		!topic_kafka_name_still(rel, name.data, name.len))
	{
		if (rel != NULL)
			relation_close(rel, NoLock);
		UnlockRelationOid(relid, lockmode);
		*error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		return NULL;
	}
	return rel;
}

/* Open a topic a Kafka client names, waiting up to lock_timeout for it */
Relation
kafka_open_topic(KafkaBytes name, LOCKMODE lockmode, AclMode privilege,
				 int16 *error)
{
	return open_topic(name, lockmode, privilege, true, error);
}

/* Open a topic a Kafka client names if nobody holds it locked */
Relation
kafka_open_topic_nowait(KafkaBytes name, LOCKMODE lockmode, AclMode privilege,
						int16 *error)
{
	return open_topic(name, lockmode, privilege, false, error);
}

/*
 * The Kafka error code for an error raised while serving a request: the
 * client's doing where the SQLSTATE says so; otherwise a retriable
 * KAFKA_STORAGE_ERROR.
 */
int16
kafka_error_of(ErrorData *edata)
{
	switch (edata->sqlerrcode)
	{
		case ERRCODE_INSUFFICIENT_PRIVILEGE:
			return KAFKA_TOPIC_AUTHORIZATION_FAILED;
		case ERRCODE_UNDEFINED_TABLE:
		case ERRCODE_UNDEFINED_OBJECT:
		case ERRCODE_WRONG_OBJECT_TYPE:
			return KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
		case ERRCODE_INVALID_TEXT_REPRESENTATION:
		case ERRCODE_CHARACTER_NOT_IN_REPERTOIRE:
		case ERRCODE_UNTRANSLATABLE_CHARACTER:
		case ERRCODE_INVALID_PARAMETER_VALUE:
		case ERRCODE_NULL_VALUE_NOT_ALLOWED:
		case ERRCODE_FEATURE_NOT_SUPPORTED:
		case ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE:
		case ERRCODE_INVALID_BINARY_REPRESENTATION:
		case ERRCODE_NOT_NULL_VIOLATION:	/* a compacted topic's keyless record */
			return KAFKA_INVALID_RECORD;
		case ERRCODE_PROGRAM_LIMIT_EXCEEDED:
			return KAFKA_MESSAGE_TOO_LARGE;
		case ERRCODE_INSUFFICIENT_RESOURCES:
			return KAFKA_NOT_ENOUGH_REPLICAS;
		case ERRCODE_READ_ONLY_SQL_TRANSACTION:
			return KAFKA_NOT_LEADER_OR_FOLLOWER;
		case ERRCODE_LOCK_NOT_AVAILABLE:
		case ERRCODE_CONFIGURATION_LIMIT_EXCEEDED:	/* the listener's memory */
		case ERRCODE_QUERY_CANCELED:
		case ERRCODE_T_R_SERIALIZATION_FAILURE:
		case ERRCODE_T_R_DEADLOCK_DETECTED:
			return KAFKA_REQUEST_TIMED_OUT;
		default:
			return KAFKA_KAFKA_STORAGE_ERROR;
	}
}

/*
 * Run fn(arg) in a subtransaction, released (keep) or rolled back either
 * way; the Kafka error code of what it raised
 */
static int16
run_subtransaction(KafkaGuardedFn fn, void *arg, char **message, bool keep)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	int16		error = KAFKA_NONE;

	if (message)
		*message = NULL;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		fn(arg);
		if (keep)
			ReleaseCurrentSubTransaction();
		else
			RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;

		error = kafka_error_of(edata);
		/*
		 * What is not the client's doing, the operator should see: once per
		 * cause in a while (a full disk fails every request)
		 */
		if (error == KAFKA_KAFKA_STORAGE_ERROR &&
			kafka_log_allowed(KAFKA_LOG_FAILURE,
							  unpack_sql_state(edata->sqlerrcode),
							  edata->sqlerrcode))
			ereport(LOG,
					(errcode(edata->sqlerrcode),
					 errmsg("Kafka request failed: %s", edata->message),
					 edata->detail ? errdetail_internal("%s", edata->detail) : 0));
		if (message)
			*message = edata->message;
	}
	PG_END_TRY();
	return error;
}

/* Run fn(arg) in a subtransaction (see handlers.h) */
int16
kafka_run_guarded(KafkaGuardedFn fn, void *arg, char **message)
{
	return run_subtransaction(fn, arg, message, true);
}

/*
 * Run fn(arg) in a subtransaction and roll it back whatever happens: would
 * it succeed?  (CreateTopics' validate_only.)
 */
int16
kafka_run_trial(KafkaGuardedFn fn, void *arg, char **message)
{
	return run_subtransaction(fn, arg, message, false);
}
