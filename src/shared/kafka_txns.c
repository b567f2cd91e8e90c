/*-------------------------------------------------------------------------
 *
 * kafka_txns.c
 *	  Open Kafka transactions in shared memory: a slot each, through which
 *	  the Kafka listener hands the transaction's worker its requests.
 *
 * A Kafka transaction that is open is a PostgreSQL transaction held by a
 * background worker of its own (kafka/txn_worker.c).  Its slot says which
 * producer (id and epoch) and role it is, and carries one request at a
 * time: the listener that serves one of the producer's requests puts it
 * in a DSM segment, posts the segment's handle here with its own latch,
 * and parks the request; the worker runs it, writes the answer into the
 * segment and sets that latch.  Each posted request gets a ticket (one
 * counter for all slots), so that a listener never takes another
 * request's answer for its own, even after the slot is reused.  A slot's
 * version moves with everything a parked request may wait for (its
 * request answered, the slot free again, the worker gone), as a Kafka
 * group's does for the requests parked on the group.
 *
 * pg_topics.kafka_max_transactions slots in all, and at most
 * pg_topics.kafka_max_transactions_per_role of one role's: a transaction
 * beyond them does not start (CONCURRENT_TRANSACTIONS, which clients
 * retry).  The lock is held only to read and set a slot's fields, never
 * while a segment is created or copied.
 *
 * A worker whose transaction ended with its producer's EndTxn keeps its
 * slot, idle, for pg_topics.kafka_transaction_worker_idle_timeout: the
 * same producer's next transaction (same producer id and epoch, role and
 * database) is handed to it, without a process to start.  An idle slot
 * holds no transaction: it is never found as an open one, takes no
 * request, and counts toward no limit; a transaction that finds no free
 * slot takes an idle one, whose worker exits.  A slot is its worker's
 * while its worker_latch is the worker's own: a slot given up is freed at
 * once, and its worker, woken, finds it is not its own any more.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/shared/kafka_txns.h"
#include "pg_topics/wire/protocol.h"

/*
 * A slot claimed whose worker has not attached after this long (ms) is
 * freed.  The listener that registered the worker frees the slot as soon
 * as the postmaster reports the worker gone without attaching (it could
 * not fork it, or it was terminated first: kafka_txn_release_unstarted);
 * this is for a slot whose listener exited before it could.  A worker
 * that attaches late finds its slot gone and exits.
 */
#define TXN_ATTACH_TIMEOUT_MS	60000

/*
 * Listener processes whose request found the slot busy, woken when its
 * request is answered (more wait for their park's timeout)
 */
#define TXN_SLOT_WAITERS		8

typedef struct TxnSlot
{
	bool		in_use;
	bool		attached;		/* its worker runs */
	bool		abort;			/* its transaction is to be aborted */
	bool		idle;			/* its worker waits for its producer's next
								 * transaction, holding none */
	TimestampTz claimed_at;
	uint64		claim;			/* which claim of the slot it is */
	KafkaTxnInfo info;
	Latch	   *worker_latch;
	/* the request handed over: 0 none */
	uint64		posted;
	bool		taken;			/* the worker is running it */
	dsm_handle	handle;
	Latch	   *reply;
	uint64		done;			/* the last ticket answered */
	/* listeners whose request found the slot busy (kafka_txn_post) */
	Latch	   *waiters[TXN_SLOT_WAITERS];
	int			nwaiters;
	pg_atomic_uint64 version;
} TxnSlot;

typedef struct TxnsShared
{
	LWLock		lock;
	uint64		next_ticket;
	int			next_free;		/* where the search for a free slot starts */
	int			nslots;
	TxnSlot		slots[FLEXIBLE_ARRAY_MEMBER];
} TxnsShared;

static TxnsShared *shared = NULL;

static Size
shared_size(void)
{
	return add_size(offsetof(TxnsShared, slots),
					mul_size(pg_topics_kafka_max_transactions, sizeof(TxnSlot)));
}

void
kafka_txns_shmem_request(void)
{
	if (pg_topics_kafka_port == 0)
		return;					/* no Kafka listener */
	RequestAddinShmemSpace(shared_size());
}

