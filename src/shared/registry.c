/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  In-flight producers per partition, in shared memory, and the wake-up
 *	  of long-polling readers.
 *
 * Every backend has a row of slots, one per partition its current
 * transaction has written: (database, partition relation, topic, first
 * offset, since).  A slot is created before the producer takes the
 * partition's tail lock, its first offset stored under that lock before
 * the transaction's first batch there is appended, and it is emptied at
 * commit or abort (XACT_EVENT_COMMIT/ABORT run after
 * ProcArrayEndTransaction, so by then the outcome is visible to new
 * snapshots).  The lowest first offset
 * of a partition's slots, or its high watermark when there is none, is its
 * last stable offset as topics.offsets() and topics.partitions report it,
 * with the pid, xid and start time of the transaction holding it back.
 *
 * Readers do not rely on the registry for correctness: fetch stops at the
 * first record whose transaction its snapshot does not see as finished
 * (see read/stable_read.c), which also holds on a hot standby where no registry runs.
 *
 * Long-poll: readers sleep on one of TOPIC_WAKEUP_BUCKETS condition
 * variables chosen by hashing the partition; a committing producer
 * broadcasts the buckets of the partitions it wrote.  Sleepers recheck
 * after every wake-up, so a shared bucket costs a spurious wake-up, never
 * a lost one.  A process that serves many readers at once (the Kafka
 * listener) cannot sleep on many condition variables: it is a *watcher*,
 * with a bit per bucket it cares about; a commit bumps its buckets'
 * counters and sets the latch of each watcher with one of their bits set,
 * and the watcher compares the counters it noted to see which of its
 * readers to try again.
 *
 * A transaction that produced cannot be prepared: the registry, like a
 * reader's view of it, does not survive a restart, and a prepared producer
 * would hold its partitions back across one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "access/twophase.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/partition.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/wakeup.h"
#include "pg_topics/shared/registry.h"

#define TOPIC_WAKEUP_BUCKETS	1024
#define TOPIC_MAX_WATCHERS		64

/* A process with a latch that long-polls for many readers */
typedef struct Watcher
{
	int			pgprocno;		/* -1: free */
	pg_atomic_uint64 mask[TOPIC_WAKEUP_BUCKETS / 64];
} Watcher;

/* One partition written by one backend's current transaction */
typedef struct WriterSlot
{
	Oid			dbid;			/* InvalidOid: free */
	Oid			relid;
	Oid			topic;			/* the topic it belongs to, or InvalidOid */
	int64		first_offset;
	TimestampTz since;
} WriterSlot;

typedef struct TopicRegistry
{
	LWLock	   *lock;			/* protects every slot */
	int			nprocs;
	int			slots_per_proc;
	ConditionVariable wakeup[TOPIC_WAKEUP_BUCKETS];
	pg_atomic_uint64 commits[TOPIC_WAKEUP_BUCKETS];	/* per bucket */
	pg_atomic_uint32 nwatchers;	/* watcher slots ever used */
	Watcher		watchers[TOPIC_MAX_WATCHERS];	/* under lock to claim */

	/*
	 * Per backend, how many of its slots from the first may be in use, so
	 * that a reader scans the slots in use and not every backend's whole
	 * row (a row has room for a transaction writing a thousand partitions)
	 */
	int		   *nused;			/* nprocs entries, after the slots */
	WriterSlot	slots[FLEXIBLE_ARRAY_MEMBER];	/* nprocs * slots_per_proc */
} TopicRegistry;

static TopicRegistry *registry = NULL;

/* This backend's slots in use: how many, for the transaction's end */
static int	my_nslots = 0;

/*
 * What this backend's transaction wrote per slot, for the stable-offset
 * markers written at commit (markers.c): the partition number, or -1 if
 * nothing was appended.
 */
static int32 *my_partition = NULL;

