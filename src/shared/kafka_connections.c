/*-------------------------------------------------------------------------
 *
 * kafka_connections.c
 *	  Authenticated Kafka connections per role, across the listener
 *	  processes (see kafka_connections.h).
 *
 * A role's Kafka connections are limited as its PostgreSQL sessions are
 * (its CONNECTION LIMIT, counted together with them) and by a share of
 * pg_topics.kafka_max_connections (kafka/listener.c decides), so one role
 * cannot take every slot.  Connections of one role may be served by
 * several listener processes, so the counts are here, one entry per
 * (role, process) with connections: at most pg_topics.kafka_max_connections
 * entries are ever in use.
 *
 * Counts are per process so that a process that ends, however it ends,
 * leaks nothing: one that exits (even on FATAL) clears its entries, and
 * one that starts clears what a predecessor of its number left; a process
 * killed by a signal makes the postmaster reinitialise shared memory
 * anyway.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/shared/kafka_connections.h"

typedef struct RoleConnections
{
	Oid			role;			/* InvalidOid: free */
	int			worker;
	int			count;
} RoleConnections;

typedef struct ConnectionsShared
{
	LWLock		lock;
	int			nentries;
	RoleConnections entries[FLEXIBLE_ARRAY_MEMBER];
} ConnectionsShared;

static ConnectionsShared *shared = NULL;

/* each process's cap is rounded up: a few more than the setting in all */
static int
max_entries(void)
{
	return pg_topics_kafka_max_connections + pg_topics_kafka_workers;
}

static Size
shared_size(void)
{
	return add_size(offsetof(ConnectionsShared, entries),
					mul_size(max_entries(), sizeof(RoleConnections)));
}

void
kafka_connections_shmem_request(void)
{
	if (pg_topics_kafka_port == 0)
		return;					/* no Kafka listener */
	RequestAddinShmemSpace(shared_size());
}

void
kafka_connections_shmem_startup(void)
{
	bool		found;

	if (pg_topics_kafka_port == 0)
		return;
	shared = ShmemInitStruct("pg_topics kafka connections", shared_size(),
							 &found);
	if (!found)
	{
		LWLockInitialize(&shared->lock, LWLockNewTrancheId());
		shared->nentries = max_entries();
		for (int i = 0; i < shared->nentries; i++)
			shared->entries[i].role = InvalidOid;
	}
}

void
kafka_connections_reset(int worker)
{
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < shared->nentries; i++)
		if (shared->entries[i].worker == worker)
			shared->entries[i].role = InvalidOid;
	LWLockRelease(&shared->lock);
}

bool
kafka_connections_claim(int worker, Oid role, int limit, int *count)
{
	RoleConnections *mine = NULL;
	RoleConnections *free_entry = NULL;
	int			total = 0;
	bool		ok;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < shared->nentries; i++)
	{
		RoleConnections *e = &shared->entries[i];

		if (e->role == InvalidOid)
		{
			if (free_entry == NULL)
				free_entry = e;
			continue;
		}
		if (e->role != role)
			continue;
		total += e->count;
		if (e->worker == worker)
			mine = e;
	}
	/* no free entry means every slot of the server is taken */
	ok = total < limit && (mine != NULL || free_entry != NULL);
	if (ok && mine == NULL)
	{
		mine = free_entry;
		mine->role = role;
		mine->worker = worker;
		mine->count = 0;
	}
	if (ok)
		mine->count++;
	LWLockRelease(&shared->lock);
	*count = total;
	return ok;
}

void
kafka_connections_release(int worker, Oid role)
{
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < shared->nentries; i++)
	{
		RoleConnections *e = &shared->entries[i];

		if (e->role == role && e->worker == worker)
		{
			if (--e->count <= 0)
				e->role = InvalidOid;
			break;
		}
	}
	LWLockRelease(&shared->lock);
}