void
kafka_txns_shmem_startup(void)
{
	bool		found;

	if (pg_topics_kafka_port == 0)
		return;
	shared = ShmemInitStruct("pg_topics kafka transactions", shared_size(),
							 &found);
	if (!found)
	{
		LWLockInitialize(&shared->lock, LWLockNewTrancheId());
		shared->next_ticket = 1;
		shared->next_free = 0;
		shared->nslots = pg_topics_kafka_max_transactions;
		for (int i = 0; i < shared->nslots; i++)
		{
			memset(&shared->slots[i], 0, sizeof(TxnSlot));
			pg_atomic_init_u64(&shared->slots[i].version, 0);
		}
	}
}

/* Whatever waits on s may look again (lock held) */
static void
slot_changed(TxnSlot *s)
{
	pg_atomic_fetch_add_u64(&s->version, 1);
}

/* Free s (lock held): a request posted and not answered is lost */
static Latch *
free_slot(TxnSlot *s)
{
	Latch	   *reply = s->posted != 0 && s->posted != s->done ? s->reply : NULL;

	s->in_use = false;
	s->attached = false;
	s->abort = false;
	s->idle = false;
	s->posted = 0;
	s->taken = false;
	s->worker_latch = NULL;
	s->reply = NULL;
	s->nwaiters = 0;
	slot_changed(s);
	return reply;
}

/*
 * Give up s, an idle slot (lock held): it is free at once, and its
 * worker, to be woken through the latch returned, exits
 */
static Latch *
give_up_idle(TxnSlot *s)
{
	Latch	   *worker = s->worker_latch;

	Assert(s->in_use && s->idle);
	(void) free_slot(s);
	return worker;
}

/* Is s the calling worker's slot (lock held)? */
static bool
own_slot(TxnSlot *s)
{
	return s->in_use && s->attached && s->worker_latch == MyLatch;
}

/*
 * The slot of the open transaction of producer_id at producer_epoch, or
 * -1 if it has none (none was begun, or it ended, or it was lost with its
 * worker)
 */
int
kafka_txn_find(int64 producer_id, int16 producer_epoch)
{
	int			found = -1;

	if (shared == NULL)
		return -1;
	LWLockAcquire(&shared->lock, LW_SHARED);
	for (int i = 0; i < shared->nslots; i++)
	{
		TxnSlot    *s = &shared->slots[i];

		if (s->in_use && !s->idle && s->info.producer_id == producer_id &&
			s->info.producer_epoch == producer_epoch)
		{
			found = i;
			break;
		}
	}
	LWLockRelease(&shared->lock);
	return found;
}

/*
 * The slot of a transaction of producer_id at any epoch, whatever became
 * of it (its row may never have said Ongoing: the request that claimed it
 * failed), or -1; *epoch gets its epoch.  A producer id has at most one
 * slot (kafka_txn_claim).  An idle slot is no transaction's.
 */
int
kafka_txn_find_producer(int64 producer_id, int16 *epoch)
{
	int			found = -1;

	if (shared == NULL)
		return -1;
	LWLockAcquire(&shared->lock, LW_SHARED);
	for (int i = 0; i < shared->nslots; i++)
	{
		TxnSlot    *s = &shared->slots[i];

		if (s->in_use && !s->idle && s->info.producer_id == producer_id)
		{
			found = i;
			*epoch = s->info.producer_epoch;
			break;
		}
	}
	LWLockRelease(&shared->lock);
	return found;
}

/*
 * Give slot s (in use, with the lock held) to a new transaction of info:
 * its claim, from the counter tickets share, so never used twice; returns
 * the slot's number
 */
static int
begin_claim(TxnSlot *s, const KafkaTxnInfo *info, TimestampTz now,
			uint64 *claim)
{
	s->idle = false;
	s->abort = false;
	s->claimed_at = now;
	s->claim = shared->next_ticket++;
	*claim = s->claim;
	s->info = *info;
	s->posted = 0;
	s->taken = false;
	slot_changed(s);
	return s - shared->slots;
}

/*
 * A slot for a transaction of info's producer, within the limits: *slot
 * gets it, *fresh says whether its worker is still to be started (a slot
 * the producer's transaction holds already is answered again; the
 * producer's idle worker is handed the new transaction).  Kafka's error
 * code otherwise: CONCURRENT_TRANSACTIONS while the producer's earlier
 * transaction is still ending, or when the limits are reached.  Idle
 * slots count toward no limit: one is given up when no slot is free, and
 * the producer's own idle slot of another epoch or role is given up at
 * once.
 */
