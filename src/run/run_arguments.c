/*-------------------------------------------------------------------------
 *
 * run_arguments.c
 *		ranread_run()'s arguments, checked and turned into a RanreadParams,
 *		and the caller's fitness to run (workers connect as the caller).
 *
 * The arguments arrive by name in a RanreadRunArgs (run_arguments.h): from
 * the SQL call of ranread_run(), or from a sweep step, which starts from
 * ranread_run()'s defaults as its SQL signature declares them (read from the
 * catalog, so that they are written once) and sets the arguments it steps.
 * A new run parameter is a value of RunArgument and its checks here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/dependency.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_proc.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/datum.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "extension.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/run_arguments.h"
#include "readpath/run_memory.h"
#include "record/series.h"

/*
 * The OID of the extension's ranread_run(): the one function of that name
 * that is a member of the extension, whatever its schema and whatever else
 * is called so.
 */
Oid
ranread_run_function(void)
{
	Oid			extension = ranread_extension_oid();
	CatCList   *candidates = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum("ranread_run"));
	Oid			function = InvalidOid;

	for (int i = 0; i < candidates->n_members && !OidIsValid(function); i++)
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(&candidates->members[i]->tuple);

		if (getExtensionOfObject(ProcedureRelationId, proc->oid) == extension)
			function = proc->oid;
	}
	ReleaseSysCacheList(candidates);
	if (!OidIsValid(function))
		elog(ERROR, "function ranread_run() of extension ranread not found");
	return function;
}

/* The names of ranread_run()'s arguments, in RunArgument's order. */
static const char *const run_argument_names[RUN_ARG_COUNT] = {
	[RUN_ARG_PROCESSES] = "processes",
	[RUN_ARG_ITERATIONS] = "iterations",
	[RUN_ARG_TARGET] = "target",
	[RUN_ARG_MODE] = "mode",
	[RUN_ARG_BLOCK_SIZE] = "block_size",
	[RUN_ARG_DURATION] = "duration",
	[RUN_ARG_EVICT] = "evict",
	[RUN_ARG_RAMP] = "ramp",
	[RUN_ARG_SAMPLE_INTERVAL] = "sample_interval",
	[RUN_ARG_STEADY_STATE] = "steady_state",
	[RUN_ARG_STEADY_BAND_PCT] = "steady_band_pct",
	[RUN_ARG_RATE_IOPS] = "rate_iops",
	[RUN_ARG_ARRIVALS] = "arrivals",
	[RUN_ARG_IODEPTH] = "iodepth",
	[RUN_ARG_ALLOW_REREADS] = "allow_rereads",
	[RUN_ARG_PREFETCH] = "prefetch",
	[RUN_ARG_DISTRIBUTION] = "distribution",
	[RUN_ARG_START_AT] = "start_at",
	[RUN_ARG_WRITERS] = "writers",
	[RUN_ARG_WRITE_RATE_IOPS] = "write_rate_iops",
	[RUN_ARG_WRITE_TARGET] = "write_target",
	[RUN_ARG_CHECKPOINT] = "checkpoint",
};

/*
 * Refuse a ranread_run() whose SQL signature is not the one this library
 * reads: another number of arguments, or an argument of another name at a
 * place (an install script and a library of different versions).
 */
static void
check_signature(HeapTuple tuple)
{
	Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tuple);
	Oid		   *types;
	char	  **names;
	char	   *modes;
	int			count = get_func_arg_info(tuple, &types, &names, &modes);

	if (proc->pronargs != RUN_ARG_COUNT)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread_run() is declared with %d arguments, but library ranread reads %d",
						proc->pronargs, RUN_ARG_COUNT),
				 errhint("Update the extension to the library's version: ALTER EXTENSION ranread UPDATE.")));
	/* get_func_arg_info() names OUT arguments too; sql/src/run.sql declares them last */
	for (int i = 0; i < RUN_ARG_COUNT; i++)
		if (names == NULL || i >= count || strcmp(names[i], run_argument_names[i]) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("argument %d of ranread_run() is declared as \"%s\", but library ranread reads it as \"%s\"",
							i + 1, names && i < count ? names[i] : "", run_argument_names[i]),
					 errhint("Update the extension to the library's version: ALTER EXTENSION ranread UPDATE.")));
}

/* Look up ranread_run() (`function`) and check its signature. */
static void
check_function_signature(Oid function)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(function));

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for function %u", function);
	check_signature(tuple);
	ReleaseSysCache(tuple);
}

