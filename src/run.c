/*-------------------------------------------------------------------------
 *
 * run.c
 *		ranread_run(): the leader of one batch of timed random reads.
 *
 * The leader checks its arguments and the target, takes the cluster-wide
 * run lock, evicts the target from the OS page cache, and starts one
 * background worker per process with the run's parameters in a DSM segment.
 * No worker reads until every worker is connected and ready; the IOPS clock
 * starts when the leader releases them.  It then waits (cancellably) for all
 * workers to exit, and reports in RanRead's words what they measured.
 *
 * If the leader's statement is cancelled, times out, its session is
 * terminated or its client goes away, the DSM detach callback stops every
 * worker; they record what they measured with status "cancelled" and exit.
 * The run lock is session-level and held only while the run runs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_authid.h"
#include "catalog/namespace.h"
#include "commands/sequence.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/libpq.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bswap.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "compat.h"
#include "osstats.h"
#include "ranread.h"
#include "readpath.h"
#include "target.h"

/* How long the leader sleeps between checks while workers get ready. */
#define READY_POLL_MS	100

/* How long workers may take to connect and get ready to read. */
#define READY_TIMEOUT_S	60

/* How long a new run waits for the workers of an ended one to exit. */
#define LINGER_WAIT_MS	2000

/* Warn when more than this fraction of reads will re-read a block. */
#define REREAD_WARNING_FRACTION	0.05

/* Warn when less than this share of the bytes read came from storage. */
#define PHYSICAL_WARNING_PCT	95.0

/* Point out readahead when the kernel fetched this much more than asked. */
#define READAHEAD_NOTICE_PCT	110.0

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(ranread_run);

/* What the DSM detach callback needs: lives in TopTransactionContext. */
typedef struct RunState
{
	RanreadShared *shared;
	int			registered;
	BackgroundWorkerHandle **handles;
} RunState;

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
static void
release_run_locks(int64 batch)
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
 * Stop every worker of the run and let other runs start.  Runs when the
 * segment is detached on error, cancel or exit, so that no worker outlives
 * its caller.
 */
static void
stop_workers_on_detach(dsm_segment *seg, Datum arg)
{
	RunState   *run = (RunState *) DatumGetPointer(arg);
	int			i;

	pg_atomic_write_u32(&run->shared->stop_reason, RANREAD_STOP_CALLER_GONE);
	for (i = 0; i < run->registered; i++)
		TerminateBackgroundWorker(run->handles[i]);
	release_run_locks(run->shared->batch);
}

/*
 * Seconds in an interval, counting a month as 30 days (no overflow); -1 if
 * any part is negative, so that '-1 month 31 days' is not taken for 1 day.
 */
static double
interval_seconds(const Interval *span)
{
	if (span->time < 0 || span->day < 0 || span->month < 0)
		return -1;
	return (double) span->time / USECS_PER_SEC +
		((double) span->day + (double) span->month * DAYS_PER_MONTH) * SECS_PER_DAY;
}

/* ranread_run()'s arguments, in the order of its SQL signature. */
typedef enum RunArgument
{
	ARG_PROCESSES,
	ARG_ITERATIONS,
	ARG_TARGET,
	ARG_MODE,
	ARG_BLOCK_SIZE,
	ARG_DURATION,
	ARG_EVICT
} RunArgument;

