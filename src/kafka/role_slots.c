/*-------------------------------------------------------------------------
 *
 * role_slots.c
 *	  The Kafka connections a role may hold (see role_slots.h).
 *
 * As PostgreSQL's own login: once a connection has authenticated, its
 * role must be within its CONNECTION LIMIT (rolconnlimit), counting its
 * PostgreSQL sessions and its Kafka connections together, and a superuser
 * is not limited.  Besides, one role may hold at most a quarter of
 * pg_topics.kafka_max_connections, as one role's consumers may hold a
 * quarter of the group members: otherwise one authenticated role could
 * keep every slot, and every other role out.  The counts are in shared
 * memory (shared/kafka_connections.c), per listener process, and start
 * over with each process.  Connections that act as
 * pg_topics.kafka_trust_role under trust are not counted: every client of
 * a trust listener is that one role.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "storage/ipc.h"
#include "storage/procarray.h"
#include "utils/syscache.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/log_limit.h"
#include "pg_topics/kafka/role_slots.h"
#include "pg_topics/shared/kafka_connections.h"

static int	my_worker = -1;

/* At exit: this process's connections are no longer any role's */
static void
forget_connections(int code, Datum arg)
{
	kafka_connections_reset(my_worker);
}

void
kafka_role_slots_start(int worker)
{
	my_worker = worker;
	/* what a predecessor of this number counted is gone with it */
	kafka_connections_reset(worker);
	before_shmem_exit(forget_connections, (Datum) 0);
}

bool
kafka_role_slot_claim(KafkaConn *conn)
{
	HeapTuple	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(conn->role));
	int			connlimit;
	int			share = Max(1, pg_topics_kafka_max_connections / 4);
	int			sessions = 0;
	int			limit = share;
	int			count;
	bool		superuser;

	if (!HeapTupleIsValid(tuple))
		return false;
	superuser = ((Form_pg_authid) GETSTRUCT(tuple))->rolsuper;
	connlimit = ((Form_pg_authid) GETSTRUCT(tuple))->rolconnlimit;
	ReleaseSysCache(tuple);
	kafka_role_slot_release(conn);
	if (superuser)
		return true;
	if (connlimit >= 0)
	{
		sessions = CountUserBackends(conn->role);
		limit = Min(limit, Max(connlimit - sessions, 0));
	}
	if (kafka_connections_claim(my_worker, conn->role, limit, &count))
	{
		conn->slot_role = conn->role;
		return true;
	}
	if (connlimit >= 0 && count + sessions >= connlimit)
		kafka_protocol_close(conn, ERRCODE_TOO_MANY_CONNECTIONS,
							 psprintf("The role has %d Kafka connections and %d sessions; its connection limit is %d.",
									  count, sessions, connlimit),
							 "too many connections for role \"%s\"",
							 conn->role_name ? conn->role_name : "?");
	else
		kafka_protocol_close(conn, ERRCODE_TOO_MANY_CONNECTIONS,
							 psprintf("A role may hold at most %d Kafka connections, a quarter of pg_topics.kafka_max_connections.",
									  share),
							 "too many Kafka connections for role \"%s\"",
							 conn->role_name ? conn->role_name : "?");
	return false;
}

void
kafka_role_slot_release(KafkaConn *conn)
{
	if (OidIsValid(conn->slot_role))
		kafka_connections_release(my_worker, conn->slot_role);
	conn->slot_role = InvalidOid;
}