/* The arguments of an SQL call of ranread_run(). */
void
ranread_run_args_from_call(FunctionCallInfo fcinfo, RanreadRunArgs *args)
{
	check_function_signature(fcinfo->flinfo->fn_oid);
	for (int i = 0; i < RUN_ARG_COUNT; i++)
	{
		args->isnull[i] = PG_ARGISNULL(i);
		args->value[i] = args->isnull[i] ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
}

/*
 * The defaults of ranread_run() (`function`) as its SQL signature declares
 * them, copied into the current memory context; an argument without a
 * default is NULL.
 */
void
ranread_run_args_defaults(Oid function, RanreadRunArgs *args)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(function));
	Datum		defaults_text;
	bool		isnull;
	List	   *defaults = NIL;
	int			first;
	ListCell   *lc;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for function %u", function);
	check_signature(tuple);
	defaults_text = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_proargdefaults, &isnull);
	if (!isnull)
		defaults = castNode(List, stringToNode(TextDatumGetCString(defaults_text)));
	ReleaseSysCache(tuple);

	for (int i = 0; i < RUN_ARG_COUNT; i++)
	{
		args->value[i] = (Datum) 0;
		args->isnull[i] = true;
	}
	first = RUN_ARG_COUNT - list_length(defaults);
	foreach(lc, defaults)
	{
		Node	   *expr = eval_const_expressions(NULL, (Node *) lfirst(lc));
		Const	   *value;
		int			i = first + foreach_current_index(lc);

		if (!IsA(expr, Const))
			elog(ERROR, "default of argument %d of ranread_run() is not a constant", i + 1);
		value = castNode(Const, expr);
		args->isnull[i] = value->constisnull;
		if (!value->constisnull)
			args->value[i] = datumCopy(value->constvalue, value->constbyval, value->constlen);
	}
}

/*
 * Seconds in an interval, counting a month as 30 days (no overflow); -1 if
 * any part is negative, so that '-1 month 31 days' is not taken for 1 day.
 */
double
ranread_interval_seconds(const Interval *span)
{
	if (span->time < 0 || span->day < 0 || span->month < 0)
		return -1;
	return (double) span->time / USECS_PER_SEC +
		((double) span->day + (double) span->month * DAYS_PER_MONTH) * SECS_PER_DAY;
}

/* A duration argument in ns; 0 if NULL.  Refuses negative parts and more than 7 days. */
static uint64
duration_argument(const RanreadRunArgs *args, RunArgument arg)
{
	double		seconds;

	if (args->isnull[arg])
		return 0;
	seconds = ranread_interval_seconds(DatumGetIntervalP(args->value[arg]));
	if (seconds < 0 || seconds > RANREAD_MAX_DURATION_S)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between 0 and 7 days", run_argument_names[arg]),
				 errdetail("No part of the interval may be negative.")));
	return (uint64) (seconds * 1e9);
}

/*
 * The arguments that shape a run over time: ramp, sample_interval, the
 * steady-state rule and the open loop.  Each combination that cannot be met
 * is refused before anything starts.
 */
static void
read_time_arguments(const RanreadRunArgs *args, RanreadParams *params)
{
	if (args->isnull[RUN_ARG_SAMPLE_INTERVAL] || args->isnull[RUN_ARG_STEADY_BAND_PCT])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sample_interval and steady_band_pct must not be null")));
	params->ramp_ns = duration_argument(args, RUN_ARG_RAMP);
	if (params->duration_ns > 0 && params->ramp_ns >= params->duration_ns)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ramp must be shorter than duration"),
				 errdetail("The ramp is the first part of the duration, read but not counted.")));

	params->sample_interval_ns = duration_argument(args, RUN_ARG_SAMPLE_INTERVAL);
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

	params->steady_window_ns = duration_argument(args, RUN_ARG_STEADY_STATE);
	params->steady_band_pct = DatumGetFloat8(args->value[RUN_ARG_STEADY_BAND_PCT]);
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

	if (!args->isnull[RUN_ARG_RATE_IOPS])
	{
		params->rate_iops = DatumGetFloat8(args->value[RUN_ARG_RATE_IOPS]);
		if (!(params->rate_iops > 0 && params->rate_iops <= RANREAD_MAX_RATE_IOPS))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rate_iops must be above 0 and at most %.0f", RANREAD_MAX_RATE_IOPS),
					 errdetail("The value given is %g.", params->rate_iops)));
	}
	if (!args->isnull[RUN_ARG_ARRIVALS])
	{
		char	   *arrivals = text_to_cstring(DatumGetTextPP(args->value[RUN_ARG_ARRIVALS]));

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
 * queues (mode 'direct' through io_uring, or a read stream), and a closed
 * loop: an open-loop run issues each read at its due time, one in flight per
 * process, which a read stream, starting reads as far ahead as it may, never
 * does.  The path's check_iodepth() refuses a depth the server cannot keep
 * in flight; whether io_uring is available is the read path's check(),
 * before any worker starts.
 */
static void
read_iodepth_argument(const RanreadRunArgs *args, RanreadParams *params)
{
	const RanreadReadPath *path = ranread_readpath_by_index(params->readpath);

	if (args->isnull[RUN_ARG_IODEPTH])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("iodepth must not be null"),
				 errhint("iodepth => 1 keeps one read in flight per process.")));
	params->iodepth = DatumGetInt32(args->value[RUN_ARG_IODEPTH]);
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
	if (path->stream != NULL && params->rate_iops > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rate_iops cannot be combined with mode '%s'", path->name),
				 errdetail("A read stream starts each read as far ahead as its look-ahead allows, not when the read is due."),
				 errhint("Leave rate_iops out, or use another mode for an open-loop run.")));
	if (path->check_iodepth != NULL)
		path->check_iodepth(params->iodepth, params->block_size / BLCKSZ);
}

