/*-------------------------------------------------------------------------
 *
 * run_arguments.c
 *		ranread_run()'s arguments, checked and turned into a RanreadParams,
 *		and the caller's fitness to run (workers connect as the caller).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "ranread.h"
#include "readpath.h"
#include "run.h"
#include "run_memory.h"
#include "series.h"
#include "sweep.h"

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
	ARG_EVICT,
	ARG_RAMP,
	ARG_SAMPLE_INTERVAL,
	ARG_STEADY_STATE,
	ARG_STEADY_BAND_PCT,
	ARG_RATE_IOPS,
	ARG_ARRIVALS,
	ARG_IODEPTH,
	ARG_ALLOW_REREADS
} RunArgument;

/* A duration argument in ns; 0 if NULL.  Refuses negative parts and more than 7 days. */
static uint64
duration_argument(FunctionCallInfo fcinfo, RunArgument arg, const char *name)
{
	double		seconds;

	if (PG_ARGISNULL(arg))
		return 0;
	seconds = interval_seconds(PG_GETARG_INTERVAL_P(arg));
	if (seconds < 0 || seconds > RANREAD_MAX_DURATION_S)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between 0 and 7 days", name),
				 errdetail("No part of the interval may be negative.")));
	return (uint64) (seconds * 1e9);
}

/*
 * The arguments that shape a run over time: ramp, sample_interval, the
 * steady-state rule and the open loop.  Each combination that cannot be met
 * is refused before anything starts.
 */
static void
read_time_arguments(FunctionCallInfo fcinfo, RanreadParams *params)
{
	if (PG_ARGISNULL(ARG_SAMPLE_INTERVAL) || PG_ARGISNULL(ARG_STEADY_BAND_PCT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sample_interval and steady_band_pct must not be null")));
	params->ramp_ns = duration_argument(fcinfo, ARG_RAMP, "ramp");
	if (params->duration_ns > 0 && params->ramp_ns >= params->duration_ns)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ramp must be shorter than duration"),
				 errdetail("The ramp is the first part of the duration, read but not counted.")));

	params->sample_interval_ns = duration_argument(fcinfo, ARG_SAMPLE_INTERVAL, "sample_interval");
	if (params->sample_interval_ns < RANREAD_MIN_SAMPLE_INTERVAL_MS * UINT64CONST(1000000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_interval must be at least %d ms", RANREAD_MIN_SAMPLE_INTERVAL_MS),
				 errdetail("Shorter intervals would measure the leader's sampling more than the device.")));
	if (params->duration_ns / params->sample_interval_ns > RANREAD_SERIES_MAX_CAPACITY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a duration of %.0f s has more than %d intervals of sample_interval",
						(double) params->duration_ns / 1e9, RANREAD_SERIES_MAX_CAPACITY),
				 errhint("Use a longer sample_interval.")));

	params->steady_window_ns = duration_argument(fcinfo, ARG_STEADY_STATE, "steady_state");
	params->steady_band_pct = PG_GETARG_FLOAT8(ARG_STEADY_BAND_PCT);
	if (!(params->steady_band_pct > 0 && params->steady_band_pct < 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steady_band_pct must be above 0 and below 100"),
				 errdetail("The value given is %g.", params->steady_band_pct)));
	if (params->steady_window_ns > 0)
	{
		if (params->duration_ns == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("steady_state needs a duration"),
					 errhint("The steady-state rule ends a time-based run early; give duration as its limit.")));
		if (params->steady_window_ns < 2 * params->sample_interval_ns ||
			params->steady_window_ns > params->duration_ns - params->ramp_ns)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("steady_state must span at least two sample intervals and fit in the duration after the ramp"),
					 errdetail("The window is %.1f s, sample_interval %.1f s, and the duration after the ramp %.1f s.",
							   (double) params->steady_window_ns / 1e9,
							   (double) params->sample_interval_ns / 1e9,
							   (double) (params->duration_ns - params->ramp_ns) / 1e9)));
	}

	if (!PG_ARGISNULL(ARG_RATE_IOPS))
	{
		params->rate_iops = PG_GETARG_FLOAT8(ARG_RATE_IOPS);
		if (!(params->rate_iops > 0 && params->rate_iops <= RANREAD_MAX_RATE_IOPS))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rate_iops must be above 0 and at most %.0f", RANREAD_MAX_RATE_IOPS),
					 errdetail("The value given is %g.", params->rate_iops)));
	}
	if (!PG_ARGISNULL(ARG_ARRIVALS))
	{
		char	   *arrivals = text_to_cstring(PG_GETARG_TEXT_PP(ARG_ARRIVALS));

		if (params->rate_iops == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("arrivals needs rate_iops"),
					 errhint("arrivals says how the reads of an open-loop run are spaced.")));
		if (pg_strcasecmp(arrivals, "poisson") == 0)
			params->poisson = true;
		else if (pg_strcasecmp(arrivals, "uniform") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown arrivals \"%s\"", arrivals),
					 errhint("Use 'uniform' or 'poisson'.")));
	}
}

/*
 * iodepth: reads in flight per worker.  Above 1 it needs a read path that
 * queues (mode 'direct', through io_uring), and a closed loop: an open-loop
 * run issues each read at its due time, one in flight per process.  Whether
 * io_uring is available is the read path's check(), before any worker starts.
 */
static void
read_iodepth_argument(FunctionCallInfo fcinfo, RanreadParams *params)
{
	const RanreadReadPath *path = ranread_readpath_by_index(params->readpath);

	if (PG_ARGISNULL(ARG_IODEPTH))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("iodepth must not be null"),
				 errhint("iodepth => 1 keeps one read in flight per process.")));
	params->iodepth = PG_GETARG_INT32(ARG_IODEPTH);
	if (params->iodepth < 1 || params->iodepth > RANREAD_MAX_IODEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iodepth must be between 1 and %d", RANREAD_MAX_IODEPTH),
				 errdetail("The value given is %d.", params->iodepth)));
	if (params->iodepth > 1 && !(path->flags & RANREAD_PATH_QUEUES))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode '%s' keeps one read in flight per process, so iodepth must be 1", path->name),
				 errhint("Use mode %s for iodepth above 1.", ranread_readpath_names(RANREAD_PATH_QUEUES))));
	if (params->iodepth > 1 && params->rate_iops > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rate_iops cannot be combined with iodepth above 1"),
				 errdetail("An open-loop run issues each read when it is due, one read in flight per process."),
				 errhint("Use iodepth => 1 with rate_iops, or leave rate_iops out.")));
}

/* Check ranread_run()'s arguments and fill in the run's parameters. */
void
ranread_read_run_arguments(FunctionCallInfo fcinfo, RanreadParams *params)
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
	if (PG_ARGISNULL(ARG_ALLOW_REREADS))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("allow_rereads must not be null")));
	params->allow_rereads = PG_GETARG_BOOL(ARG_ALLOW_REREADS);
	namestrcpy((Name) params->target_name, NameStr(*PG_GETARG_NAME(ARG_TARGET)));
	read_time_arguments(fcinfo, params);
	read_iodepth_argument(fcinfo, params);
	ranread_check_run_memory(params->processes, params->iodepth, params->block_size,
							 ranread_readpath_by_index(params->readpath));
	ranread_sweep_current_step(&params->sweep, &params->sweep_step);
}

/* Workers connect as the calling role, which PostgreSQL 15 requires to have LOGIN. */
void
ranread_check_role_can_login(void)
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