int16
kafka_txn_claim(const KafkaTxnInfo *info, int per_role_limit, int *slot,
				bool *fresh, uint64 *claim)
{
	TimestampTz now = GetCurrentTimestamp();
	TxnSlot    *free_slot_found = NULL;
	TxnSlot    *own = NULL;
	TxnSlot    *own_idle = NULL;
	TxnSlot    *other_idle = NULL;
	Latch	   *wake[2] = {NULL, NULL};
	int			role_count = 0;
	int16		error = KAFKA_NONE;

	*slot = -1;
	*fresh = false;
	if (shared == NULL)
		return KAFKA_CONCURRENT_TRANSACTIONS;
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	for (int n = 0; n < shared->nslots; n++)
	{
		/*
		 * Free slots are taken in turn, so that a slot just freed is taken
		 * last: the listener of its last answer reads it by its ticket
		 * there, which the slot's next request would replace
		 */
		int			i = (shared->next_free + n) % shared->nslots;
		TxnSlot    *s = &shared->slots[i];

		if (s->in_use && !s->attached &&
			TimestampDifferenceExceeds(s->claimed_at, now,
									   TXN_ATTACH_TIMEOUT_MS))
		{
			Latch	   *reply = free_slot(s);

			/* a latch is set without waiting for anything */
			if (reply != NULL)
				SetLatch(reply);
		}
		if (s->in_use && s->idle &&
			s->info.producer_id == info->producer_id)
		{
			if (s->info.producer_epoch == info->producer_epoch &&
				s->info.role == info->role &&
				s->info.database == info->database)
			{
				own_idle = s;
				continue;
			}
			/* an older epoch's, or a dropped role's: never reused */
			wake[0] = give_up_idle(s);
		}
		if (!s->in_use)
		{
			if (free_slot_found == NULL)
				free_slot_found = s;
			continue;
		}
		if (s->idle)
		{
			if (other_idle == NULL)
				other_idle = s;
			continue;
		}
		if (s->info.producer_id == info->producer_id)
			own = s;
		else if (s->info.role == info->role)
			role_count++;
	}
	if (own != NULL)
	{
		if (own->info.producer_epoch == info->producer_epoch && !own->abort)
			*slot = own - shared->slots;
		else
			error = KAFKA_CONCURRENT_TRANSACTIONS;
	}
	else if (role_count >= per_role_limit)
		error = KAFKA_CONCURRENT_TRANSACTIONS;
	else if (own_idle != NULL)
	{
		/* the producer's idle worker begins the transaction */
		*slot = begin_claim(own_idle, info, now, claim);
		wake[1] = own_idle->worker_latch;
	}
	else
	{
		TxnSlot    *s = free_slot_found;

		if (s == NULL && other_idle != NULL)
		{
			s = other_idle;
			wake[1] = give_up_idle(s);
		}
		if (s == NULL)
			error = KAFKA_CONCURRENT_TRANSACTIONS;
		else
		{
			s->in_use = true;
			s->attached = false;
			*slot = begin_claim(s, info, now, claim);
			*fresh = true;
			shared->next_free = (*slot + 1) % shared->nslots;
		}
	}
	LWLockRelease(&shared->lock);
	for (int i = 0; i < lengthof(wake); i++)
		if (wake[i] != NULL)
			SetLatch(wake[i]);
	return error;
}

/*
 * Give up the idle slots of producer_id (any epoch), or one idle slot of
 * any producer if producer_id is -1: their workers exit.  True if one was
 * given up.
 */
bool
kafka_txn_release_idle(int64 producer_id)
{
	Latch	   *wake[8];
	int			nwake = 0;
	bool		found = false;

	if (shared == NULL)
		return false;
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < shared->nslots && nwake < lengthof(wake); i++)
	{
		TxnSlot    *s = &shared->slots[i];

		if (s->in_use && s->idle &&
			(producer_id < 0 || s->info.producer_id == producer_id))
		{
			wake[nwake++] = give_up_idle(s);
			found = true;
			if (producer_id < 0)
				break;
		}
	}
	LWLockRelease(&shared->lock);
	for (int i = 0; i < nwake; i++)
		if (wake[i] != NULL)
			SetLatch(wake[i]);
	return found;
}