/*
 * prefetch: units advised ahead of each read, as PostgreSQL 15 to 17 advise
 * the kernel ahead of a bitmap heap scan; for a path that prefetches, one
 * read in flight, closed loop.
 */
static void
read_prefetch_argument(const RanreadRunArgs *args, RanreadParams *params)
{
	const RanreadReadPath *path = ranread_readpath_by_index(params->readpath);

	if (args->isnull[RUN_ARG_PREFETCH])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("prefetch must not be null"),
				 errhint("prefetch => 0 advises nothing ahead.")));
	params->prefetch = DatumGetInt32(args->value[RUN_ARG_PREFETCH]);
	if (params->prefetch < 0 || params->prefetch > RANREAD_MAX_IODEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("prefetch must be between 0 and %d", RANREAD_MAX_IODEPTH),
				 errdetail("The value given is %d.", params->prefetch)));
	if (params->prefetch == 0)
		return;
	if (!(path->flags & RANREAD_PATH_PREFETCHES))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode '%s' cannot prefetch", path->name),
				 errhint("Use mode %s with prefetch.", ranread_readpath_names(RANREAD_PATH_PREFETCHES))));
	if (params->iodepth > 1 || params->rate_iops > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("prefetch cannot be combined with %s", params->iodepth > 1 ? "iodepth above 1" : "rate_iops"),
				 errdetail("prefetch advises the reads ahead of one read in flight per process, in a closed loop.")));
}

/*
 * start_at: the wall-clock time at which the workers are released, so that
 * runs on several servers start together (ranread_fleet_run()).  It must
 * lie ahead, by at most RANREAD_MAX_START_WAIT_S: a run holds its worker
 * slots and the run lock while it waits.
 */
static void
read_start_at_argument(const RanreadRunArgs *args, RanreadParams *params)
{
	TimestampTz now = GetCurrentTimestamp();

	if (args->isnull[RUN_ARG_START_AT])
		return;
	params->start_at = DatumGetTimestampTz(args->value[RUN_ARG_START_AT]);
	if (params->start_at <= now ||
		params->start_at > TimestampTzPlusMilliseconds(now, RANREAD_MAX_START_WAIT_S * 1000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("start_at must lie ahead, by at most %d s", RANREAD_MAX_START_WAIT_S),
				 errdetail("start_at is %.3f s from now on this server's clock.",
						   (double) (params->start_at - now) / USECS_PER_SEC)));
}

/*
 * writers and write_rate_iops: writers beside the readers, writing open loop
 * at write_rate_iops all together, to write_target (which must not be the
 * read target).  A rate without writers, or writers without a rate, is a
 * mistake rather than a default.
 */