static int
registry_nprocs(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size
registry_slots_size(void)
{
	return add_size(offsetof(TopicRegistry, slots),
					mul_size(sizeof(WriterSlot),
							 mul_size(registry_nprocs(),
									  pg_topics_max_partitions_per_transaction)));
}

static Size
registry_size(void)
{
	return add_size(registry_slots_size(),
					mul_size(sizeof(int), registry_nprocs()));
}

void
topic_registry_shmem_request(void)
{
	RequestAddinShmemSpace(registry_size());
	RequestNamedLWLockTranche("pg_topics registry", 1);
}

void
topic_registry_shmem_startup(void)
{
	bool		found;

	registry = ShmemInitStruct("pg_topics registry", registry_size(), &found);
	if (!found)
	{
		int			i;

		registry->lock = &(GetNamedLWLockTranche("pg_topics registry"))->lock;
		registry->nprocs = registry_nprocs();
		registry->slots_per_proc = pg_topics_max_partitions_per_transaction;
		for (i = 0; i < TOPIC_WAKEUP_BUCKETS; i++)
		{
			ConditionVariableInit(&registry->wakeup[i]);
			pg_atomic_init_u64(&registry->commits[i], 0);
		}
		pg_atomic_init_u32(&registry->nwatchers, 0);
		for (i = 0; i < TOPIC_MAX_WATCHERS; i++)
		{
			registry->watchers[i].pgprocno = -1;
			for (int w = 0; w < TOPIC_WAKEUP_BUCKETS / 64; w++)
				pg_atomic_init_u64(&registry->watchers[i].mask[w], 0);
		}
		memset(registry->slots, 0,
			   sizeof(WriterSlot) * registry->nprocs * registry->slots_per_proc);
		registry->nused = (int *) ((char *) registry + registry_slots_size());
		memset(registry->nused, 0, sizeof(int) * registry->nprocs);
	}
}

static int64 registry_stable_offset(Oid relid, int64 high_watermark,
									TopicHolder *holder, bool skip_mine);

static inline WriterSlot *
my_slots(void)
{
	return &registry->slots[MyProcNumber * registry->slots_per_proc];
}

StaticAssertDecl(TOPIC_WATCH_WORDS * 64 == TOPIC_WAKEUP_BUCKETS,
				 "a watch set has a bit per wake-up bucket");

/* The wake-up bucket of a partition (or topic) of a database */
static int
wakeup_bucket(Oid dbid, Oid relid)
{
	uint32		key[2] = {dbid, relid};

	return hash_bytes((const unsigned char *) key, sizeof(key)) %
		TOPIC_WAKEUP_BUCKETS;
}

static ConditionVariable *
wakeup_cv(Oid dbid, Oid relid)
{
	return &registry->wakeup[wakeup_bucket(dbid, relid)];
}

/*
 * Bucket b saw a commit (or an abort that moved a stable offset): count it
 * and set the latches of the watchers that care
 */
static void
wake_bucket(int b)
{
	uint32		nwatchers = pg_atomic_read_u32(&registry->nwatchers);

	/* the counter first: a watcher woken below must see it moved */
	pg_atomic_fetch_add_u64(&registry->commits[b], 1);
	for (uint32 i = 0; i < nwatchers; i++)
	{
		Watcher    *w = &registry->watchers[i];
		int			pgprocno = w->pgprocno;

		if (pgprocno >= 0 &&
			(pg_atomic_read_u64(&w->mask[b / 64]) & (UINT64CONST(1) << (b % 64))) != 0)
			SetLatch(&ProcGlobal->allProcs[pgprocno].procLatch);
	}
}

/* Give up this process's watcher slot (at exit) */
static void
watcher_detach(int code, Datum arg)
{
	Watcher    *w = &registry->watchers[DatumGetInt32(arg)];

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < TOPIC_WAKEUP_BUCKETS / 64; i++)
		pg_atomic_write_u64(&w->mask[i], 0);
	w->pgprocno = -1;
	LWLockRelease(registry->lock);
}

/*
 * Become a watcher: a process whose latch is set when a partition it
 * watches (topic_registry_watch) sees a commit.  Returns the watcher's
 * number; the slot is given up when the process exits.
 */
int
topic_registry_watcher_attach(void)
{
	int			slot = -1;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < TOPIC_MAX_WATCHERS; i++)
		if (registry->watchers[i].pgprocno < 0)
		{
			slot = i;
			break;
		}
	if (slot >= 0)
	{
		registry->watchers[slot].pgprocno = MyProcNumber;
		if (pg_atomic_read_u32(&registry->nwatchers) <= (uint32) slot)
			pg_atomic_write_u32(&registry->nwatchers, slot + 1);
	}
	LWLockRelease(registry->lock);
	if (slot < 0)
		elog(ERROR, "no free long-poll watcher slot");
	before_shmem_exit(watcher_detach, Int32GetDatum(slot));
	return slot;
}

