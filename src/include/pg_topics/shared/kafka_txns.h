/*-------------------------------------------------------------------------
 *
 * kafka_txns.h
 *	  Open Kafka transactions in shared memory: a slot each, through which
 *	  the Kafka listener hands the transaction's worker its requests.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_TXNS_H
#define TOPIC_KAFKA_TXNS_H

#include "datatype/timestamp.h"
#include "storage/dsm.h"
#include "storage/latch.h"

/* What a slot's open transaction is */
typedef struct KafkaTxnInfo
{
	Oid			database;
	Oid			role;
	int64		producer_id;
	int16		producer_epoch;
	int32		timeout_ms;
	TimestampTz started_at;
} KafkaTxnInfo;

/* What became of a request handed to a slot's worker */
typedef enum KafkaTxnResult
{
	KAFKA_TXN_PENDING,			/* posted or being run */
	KAFKA_TXN_DONE,				/* answered in its segment */
	KAFKA_TXN_LOST				/* the worker is gone without answering */
} KafkaTxnResult;

/* What an idle worker's slot says (kafka_txn_idle_state) */
typedef enum KafkaTxnIdle
{
	KAFKA_TXN_IDLE,				/* still waiting */
	KAFKA_TXN_RESUMED,			/* handed its producer's next transaction */
	KAFKA_TXN_GONE				/* given up: the worker exits */
} KafkaTxnIdle;

extern void kafka_txns_shmem_request(void);
extern void kafka_txns_shmem_startup(void);

/* the listener's side */
extern int	kafka_txn_find(int64 producer_id, int16 producer_epoch);
extern int	kafka_txn_find_producer(int64 producer_id, int16 *epoch);
extern int16 kafka_txn_claim(const KafkaTxnInfo *info, int per_role_limit,
							 int *slot, bool *fresh, uint64 *claim);
extern void kafka_txn_release(int slot);
extern bool kafka_txn_release_idle(int64 producer_id);
extern bool kafka_txn_unattached(int slot, uint64 claim);
extern void kafka_txn_release_unstarted(int slot, uint64 claim);
extern bool kafka_txn_post(int slot, int64 producer_id, int16 producer_epoch,
						   dsm_handle handle, Latch *reply, uint64 *ticket);
extern KafkaTxnResult kafka_txn_result(int slot, uint64 ticket);
extern void kafka_txn_request_abort(int slot);
extern uint64 kafka_txn_version(int slot);
extern bool kafka_txn_changed(int slot, uint64 seen);

/* the worker's side */
extern bool kafka_txn_attach(int slot, Latch *latch, KafkaTxnInfo *info);
extern bool kafka_txn_take(int slot, dsm_handle *handle, bool *abort);
extern bool kafka_txn_abort_requested(int slot);
extern bool kafka_txn_done(int slot, bool ended, bool idle);
extern KafkaTxnIdle kafka_txn_idle_state(int slot, bool leave,
										 KafkaTxnInfo *info);
extern void kafka_txn_detach(int slot);

#endif							/* TOPIC_KAFKA_TXNS_H */