static void
read_writer_arguments(const RanreadRunArgs *args, RanreadParams *params)
{
	if (args->isnull[RUN_ARG_WRITERS] || args->isnull[RUN_ARG_WRITE_TARGET])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("writers and write_target must not be null")));
	params->writers = DatumGetInt32(args->value[RUN_ARG_WRITERS]);
	if (params->writers < 0 || params->writers > RANREAD_MAX_PROCESSES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("writers must be between 0 and %d", RANREAD_MAX_PROCESSES),
				 errdetail("The value given is %d.", params->writers)));
	if (params->writers == 0)
	{
		if (!args->isnull[RUN_ARG_WRITE_RATE_IOPS])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("write_rate_iops needs writers"),
					 errhint("Give writers => N as well, or leave write_rate_iops out.")));
		return;
	}
	if (args->isnull[RUN_ARG_WRITE_RATE_IOPS])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("writers need a write_rate_iops"),
				 errhint("Writers write open loop: give write_rate_iops, the writes per second of all writers together.")));
	if (params->duration_ns == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("writers need a duration"),
				 errdetail("The WAL they may generate, write_rate_iops for the whole duration, is checked against the free space of pg_wal before they start."),
				 errhint("Give duration as well; iterations may still end the run earlier.")));
	params->write_rate_iops = DatumGetFloat8(args->value[RUN_ARG_WRITE_RATE_IOPS]);
	/* (NaN fails every comparison, so it is refused too) */
	if (!(params->write_rate_iops > 0 && params->write_rate_iops <= RANREAD_MAX_RATE_IOPS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("write_rate_iops must be positive and at most %.0f", RANREAD_MAX_RATE_IOPS),
				 errdetail("The value given is %g.", params->write_rate_iops)));
	/* at least one write a writer in the run: a slower rate would schedule writes after its end */
	if (params->write_rate_iops * ((double) params->duration_ns / 1e9) < params->writers)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("write_rate_iops %g gives each of the %d writers less than one write in %.0f s",
						params->write_rate_iops, params->writers, (double) params->duration_ns / 1e9),
				 errhint("Raise write_rate_iops or duration, or use fewer writers.")));
	namestrcpy((Name) params->write_target_name, NameStr(*DatumGetName(args->value[RUN_ARG_WRITE_TARGET])));
	if (strcmp(params->write_target_name, params->target_name) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("write_target must not be the read target \"%s\"", params->target_name),
				 errhint("Writers write only to a write target made by ranread_setup_writes().")));
}

/*
 * checkpoint: NULL, or 'during' for a fast checkpoint a third into the run
 * (checkpoint_window.c).  It needs writers, or it would write only what
 * others dirtied, and the privileges CHECKPOINT itself needs, since the run
 * asks the checkpointer as that command does.
 */
static void
read_checkpoint_argument(const RanreadRunArgs *args, RanreadParams *params)
{
	char	   *checkpoint;

	if (args->isnull[RUN_ARG_CHECKPOINT])
		return;
	checkpoint = text_to_cstring(DatumGetTextPP(args->value[RUN_ARG_CHECKPOINT]));
	if (strcmp(checkpoint, "during") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("checkpoint must be 'during' or NULL, not \"%s\"", checkpoint),
				 errhint("checkpoint => 'during' asks for a checkpoint a third into the run.")));
	if (params->writers == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("checkpoint => 'during' needs writers"),
				 errdetail("The checkpoint writes the pages the writers dirtied; without them it would write only what other sessions did."),
				 errhint("Give writers and write_rate_iops as well.")));
	if (!has_privs_of_role(GetUserId(), ROLE_PG_CHECKPOINT))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to request a checkpoint"),
				 errdetail("Only roles with privileges of the \"%s\" role may run with checkpoint => 'during', as only they may execute CHECKPOINT.",
						   "pg_checkpoint")));
	params->checkpoint_during = true;
}

/*
 * processes => 0: writers alone (RanWrite), which end at the duration.  It
 * needs writers, and takes none of the arguments that only shape reads: each
 * would be a mistake rather than a default.
 */
static void
check_writers_alone(const RanreadRunArgs *args, RanreadParams *params)
{
	const char *read_argument = NULL;

	if (params->processes > 0)
		return;
	params->evict = false;		/* nothing is read, so nothing is evicted */
	if (params->writers == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes => 0 needs writers"),
				 errdetail("A run without readers is writers alone; without writers it would do nothing."),
				 errhint("Give writers, write_rate_iops and duration as well, or processes of at least 1.")));
	if (!args->isnull[RUN_ARG_ITERATIONS])
		read_argument = "iterations";
	else if (params->ramp_ns > 0)
		read_argument = "ramp";
	else if (params->steady_window_ns > 0)
		read_argument = "steady_state";
	else if (params->rate_iops > 0)
		read_argument = "rate_iops";
	else if (params->prefetch > 0)
		read_argument = "prefetch";
	else if (params->iodepth > 1)
		read_argument = "iodepth";
	if (read_argument != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s cannot be combined with processes => 0", read_argument),
				 errdetail("%s shapes the reads, and a run with processes => 0 has none.", read_argument),
				 errhint("Leave %s out, or give processes of at least 1.", read_argument)));
	if (params->checkpoint_during)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("checkpoint => 'during' cannot be combined with processes => 0"),
				 errdetail("Its verdict compares the reads inside the checkpoint with those outside, and a run with processes => 0 has none."),
				 errhint("Give processes of at least 1 with checkpoint => 'during'.")));
}