/*
 * Add relid's bucket to a watch set (TOPIC_WATCH_WORDS words).  Returns
 * the bucket's commit count now if the bucket was not in the set yet, 0 if
 * it was: the sum of what a reader's calls return is its set's count as
 * each bucket was first noted, which it compares later with
 * topic_registry_watch_count (counts only grow, so the sums differ once any
 * bucket saw a commit since).  The set takes effect with
 * topic_registry_watch_set, which must come before the reader reads.
 */
uint64
topic_registry_watch_note(uint64 *set, Oid relid)
{
	int			b = wakeup_bucket(MyDatabaseId, relid);
	uint64		bit = UINT64CONST(1) << (b % 64);

	if (set[b / 64] & bit)
		return 0;
	set[b / 64] |= bit;
	return pg_atomic_read_u64(&registry->commits[b]);
}

/* The commit counts of set's buckets, summed */
uint64
topic_registry_watch_count(const uint64 *set)
{
	uint64		sum = 0;

	for (int w = 0; w < TOPIC_WATCH_WORDS; w++)
	{
		uint64		word = set[w];

		while (word != 0)
		{
			int			b = w * 64 + pg_rightmost_one_pos64(word);

			sum += pg_atomic_read_u64(&registry->commits[b]);
			word &= word - 1;
		}
	}
	return sum;
}

/* Make set the buckets whose commits set watcher's latch */
void
topic_registry_watch_set(int watcher, const uint64 *set)
{
	Watcher    *w = &registry->watchers[watcher];

	for (int i = 0; i < TOPIC_WATCH_WORDS; i++)
		pg_atomic_write_u64(&w->mask[i], set[i]);
	/* published before the reads that follow */
	pg_memory_barrier();
}

/*
 * The topic a partition belongs to (InvalidOid for a stand-alone log), for
 * waking consumer groups.  Asked once per partition and backend: a
 * partition never changes topic (ddl.c refuses DETACH).
 */
Oid
topic_registry_topic_of(Relation rel)
{
	static HTAB *topics = NULL;
	Oid			relid = RelationGetRelid(rel);
	Oid		   *entry;
	bool		found;

	if (!rel->rd_rel->relispartition)
		return InvalidOid;
	if (topics == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(Oid);
		info.entrysize = 2 * sizeof(Oid);
		topics = hash_create("pg_topics partition topics", 64, &info,
							 HASH_ELEM | HASH_BLOBS);
	}
	entry = hash_search(topics, &relid, HASH_FIND, NULL);
	if (entry == NULL)
	{
		Oid			parent = get_partition_parent(relid, true);

		entry = hash_search(topics, &relid, HASH_ENTER, &found);
		entry[1] = parent;
	}
	return entry[1];
}

/*
 * Note that the current transaction is about to write partition rel (of
 * topic): called before the tail lock is taken, returns the slot whose
 * first offset topic_registry_set_first_offset() fills in under it.
 * Only the first call per partition and transaction takes the lock.
 */
int
topic_registry_add_writer(Relation rel, Oid topic)
{
	Oid			relid = RelationGetRelid(rel);
	WriterSlot *slots = my_slots();
	int			free_slot = -1;
	int			i;

	/* our own slots change only here and at transaction end */
	for (i = 0; i < my_nslots; i++)
		if (slots[i].relid == relid && slots[i].dbid == MyDatabaseId)
			return i;
	for (i = 0; i < registry->slots_per_proc; i++)
		if (!OidIsValid(slots[i].dbid))
		{
			free_slot = i;
			break;
		}
	if (free_slot < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("transaction writes to more than %d topic partitions",
						registry->slots_per_proc),
				 errhint("Commit more often, or raise pg_topics.max_partitions_per_transaction.")));

	if (my_partition == NULL)
		my_partition = MemoryContextAlloc(TopMemoryContext,
										  sizeof(int32) * registry->slots_per_proc);
	my_partition[free_slot] = -1;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	slots[free_slot].dbid = MyDatabaseId;
	slots[free_slot].relid = relid;
	slots[free_slot].topic = topic;
	/* not known yet: counts as no holder until set */
	slots[free_slot].first_offset = PG_INT64_MAX;
	slots[free_slot].since = GetCurrentTransactionStartTimestamp();
	my_nslots = Max(my_nslots, free_slot + 1);
	registry->nused[MyProcNumber] = my_nslots;
	LWLockRelease(registry->lock);
	return free_slot;
}

