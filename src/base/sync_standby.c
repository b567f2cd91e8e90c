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
 * The reader waits the way a synchronous commit does: it joins
 * PostgreSQL's queue of backends waiting for the standby's flush, ordered
 * by LSN, and sleeps on its latch; the WAL sender that receives the
 * standby's confirmation takes it off the queue and sets the latch (and so
 * does the checkpointer when synchronous_standby_names becomes empty).
 * Unlike a commit, a cancelled reader ends with an error: it returns
 * nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/pg_control.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/wait_event.h"

#include "pg_topics/base/sync_standby.h"

bool		pg_topics_wait_for_sync_standby = false;
int			pg_topics_min_insync_replicas = 0;

/*
 * Join the queue of backends waiting for the synchronous standbys to reach
 * target (mode: write, flush or apply), keeping it ordered by LSN, one
 * backend per LSN, as the
 * WAL senders expect (they release waiters from its head); false, without
 * joining, when another backend waits for target already.  Caller holds
 * SyncRepLock exclusively.
 */
static bool
queue_for(XLogRecPtr target, int mode)
{
#if PG_VERSION_NUM >= 160000
	dlist_head *queue = &WalSndCtl->SyncRepQueue[mode];
	dlist_iter	iter;

	/* most waiters wait for the newest WAL: look from the tail */
	dlist_reverse_foreach(iter, queue)
	{
		PGPROC	   *proc = dlist_container(PGPROC, syncRepLinks, iter.cur);

		if (proc->waitLSN == target)
			return false;
		if (proc->waitLSN < target)
		{
			MyProc->waitLSN = target;
			MyProc->syncRepState = SYNC_REP_WAITING;
			dlist_insert_after(&proc->syncRepLinks, &MyProc->syncRepLinks);
			return true;
		}
	}
	MyProc->waitLSN = target;
	MyProc->syncRepState = SYNC_REP_WAITING;
	dlist_push_head(queue, &MyProc->syncRepLinks);
	return true;
#else
	SHM_QUEUE  *queue = &WalSndCtl->SyncRepQueue[mode];
	PGPROC	   *proc;

	/* most waiters wait for the newest WAL: look from the tail */
	proc = (PGPROC *) SHMQueuePrev(queue, queue, offsetof(PGPROC, syncRepLinks));
	while (proc != NULL && proc->waitLSN >= target)
	{
		if (proc->waitLSN == target)
			return false;
		proc = (PGPROC *) SHMQueuePrev(queue, &proc->syncRepLinks,
									   offsetof(PGPROC, syncRepLinks));
	}
	MyProc->waitLSN = target;
	MyProc->syncRepState = SYNC_REP_WAITING;
	SHMQueueInsertAfter(proc != NULL ? &proc->syncRepLinks : queue,
						&MyProc->syncRepLinks);
	return true;
#endif
}

/* Leave the queue (unless a WAL sender took us off it already) */
static void
leave_flush_queue(void)
{
	LWLockAcquire(SyncRepLock, LW_EXCLUSIVE);
#if PG_VERSION_NUM >= 160000
	if (!dlist_node_is_detached(&MyProc->syncRepLinks))
		dlist_delete_thoroughly(&MyProc->syncRepLinks);
#else
	if (!SHMQueueIsDetached(&MyProc->syncRepLinks))
		SHMQueueDelete(&MyProc->syncRepLinks);
#endif
	MyProc->syncRepState = SYNC_REP_NOT_WAITING;
	MyProc->waitLSN = InvalidXLogRecPtr;
	LWLockRelease(SyncRepLock);
}

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
	bool		done;

	if (!pg_topics_wait_for_sync_standby || RecoveryInProgress())
		return;

	/*
	 * The end of the last record inserted (not the next insert position,
	 * which may lie past a page header no WAL reaches yet); the walsender
	 * sends only flushed WAL, so flush it.
	 */
	target = GetXLogInsertEndRecPtr();
	XLogFlush(target);

	/*
	 * Usually the standby has it already: look with a shared lock first,
	 * then again with the exclusive one that queueing takes.  Without
	 * synchronous_standby_names there is nobody to wait for.
	 */
	LWLockAcquire(SyncRepLock, LW_SHARED);
	done = !sync_standbys_defined() ||
		WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH] >= target;
	LWLockRelease(SyncRepLock);
	if (done)
		return;
	for (;;)
	{
		bool		queued;

		LWLockAcquire(SyncRepLock, LW_EXCLUSIVE);
		if (!sync_standbys_defined() ||
			WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH] >= target)
		{
			LWLockRelease(SyncRepLock);
			return;
		}
		queued = queue_for(target, SYNC_REP_WAIT_FLUSH);
		LWLockRelease(SyncRepLock);
		if (queued)
			break;

		/*
		 * The queue keeps one backend per LSN, and another one (a commit,
		 * or a reader that came just before) waits for this one: wait for
		 * the end of an empty record of our own instead, which only
		 * follows it
		 */
		XLogBeginInsert();
		target = XLogInsert(RM_XLOG_ID, XLOG_NOOP);
		XLogFlush(target);
	}

	PG_TRY();
	{
		for (;;)
		{
			ResetLatch(MyLatch);

			/*
			 * Once a WAL sender marks us done it never touches our state
			 * again, so a stale read can only delay us to the next wake-up
			 */
			if (MyProc->syncRepState == SYNC_REP_WAIT_COMPLETE)
				break;
			CHECK_FOR_INTERRUPTS();
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1,
							 PG_WAIT_EXTENSION);
		}
	}
	PG_FINALLY();
	{
		/* a commit of this backend finds the queue as it expects it */
		leave_flush_queue();
	}
	PG_END_TRY();
}