/*
 * Check ranread_run()'s arguments and fill in the run's parameters; a batch
 * of a sweep is the caller's to mark (sweep, sweep_step).
 */
void
ranread_read_run_arguments(const RanreadRunArgs *args, RanreadParams *params)
{
	const RanreadReadPath *path;

	if (args->isnull[RUN_ARG_PROCESSES] || args->isnull[RUN_ARG_TARGET] || args->isnull[RUN_ARG_MODE] ||
		args->isnull[RUN_ARG_BLOCK_SIZE] || args->isnull[RUN_ARG_EVICT])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("processes, target, mode, block_size and evict must not be null")));
	if (args->isnull[RUN_ARG_ITERATIONS] && args->isnull[RUN_ARG_DURATION])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("iterations and duration must not both be null"),
				 errhint("Give iterations per process, a duration, or both (the run ends at whichever comes first).")));

	memset(params, 0, sizeof(RanreadParams));
	params->processes = DatumGetInt32(args->value[RUN_ARG_PROCESSES]);
	if (params->processes < 0 || params->processes > RANREAD_MAX_PROCESSES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes must be between 0 and %d", RANREAD_MAX_PROCESSES),
				 errdetail("The value given is %d; 0 runs writers alone.", params->processes)));
	if (!args->isnull[RUN_ARG_ITERATIONS])
	{
		params->iterations = DatumGetInt64(args->value[RUN_ARG_ITERATIONS]);
		if (params->iterations < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("iterations must be at least 1"),
					 errdetail("The value given is " INT64_FORMAT ".", params->iterations)));
	}
	if (!args->isnull[RUN_ARG_DURATION])
	{
		double		seconds = ranread_interval_seconds(DatumGetIntervalP(args->value[RUN_ARG_DURATION]));

		if (seconds <= 0 || seconds > RANREAD_MAX_DURATION_S)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("duration must be positive and at most 7 days"),
					 errdetail("No part of the interval may be negative.")));
		params->duration_ns = (uint64) (seconds * 1e9);
	}

	path = ranread_readpath_by_name(text_to_cstring(DatumGetTextPP(args->value[RUN_ARG_MODE])));
	ranread_readpath_check_server(path);
	params->readpath = ranread_readpath_index(path);
	params->block_size = DatumGetInt32(args->value[RUN_ARG_BLOCK_SIZE]);
	if (params->block_size < BLCKSZ || params->block_size > RANREAD_MAX_BLOCK_SIZE ||
		params->block_size % BLCKSZ != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size must be a multiple of %d between %d and %d bytes",
						BLCKSZ, BLCKSZ, RANREAD_MAX_BLOCK_SIZE),
				 errdetail("The value given is %d.", params->block_size)));
	params->evict = DatumGetBool(args->value[RUN_ARG_EVICT]);
	if (args->isnull[RUN_ARG_ALLOW_REREADS])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("allow_rereads must not be null")));
	params->allow_rereads = DatumGetBool(args->value[RUN_ARG_ALLOW_REREADS]);
	namestrcpy((Name) params->target_name, NameStr(*DatumGetName(args->value[RUN_ARG_TARGET])));
	read_time_arguments(args, params);
	read_iodepth_argument(args, params);
	read_prefetch_argument(args, params);
	if (args->isnull[RUN_ARG_DISTRIBUTION])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("distribution must not be null"),
				 errhint("distribution => 'uniform' reads every unit once, in a random order.")));
	ranread_distribution_parse(text_to_cstring(DatumGetTextPP(args->value[RUN_ARG_DISTRIBUTION])),
							   &params->distribution);
	read_start_at_argument(args, params);
	read_writer_arguments(args, params);
	read_checkpoint_argument(args, params);
	check_writers_alone(args, params);
	ranread_check_run_memory(params->processes, params->iodepth, params->block_size,
							 ranread_readpath_by_index(params->readpath));
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