/*
 * The transaction's first offset in the slot's partition, set under the
 * partition's tail lock before its first batch is appended.  Only this
 * backend writes its slots; a reader reads the high watermark from the
 * tail page first (after our lock release, a barrier), then the slots,
 * so it sees this value whenever our records are below that watermark.
 */
void
topic_registry_set_first_offset(int slot, int64 first_offset)
{
	WriterSlot *s = &my_slots()[slot];

	/* a subscription's worker may write below its earlier batches */
	s->first_offset = Min(s->first_offset, first_offset);
}

/* The slot's partition number, once a batch of records is appended */
void
topic_registry_set_partition(int slot, int32 partition)
{
	my_partition[slot] = partition;
}

/*
 * The partitions this transaction appended records to, for its markers:
 * up to max (relid, topic, partition) into the arrays; returns how many.
 */
int
topic_registry_my_partitions(Oid *relids, Oid *topics, int32 *partitions,
							 int max)
{
	WriterSlot *slots = my_slots();
	int			n = 0;
	int			i;

	for (i = 0; i < my_nslots && n < max; i++)
	{
		if (!OidIsValid(slots[i].dbid) || my_partition[i] < 0)
			continue;
		relids[n] = slots[i].relid;
		topics[n] = slots[i].topic;
		partitions[n] = my_partition[i];
		n++;
	}
	return n;
}

/*
 * The lowest offset an unfinished transaction wrote to relid, or
 * high_watermark if none did; *holder describes that transaction.
 * high_watermark must have been read before calling, so that a writer
 * registering meanwhile is above it.
 */
int64
topic_registry_stable_offset(Oid relid, int64 high_watermark,
							 TopicHolder *holder)
{
	return registry_stable_offset(relid, high_watermark, holder, false);
}

/* The same, as if this backend's transaction had finished */
int64
topic_registry_stable_offset_of_others(Oid relid, int64 high_watermark)
{
	return registry_stable_offset(relid, high_watermark, NULL, true);
}

static int64
registry_stable_offset(Oid relid, int64 high_watermark, TopicHolder *holder,
					   bool skip_mine)
{
	int64		lso = high_watermark;
	int			p;

	if (holder)
		holder->pid = 0;
	LWLockAcquire(registry->lock, LW_SHARED);
	for (p = 0; p < registry->nprocs; p++)
	{
		WriterSlot *slots = &registry->slots[p * registry->slots_per_proc];
		int			i;

		if (skip_mine && p == MyProcNumber)
			continue;

		for (i = 0; i < registry->nused[p]; i++)
		{
			if (slots[i].relid != relid || slots[i].dbid != MyDatabaseId)
				continue;
			if (slots[i].first_offset < lso)
			{
				PGPROC	   *proc = &ProcGlobal->allProcs[p];

				lso = slots[i].first_offset;
				if (holder)
				{
					holder->pid = proc->pid;
					holder->xid = proc->xid;
					holder->since = slots[i].since;
				}
			}
		}
	}
	LWLockRelease(registry->lock);
	return lso;
}

/*
 * pg_topics.max_producer_transaction_age: end the sessions whose
 * transaction has held a partition back for longer, as
 * idle_in_transaction_session_timeout ends idle ones (an open producing
 * transaction keeps every reader of its partitions at its first offset).
 * Called by the launcher every round; returns the milliseconds until the
 * next holder reaches the age, or -1 if none will.
 *
 * The session is terminated, not its query cancelled: a producer that sits
 * idle in its transaction runs no query.  The signal is sent under the
 * registry's lock, which the holder needs to empty its slots, so the
 * process is still in the same transaction (or has just committed it).
 * Background workers (a subscription's apply worker, which may take long
 * on a large transaction) are left alone.
 */
