/*-------------------------------------------------------------------------
 *
 * run.c
 *		ranread_run_batch(), and ranread_run() around it: the leader of one
 *		batch of timed random reads.
 *
 * ranread_run_batch() is the one entry of a batch: ranread_run() (at the
 * end of this file) reads its SQL arguments into a RanreadParams
 * (run_arguments.c), calls it and returns the batch's row; a sweep step
 * (sweep.c) calls it the same way, with its sweep and step in the
 * RanreadParams and its stop flag as an argument.
 *
 * The leader checks the caller and the target, takes the cluster-wide
 * run lock, and starts one background worker per process with the run's
 * parameters in a DSM segment, so that a run without enough worker slots
 * fails before anything else is said or done; a run that would re-read
 * units (run_rules.c) is refused before that, unless allow_rereads.  While
 * the workers connect it warns about re-reads (if allowed) and evicts the
 * target from the OS page cache (and, for a path through asynchronous I/O,
 * from shared buffers first).  No worker reads until every worker is connected and ready; the IOPS clock
 * starts when the leader releases them (counting, after the ramp if any).
 * While they read, it samples them at every interval boundary into the
 * batch's series (series.c) and applies the steady-state rule; then it waits
 * (cancellably) for all workers to exit, and reports in RanRead's words what
 * they measured.
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
#include <signal.h>

#include "access/relation.h"
#include "common/pg_prng.h"
#include "fmgr.h"
#include "libpq/libpq.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "batch_warnings.h"
#include "compat.h"
#include "extension.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/registry.h"
#include "run/report.h"
#include "record/results.h"
#include "run/run.h"
#include "run/run_arguments.h"
#include "readpath/run_memory.h"
#include "os/segments.h"
#include "record/interval_activity.h"
#include "record/series.h"
#include "rules/bucket_rules.h"
#include "rules/series_rules.h"
#include "record/checkpoint_window.h"
#include "record/db_activity.h"
#include "record/io_worker_bytes.h"
#include "record/stat_io.h"
#include "run/target.h"
#include "run/worker.h"
#include "run/write_target.h"

/* How long the leader sleeps between checks while workers get ready. */
#define READY_POLL_MS	100

/* How long workers may take to connect and get ready to read. */
#define READY_TIMEOUT_S	60

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(ranread_run);

/*
 * The size of a run's shared memory: the fixed part and one slot per worker,
 * then for an open-loop run one service-time histogram per worker, then
 * with writers one slot per writer, then the per-interval series with room
 * for every interval of the run (a run without a duration gets
 * RANREAD_SERIES_ITERATIONS_CAPACITY).
 */
static Size
ranread_shared_layout(const RanreadParams *params, Size *service_offset, Size *writer_offset,
					  Size *series_offset, int *series_capacity)
{
	Size		size = add_size(offsetof(RanreadShared, slots),
								mul_size(params->processes, sizeof(RanreadWorkerSlot)));

	*service_offset = 0;
	if (params->rate_iops > 0)
	{
		*service_offset = MAXALIGN(size);
		size = add_size(*service_offset, mul_size(params->processes, sizeof(RanreadHistogram)));
	}
	*writer_offset = 0;
	if (params->writers > 0)
	{
		*writer_offset = MAXALIGN(size);
		size = add_size(*writer_offset, mul_size(params->writers, sizeof(RanreadWriterSlot)));
	}
	if (params->duration_ns > 0)
		*series_capacity = (int) Min(RANREAD_SERIES_MAX_CAPACITY,
									 params->duration_ns / params->sample_interval_ns + 2);
	else
		*series_capacity = RANREAD_SERIES_ITERATIONS_CAPACITY;
	*series_offset = MAXALIGN(size);
	return add_size(*series_offset, ranread_series_size(*series_capacity));
}

