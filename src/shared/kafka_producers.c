/*-------------------------------------------------------------------------
 *
 * kafka_producers.c
 *	  Idempotent Kafka producers: producer ids, the role each is bound to,
 *	  and the sequence numbers of the batches each one last wrote to each
 *	  partition, so that a batch sent again is never stored twice.
 *
 * An idempotent producer (enable.idempotence) gets a producer id and epoch
 * from InitProducerId and numbers its batches per partition.  A batch
 * whose sequence numbers are one of the last five written is a retry: it
 * is answered with the offset it was stored at, and not stored again.  A
 * batch must follow the last one (OUT_OF_ORDER_SEQUENCE_NUMBER otherwise),
 * except the first of a new epoch, which starts at 0; an older epoch is
 * INVALID_PRODUCER_EPOCH.
 *
 * A batch is *in flight* from its check until the transaction that writes
 * it ends: a batch that arrives meanwhile from another transaction (a
 * retry after the client reconnected while its first try was still
 * committing) is told REQUEST_TIMED_OUT and tries again, by when the first
 * is either stored (and the retry answered with its offset) or rolled back
 * (and the retry written).  One transaction may have up to five batches of
 * a producer in flight for a partition, each following the one before:
 * the listener commits several pipelined Produce requests of a connection
 * together (kafka/request.c).  A batch becomes one of the last five only
 * when its transaction commits.
 *
 * Roles are kept apart.  Whoever holds a producer id could otherwise write
 * as that producer: take its next sequence number (its own batch would
 * then be answered as a duplicate with someone else's offset, and be
 * lost), or bump its epoch and fence it.  So every id is bound to the role
 * that asked for it, and a batch carrying an id bound to another role is
 * refused for its partition (INVALID_PRODUCER_ID_MAPPING, Kafka's "this
 * producer id is not yours"), before anything about the id's state is
 * looked at or changed.  Ids are drawn at random from the positive int64
 * range, never one that is live, so that they cannot be guessed either.
 * The binding is an entry of its own, the id's entry (relid InvalidOid),
 * which lives as long as any partition entry of the id does; each
 * partition entry carries the owner too, so that the check on a batch is
 * one Oid comparison on the entry the batch needs anyway.
 *
 * The table is a cache of what the logs hold.  Every batch an idempotent
 * producer writes carries its producer id, epoch, sequence numbers and
 * role in the partition's log (topic_log.h, TB_PRODUCER), so the state is
 * as durable as the records, replayed by standbys with them, and rolled
 * back with them.  A producer the table does not know in a partition, after
 * a restart, a crash, a failover or an eviction, has its state read back
 * from the log (kafka/producer_log.c) before its batch is checked: a retry
 * of a batch stored before the crash is answered as a duplicate, and the
 * next batch goes on.  Only ids issued since the start and never evicted
 * from a partition skip that read: what they wrote is all in the table.  A
 * producer the log knows nothing of either may only start a partition at
 * sequence 0 (UNKNOWN_PRODUCER_ID otherwise: librdkafka then bumps its
 * epoch and starts over at 0), and an id nobody holds is then bound to the
 * role that used it first.
 *
 * The table holds 8 entries per allowed Kafka connection, ids and
 * partitions together.  When it is full, one role must not be able to
 * push out another's entries (a flood of made-up ids would otherwise make
 * everyone's retries be stored twice), so each role has a fair share: the
 * table's size divided by the number of roles holding entries, the asking
 * one included.  A role below its share takes the place of the least
 * recently used entry of the role holding the most entries (which is then
 * above its share); a role at or above it gives up its own least recently
 * used entry.  Entries with a batch in flight, and ids with partition
 * entries, are never given up; if nothing can be, the request gets a
 * retriable error (REQUEST_TIMED_OUT, or COORDINATOR_LOAD_IN_PROGRESS for
 * InitProducerId), never another role's entry.  Each role keeps its
 * entries in a list by last use, so that using one, and finding the one
 * to give up, take constant time.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/ilist.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/shared/kafka_producers.h"
#include "pg_topics/wire/protocol.h"

#define CACHED_BATCHES	KAFKA_PRODUCER_BATCHES

/* what a batch with an id bound to another role is told */
#define PRODUCER_NOT_YOURS	KAFKA_INVALID_PRODUCER_ID_MAPPING

