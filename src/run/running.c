/*-------------------------------------------------------------------------
 *
 * running.c
 *		ranread_running(): a running batch's live state, read by any session
 *		of its database from the run's shared memory (found through the
 *		registry), one row per worker and one for the batch in total.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "extension.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/registry.h"
#include "record/results.h"

PG_FUNCTION_INFO_V1(ranread_running);

/* Columns of ranread_running(), as its SQL declaration lists them. */
#define RUNNING_COLUMNS	18

/* What a worker is doing, from its slot. */
static const char *
worker_state(const RanreadShared *shared, const RanreadWorkerSlot *slot)
{
	if (slot->pid == 0)
		return "starting";
	if (!ranread_barrier_released((RanreadShared *) shared))
		return "waiting to start";
	if (slot->status == RANREAD_STATUS_RUNNING)
		return "reading";
	if (slot->recording)
		return "recording";
	return ranread_status_name(slot->status);
}

/* Seconds from the release until `end`, or until now if it is zero. */
static double
seconds_since_release(const RanreadShared *shared, instr_time end)
{
	if (!ranread_barrier_released((RanreadShared *) shared))
		return 0;
	if (INSTR_TIME_IS_ZERO(end))
		RANREAD_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, shared->release_time);
	return ranread_instr_time_s(end);
}

/*
 * Seconds left for worker `worker` (the batch if < 0), which has done `reads`
 * reads in `elapsed` seconds: until its duration ends, or until its
 * iterations are read at its rate so far, whichever comes first.
 */
static double
time_left(const RanreadShared *shared, int worker, uint64 reads, double elapsed)
{
	double		left = -1;
	double		target_reads = (double) shared->params.iterations * (worker < 0 ? shared->params.processes : 1);

	if (shared->params.duration_ns > 0)
		left = (double) shared->params.duration_ns / 1e9 - elapsed;
	if (target_reads > 0 && reads > 0)
	{
		double		by_reads = (target_reads - (double) reads) * elapsed / reads;

		left = left < 0 ? by_reads : Min(left, by_reads);
	}
	return Max(0.0, left);
}

/*
 * One row of ranread_running(): worker `worker` (0-based) of the running
 * batch, or with worker < 0 the batch in total, as `state` describes it and
 * `hist` (its reads so far) and `elapsed` measure it.
 */