/* Give back a slot whose worker could not be started */
void
kafka_txn_release(int slot)
{
	Latch	   *reply;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	reply = free_slot(&shared->slots[slot]);
	LWLockRelease(&shared->lock);
	if (reply != NULL)
		SetLatch(reply);
}

/*
 * Is claim of slot still waiting for its worker to attach?  False once it
 * attached, or once the slot was freed (and perhaps claimed again)
 */
bool
kafka_txn_unattached(int slot, uint64 claim)
{
	TxnSlot    *s = &shared->slots[slot];
	bool		waiting;

	LWLockAcquire(&shared->lock, LW_SHARED);
	waiting = s->in_use && !s->attached && s->claim == claim;
	LWLockRelease(&shared->lock);
	return waiting;
}

/*
 * The worker of claim of slot is gone without attaching: free the slot
 * (a request posted to it is lost), unless it attached meanwhile
 */
void
kafka_txn_release_unstarted(int slot, uint64 claim)
{
	TxnSlot    *s = &shared->slots[slot];
	Latch	   *reply = NULL;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	if (s->in_use && !s->attached && s->claim == claim)
		reply = free_slot(s);
	LWLockRelease(&shared->lock);
	if (reply != NULL)
		SetLatch(reply);
}

/*
 * Hand slot's worker the request in the segment of handle, a request of
 * producer_id at producer_epoch; reply is set when it is answered.  False
 * if the slot is busy with another request (wait for its version to
 * move), or holds no transaction of that producer any more: the slot was
 * looked up before, and may have been freed and taken by another
 * producer's transaction since, which must never run this request.
 */
bool
kafka_txn_post(int slot, int64 producer_id, int16 producer_epoch,
			   dsm_handle handle, Latch *reply, uint64 *ticket)
{
	TxnSlot    *s = &shared->slots[slot];
	Latch	   *worker = NULL;
	bool		ok = false;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	if (s->in_use && !s->abort && !s->idle &&
		s->info.producer_id == producer_id &&
		s->info.producer_epoch == producer_epoch &&
		(s->posted == 0 || s->posted == s->done))
	{
		*ticket = shared->next_ticket++;
		s->posted = *ticket;
		s->taken = false;
		s->handle = handle;
		s->reply = reply;
		worker = s->worker_latch;
		ok = true;
	}
	else if (s->in_use && s->posted != 0 && s->posted != s->done)
	{
		/*
		 * Busy with another request, which may be another listener
		 * process's (a producer's Produce and EndTxn come on different
		 * connections) or already answered in its segment (the client
		 * sent this one on its answer before the worker told the slot):
		 * this listener is woken when it is done, not after its park's
		 * timeout
		 */
		bool		listed = false;

		for (int i = 0; i < s->nwaiters; i++)
			if (s->waiters[i] == reply)
				listed = true;
		if (!listed && s->nwaiters < TXN_SLOT_WAITERS)
			s->waiters[s->nwaiters++] = reply;
	}
	LWLockRelease(&shared->lock);
	if (worker != NULL)
		SetLatch(worker);
	return ok;
}

/* What became of the request of ticket handed to slot */
KafkaTxnResult
kafka_txn_result(int slot, uint64 ticket)
{
	TxnSlot    *s = &shared->slots[slot];
	KafkaTxnResult result;

	LWLockAcquire(&shared->lock, LW_SHARED);
	if (s->done == ticket)
		result = KAFKA_TXN_DONE;
	else if (s->in_use && s->posted == ticket)
		result = KAFKA_TXN_PENDING;
	else
		result = KAFKA_TXN_LOST;
	LWLockRelease(&shared->lock);
	return result;
}

/*
 * Abort slot's transaction (its producer is fenced): its worker rolls back
 * and leaves, answering nothing more
 */
void
kafka_txn_request_abort(int slot)
{
	TxnSlot    *s = &shared->slots[slot];
	Latch	   *worker;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	s->abort = true;
	worker = s->in_use ? s->worker_latch : NULL;
	slot_changed(s);
	LWLockRelease(&shared->lock);
	if (worker != NULL)
		SetLatch(worker);
}

uint64
kafka_txn_version(int slot)
{
	return pg_atomic_read_u64(&shared->slots[slot].version);
}

bool
kafka_txn_changed(int slot, uint64 seen)
{
	return pg_atomic_read_u64(&shared->slots[slot].version) != seen;
}