typedef struct ProducerKey
{
	Oid			dbid;
	Oid			relid;			/* the partition; InvalidOid: the id itself */
	int64		producer_id;
} ProducerKey;

typedef KafkaProducerBatch CachedBatch;

/* A role holding entries */
typedef struct ProducerRole
{
	Oid			roleid;			/* hash key */
	int			nentries;
	dlist_head	lru;			/* its entries that may go, least recently
								 * used first */
} ProducerRole;

typedef struct ProducerEntry
{
	ProducerKey key;
	Oid			owner;			/* the role the id is bound to */
	ProducerRole *role;			/* owner's, for its list */
	dlist_node	lru_node;		/* in role->lru, unless an id with nrefs > 0 */
	int			nrefs;			/* the id's entry: its partition entries */
	bool		fresh;			/* the id's entry: issued since the start, and
								 * none of its partition entries given up, so
								 * that the logs know nothing the table does
								 * not */
	/* the rest is a partition entry's */
	int16		epoch;
	int			ncached;
	CachedBatch cached[CACHED_BATCHES]; /* newest last */
	int			nin_flight;
	int			in_flight_owner;	/* the pid whose transaction writes them */
	CachedBatch in_flight[CACHED_BATCHES];	/* in sequence order; no offsets */
} ProducerEntry;

typedef struct ProducersShared
{
	LWLock		lock;			/* guards both tables and every entry */
} ProducersShared;

static ProducersShared *shared = NULL;
static HTAB *producers = NULL;
static HTAB *roles = NULL;

static long
max_entries(void)
{
	return Max(4096L, (long) pg_topics_kafka_max_connections * 8);
}

void
kafka_producers_shmem_request(void)
{
	Size		size;

	if (pg_topics_kafka_port == 0)
		return;					/* no Kafka listener */
	size = MAXALIGN(sizeof(ProducersShared));
	size = add_size(size, hash_estimate_size(max_entries(),
											 sizeof(ProducerEntry)));
	/* a role holds at least one entry */
	size = add_size(size, hash_estimate_size(max_entries(),
											 sizeof(ProducerRole)));
	RequestAddinShmemSpace(size);
}