/* Check ranread_run()'s arguments and fill in the run's parameters. */
static void
read_arguments(FunctionCallInfo fcinfo, RanreadParams *params)
{
	if (PG_ARGISNULL(ARG_PROCESSES) || PG_ARGISNULL(ARG_TARGET) || PG_ARGISNULL(ARG_MODE) ||
		PG_ARGISNULL(ARG_BLOCK_SIZE) || PG_ARGISNULL(ARG_EVICT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("processes, target, mode, block_size and evict must not be null")));
	if (PG_ARGISNULL(ARG_ITERATIONS) && PG_ARGISNULL(ARG_DURATION))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("iterations and duration must not both be null"),
				 errhint("Give iterations per process, a duration, or both (the run ends at whichever comes first).")));

	memset(params, 0, sizeof(RanreadParams));
	params->processes = PG_GETARG_INT32(ARG_PROCESSES);
	if (params->processes < 1 || params->processes > RANREAD_MAX_PROCESSES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes must be between 1 and %d", RANREAD_MAX_PROCESSES),
				 errdetail("The value given is %d.", params->processes)));
	if (!PG_ARGISNULL(ARG_ITERATIONS))
	{
		params->iterations = PG_GETARG_INT64(ARG_ITERATIONS);
		if (params->iterations < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("iterations must be at least 1"),
					 errdetail("The value given is " INT64_FORMAT ".", params->iterations)));
	}
	if (!PG_ARGISNULL(ARG_DURATION))
	{
		double		seconds = interval_seconds(PG_GETARG_INTERVAL_P(ARG_DURATION));

		if (seconds <= 0 || seconds > RANREAD_MAX_DURATION_S)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("duration must be positive and at most 7 days"),
					 errdetail("No part of the interval may be negative.")));
		params->duration_ns = (uint64) (seconds * 1e9);
	}

	params->readpath = ranread_readpath_index(ranread_readpath_by_name(text_to_cstring(PG_GETARG_TEXT_PP(ARG_MODE))));
	params->block_size = PG_GETARG_INT32(ARG_BLOCK_SIZE);
	if (params->block_size < BLCKSZ || params->block_size > RANREAD_MAX_BLOCK_SIZE ||
		params->block_size % BLCKSZ != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size must be a multiple of %d between %d and %d bytes",
						BLCKSZ, BLCKSZ, RANREAD_MAX_BLOCK_SIZE),
				 errdetail("The value given is %d.", params->block_size)));
	params->evict = PG_GETARG_BOOL(ARG_EVICT);
	namestrcpy((Name) params->target_name, NameStr(*PG_GETARG_NAME(ARG_TARGET)));
}

/* Workers connect as the calling role, which PostgreSQL 15 requires to have LOGIN. */
static void
check_role_can_login(void)
{
	HeapTuple	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	bool		can_login;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for role %u", GetUserId());
	can_login = ((Form_pg_authid) GETSTRUCT(tuple))->rolcanlogin;
	ReleaseSysCache(tuple);
	if (!can_login)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("role \"%s\" cannot log in, so ranread workers cannot connect as it",
						GetUserNameFromId(GetUserId(), false)),
				 errhint("Run ranread as a role with LOGIN (not after SET ROLE to a NOLOGIN role).")));
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

	for (int waited = 0; waited <= LINGER_WAIT_MS; waited += READY_POLL_MS)
	{
		pids = ranread_worker_pids();
		if (pids == NIL)
			return;
		(void) WaitLatch(MyLatch, WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, READY_POLL_MS,
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
static void
lock_out_other_runs(void)
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
static int64
start_batch(void)
{
	Oid			seq = get_relname_relid("ranread_batch_seq",
										get_namespace_oid(ranread_extension_schema(), false));
	int64		batch = DatumGetInt64(DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq)));
	LOCKTAG		tag;

	set_batch_lock_tag(&tag, batch);
	(void) LockAcquire(&tag, ShareLock, true, false);
	return batch;
}

/*
 * Uniform random reads revisit units: of R reads over U units, about
 * U * (1 - exp(-R / U)) touch a unit for the first time.  Every other read
 * re-reads a block this run has already brought into the OS page cache, and
 * may be answered from memory.  Warn before the run when that is more than a
 * few percent.
 */
static void
warn_about_rereads(const RanreadShared *shared)
{
	double		reads = (double) shared->params.processes * (double) shared->params.iterations;
	double		units = (double) shared->target_units;
	double		rereads;

	/* a time-based run's count is unknown */
	if ((ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE) ||
		shared->params.iterations == 0)
		return;
	rereads = 1.0 - units * (1.0 - exp(-reads / units)) / reads;
	if (rereads > REREAD_WARNING_FRACTION)
		ereport(WARNING,
				(errmsg("about %.0f%% of this run's reads will re-read a block read earlier in the run",
						rereads * 100.0),
				 errdetail("%.0f random reads over a target of %.0f read units; re-reads can be answered by the OS page cache instead of the device.",
						   reads, units),
				 errhint("Use fewer iterations or a larger target (ranread_setup).")));
}

static void
register_workers(RunState *run, dsm_segment *seg)
{
	RanreadShared *shared = run->shared;
	BackgroundWorker worker;
	int			i;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, "ranread", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "ranread_worker_main", BGW_MAXLEN);
	strlcpy(worker.bgw_type, RANREAD_WORKER_TYPE, BGW_MAXLEN);
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	for (i = 0; i < shared->params.processes; i++)
	{
		snprintf(worker.bgw_name, BGW_MAXLEN, "ranread worker %d of batch " INT64_FORMAT,
				 i + 1, shared->batch);
		memcpy(worker.bgw_extra, &i, sizeof(int));
		if (!RegisterDynamicBackgroundWorker(&worker, &run->handles[i]))
		{
			/* give the slots back before failing, so a retry finds them free */
			for (int j = 0; j < run->registered; j++)
				TerminateBackgroundWorker(run->handles[j]);
			for (int j = 0; j < run->registered; j++)
				(void) WaitForBackgroundWorkerShutdown(run->handles[j]);
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("could not start %d ranread workers", shared->params.processes),
					 errdetail("Only %d background worker slots were free; no block was read.", i),
					 errhint("You might need to increase max_worker_processes, or run with fewer processes.")));
		}
		run->registered++;
	}
}