/* What the DSM detach callback needs: lives in TopTransactionContext. */
typedef struct RunState
{
	RanreadShared *shared;
	int			registered;
	BackgroundWorkerHandle **handles;
	volatile sig_atomic_t *stop;	/* the caller's stop flag, or NULL */
	bool		stopped_by_caller;	/* *stop was set: workers told to stop */
} RunState;

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
	ranread_release_run_locks(run->shared->batch, dsm_segment_handle(seg));
}

/*
 * RegisterDynamicBackgroundWorker(), its handle allocated where the RunState
 * lives: the detach callback reads it when the transaction aborts, after the
 * caller's memory (an SPI call's, a layers run's) may have been freed and
 * reused (a cancelled layers run crashed there).
 */
static bool
register_worker_handle(BackgroundWorker *worker, BackgroundWorkerHandle **handle)
{
	MemoryContext caller = MemoryContextSwitchTo(TopTransactionContext);
	bool		registered = RegisterDynamicBackgroundWorker(worker, handle);

	MemoryContextSwitchTo(caller);
	return registered;
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
	strlcpy(worker.bgw_type, RANREAD_WORKER_TYPE, BGW_MAXLEN);
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	for (i = 0; i < (int) ranread_barrier_workers(shared); i++)
	{
		int			n = i < shared->params.processes ? i : i - shared->params.processes;

		/* the writers after the readers, each numbered from 1 in bgw_extra's terms from 0 */
		strlcpy(worker.bgw_function_name,
				i < shared->params.processes ? "ranread_worker_main" : "ranread_writer_main", BGW_MAXLEN);
		snprintf(worker.bgw_name, BGW_MAXLEN, "ranread %s %d of batch " INT64_FORMAT,
				 i < shared->params.processes ? "worker" : "writer", n + 1, shared->batch);
		memcpy(worker.bgw_extra, &n, sizeof(int));
		if (!register_worker_handle(&worker, &run->handles[i]))
		{
			/* give the slots back before failing, so a retry finds them free */
			for (int j = 0; j < run->registered; j++)
				TerminateBackgroundWorker(run->handles[j]);
			for (int j = 0; j < run->registered; j++)
				(void) WaitForBackgroundWorkerShutdown(run->handles[j]);
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("could not start %d ranread workers", (int) ranread_barrier_workers(shared)),
					 errdetail("Only %d background worker slots were free; no block was read.", i),
					 errhint("You might need to increase max_worker_processes, or run with fewer processes or writers.")));
		}
		run->registered++;
	}
}

/*
 * Fail the run if worker i (a reader, or writer i - processes) has exited
 * before the barrier was released.
 */
