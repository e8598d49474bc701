/*-------------------------------------------------------------------------
 *
 * registry.c
 *		Which batch runs: the cluster-wide run lock, the batch number the
 *		leader advertises while its run lasts, and the workers alive.
 *
 * Both are session-level advisory locks in database 0 (InvalidOid), where
 * SQL's pg_advisory_lock(), which always locks in the current database,
 * cannot reach: no role can take, imitate or block them.  pg_locks shows
 * them with database 0 and classid RANREAD_LOCK_RUN or RANREAD_LOCK_BATCH.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/wait_event.h"

#include "extension.h"
#include "ranread.h"
#include "run.h"

/* How long a new run waits for the workers of an ended one to exit. */
#define LINGER_WAIT_MS	2000
#define LINGER_POLL_MS	100

static void
set_run_lock_tag(LOCKTAG *tag)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, RANREAD_LOCK_RUN, 0, 2);
}

static void
set_batch_lock_tag(LOCKTAG *tag, int64 batch)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, RANREAD_LOCK_BATCH, (uint32) batch, 2);
}

/*
 * Release the session-level run locks if this backend still holds them (at
 * backend exit, PostgreSQL may already have released all session locks).
 */
void
ranread_release_run_locks(int64 batch)
{
	LOCKTAG		tag;

	set_batch_lock_tag(&tag, batch);
	if (LockHeldByMe(&tag, ShareLock))
		LockRelease(&tag, ShareLock, true);
	set_run_lock_tag(&tag);
	if (LockHeldByMe(&tag, ExclusiveLock))
		LockRelease(&tag, ExclusiveLock, true);
}

/*
 * PIDs of every ranread worker in the cluster, whoever runs it (the process
 * array and the background worker registry, not pg_stat_activity, which
 * hides other roles' backend types).
 */
List *
ranread_worker_pids(void)
{
	List	   *pids = NIL;
	List	   *workers = NIL;
	ListCell   *lc;

	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (uint32 i = 0; i < ProcGlobal->allProcCount; i++)
	{
		if (ProcGlobal->allProcs[i].pid != 0)
			pids = lappend_int(pids, ProcGlobal->allProcs[i].pid);
	}
	LWLockRelease(ProcArrayLock);

	foreach(lc, pids)
	{
		const char *type = GetBackgroundWorkerTypeByPid(lfirst_int(lc));

		if (type != NULL && strcmp(type, RANREAD_WORKER_TYPE) == 0)
			workers = lappend_int(workers, lfirst_int(lc));
	}
	return workers;
}

/*
 * Workers of an ended run may still be exiting (or, terminated while they
 * record, logging what they measured): wait a little for them, then refuse
 * to start a run that would overlap them.
 */
static void
wait_for_earlier_workers(void)
{
	List	   *pids = NIL;

	for (int waited = 0; waited <= LINGER_WAIT_MS; waited += LINGER_POLL_MS)
	{
		pids = ranread_worker_pids();
		if (pids == NIL)
			return;
		(void) WaitLatch(MyLatch, WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, LINGER_POLL_MS,
						 PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
	ereport(ERROR,
			(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
			 errmsg("ranread workers of an earlier batch are still running"),
			 errdetail("%d workers, the first with process ID %d, had not exited after %d ms.",
					   list_length(pids), linitial_int(pids), LINGER_WAIT_MS),
			 errhint("Wait for them to finish recording, or stop them with ranread_stop().")));
}

/*
 * Take the cluster-wide run lock (session-level, held only while the run
 * runs), or fail naming the batch that holds it.
 */
void
ranread_lock_out_other_runs(void)
{
	LOCKTAG		tag;
	int64		running_batch;
	int			leader_pid;

	set_run_lock_tag(&tag);
	if (LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
	{
		wait_for_earlier_workers();
		return;
	}

	running_batch = ranread_running_batch(&leader_pid);
	if (running_batch == 0)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("another ranread run is starting"),
				 errhint("Wait for it to finish, or stop it with ranread_stop().")));
	ereport(ERROR,
			(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
			 errmsg("ranread batch " INT64_FORMAT " is already running", running_batch),
			 errdetail("Only one run at a time can measure the storage; batch " INT64_FORMAT " was started by process %d.",
					   running_batch, leader_pid),
			 errhint("Wait for it to finish, or stop it with ranread_stop().")));
}

/*
 * The batch running now, as its leader advertises it with the batch advisory
 * lock, and (if leader_pid is given) the leader's process ID; 0 if none.
 * ranread's locks are in database 0, where no SQL-level advisory lock can be
 * taken (pg_advisory_lock() uses the current database), so no role can
 * pretend that a batch runs.
 */
int64
ranread_running_batch(int *leader_pid)
{
	int64		batch = 0;

	SPI_connect();
	if (SPI_execute(psprintf("SELECT objid::bigint, pid FROM pg_catalog.pg_locks "
							 "WHERE locktype OPERATOR(pg_catalog.=) 'advisory' "
							 "AND database OPERATOR(pg_catalog.=) 0 "
							 "AND classid OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid "
							 "AND objsubid OPERATOR(pg_catalog.=) 2 AND granted "
							 "ORDER BY objid DESC LIMIT 1",
							 (uint32) RANREAD_LOCK_BATCH), true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		bool		isnull;

		batch = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											SPI_tuptable->tupdesc, 1, &isnull));
		if (leader_pid != NULL)
			*leader_pid = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
													  SPI_tuptable->tupdesc, 2, &isnull));
	}
	SPI_finish();
	return batch;
}

/* Draw the next batch number and advertise it while the run lasts. */
int64
ranread_start_batch(void)
{
	Oid			seq = get_relname_relid("ranread_batch_seq",
										get_namespace_oid(ranread_extension_schema(), false));
	int64		batch = DatumGetInt64(DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq)));
	LOCKTAG		tag;

	set_batch_lock_tag(&tag, batch);
	(void) LockAcquire(&tag, ShareLock, true, false);
	return batch;
}