void
kafka_producers_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (pg_topics_kafka_port == 0)
		return;
	shared = ShmemInitStruct("pg_topics kafka producers",
							 sizeof(ProducersShared), &found);
	if (!found)
		LWLockInitialize(&shared->lock, LWLockNewTrancheId());
	info.keysize = sizeof(ProducerKey);
	info.entrysize = sizeof(ProducerEntry);
	producers = ShmemInitHash("pg_topics kafka producer sequences",
							  max_entries(), max_entries(), &info,
							  HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	info.keysize = sizeof(Oid);
	info.entrysize = sizeof(ProducerRole);
	roles = ShmemInitHash("pg_topics kafka producer roles",
						  max_entries(), max_entries(), &info,
						  HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
}

/* The key of producer_id's own entry, which binds it to its role */
static inline ProducerKey
id_key(int64 producer_id)
{
	ProducerKey key;

	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = InvalidOid;
	key.producer_id = producer_id;
	return key;
}

/*
 * Whether e may be given up to make room (lock held).  An id outlives its
 * partition entries: it is not even in its role's list while it has some,
 * so that looking for an entry to give up does not step over them.
 */
static inline bool
evictable(const ProducerEntry *e)
{
	if (OidIsValid(e->key.relid))
		return e->nin_flight == 0;
	return e->nrefs == 0;
}

/* One more partition entry of id: it cannot go now (lock held) */
static inline void
pin_id(ProducerEntry *id)
{
	if (id->nrefs++ == 0)
		dlist_delete(&id->lru_node);
}

/*
 * One partition entry of id fewer: with none left, it may go, and goes
 * first, since its producer has not used it since that entry (lock held)
 */
static inline void
unpin_id(ProducerEntry *id)
{
	Assert(id->nrefs > 0);
	if (--id->nrefs == 0)
		dlist_push_head(&id->role->lru, &id->lru_node);
}

/* e was used: it is its role's most recently used entry (lock held) */
static inline void
touch(ProducerEntry *e)
{
	dlist_move_tail(&e->role->lru, &e->lru_node);
}

/* Forget entry e, and account for it (lock held) */
static void
forget(ProducerEntry *e)
{
	ProducerRole *role = e->role;

	Assert(evictable(e));
	dlist_delete(&e->lru_node);
	if (--role->nentries == 0)
	{
		Assert(dlist_is_empty(&role->lru));
		(void) hash_search(roles, &role->roleid, HASH_REMOVE, NULL);
	}
	if (OidIsValid(e->key.relid))
	{
		ProducerKey key = id_key(e->key.producer_id);
		ProducerEntry *id = hash_search(producers, &key, HASH_FIND, NULL);

		Assert(id != NULL);
		if (id != NULL)
		{
			/* its state there is in the log only, from now on */
			id->fresh = false;
			unpin_id(id);
		}
	}
	(void) hash_search(producers, &e->key, HASH_REMOVE, NULL);
}

/*
 * Make room in the full table for an entry of roleid, by its fair share
 * (see the header comment): whether an entry was given up (lock held)
 */
static bool
make_room(Oid roleid)
{
	ProducerRole *mine = hash_search(roles, &roleid, HASH_FIND, NULL);
	ProducerRole *victim = mine;
	long		nroles = hash_get_num_entries(roles) + (mine == NULL ? 1 : 0);
	long		share = Max(1L, max_entries() / nroles);
	dlist_iter	iter;

	if (mine == NULL || mine->nentries < share)
	{
		HASH_SEQ_STATUS status;
		ProducerRole *r;

		/*
		 * The table is full and roleid holds less than its share, so the
		 * role holding the most holds more than its own: one of its gives
		 * way.  Roles holding entries are usually few, and this runs only
		 * when the table is full.
		 */
		victim = NULL;
		hash_seq_init(&status, roles);
		while ((r = hash_seq_search(&status)) != NULL)
			if (victim == NULL || r->nentries > victim->nentries)
				victim = r;
	}
	if (victim == NULL)
		return false;
	dlist_foreach(iter, &victim->lru)
	{
		ProducerEntry *e = dlist_container(ProducerEntry, lru_node, iter.cur);

		if (evictable(e))
		{
			forget(e);
			return true;
		}
	}
	return false;
}

/*
 * A new entry of key for roleid, its most recently used, or NULL if there
 * is no room for it within roleid's share (lock held).  The caller fills in
 * what the entry keeps.
 */
static ProducerEntry *
create_entry(const ProducerKey *key, Oid roleid)
{
	ProducerEntry *e;
	ProducerRole *role;
	bool		found;

	e = hash_search(producers, key, HASH_ENTER_NULL, &found);
	if (e == NULL && make_room(roleid))
		e = hash_search(producers, key, HASH_ENTER_NULL, &found);
	if (e == NULL)
		return NULL;
	Assert(!found);

	/* as many roles as entries, at most: this cannot fail */
	role = hash_search(roles, &roleid, HASH_ENTER_NULL, &found);
	if (role == NULL)
	{
		(void) hash_search(producers, key, HASH_REMOVE, NULL);
		elog(ERROR, "out of Kafka producer role slots");
	}
	if (!found)
	{
		role->nentries = 0;
		dlist_init(&role->lru);
	}
	role->nentries++;
	dlist_push_tail(&role->lru, &e->lru_node);

	e->owner = roleid;
	e->role = role;
	e->nrefs = 0;
	e->fresh = false;
	e->epoch = 0;
	e->ncached = 0;
	e->nin_flight = 0;
	e->in_flight_owner = 0;
	return e;
}

/*
 * The entry of key (a partition) for a producer the table does not know
 * there, starting at first_seq, for roleid.  Unless its id was issued
 * since the start and the table has all it wrote, its state there is read
 * from the log first: with history NULL, KAFKA_PRODUCER_NEEDS_HISTORY
 * asks the caller for it.  The id must be bound to roleid (by the table, or
 * by the log's batches), or not bound at all (then it is bound to roleid
 * now).  *e is set unless an error code is returned (lock held).
 */
static int16
create_partition_entry(const ProducerKey *key, Oid roleid, int16 epoch,
					   int32 first_seq, const KafkaProducerHistory *history,
					   ProducerEntry **e)
{
	ProducerKey ikey = id_key(key->producer_id);
	ProducerEntry *id = hash_search(producers, &ikey, HASH_FIND, NULL);
	bool		logged = history != NULL && OidIsValid(history->role);

	if (id != NULL && id->owner != roleid)
		return PRODUCER_NOT_YOURS;
	if ((id == NULL || !id->fresh) && history == NULL)
		return KAFKA_PRODUCER_NEEDS_HISTORY;
	if (logged && history->role != roleid)
		return PRODUCER_NOT_YOURS;
	/* a producer unknown to the log too must start at 0 */
	if (!logged && first_seq != 0)
		return KAFKA_UNKNOWN_PRODUCER_ID;
	if (id == NULL)
	{
		/* not issued since the start, or forgotten: roleid's from now on */
		id = create_entry(&ikey, roleid);
		if (id == NULL)
			return KAFKA_REQUEST_TIMED_OUT;
	}

	/* pinned first, so that making room below cannot give the id up */
	pin_id(id);
	*e = create_entry(key, roleid);
	if (*e == NULL)
	{
		unpin_id(id);
		return KAFKA_REQUEST_TIMED_OUT;
	}
	(*e)->epoch = epoch;
	if (logged)
	{
		/* where the producer stood in the log: its batch is checked on that */
		Assert(history->nbatches <= CACHED_BATCHES);
		(*e)->epoch = history->epoch;
		(*e)->ncached = history->nbatches;
		memcpy((*e)->cached, history->batches,
			   sizeof(CachedBatch) * history->nbatches);
	}
	return KAFKA_NONE;
}

/*
 * A new producer id for InitProducerId, bound to roleid: KAFKA_NONE and
 * *producer_id, or the error to answer when roleid has no room left
 */
int16
kafka_producer_new_id(Oid roleid, int64 *producer_id)
{
	for (;;)
	{
		uint64		r;
		int64		id;
		ProducerKey key;
		ProducerEntry *e;

		if (!pg_strong_random(&r, sizeof(r)))
			elog(ERROR, "could not generate a random producer id");
		id = (int64) (r & (uint64) PG_INT64_MAX);
		if (id == 0)
			continue;			/* positive ids only */
		key = id_key(id);

		LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
		e = hash_search(producers, &key, HASH_FIND, NULL);
		if (e != NULL)
		{
			/* the id of a live producer: draw again */
			LWLockRelease(&shared->lock);
			continue;
		}
		e = create_entry(&key, roleid);
		if (e != NULL)
			e->fresh = true;
		LWLockRelease(&shared->lock);
		if (e == NULL)
			return KAFKA_COORDINATOR_LOAD_IN_PROGRESS;
		*producer_id = id;
		return KAFKA_NONE;
	}
}

/* The sequence number after seq (they wrap at int32's end) */
static inline int32
next_seq(int32 seq)
{
	return seq == PG_INT32_MAX ? 0 : seq + 1;
}

/*
 * Check a batch of count records from producer_id/epoch starting at
 * first_seq for partition relid, sent by roleid.  KAFKA_NONE: write it (it
 * is in flight until kafka_producer_end); *duplicate set: it was written
 * already, at *base_offset and *timestamp; KAFKA_PRODUCER_NEEDS_HISTORY:
 * call again with the producer's history in the partition's log (history
 * is used only when the table does not know the producer there);
 * otherwise the error to answer.  first_in_txn: the batch is the first
 * its Kafka transaction writes to the partition, and may follow a gap: the
 * batches of the producer's aborted transactions took sequence numbers (as
 * in Kafka's log, which keeps them) that neither the log nor, after a
 * restart, this table knows of.  Any later batch of the transaction must
 * follow the one before, as in Kafka: a batch over a gap is refused
 * OUT_OF_ORDER_SEQUENCE_NUMBER, and the batch before it, if it failed with
 * a retriable error, is taken in order when it is sent again.
 */
int16
kafka_producer_begin(Oid roleid, Oid relid, int64 producer_id, int16 epoch,
					 int32 first_seq, int32 count, bool first_in_txn,
					 const KafkaProducerHistory *history, bool *duplicate,
					 int64 *base_offset, int64 *timestamp)
{
	ProducerKey key;
	ProducerEntry *e;
	int32		last_seq = (int32) (((int64) first_seq + count - 1) % ((int64) PG_INT32_MAX + 1));
	int16		error = KAFKA_NONE;

	*duplicate = false;
	if (first_seq < 0 || count <= 0)
		return KAFKA_INVALID_RECORD;
	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = relid;
	key.producer_id = producer_id;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	e = hash_search(producers, &key, HASH_FIND, NULL);
	if (e == NULL)
		error = create_partition_entry(&key, roleid, epoch, first_seq,
									   history, &e);
	else if (e->owner != roleid)
		error = PRODUCER_NOT_YOURS; /* nothing of its state is touched */
	if (error != KAFKA_NONE)
	{
		LWLockRelease(&shared->lock);
		return error;
	}
	touch(e);

	if (e->nin_flight > 0 && e->in_flight_owner != MyProcPid)
		error = KAFKA_REQUEST_TIMED_OUT;	/* another transaction's are
											 * committing */
	else if (epoch < e->epoch)
		error = KAFKA_INVALID_PRODUCER_EPOCH;
	else if (epoch > e->epoch)
	{
		/* a new epoch starts the sequence again */
		if (e->nin_flight > 0)
			error = KAFKA_REQUEST_TIMED_OUT;
		else if (first_seq != 0)
			error = KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER;
		else
		{
			e->epoch = epoch;
			e->ncached = 0;
		}
	}
	else
	{
		int32		expected = 0;

		for (int i = 0; i < e->ncached; i++)
			if (e->cached[i].first_seq == first_seq &&
				e->cached[i].last_seq == last_seq)
			{
				*duplicate = true;
				*base_offset = e->cached[i].base_offset;
				*timestamp = e->cached[i].timestamp;
			}
		if (e->nin_flight > 0)
			expected = next_seq(e->in_flight[e->nin_flight - 1].last_seq);
		else if (e->ncached > 0)
			expected = next_seq(e->cached[e->ncached - 1].last_seq);
		for (int i = 0; i < e->nin_flight && !*duplicate; i++)
			if (e->in_flight[i].first_seq == first_seq &&
				e->in_flight[i].last_seq == last_seq)
				error = KAFKA_REQUEST_TIMED_OUT;	/* sent again: it commits */
		if (*duplicate || error != KAFKA_NONE)
			;
		else if (first_seq != expected &&
				 !(first_in_txn && first_seq > expected))
			error = KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER;
		else if (e->nin_flight == CACHED_BATCHES)
			error = KAFKA_REQUEST_TIMED_OUT;
	}
	if (error == KAFKA_NONE && !*duplicate)
	{
		e->in_flight[e->nin_flight].first_seq = first_seq;
		e->in_flight[e->nin_flight].last_seq = last_seq;
		e->nin_flight++;
		e->in_flight_owner = MyProcPid;
	}
	LWLockRelease(&shared->lock);
	return error;
}

/*
 * The transaction that wrote the batch starting at first_seq, which
 * kafka_producer_begin let in, ended: committed, it is one of the last
 * five, at base_offset and timestamp
 */
void
kafka_producer_end(Oid relid, int64 producer_id, int32 first_seq,
				   bool committed, int64 base_offset, int64 timestamp)
{
	ProducerKey key;
	ProducerEntry *e;

	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = relid;
	key.producer_id = producer_id;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	e = hash_search(producers, &key, HASH_FIND, NULL);
	for (int i = 0; e != NULL && i < e->nin_flight; i++)
	{
		CachedBatch batch = e->in_flight[i];

		if (batch.first_seq != first_seq || e->in_flight_owner != MyProcPid)
			continue;
		if (committed)
		{
			if (e->ncached == CACHED_BATCHES)
			{
				memmove(&e->cached[0], &e->cached[1],
						sizeof(CachedBatch) * (CACHED_BATCHES - 1));
				e->ncached--;
			}
			batch.base_offset = base_offset;
			batch.timestamp = timestamp;
			e->cached[e->ncached++] = batch;
		}
		memmove(&e->in_flight[i], &e->in_flight[i + 1],
				sizeof(CachedBatch) * (e->nin_flight - i - 1));
		if (--e->nin_flight == 0)
			e->in_flight_owner = 0;
		break;
	}
	LWLockRelease(&shared->lock);
}