static void
put_row(ReturnSetInfo *rsinfo, const RanreadShared *shared, int worker, int leader_pid,
		pid_t pid, const char *state, const RanreadHistogram *hist, double elapsed)
{
	Datum		values[RUNNING_COLUMNS];
	bool		nulls[RUNNING_COLUMNS] = {0};
	RanreadLatency latency;
	Name		target = palloc(NAMEDATALEN);
	int64		target_reads = 0;

	ranread_hist_latency(hist, &latency);
	namestrcpy(target, shared->params.target_name);

	values[0] = Int64GetDatum(shared->batch);
	values[1] = Int32GetDatum(leader_pid);
	values[2] = NameGetDatum(target);
	values[3] = CStringGetTextDatum(ranread_readpath_by_index(shared->params.readpath)->name);
	values[4] = Int32GetDatum(shared->params.processes);
	values[5] = Int32GetDatum(worker + 1);
	nulls[5] = worker < 0;
	values[6] = Int32GetDatum((int32) pid);
	nulls[6] = pid == 0;
	values[7] = CStringGetTextDatum(state);
	values[8] = Int64GetDatum((int64) hist->count);
	/* iterations × processes; NULL too if that does not fit in a bigint */
	nulls[9] = shared->params.iterations == 0 ||
		pg_mul_s64_overflow(shared->params.iterations, worker < 0 ? shared->params.processes : 1, &target_reads);
	values[9] = Int64GetDatum(target_reads);
	values[10] = Float8GetDatum(elapsed);
	values[11] = Float8GetDatum(time_left(shared, worker, hist->count, elapsed));
	nulls[11] = elapsed <= 0 || hist->count == 0;
	values[12] = Float8GetDatum(elapsed > 0 ? (double) hist->count / elapsed : 0);
	values[13] = Float8GetDatum(latency.mean_ms);
	values[14] = Float8GetDatum(latency.p99_ms);
	nulls[13] = nulls[14] = hist->count == 0;
	values[15] = Int64GetDatum(shared->params.sweep);
	values[16] = Int32GetDatum(shared->params.sweep_step);
	nulls[15] = nulls[16] = shared->params.sweep == 0;
	values[17] = Int32GetDatum(Max(shared->params.iodepth, 1));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Put one row per worker of the running batch and one (worker NULL) for the
 * batch in total: all its reads so far, over the longest worker's elapsed time.
 */
static void
put_running_rows(ReturnSetInfo *rsinfo, const RanreadShared *shared, int leader_pid)
{
	RanreadHistogram *hist = palloc(sizeof(RanreadHistogram));
	RanreadHistogram *total = palloc0(sizeof(RanreadHistogram));
	double		longest = 0;
	int			reading = 0;

	ranread_hist_init(total);
	for (int i = 0; i < shared->params.processes; i++)
	{
		const RanreadWorkerSlot *slot = &shared->slots[i];
		double		elapsed = seconds_since_release(shared, slot->end_time);
		const char *state = worker_state(shared, slot);

		/* the worker updates its histogram as it reads: take a copy */
		memcpy(hist, &slot->hist, sizeof(RanreadHistogram));
		put_row(rsinfo, shared, i, leader_pid, slot->pid, state, hist, elapsed);
		ranread_hist_merge(total, hist);
		longest = Max(longest, elapsed);
		if (strcmp(state, "reading") == 0)
			reading++;
	}
	/* writers alone (processes 0) have no reads to show: ranread_write_results will have their writes */
	put_row(rsinfo, shared, -1, leader_pid, leader_pid,
			shared->params.processes > 0 ? psprintf("%d of %d reading", reading, shared->params.processes) :
			pstrdup("writers alone"), total, longest);
}

/*
 * ranread_running(): one row per worker of the batch running now in this
 * database, and one for the batch in total, read from the run's shared memory (attached, read
 * only, for the call): reads done, elapsed time, IOPS, mean and p99 so far.  No rows when no batch
 * runs in this database (a batch of another database is not shown: its
 * numbers are that database's).  The segment is checked before it is read: a handle reused by
 * another segment, or a run that ended meanwhile, gives no rows.
 */
Datum
ranread_running(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dsm_handle	handle;
	int64		batch;
	dsm_segment *seg;
	const RanreadShared *shared;
	int			leader_pid;

	InitMaterializedSRF(fcinfo, 0);
	ranread_check_result_columns(rsinfo->setDesc, RUNNING_COLUMNS);
	batch = ranread_running_batch(false, NULL, &handle, NULL);
	if (batch == 0 || handle == DSM_HANDLE_INVALID)
		return (Datum) 0;
	seg = dsm_attach(handle);
	if (seg == NULL)
		return (Datum) 0;
	shared = dsm_segment_address(seg);
	if (dsm_segment_map_length(seg) < offsetof(RanreadShared, slots) ||
		shared->magic != RANREAD_SHARED_MAGIC || shared->batch != batch ||
		shared->database_id != MyDatabaseId ||
		shared->params.processes < 0 || shared->params.processes > RANREAD_MAX_PROCESSES ||
		dsm_segment_map_length(seg) < add_size(offsetof(RanreadShared, slots),
											   mul_size(shared->params.processes, sizeof(RanreadWorkerSlot))))
	{
		dsm_detach(seg);
		return (Datum) 0;
	}
	leader_pid = ProcGlobal->allProcs[shared->leader_pgprocno].pid;
	put_running_rows(rsinfo, shared, leader_pid);
	dsm_detach(seg);
	return (Datum) 0;
}