/*
 * Synchronous standbys streaming now: WAL senders streaming to a standby
 * that synchronous_standby_names names (a priority above 0) and that has
 * reported a flush position, as PostgreSQL counts its candidates
 */
static int
streaming_sync_standbys(void)
{
	int			n = 0;
	int			i;

	for (i = 0; i < max_wal_senders; i++)
	{
		WalSnd	   *walsnd = &WalSndCtl->walsnds[i];
		pid_t		pid;
		WalSndState state;
		XLogRecPtr	flush;
		int			priority;

		SpinLockAcquire(&walsnd->mutex);
		pid = walsnd->pid;
		state = walsnd->state;
		flush = walsnd->flush;
		priority = walsnd->sync_standby_priority;
		SpinLockRelease(&walsnd->mutex);

		if (pid != 0 && state == WALSNDSTATE_STREAMING && priority > 0 &&
			!XLogRecPtrIsInvalid(flush))
			n++;
	}
	return n;
}

/*
 * pg_topics.min_insync_replicas, Kafka's min.insync.replicas: a write that
 * would be acknowledged with fewer synchronous standbys streaming than
 * required fails at once, rather than being acknowledged with fewer
 * copies (synchronous_standby_names empty or its standbys gone) or waiting
 * for a standby that is not there.  required is the setting, or what the
 * topic named topic_name (NULL: the setting's) asks with its
 * min.insync.replicas (topic_config_insync_standbys).  As in Kafka, where
 * the setting applies to producers with acks=all, only a commit that waits
 * for standbys is checked: not one with synchronous_commit = local or off.
 */
void
topic_check_insync_replicas(int required, const char *topic_name)
{
	int			streaming;

	if (required <= 0 || !SyncRepRequested() || RecoveryInProgress())
		return;
	streaming = streaming_sync_standbys();
	if (streaming >= required)
		return;
	if (topic_name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("too few synchronous standbys are streaming to accept records"),
				 errdetail_plural("%d synchronous standby is streaming, and pg_topics.min_insync_replicas requires %d.",
								  "%d synchronous standbys are streaming, and pg_topics.min_insync_replicas requires %d.",
								  streaming, streaming, required),
				 errhint("Bring back a standby that synchronous_standby_names names, or lower pg_topics.min_insync_replicas.")));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("too few synchronous standbys are streaming to accept records"),
			 errdetail_plural("%d synchronous standby is streaming, and min.insync.replicas %d of topic \"%s\" requires %d (the server counts as one replica).",
							  "%d synchronous standbys are streaming, and min.insync.replicas %d of topic \"%s\" requires %d (the server counts as one replica).",
							  streaming, streaming, required + 1, topic_name, required),
			 errhint("Bring back a standby that synchronous_standby_names names, or lower the topic's min.insync.replicas (topics.alter_topic_configs).")));
}

/*
 * For a process that answers many clients and cannot wait in a commit (the
 * Kafka listener): the wait mode a commit under the current
 * synchronous_commit would wait in for the synchronous standbys, or -1 if
 * it would not wait.
 */
int
topic_sync_commit_wait_mode(void)
{
	bool		defined;

	if (!SyncRepRequested())
		return SYNC_REP_NO_WAIT;
	LWLockAcquire(SyncRepLock, LW_SHARED);
	defined = sync_standbys_defined();
	LWLockRelease(SyncRepLock);
	if (!defined)
		return SYNC_REP_NO_WAIT;
	switch (synchronous_commit)
	{
		case SYNCHRONOUS_COMMIT_REMOTE_WRITE:
			return SYNC_REP_WAIT_WRITE;
		case SYNCHRONOUS_COMMIT_REMOTE_APPLY:
			return SYNC_REP_WAIT_APPLY;
		default:
			return SYNC_REP_WAIT_FLUSH;
	}
}

/* Have the synchronous standbys reached lsn in mode (or are there none)? */
bool
topic_sync_standby_reached(XLogRecPtr lsn, int mode)
{
	bool		reached;

	LWLockAcquire(SyncRepLock, LW_SHARED);
	reached = !sync_standbys_defined() || WalSndCtl->lsn[mode] >= lsn;
	LWLockRelease(SyncRepLock);
	return reached;
}

/*
 * Have the WAL senders set this process's latch once the standbys reach
 * lsn in mode (leaving whatever it waited for before): false if that
 * cannot be asked now (another backend waits for exactly lsn, or the
 * standbys are there already), and the caller looks again soon instead.
 */
bool
topic_sync_standby_notify(XLogRecPtr lsn, int mode)
{
	static int	queued_mode = -1;
	bool		queued = false;

	/* asked for that already, and not answered yet */
	if (MyProc->syncRepState == SYNC_REP_WAITING && MyProc->waitLSN == lsn &&
		queued_mode == mode)
		return true;
	topic_sync_standby_notify_cancel();
	queued_mode = mode;
	LWLockAcquire(SyncRepLock, LW_EXCLUSIVE);
	if (sync_standbys_defined() && WalSndCtl->lsn[mode] < lsn)
		queued = queue_for(lsn, mode);
	LWLockRelease(SyncRepLock);
	return queued;
}

/* Stop waiting for topic_sync_standby_notify's LSN */
void
topic_sync_standby_notify_cancel(void)
{
#if PG_VERSION_NUM >= 160000
	if (MyProc->syncRepState != SYNC_REP_NOT_WAITING ||
		!dlist_node_is_detached(&MyProc->syncRepLinks))
		leave_flush_queue();
#else
	if (MyProc->syncRepState != SYNC_REP_NOT_WAITING ||
		!SHMQueueIsDetached(&MyProc->syncRepLinks))
		leave_flush_queue();
#endif
}
