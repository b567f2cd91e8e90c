/*-------------------------------------------------------------------------
 *
 * kafka_producers.c
 *	  Idempotent Kafka producers: producer ids, and the sequence numbers of
 *	  the batches each one last wrote to each partition, so that a batch
 *	  sent again is never stored twice.
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
 * The state is in shared memory and does not survive a restart: producer
 * ids start from the time of the server's start (so they do not repeat),
 * and a producer the table does not know may only start a partition at
 * sequence 0 (UNKNOWN_PRODUCER_ID otherwise: librdkafka then gets a new id).
 * The table holds 8 partitions per allowed Kafka connection; when full, the
 * entry used longest ago makes room.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/shared/kafka_producers.h"
#include "pg_topics/wire/protocol.h"

#define CACHED_BATCHES	5

typedef struct ProducerKey
{
	Oid			dbid;
	Oid			relid;			/* the partition */
	int64		producer_id;
} ProducerKey;

typedef struct CachedBatch
{
	int32		first_seq;
	int32		last_seq;
	int64		base_offset;
	int64		timestamp;
} CachedBatch;

typedef struct ProducerEntry
{
	ProducerKey key;
	int16		epoch;
	int			ncached;
	CachedBatch cached[CACHED_BATCHES]; /* newest last */
	int			nin_flight;
	int			in_flight_owner;	/* the pid whose transaction writes them */
	CachedBatch in_flight[CACHED_BATCHES];	/* in sequence order; no offsets */
	TimestampTz last_used;
} ProducerEntry;

typedef struct ProducersShared
{
	LWLock		lock;
	int64		next_id;
} ProducersShared;

static ProducersShared *shared = NULL;
static HTAB *producers = NULL;

static long
max_entries(void)
{
	return Max(4096L, (long) pg_topics_kafka_max_connections * 8);
}

void
kafka_producers_shmem_request(void)
{
	if (pg_topics_kafka_port == 0)
		return;					/* no Kafka listener */
	RequestAddinShmemSpace(add_size(MAXALIGN(sizeof(ProducersShared)),
									hash_estimate_size(max_entries(),
													   sizeof(ProducerEntry))));
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
	{
		LWLockInitialize(&shared->lock, LWLockNewTrancheId());
		/* ids from this start on: seconds since 2000, times a million */
		shared->next_id = (GetCurrentTimestamp() / USECS_PER_SEC) * 1000000;
	}
	info.keysize = sizeof(ProducerKey);
	info.entrysize = sizeof(ProducerEntry);
	producers = ShmemInitHash("pg_topics kafka producer sequences",
							  max_entries(), max_entries(), &info,
							  HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
}

/* A new producer id (InitProducerId) */
int64
kafka_producer_new_id(void)
{
	int64		id;

	LWLockAcquire(&shared->lock, LW_EXCLUSIVE);
	id = shared->next_id++;
	LWLockRelease(&shared->lock);
	return id;
}

/* Make room by forgetting the entry used longest ago (lock held) */
static void
evict_oldest(void)
{
	HASH_SEQ_STATUS status;
	ProducerEntry *e;
	ProducerEntry *oldest = NULL;

	hash_seq_init(&status, producers);
	while ((e = hash_seq_search(&status)) != NULL)
		if (e->nin_flight == 0 && (oldest == NULL || e->last_used < oldest->last_used))
			oldest = e;
	if (oldest != NULL)
		(void) hash_search(producers, &oldest->key, HASH_REMOVE, NULL);
}

/* The sequence number after seq (they wrap at int32's end) */
static inline int32
next_seq(int32 seq)
{
	return seq == PG_INT32_MAX ? 0 : seq + 1;
}

/*
 * Check a batch of count records from producer_id/epoch starting at
 * first_seq for partition relid.  KAFKA_NONE: write it (it is in flight
 * until kafka_producer_end); *duplicate set: it was written already, at
 * *base_offset and *timestamp; otherwise the error to answer.
 */
int16
kafka_producer_begin(Oid relid, int64 producer_id, int16 epoch,
					 int32 first_seq, int32 count, bool *duplicate,
					 int64 *base_offset, int64 *timestamp)
{
	ProducerKey key;
	ProducerEntry *e;
	bool		found;
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
	{
		/* an unknown producer must start at 0 */
		if (first_seq != 0)
		{
			LWLockRelease(&shared->lock);
			return KAFKA_UNKNOWN_PRODUCER_ID;
		}
		e = hash_search(producers, &key, HASH_ENTER_NULL, &found);
		if (e == NULL)
		{
			evict_oldest();
			e = hash_search(producers, &key, HASH_ENTER_NULL, &found);
		}
		if (e == NULL)
		{
			LWLockRelease(&shared->lock);
			return KAFKA_REQUEST_TIMED_OUT;
		}
		e->epoch = epoch;
		e->ncached = 0;
		e->nin_flight = 0;
		e->in_flight_owner = 0;
	}
	e->last_used = GetCurrentTimestamp();

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
		else if (first_seq != expected)
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