/*
 * The worker of slot starts: it is reached through latch from now on.
 * False if the slot was given up meanwhile.
 */
bool
kafka_txn_attach(int slot, Latch *latch, KafkaTxnInfo *info)
{
	TxnSlot    *s;
	bool		ok;

	if (shared == NULL || slot < 0 || slot >= shared->nslots)
		return false;
	s = &shared->slots[slot];
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	ok = s->in_use && !s->attached;
	if (ok)
	{
		s->attached = true;
		s->worker_latch = latch;
		*info = s->info;
	}
	LWLockRelease(&shared->lock);
	return ok;
}

/*
 * The request posted to slot and not yet taken, if any (true): its
 * segment's handle.  *abort says the transaction is to be aborted.
 */
bool
kafka_txn_take(int slot, dsm_handle *handle, bool *abort)
{
	TxnSlot    *s = &shared->slots[slot];
	bool		found = false;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	*abort = s->abort;
	if (s->posted != 0 && s->posted != s->done && !s->taken)
	{
		s->taken = true;
		*handle = s->handle;
		found = true;
	}
	LWLockRelease(&shared->lock);
	return found;
}

bool
kafka_txn_abort_requested(int slot)
{
	bool		abort;

	LWLockAcquire(&shared->lock, LW_SHARED);
	abort = shared->slots[slot].abort;
	LWLockRelease(&shared->lock);
	return abort;
}

/*
 * The request taken is answered in its segment: wake its listener.  When
 * the transaction ended with it, the slot is idle if idle says so and its
 * producer is not being fenced (true returned: the worker waits for the
 * producer's next transaction, kafka_txn_idle_wait), else free at once
 * (the worker leaves), so that the producer's next transaction, which may
 * begin as soon as the answer is read, never finds it still taken by a
 * worker on its way out.  The answered ticket stays: a later claim does
 * not clear it, and tickets are never used twice.
 */
bool
kafka_txn_done(int slot, bool ended, bool idle)
{
	TxnSlot    *s = &shared->slots[slot];
	Latch	   *reply;
	Latch	   *waiters[TXN_SLOT_WAITERS];
	int			nwaiters;
	bool		kept = false;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	s->done = s->posted;
	s->taken = false;
	reply = s->reply;
	nwaiters = s->nwaiters;
	memcpy(waiters, s->waiters, sizeof(Latch *) * nwaiters);
	s->nwaiters = 0;
	if (ended && idle && !s->abort && own_slot(s))
	{
		s->idle = true;
		kept = true;
	}
	else if (ended)
		(void) free_slot(s);
	slot_changed(s);
	LWLockRelease(&shared->lock);
	if (reply != NULL)
		SetLatch(reply);
	for (int i = 0; i < nwaiters; i++)
		SetLatch(waiters[i]);
	return kept;
}

/*
 * The idle worker of slot looks at it: KAFKA_TXN_RESUMED (*info gets the
 * new transaction) once a claim handed it its producer's next
 * transaction, KAFKA_TXN_GONE once the slot was given up (or, leave set,
 * is given up now: the worker's idle time passed), else KAFKA_TXN_IDLE
 */
KafkaTxnIdle
kafka_txn_idle_state(int slot, bool leave, KafkaTxnInfo *info)
{
	TxnSlot    *s = &shared->slots[slot];
	KafkaTxnIdle state;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	if (!own_slot(s))
		state = KAFKA_TXN_GONE;
	else if (!s->idle)
	{
		*info = s->info;
		state = KAFKA_TXN_RESUMED;
	}
	else if (leave || s->abort)
	{
		/* its producer is being fenced: never reused */
		(void) free_slot(s);
		state = KAFKA_TXN_GONE;
	}
	else
		state = KAFKA_TXN_IDLE;
	LWLockRelease(&shared->lock);
	return state;
}

/*
 * The worker of slot leaves (its transaction ended, or it exits on an
 * error): the slot is free, and a request it did not answer is lost
 */
void
kafka_txn_detach(int slot)
{
	TxnSlot    *s;
	Latch	   *reply = NULL;

	if (shared == NULL || slot < 0 || slot >= shared->nslots)
		return;
	s = &shared->slots[slot];
	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	if (own_slot(s))
		reply = free_slot(s);
	LWLockRelease(&shared->lock);
	if (reply != NULL)
		SetLatch(reply);
}