long
topic_registry_end_old_producers(void)
{
	TimestampTz now = GetCurrentTimestamp();
	int64		max_age_us = (int64) pg_topics_max_producer_transaction_age * 1000;
	long		next_ms = -1;

	if (pg_topics_max_producer_transaction_age <= 0)
		return -1;

	LWLockAcquire(registry->lock, LW_SHARED);
	for (int p = 0; p < registry->nprocs; p++)
	{
		WriterSlot *slots = &registry->slots[p * registry->slots_per_proc];
		PGPROC	   *proc = &ProcGlobal->allProcs[p];

		for (int i = 0; i < registry->nused[p]; i++)
		{
			int64		age;

			/* a slot holds readers back once its first offset is set */
			if (!OidIsValid(slots[i].dbid) || slots[i].first_offset == PG_INT64_MAX ||
				!PROC_IS_CLIENT_BACKEND(proc) || proc->pid == 0)
				continue;
			age = now - slots[i].since;
			if (age >= max_age_us)
			{
				ereport(LOG,
						(errmsg("terminating process %d because its transaction has held topic partitions back for longer than pg_topics.max_producer_transaction_age",
								proc->pid),
						 errdetail("The transaction started at %s and produced to partition relation %u of database %u, whose readers wait for it.",
								   timestamptz_to_str(slots[i].since), slots[i].relid,
								   slots[i].dbid)));
				(void) kill(proc->pid, SIGTERM);
			}
			else
			{
				long		ms = (long) ((max_age_us - age) / 1000) + 1;

				next_ms = next_ms < 0 ? ms : Min(next_ms, ms);
			}
			break;				/* one transaction per backend */
		}
	}
	LWLockRelease(registry->lock);
	return next_ms;
}

/*
 * Long-poll: prepare to sleep until a producer of relid commits, then
 * sleep at most timeout_ms.  The caller rechecks after each call and ends
 * with topic_registry_end_wait().
 */
void
topic_registry_prepare_wait(Oid relid)
{
	ConditionVariablePrepareToSleep(wakeup_cv(MyDatabaseId, relid));
}

bool
topic_registry_wait(Oid relid, long timeout_ms)
{
	return ConditionVariableTimedSleep(wakeup_cv(MyDatabaseId, relid),
									   timeout_ms, PG_WAIT_EXTENSION);
}

void
topic_registry_end_wait(void)
{
	ConditionVariableCancelSleep();
}

/* Wake every long-polling reader, e.g. because a topic goes away */
void
topic_registry_wake_all(void)
{
	int			i;

	for (i = 0; i < TOPIC_WAKEUP_BUCKETS; i++)
	{
		ConditionVariableBroadcast(&registry->wakeup[i]);
		wake_bucket(i);
	}
}

/* Empty this backend's slots, and wake the readers of the partitions it wrote */
static void
release_slots(bool committed)
{
	WriterSlot *slots = my_slots();
	Oid			woken[64];
	int			nwoken = 0;
	int			i;

	if (my_nslots == 0)
		return;

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (i = 0; i < my_nslots; i++)
	{
		/*
		 * A commit makes records available; an abort of a transaction that
		 * wrote moves the last stable offset past its records, so the
		 * records after them are available now
		 */
		if (OidIsValid(slots[i].dbid) &&
			(committed || slots[i].first_offset != PG_INT64_MAX) &&
			nwoken < lengthof(woken) - 1)
		{
			woken[nwoken++] = slots[i].relid;
			if (OidIsValid(slots[i].topic))
				woken[nwoken++] = slots[i].topic;
		}
		slots[i].dbid = InvalidOid;
		slots[i].relid = InvalidOid;
	}
	registry->nused[MyProcNumber] = 0;
	LWLockRelease(registry->lock);
	my_nslots = 0;

	for (i = 0; i < nwoken; i++)
	{
		int			b = wakeup_bucket(MyDatabaseId, woken[i]);

		ConditionVariableBroadcast(&registry->wakeup[b]);
		wake_bucket(b);
	}
	/* more partitions than we remembered: wake every bucket */
	if (nwoken >= lengthof(woken) - 1)
		topic_registry_wake_all();
}

static void
topic_registry_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			release_slots(true);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			/* subscribers learn that the stable offset moved from the worker */
			if (my_nslots > 0 && XLogLogicalInfoActive())
				topic_worker_wake();
			release_slots(false);
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (my_nslots > 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that has produced to a topic"),
						 errdetail("A prepared producer would hold its partitions back across a restart."),
						 errhint("Commit the transaction instead.")));
			break;
		default:
			break;
	}
}

/* Has this transaction written to any partition? */
bool
topic_registry_wrote_in_xact(void)
{
	return my_nslots > 0;
}

/* Early registration, from _PG_init */
void
topic_registry_init(void)
{
	RegisterXactCallback(topic_registry_xact_callback, NULL);
}