static void
check_worker_alive(RunState *run, int i)
{
	pid_t		pid;
	int			processes = run->shared->params.processes;
	const char *error = i < processes ? run->shared->slots[i].error_message :
		ranread_writer_slot(run->shared, i - processes)->error_message;

	if (GetBackgroundWorkerPid(run->handles[i], &pid) == BGWH_STOPPED)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 i < processes ? errmsg("ranread worker %d exited before the run started", i + 1) :
				 errmsg("ranread writer %d exited before the run started", i - processes + 1),
				 error[0] != '\0' ?
				 errdetail("%s", error) :
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

/* Ask every worker to stop reading and every writer to stop writing, as ranread_stop() does. */
static void
stop_reading(RanreadShared *shared)
{
	for (int i = 0; i < shared->params.processes; i++)
	{
		if (shared->slots[i].pid != 0)
			(void) kill(shared->slots[i].pid, RANREAD_STOP_SIGNAL);
	}
	for (int i = 0; i < shared->params.writers; i++)
	{
		if (ranread_writer_slot(shared, i)->pid != 0)
			(void) kill(ranread_writer_slot(shared, i)->pid, RANREAD_STOP_SIGNAL);
	}
}

/*
 * Whether the running batch's series is steady by the steady-state rule.
 * A sweep's drain (params.drain) is steady only on the intervals after a
 * burst bucket ran empty (bucket_rules.c): a burst is a steady level too,
 * and a drain that ended on it would hand the steps a full bucket; without
 * a shift the drain reads to its duration.
 */
static bool
series_steady(RanreadShared *shared)
{
	RanreadSeries *series = ranread_series_of(shared);
	int			window = (int) (shared->params.steady_window_ns / shared->params.sample_interval_ns);
	int			from = 0;

	if (shared->params.drain)
	{
		RanreadBucket bucket;

		if (ranread_series_find_bucket(series->intervals, series->count, shared->params.processes,
									   &bucket) != RANREAD_BUCKET_FOUND)
			return false;
		from = bucket.full - bucket.after;
	}
	return ranread_series_is_steady(series->intervals + from, series->count - from, window,
									shared->params.steady_band_pct, shared->params.processes);
}

/*
 * While the workers read: at the end of the ramp, sample the device's
 * counters; at every interval boundary, add an interval to the series and
 * apply the steady-state rule.  Returns how long to sleep until the next
 * thing to do, at most READY_POLL_MS.
 */
static long
follow_reading(RanreadShared *shared)
{
	RanreadSeries *series = ranread_series_of(shared);
	instr_time	now;
	instr_time	next;
	long		sleep_ms;
	long		checkpoint_ms;

	RANREAD_TIME_SET_CURRENT(now);
	if (pg_atomic_read_u32(&shared->reading) == 0)
		return READY_POLL_MS;
	if (!shared->device_start_taken &&
		ranread_instr_time_s(now) >= ranread_instr_time_s(shared->count_from))
	{
		RANREAD_TIME_SET_CURRENT(shared->device_start_time);
		shared->device.found = ranread_device_stats(&shared->device, &shared->device_start);
		shared->device_start_taken = true;
		ranread_interval_activity_start(shared, &ranread_series_of(shared)->counters);
	}
	checkpoint_ms = ranread_checkpoint_follow(shared, now);
	next = ranread_series_next_boundary(shared);
	/* the series is of reads: writers alone have none */
	if (shared->params.processes > 0 && ranread_instr_time_s(now) >= ranread_instr_time_s(next))
	{
		ranread_series_sample(shared, now);
		if (shared->params.steady_window_ns > 0 && series->steady_at_s < 0 && series_steady(shared))
		{
			RanreadInterval *last = &series->intervals[series->count - 1];

			series->steady_at_s = last->start_s + last->seconds;
			pg_atomic_write_u32(&shared->stop_reason, RANREAD_STOP_STEADY_STATE);
			stop_reading(shared);
		}
		next = ranread_series_next_boundary(shared);
	}
	INSTR_TIME_SUBTRACT(next, now);
	sleep_ms = (long) ceil((ranread_instr_time_ns(next) / 1e6));
	if (checkpoint_ms >= 0)
		sleep_ms = Min(sleep_ms, checkpoint_ms);
	return Max(1, Min(READY_POLL_MS, sleep_ms));
}

/*
 * Wait until every worker has exited (and so has recorded its rows),
 * following the run meanwhile.  Stays cancellable, and notices a client that
 * has gone away, so that the workers of a vanished session are stopped
 * rather than left to run to the end.
 */
static void
wait_until_all_exited(RunState *run)
{
	for (;;)
	{
		int			alive = 0;
		pid_t		pid;
		long		sleep_ms;

		ResetLatch(MyLatch);
		for (int i = 0; i < (int) ranread_barrier_workers(run->shared); i++)
		{
			if (GetBackgroundWorkerPid(run->handles[i], &pid) != BGWH_STOPPED)
				alive++;
		}
		if (alive == 0)
			return;
		check_client_connected(run->shared);
		/* ranread_stop() signals a sweep's session, which stops its step */
		if (!run->stopped_by_caller && run->stop != NULL && *run->stop)
		{
			stop_reading(run->shared);
			run->stopped_by_caller = true;
		}
		sleep_ms = follow_reading(run->shared);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 sleep_ms, PG_WAIT_EXTENSION);
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
	uint32		all_ready = ranread_barrier_workers(shared);
	Timestamp	local;

	/* the database's counters from here, once every worker and writer is ready */
	if (shared->params.writers > 0)
		ranread_db_activity_take(&shared->activity_start, shared->write_target_relid);
	shared->started_at = GetCurrentTimestamp();
	shared->run_date = DatumGetDateADT(DirectFunctionCall1(timestamptz_date,
														   TimestampTzGetDatum(shared->started_at)));
	local = DatumGetTimestamp(DirectFunctionCall1(timestamptz_timestamp,
												  TimestampTzGetDatum(shared->started_at)));
	shared->run_time = DatumGetTimeADT(DirectFunctionCall1(timestamp_time, TimestampGetDatum(local)));
	shared->run_time -= shared->run_time % USECS_PER_SEC;
	pg_atomic_write_u32(&shared->unrecorded, ranread_barrier_workers(shared));
	/* with no readers, the writers end the run, and stand in for the readers in this count */
	pg_atomic_write_u32(&shared->reading, shared->params.processes > 0 ?
						shared->params.processes : shared->params.writers);

	if (shared->params.ramp_ns == 0)
	{
		shared->device_start_taken = shared->device.found =
			ranread_device_stats(&shared->device, &shared->device_start);
		ranread_interval_activity_start(shared, &ranread_series_of(shared)->counters);
	}
	RANREAD_TIME_SET_CURRENT(shared->release_time);
	shared->count_from = ranread_instr_time_from_ns(ranread_instr_time_ns(shared->release_time) +
													shared->params.ramp_ns);
	shared->device_start_time = shared->count_from;
	ranread_series_of(shared)->last_sample = shared->count_from;
	if (!pg_atomic_compare_exchange_u32(&shared->barrier, &all_ready,
										all_ready | RANREAD_BARRIER_RELEASED))
		return false;
	for (int i = 0; i < shared->params.processes; i++)
		SetLatch(&ProcGlobal->allProcs[shared->slots[i].pgprocno].procLatch);
	for (int i = 0; i < shared->params.writers; i++)
		SetLatch(&ProcGlobal->allProcs[ranread_writer_slot(shared, i)->pgprocno].procLatch);
	return true;
}

/*
 * Wait until every worker is connected and has opened its read path (and,
 * with start_at, until that time), then start the clock and let them all
 * read.  The wait is cancellable, notices a lost client, and ends after
 * READY_TIMEOUT_S whatever the workers wait for.  Within its last
 * millisecond the wait for start_at sleeps to the microsecond.
 */
static void
release_when_ready(RunState *run)
{
	RanreadShared *shared = run->shared;
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   READY_TIMEOUT_S * 1000);

	for (;;)
	{
		bool		all_ready;
		bool		due = true;
		long		wait_ms = READY_POLL_MS;

		ResetLatch(MyLatch);
		all_ready = pg_atomic_read_u32(&shared->barrier) == ranread_barrier_workers(shared);
		if (all_ready && shared->params.start_at != 0)
		{
			int64		until_us = shared->params.start_at - GetCurrentTimestamp();

			/* ready: the timeout runs from start_at, not from the start of the wait */
			deadline = Max(deadline, TimestampTzPlusMilliseconds(shared->params.start_at,
																  READY_TIMEOUT_S * 1000));
			if (until_us > 1000)
			{
				due = false;
				wait_ms = (long) Min((int64) wait_ms, until_us / 1000);
			}
			else if (until_us > 0)
				pg_usleep(until_us);
		}
		if (all_ready && due && try_release(shared))
			return;
		for (int i = 0; i < (int) ranread_barrier_workers(shared); i++)
			check_worker_alive(run, i);
		check_client_connected(shared);
		if (GetCurrentTimestamp() > deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("ranread workers did not get ready within %d s", READY_TIMEOUT_S),
					 errdetail("%u of %d workers were ready; no block was read.",
							   pg_atomic_read_u32(&shared->barrier), (int) ranread_barrier_workers(shared)),
					 errhint("See pg_stat_activity and pg_locks for what the others wait for.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Refuse a batch that its open target cannot serve: a block size larger
 * than the target, or more reads than its units where the run may not
 * re-read; and with free_slots >= 0, one whose workers need more background
 * worker slots than are free (ranread_refuse_rereads()).
 */
void
ranread_check_batch_target(const RanreadParams *params, Relation target, int free_slots)
{
	if (RelationGetNumberOfBlocks(target) < (BlockNumber) (params->block_size / BLCKSZ))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d is larger than target \"%s\"", params->block_size, params->target_name)));
	ranread_refuse_rereads(params, RelationGetNumberOfBlocks(target) / (params->block_size / BLCKSZ), free_slots);
}

/*
 * Run one batch with checked parameters (ranread_read_run_arguments()), as
 * the current user, and say what it measured.  stop, if not NULL, is the
 * caller's flag, set by its signal handler: once set, the leader stops the
 * workers when they read (so none withdraws at the start barrier), and the
 * batch ends as stopped.  *outcome gets the batch's number and status.
 */
void
ranread_run_batch(const RanreadParams *params, volatile sig_atomic_t *stop,
				  RanreadBatchOutcome *outcome)
{
	Relation	target;
	Relation	write_target;
	dsm_segment *seg;
	RanreadShared *shared;
	RunState   *run;
	RanreadBatchSummary summary;
	char	   *first_segment;
	Size		size;
	Size		service_offset;
	Size		writer_offset;
	Size		series_offset;
	int			series_capacity;
	int32		write_rows = 0;

	ranread_check_role_can_login();
	ranread_check_can_read_summary();
	/* first the writers' refusals: on a standby, the read target cannot be opened either */
	write_target = params->writers > 0 ? ranread_write_target_open_for_run(params, &write_rows) : NULL;
	target = ranread_target_open_for_run(params->target_name);
	/* every limit the run meets said at once, before a batch number is drawn */
	ranread_check_batch_target(params, target, ranread_wait_for_worker_slots(params->processes + params->writers));

	/* the detach callback releases the run locks, so register it first */
	size = ranread_shared_layout(params, &service_offset, &writer_offset, &series_offset, &series_capacity);
	seg = dsm_create(size, 0);
	shared = dsm_segment_address(seg);
	memset(shared, 0, size);
	shared->params = *params;
	shared->service_offset = service_offset;
	shared->writer_offset = writer_offset;
	shared->series_offset = series_offset;
	shared->series_capacity = series_capacity;
	pg_atomic_init_flag(&ranread_series_of(shared)->busy);
	ranread_checkpoint_window_init(shared);
	ranread_series_of(shared)->steady_at_s = -1;
	for (int i = 0; i < params->processes; i++)
	{
		pg_atomic_init_u64(&shared->slots[i].interval_max_ns, 0);
		if (service_offset != 0)
			ranread_hist_init(ranread_service_hist(shared, i));
	}
	for (int i = 0; i < params->writers; i++)
		ranread_hist_init(&ranread_writer_slot(shared, i)->hist);
	shared->blocks_per_read = params->block_size / BLCKSZ;
	run = MemoryContextAllocZero(TopTransactionContext, sizeof(RunState));
	run->shared = shared;
	run->handles = MemoryContextAllocZero(TopTransactionContext,
										  sizeof(BackgroundWorkerHandle *) * ranread_barrier_workers(shared));
	run->stop = stop;
	on_dsm_detach(seg, stop_workers_on_detach, PointerGetDatum(run));

	ranread_lock_out_other_runs();
	shared->magic = RANREAD_SHARED_MAGIC;
	shared->batch = ranread_start_batch(dsm_segment_handle(seg));
	shared->database_id = MyDatabaseId;
	shared->user_id = GetUserId();
	shared->leader_pgprocno = ranread_my_proc_number();
	shared->leader_pid = MyProcPid;
	shared->target_relid = RelationGetRelid(target);
	shared->target_file = RANREAD_REL_FILE(target);
	shared->target_blocks = RelationGetNumberOfBlocks(target);
	shared->target_units = shared->target_blocks / shared->blocks_per_read;
	if (write_target != NULL)
	{
		shared->write_target_relid = RelationGetRelid(write_target);
		shared->write_rows = write_rows;
	}
	shared->seed = params->seed != 0 ? params->seed : pg_prng_uint64(&pg_global_prng_state);
	namestrcpy((Name) shared->schema_name, ranread_extension_schema());
	/* the device's counters are those of the target read, or with writers alone of the one written */
	first_segment = ranread_first_segment_absolute_path(params->processes == 0 && write_target != NULL ?
														RANREAD_REL_FILE(write_target) : shared->target_file);
	ranread_device_of(first_segment, &shared->device);
	pg_atomic_init_u32(&shared->barrier, 0);
	pg_atomic_init_u32(&shared->stop_reason, RANREAD_STOP_NONE);
	pg_atomic_init_u32(&shared->unrecorded, 0);
	pg_atomic_init_u32(&shared->reading, 0);

	if (ranread_readpath_by_index(shared->params.readpath)->check != NULL)
		ranread_readpath_by_index(shared->params.readpath)->check(shared);
	BecomeLockGroupLeader();
	register_workers(run, seg);
	ranread_batch_warnings_begin();
	ranread_warn_about_rereads(shared);
	if (shared->params.evict && params->processes > 0 &&
		(ranread_readpath_by_index(shared->params.readpath)->flags & RANREAD_PATH_AIO))
		ranread_evict_relation_buffers(target);
	if (shared->params.evict && params->processes > 0)
		ranread_evict_from_page_cache(shared->target_file, shared->target_blocks);
	ranread_stat_io_begin(shared);
	ranread_io_worker_bytes_begin(shared);
	release_when_ready(run);
	wait_until_all_exited(run);

	ranread_summarize_batch(shared, &summary);
	ranread_report_run(shared, &summary);
	ranread_warn_about_io_uring_refusals(shared);
	ranread_record_warnings(shared, ranread_batch_warnings_end());
	outcome->batch = shared->batch;
	outcome->recorded = shared->batch_recorded;
	outcome->status = summary.status;

	cancel_on_dsm_detach(seg, stop_workers_on_detach, PointerGetDatum(run));
	ranread_release_run_locks(shared->batch, dsm_segment_handle(seg));
	dsm_detach(seg);
	relation_close(target, NoLock);
	if (write_target != NULL)
		relation_close(write_target, NoLock);
}

/*
 * ranread_run(processes, iterations, ...): one batch of timed random reads
 * (sql/src/run.sql declares its arguments, run_arguments.h lists them and
 * docs/reference.md describes each).  Returns the figures that
 * decide, from the batch's row of ranread_summary (one query away for the
 * rest), or NULL after a WARNING when it could not be recorded or read back.
 */
Datum
ranread_run(PG_FUNCTION_ARGS)
{
	RanreadRunArgs args;
	RanreadParams params;
	RanreadBatchOutcome outcome;
	Datum		result;
	bool		isnull;

	ranread_check_sql_version();
	/* the row the caller expects, checked before anything runs */
	(void) ranread_result_row_desc(fcinfo, RANREAD_RUN_RESULT_COLUMNS);
	ranread_run_args_from_call(fcinfo, &args);
	ranread_read_run_arguments(&args, &params);
	ranread_run_batch(&params, NULL, &outcome);
	result = ranread_result_row(fcinfo, &outcome, &isnull);
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}