/* Fail the run if worker i has exited before the barrier was released. */
static void
check_worker_alive(RunState *run, int i)
{
	pid_t		pid;

	if (GetBackgroundWorkerPid(run->handles[i], &pid) == BGWH_STOPPED)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread worker %d exited before the run started", i + 1),
				 run->shared->slots[i].error_message[0] != '\0' ?
				 errdetail("%s", run->shared->slots[i].error_message) :
				 errdetail("It may have been stopped by ranread_stop(); no block was read."),
				 errhint("See the server log.")));
}

/* Error out if the client has gone away while the leader waits. */
static void
check_client_connected(const RanreadShared *shared)
{
	if (!pq_check_connection())
		ereport(FATAL,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("connection to client lost during ranread batch " INT64_FORMAT,
						shared->batch)));
}

/*
 * Wait until every worker has exited (and so has recorded its rows).  Stays
 * cancellable, and notices a client that has gone away, so that the workers
 * of a vanished session are stopped rather than left to run to the end.
 */
static void
wait_until_all_exited(RunState *run)
{
	for (;;)
	{
		int			alive = 0;
		pid_t		pid;

		ResetLatch(MyLatch);
		for (int i = 0; i < run->shared->params.processes; i++)
		{
			if (GetBackgroundWorkerPid(run->handles[i], &pid) != BGWH_STOPPED)
				alive++;
		}
		if (alive == 0)
			return;
		check_client_connected(run->shared);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 READY_POLL_MS, PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Start the clock and let every worker read, unless a worker has withdrawn
 * from the barrier meanwhile (then returns false and nothing has started).
 */
static bool
try_release(RanreadShared *shared)
{
	uint32		all_ready = (uint32) shared->params.processes;
	Timestamp	local;

	shared->started_at = GetCurrentTimestamp();
	shared->run_date = DatumGetDateADT(DirectFunctionCall1(timestamptz_date,
														   TimestampTzGetDatum(shared->started_at)));
	local = DatumGetTimestamp(DirectFunctionCall1(timestamptz_timestamp,
												  TimestampTzGetDatum(shared->started_at)));
	shared->run_time = DatumGetTimeADT(DirectFunctionCall1(timestamp_time, TimestampGetDatum(local)));
	shared->run_time -= shared->run_time % USECS_PER_SEC;
	pg_atomic_write_u32(&shared->unrecorded, shared->params.processes);
	pg_atomic_write_u32(&shared->reading, shared->params.processes);

	shared->device.found = ranread_device_stats(&shared->device, &shared->device_start);
	INSTR_TIME_SET_CURRENT(shared->release_time);
	if (!pg_atomic_compare_exchange_u32(&shared->barrier, &all_ready,
										all_ready | RANREAD_BARRIER_RELEASED))
		return false;
	for (int i = 0; i < shared->params.processes; i++)
		SetLatch(&ProcGlobal->allProcs[shared->slots[i].pgprocno].procLatch);
	return true;
}

/*
 * Wait until every worker is connected and has opened its read path, then
 * start the clock and let them all read.  The wait is cancellable, notices a
 * lost client, and ends after READY_TIMEOUT_S whatever the workers wait for.
 */
static void
release_when_ready(RunState *run)
{
	RanreadShared *shared = run->shared;
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   READY_TIMEOUT_S * 1000);

	for (;;)
	{
		ResetLatch(MyLatch);
		if (pg_atomic_read_u32(&shared->barrier) == (uint32) shared->params.processes &&
			try_release(shared))
			return;
		for (int i = 0; i < shared->params.processes; i++)
			check_worker_alive(run, i);
		check_client_connected(shared);
		if (GetCurrentTimestamp() > deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("ranread workers did not get ready within %d s", READY_TIMEOUT_S),
					 errdetail("%u of %d workers were ready; no block was read.",
							   pg_atomic_read_u32(&shared->barrier), shared->params.processes),
					 errhint("See pg_stat_activity and pg_locks for what the others wait for.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 READY_POLL_MS, PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Report how the run ended; errors out if a worker failed. */
static void
report_run(const RanreadShared *shared, const RanreadBatchSummary *summary)
{
	const RanreadReadPath *readpath = ranread_readpath_by_index(shared->params.readpath);
	int			i;

	for (i = 0; i < shared->params.processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];

		if (slot->status == RANREAD_STATUS_RUNNING)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("ranread worker %d of batch " INT64_FORMAT " exited without reporting its results",
							i + 1, shared->batch),
					 errhint("See the server log.")));
		if (slot->status == RANREAD_STATUS_FAILED)
			ereport(ERROR,
					(errcode(ERRCODE_IO_ERROR),
					 errmsg("ranread worker %d of batch " INT64_FORMAT " failed: %s",
							i + 1, shared->batch, slot->error_message),
					 errdetail("What the workers measured before the failure is recorded with status \"failed\".")));
		if (!slot->recorded)
			ereport(WARNING,
					(errmsg("results of ranread worker %d of batch " INT64_FORMAT " were not recorded",
							i + 1, shared->batch),
					 errdetail("%s", slot->error_message),
					 errhint("The role running ranread needs INSERT on ranread_results and ranread_batches.")));
	}

	if (!shared->batch_recorded)
		ereport(WARNING,
				(errmsg("the summary row of ranread batch " INT64_FORMAT " was not recorded", shared->batch),
				 errdetail("See the server log for the reason."),
				 errhint("The role running ranread needs INSERT on ranread_batches.")));
	if (summary->reads == 0)
	{
		ereport(NOTICE,
				(errmsg("batch " INT64_FORMAT " read nothing (%s)",
						shared->batch, ranread_status_name(summary->status))));
		return;
	}
	ereport(NOTICE,
			(errmsg("%d processes (" INT64_FORMAT " iterations) average response time = %.2fms",
					shared->params.processes,
					shared->params.iterations > 0 ? shared->params.iterations : summary->reads / shared->params.processes,
					summary->latency.mean_ms)));
	ereport(NOTICE,
			(errmsg("Calculated IOPS = %.0f", summary->iops)));
	ereport(NOTICE,
			(errmsg("latency percentiles: p50 = %.2fms, p99 = %.2fms, max = %.2fms",
					summary->latency.p50_ms, summary->latency.p99_ms, summary->latency.max_ms)));
	if (summary->device_sampled)
		ereport(NOTICE,
				(errmsg("device %s: %.0f reads/s, average read wait %.2fms, %.0f%% utilised",
						shared->device.name, summary->device_reads_per_s,
						summary->device_read_wait_ms, summary->device_util_pct)));
	else
		ereport(NOTICE,
				(errmsg("no device statistics: the target's file system is not on a block device listed in /proc/diskstats")));
	if (readpath->flags & RANREAD_PATH_COUNTS_BUFFER_HITS)
		ereport(NOTICE,
				(errmsg("shared buffers: " INT64_FORMAT " hits, " INT64_FORMAT " misses",
						summary->buffer_hits, summary->buffer_misses)));
	if (summary->physical_pct < PHYSICAL_WARNING_PCT)
		ereport(WARNING,
				(errmsg("only %.0f%% of the bytes read in batch " INT64_FORMAT " were fetched from storage",
						summary->physical_pct, shared->batch),
				 errdetail("The rest was answered from memory (%s), so the latencies are not the device's.",
						   readpath->memory_hit),
				 errhint("Is the target smaller than twice the server's memory, was evict turned off, or was the target prewarmed?")));
	else if (summary->physical_pct > READAHEAD_NOTICE_PCT)
		ereport(NOTICE,
				(errmsg("the kernel fetched %.0f%% of the bytes requested: its readahead was part of each read",
						summary->physical_pct),
				 errhint("Mode %s issues each read of block_size bytes as one request, without readahead.",
						 ranread_readpath_names(RANREAD_PATH_BYPASSES_PAGE_CACHE))));
	if (summary->status != RANREAD_STATUS_COMPLETED)
		ereport(NOTICE,
				(errmsg("batch " INT64_FORMAT " was %s after " INT64_FORMAT " reads",
						shared->batch, ranread_status_name(summary->status), summary->reads)));
}

static Datum
result_row(FunctionCallInfo fcinfo, const RanreadShared *shared,
		   const RanreadBatchSummary *summary)
{
	TupleDesc	tupdesc;
	Datum		values[15];
	bool		nulls[15] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(shared->batch);
	values[1] = Int32GetDatum(shared->params.processes);
	values[2] = Int64GetDatum(shared->params.iterations);
	nulls[2] = shared->params.iterations == 0;
	values[3] = Float8GetDatum(summary->latency.mean_ms);
	values[4] = Float8GetDatum(summary->latency.p50_ms);
	values[5] = Float8GetDatum(summary->latency.p99_ms);
	values[6] = Float8GetDatum(summary->latency.max_ms);
	values[7] = Float8GetDatum(summary->iops);
	values[8] = Float8GetDatum(summary->mb_per_s);
	values[9] = CStringGetTextDatum(ranread_status_name(summary->status));
	values[10] = CStringGetTextDatum(ranread_readpath_by_index(shared->params.readpath)->name);
	values[11] = Int32GetDatum(shared->params.block_size);
	values[12] = Float8GetDatum(summary->physical_pct);
	values[13] = Int64GetDatum(summary->buffer_hits);
	nulls[13] = !(ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_COUNTS_BUFFER_HITS);
	values[14] = Float8GetDatum(summary->device_util_pct);
	nulls[14] = !summary->device_sampled;
	for (int i = 3; i <= 6; i++)
		nulls[i] = summary->reads == 0;
	nulls[12] = summary->reads == 0;
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

Datum
ranread_run(PG_FUNCTION_ARGS)
{
	RanreadParams params;
	Relation	target;
	dsm_segment *seg;
	RanreadShared *shared;
	RunState   *run;
	RanreadBatchSummary summary;
	Datum		result;
	char	   *first_segment;

	read_arguments(fcinfo, &params);
	check_role_can_login();
	target = ranread_target_open_for_run(params.target_name);
	if (RelationGetNumberOfBlocks(target) < (BlockNumber) (params.block_size / BLCKSZ))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d is larger than target \"%s\"", params.block_size, params.target_name)));

	/* the detach callback releases the run locks, so register it first */
	seg = dsm_create(RanreadSharedSize(params.processes), 0);
	shared = dsm_segment_address(seg);
	memset(shared, 0, RanreadSharedSize(params.processes));
	shared->params = params;
	shared->blocks_per_read = params.block_size / BLCKSZ;
	run = MemoryContextAllocZero(TopTransactionContext, sizeof(RunState));
	run->shared = shared;
	run->handles = MemoryContextAllocZero(TopTransactionContext,
										  sizeof(BackgroundWorkerHandle *) * shared->params.processes);
	on_dsm_detach(seg, stop_workers_on_detach, PointerGetDatum(run));

	lock_out_other_runs();
	shared->magic = RANREAD_SHARED_MAGIC;
	shared->batch = start_batch();
	shared->database_id = MyDatabaseId;
	shared->user_id = GetUserId();
	shared->leader_pgprocno = MyProc->pgprocno;
	shared->leader_pid = MyProcPid;
	shared->target_relid = RelationGetRelid(target);
	shared->target_node = RANREAD_REL_NODE(target);
	shared->target_blocks = RelationGetNumberOfBlocks(target);
	shared->target_units = shared->target_blocks / shared->blocks_per_read;
	shared->seed = pg_prng_uint64(&pg_global_prng_state);
	namestrcpy((Name) shared->schema_name, ranread_extension_schema());
	first_segment = psprintf("%s/%s", DataDir, ranread_segment_path(shared->target_node, 0));
	ranread_device_of(first_segment, &shared->device);
	pg_atomic_init_u32(&shared->barrier, 0);
	pg_atomic_init_u32(&shared->stop_reason, RANREAD_STOP_NONE);
	pg_atomic_init_u32(&shared->unrecorded, 0);
	pg_atomic_init_u32(&shared->reading, 0);

	if (ranread_readpath_by_index(shared->params.readpath)->check != NULL)
		ranread_readpath_by_index(shared->params.readpath)->check(shared);
	warn_about_rereads(shared);
	if (shared->params.evict)
		ranread_evict_from_page_cache(shared->target_node, shared->target_blocks);
	BecomeLockGroupLeader();
	register_workers(run, seg);
	release_when_ready(run);
	wait_until_all_exited(run);

	ranread_summarize_batch(shared, &summary);
	report_run(shared, &summary);

	result = result_row(fcinfo, shared, &summary);
	cancel_on_dsm_detach(seg, stop_workers_on_detach, PointerGetDatum(run));
	release_run_locks(shared->batch);
	dsm_detach(seg);
	relation_close(target, NoLock);
	PG_RETURN_DATUM(result);
}
