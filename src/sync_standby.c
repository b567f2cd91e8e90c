/*-------------------------------------------------------------------------
 *
 * sync_standby.c
 *	  pg_topics.wait_for_sync_standby: consumers see a record only once the
 *	  synchronous standby has flushed its commit, as Kafka's consumers see
 *	  records only below the high watermark its in-sync replicas reached.
 *
 * A producer's synchronous commit waits for the standby while it still
 * counts as running, so readers do not see it earlier anyway -- unless its
 * wait was cancelled (the client got a WARNING), or it committed with
 * synchronous_commit = local or off.  Then the record is visible on the
 * primary but may be missing on the standby that a failover promotes, and
 * a consumer that read it would have read something that vanishes.  This
 * closes that.
 *
 * We know no commit LSN per record (a synchronous commit leaves none in
 * the commit log), so a reader that is about to return records waits
 * until the standby has flushed WAL up to the end of the last record
 * inserted after reading: every commit its snapshot showed ends there or
 * before.  The
 * price is at most one replication round trip per read that returns
 * something; a read that returns nothing never waits.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "replication/syncrep.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/wait_event.h"

#include "pg_topics.h"
#include "sync_standby.h"

bool		pg_topics_wait_for_sync_standby = false;

/* How often to look at the standby's confirmed position while waiting */
#define SYNC_STANDBY_RECHECK_MS 1

/*
 * Does synchronous_standby_names name anyone?  The checkpointer publishes
 * it in shared memory; minor releases since 15.14 or so keep it as flags,
 * with a state before the checkpointer first looked (then the setting
 * itself decides, as in SyncRepWaitForLSN).  Caller holds SyncRepLock.
 */
static bool
sync_standbys_defined(void)
{
#ifdef SYNC_STANDBY_DEFINED
	if (!(WalSndCtl->sync_standbys_status & SYNC_STANDBY_INIT))
		return SyncRepStandbyNames != NULL && SyncRepStandbyNames[0] != '\0';
	return (WalSndCtl->sync_standbys_status & SYNC_STANDBY_DEFINED) != 0;
#else
	return WalSndCtl->sync_standbys_defined;
#endif
}

/*
 * Called by fetch and poll before they hand out records: wait, as long as
 * it takes (cancel and statement_timeout end it with an error), until the
 * synchronous standbys confirm every commit this backend can see.
 */
void
topic_wait_for_sync_standby(void)
{
	XLogRecPtr	target;

	if (!pg_topics_wait_for_sync_standby || RecoveryInProgress())
		return;

	/*
	 * The end of the last record inserted (not the next insert position,
	 * which may lie past a page header no WAL reaches yet); the walsender
	 * sends only flushed WAL, so flush it.
	 */
	target = GetXLogInsertEndRecPtr();
	XLogFlush(target);

	for (;;)
	{
		bool		defined;
		XLogRecPtr	confirmed;

		LWLockAcquire(SyncRepLock, LW_SHARED);
		defined = sync_standbys_defined();
		confirmed = WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH];
		LWLockRelease(SyncRepLock);

		/* without synchronous_standby_names there is nobody to wait for */
		if (!defined || confirmed >= target)
			break;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 SYNC_STANDBY_RECHECK_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}
