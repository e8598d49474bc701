/*-------------------------------------------------------------------------
 *
 * sweep.c
 *		CALL ranread_sweep(): RanRead's methodology in one call.  Each step
 *		is one batch of ranread_run(), with more processes (or more reads in
 *		flight per process, with iodepth; or more units advised ahead, with
 *		prefetch; or, open loop, a higher rate) than
 *		the step before; the sweep commits after each, so
 *		that a cancel or a crash keeps the steps done, and stops by the first
 *		of its rules (sweep_rules.c) that holds.  A step whose stop decision
 *		lies within its noise runs again (a batch of the same sweep_step), at
 *		most RANREAD_SWEEP_MAX_REPEATS times; repeat => N runs the whole
 *		sweep N times and reports the median and spread of their verdicts.
 *
 * The sweep is a program of batches (program.c): it holds the run lock from
 * its first step to its last, so that no other run slips in between two
 * steps, and advertises itself, for ranread_stop() and the view
 * ranread_sweeps.  ranread_stop() signals the sweep's session, not the
 * workers: the step's leader, this session, stops them once they read (the
 * program's stop flag is an argument of ranread_run_batch()), so the running
 * step ends as stopped, and no step follows.
 * Each step is one call of ranread_run_batch() (run.c), as the caller and
 * as an SQL call of ranread_run() would run it: its arguments by name in a
 * RanreadRunArgs, starting from ranread_run()'s SQL defaults, checked by
 * ranread_read_run_arguments(), and the sweep's number and the step's in
 * the RanreadParams.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <signal.h>

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/program.h"
#include "run/registry.h"
#include "run/run.h"
#include "record/results.h"
#include "record/row_builder.h"
#include "run/run_arguments.h"
#include "readpath/run_memory.h"
#include "rules/run_rules.h"
#include "sweep/sweep_verdict.h"
#include "run/target.h"

PG_FUNCTION_INFO_V1(ranread_sweep);

/* Iterations per process and step when neither iterations nor duration is given: RanRead's. */
#define DEFAULT_ITERATIONS	10000

/* The least rate_step_iops: rates are recorded and shown to 0.1 reads/s. */
#define SWEEP_MIN_RATE_STEP_IOPS	0.1

/* ranread_sweep()'s arguments, in the order of its SQL signature. */
typedef enum SweepArgument
{
	ARG_START_PROCESSES,
	ARG_STEP_PROCESSES,
	ARG_MAX_PROCESSES,
	ARG_ITERATIONS,
	ARG_DURATION,
	ARG_TARGET,
	ARG_MODE,
	ARG_BLOCK_SIZE,
	ARG_STOP_LATENCY_MS,
	ARG_MIN_SCALING_PCT,
	ARG_SLO_MEAN_MS,
	ARG_SLO_P99_MS,
	ARG_SLO_P999_MS,
	ARG_SLO_MAX_MS,
	ARG_RATE_IOPS,
	ARG_RATE_STEP_IOPS,
	ARG_MAX_RATE_IOPS,
	ARG_RAMP,
	ARG_IODEPTH,
	ARG_MAX_IODEPTH,
	ARG_REPEAT,
	ARG_PREFETCH,
	ARG_MAX_PREFETCH,
	ARG_DRAIN,
	ARG_PROBE
} SweepArgument;

/*
 * The drain before step 1: at least this long (its steady-state window and
 * the intervals a shift needs on either side), at most a day.
 */
#define SWEEP_MIN_DRAIN_S		10
#define SWEEP_MAX_DRAIN_S		86400
/* The drain is steady once IOPS and latency held this long, within steady_band_pct. */
#define SWEEP_DRAIN_STEADY_S	5
/*
 * After a drain, a step given no ramp reads this long before it counts: the
 * bucket refills at the baseline while no batch reads (a second or so
 * between steps), and a step would count those credits at the burst rate.
 * The lab's bucket (burst 1,000, baseline 600 reads/s) spends a second's
 * credits in 1.5 s.
 */
#define SWEEP_DRAIN_STEP_RAMP_S	3

/* The most times repeat => N runs the whole sweep. */
#define MAX_SWEEP_REPEATS	10

/* The verdict NOTICE's DETAIL: lines of at most this many characters, as ranread_verdict()'s. */
#define VERDICT_LINE_WIDTH	99

/* The sweep's arguments, checked. */
typedef struct SweepArgs
{
	int			start_processes;
	int			step_processes; /* 0: double */
	int			max_processes;	/* as asked, or the free worker slots */
	bool		max_by_slots;
	double		rate_iops;		/* 0: closed loop */
	double		rate_step_iops; /* 0: double */
	double		max_rate_iops;	/* 0: none asked */
	int			iodepth;		/* stepping iodepth: the first step's; 0: it steps processes */
	int			max_iodepth;
	int			prefetch;		/* stepping prefetch: the first step's; -1: it does not */
	int			max_prefetch;
	int			repeat;			/* whole sweeps to run, 1 to MAX_SWEEP_REPEATS */
	double		drain_s;		/* the drain's bound before step 1; 0: none */
	double		probe_s;		/* the idle pause before the refill probe; < 0: no probes */
	RanreadSweepRules rules;
	Oid			run_function;	/* the extension's ranread_run() */
	RanreadRunArgs run;			/* the next step's ranread_run() arguments */
	int64		iterations;		/* per process, as asked; 0: a time-based sweep */
	int64		target_units;	/* a step caps its iterations to these (run_step()) */
	bool		cap_iterations; /* the read path's re-reads can be answered by memory */
	bool		capped_said;	/* the NOTICE that steps are capped was given */
} SweepArgs;

/* A float argument that may be NULL (0) or must be positive and finite. */
static double
positive_argument(FunctionCallInfo fcinfo, SweepArgument arg, const char *name, bool nullable)
{
	double		value;

	if (PG_ARGISNULL(arg))
	{
		if (nullable)
			return 0;
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
	}
	value = PG_GETARG_FLOAT8(arg);
	if (!(value > 0 && isfinite(value)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive", name),
				 errdetail("The value given is %g.", value)));
	return value;
}

/*
 * The ranread_run() arguments of the first step, checked by ranread_run()'s
 * own checks before the sweep starts anything: ranread_run()'s defaults,
 * and the sweep's own arguments that a step passes on.
 */
static void
read_run_arguments(FunctionCallInfo fcinfo, SweepArgs *args)
{
	static const struct
	{
		RunArgument run;
		SweepArgument sweep;
	}			passed[] = {
		{RUN_ARG_PROCESSES, ARG_START_PROCESSES}, {RUN_ARG_ITERATIONS, ARG_ITERATIONS},
		{RUN_ARG_TARGET, ARG_TARGET}, {RUN_ARG_MODE, ARG_MODE}, {RUN_ARG_BLOCK_SIZE, ARG_BLOCK_SIZE},
		{RUN_ARG_DURATION, ARG_DURATION}, {RUN_ARG_RAMP, ARG_RAMP}, {RUN_ARG_RATE_IOPS, ARG_RATE_IOPS}
	};
	RanreadRunArgs *run = &args->run;
	RanreadParams params;
	Relation	target;

	args->run_function = ranread_run_function();
	ranread_run_args_defaults(args->run_function, run);
	for (int i = 0; i < lengthof(passed); i++)
	{
		run->isnull[passed[i].run] = PG_ARGISNULL(passed[i].sweep);
		run->value[passed[i].run] = run->isnull[passed[i].run] ? (Datum) 0 : PG_GETARG_DATUM(passed[i].sweep);
	}
	/* iodepth and prefetch: the deepest step's, so that ranread_run() checks them with the mode */
	run->isnull[RUN_ARG_IODEPTH] = false;
	run->value[RUN_ARG_IODEPTH] = Int32GetDatum(Max(args->max_iodepth, 1));
	run->isnull[RUN_ARG_PREFETCH] = false;
	run->value[RUN_ARG_PREFETCH] = Int32GetDatum(Max(args->max_prefetch, 0));
	/* no step re-reads: run_step() caps its iterations, the run ends a timed step */
	run->isnull[RUN_ARG_ALLOW_REREADS] = false;
	run->value[RUN_ARG_ALLOW_REREADS] = BoolGetDatum(false);
	if (PG_ARGISNULL(ARG_ITERATIONS) && PG_ARGISNULL(ARG_DURATION))
	{
		run->isnull[RUN_ARG_ITERATIONS] = false;
		run->value[RUN_ARG_ITERATIONS] = Int64GetDatum(DEFAULT_ITERATIONS);
	}

	ranread_read_run_arguments(run, &params);
	target = ranread_target_open_for_run(params.target_name);
	args->iterations = params.iterations;
	args->target_units = RelationGetNumberOfBlocks(target) / (params.block_size / BLCKSZ);
	args->cap_iterations = !(ranread_readpath_by_index(params.readpath)->flags & RANREAD_PATH_BYPASSES_PAGE_CACHE);
	relation_close(target, NoLock);
}

/*
 * iodepth and max_iodepth: the sweep steps the reads in flight per process
 * (doubling, from iodepth to max_iodepth), every step with start_processes
 * processes, instead of stepping processes.
 */
static void
read_iodepth_arguments(FunctionCallInfo fcinfo, SweepArgs *args)
{
	if (PG_ARGISNULL(ARG_IODEPTH))
	{
		if (!PG_ARGISNULL(ARG_MAX_IODEPTH))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_iodepth needs iodepth"),
					 errhint("iodepth makes the sweep step the reads in flight per process, from iodepth to max_iodepth.")));
		return;
	}
	args->iodepth = PG_GETARG_INT32(ARG_IODEPTH);
	args->max_iodepth = PG_ARGISNULL(ARG_MAX_IODEPTH) ? RANREAD_MAX_IODEPTH : PG_GETARG_INT32(ARG_MAX_IODEPTH);
	if (args->iodepth < 1 || args->max_iodepth < args->iodepth || args->max_iodepth > RANREAD_MAX_IODEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iodepth must be at least 1, and max_iodepth between iodepth and %d", RANREAD_MAX_IODEPTH),
				 errdetail("iodepth is %d and max_iodepth %d.", args->iodepth, args->max_iodepth)));
	if (args->step_processes > 0 || !PG_ARGISNULL(ARG_MAX_PROCESSES) || args->rate_iops > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a sweep stepping iodepth cannot also step processes or a rate"),
				 errdetail("With iodepth every step runs start_processes processes, each with more reads in flight than the step before."),
				 errhint("Leave out step_processes, max_processes and rate_iops, or iodepth and max_iodepth.")));
	args->max_processes = args->start_processes;
	args->rules.max_iodepth = args->max_iodepth;
}

/*
 * prefetch and max_prefetch: the sweep steps the units advised ahead of
 * each read (0, 1, 2, 4 ... from prefetch to max_prefetch), every step with
 * start_processes processes, instead of stepping processes; ranread_run()
 * refuses a mode that cannot prefetch.
 */
static void
read_prefetch_arguments(FunctionCallInfo fcinfo, SweepArgs *args)
{
	args->prefetch = -1;
	if (PG_ARGISNULL(ARG_PREFETCH))
	{
		if (!PG_ARGISNULL(ARG_MAX_PREFETCH))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_prefetch needs prefetch"),
					 errhint("prefetch makes the sweep step the units advised ahead of each read, from prefetch to max_prefetch.")));
		return;
	}
	args->prefetch = PG_GETARG_INT32(ARG_PREFETCH);
	args->max_prefetch = PG_ARGISNULL(ARG_MAX_PREFETCH) ? RANREAD_MAX_IODEPTH : PG_GETARG_INT32(ARG_MAX_PREFETCH);
	if (args->prefetch < 0 || args->max_prefetch < Max(args->prefetch, 1) || args->max_prefetch > RANREAD_MAX_IODEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("prefetch must be at least 0, and max_prefetch between prefetch (at least 1) and %d", RANREAD_MAX_IODEPTH),
				 errdetail("prefetch is %d and max_prefetch %d.", args->prefetch, args->max_prefetch)));
	if (args->step_processes > 0 || !PG_ARGISNULL(ARG_MAX_PROCESSES) || args->rate_iops > 0 || args->iodepth > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a sweep stepping prefetch cannot also step processes, iodepth or a rate"),
				 errdetail("With prefetch every step runs start_processes processes, each advising more units ahead than the step before."),
				 errhint("Leave out step_processes, max_processes, iodepth and rate_iops, or prefetch and max_prefetch.")));
	args->max_processes = args->start_processes;
	args->rules.max_prefetch = args->max_prefetch;
}

/*
 * drain: before step 1, read at its load until a burst bucket has run empty
 * and the level after it held steady, for at most this long (NULL: no drain).
 */
static void
read_drain_argument(FunctionCallInfo fcinfo, SweepArgs *args)
{
	if (PG_ARGISNULL(ARG_DRAIN))
		return;
	args->drain_s = DatumGetFloat8(DirectFunctionCall2(interval_part, CStringGetTextDatum("epoch"),
													   PG_GETARG_DATUM(ARG_DRAIN)));
	if (!(args->drain_s >= SWEEP_MIN_DRAIN_S && args->drain_s <= SWEEP_MAX_DRAIN_S))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("drain must be between %d s and %d s", SWEEP_MIN_DRAIN_S, SWEEP_MAX_DRAIN_S),
				 errdetail("The value given is %g s.", args->drain_s),
				 errhint("The drain reads at the first step's load until a burst bucket has run empty and the level after it held steady for %d s; leave it null for no drain.",
						 SWEEP_DRAIN_STEADY_S)));
}

/*
 * probe: after the last step, the probes that tell what limits the volume
 * (run_probes()); its value is the idle pause before the refill probe, 0
 * for none (NULL: no probes).
 */
static void
read_probe_argument(FunctionCallInfo fcinfo, SweepArgs *args)
{
	args->probe_s = -1;
	if (PG_ARGISNULL(ARG_PROBE))
		return;
	args->probe_s = DatumGetFloat8(DirectFunctionCall2(interval_part, CStringGetTextDatum("epoch"),
													   PG_GETARG_DATUM(ARG_PROBE)));
	if (!(args->probe_s >= 0 && args->probe_s <= SWEEP_MAX_DRAIN_S))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("probe must be between 0 s and %d s", SWEEP_MAX_DRAIN_S),
				 errdetail("The value given is %g s.", args->probe_s),
				 errhint("probe is the idle pause before the refill probe, which runs when a burst bucket ran empty; 0 runs the size probe alone; leave it null for no probes.")));
	if (args->rate_iops > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an open-loop sweep cannot probe"),
				 errdetail("The probes read at the last step's load in a closed loop, where IOPS show what limits the volume; an open loop sets the rate itself."),
				 errhint("Leave out rate_iops, or probe.")));
}

/* Check the sweep's own arguments and bound it by the worker slots free now. */
static void
read_sweep_arguments(FunctionCallInfo fcinfo, SweepArgs *args)
{
	int			free_slots = ranread_free_worker_slots();

	memset(args, 0, sizeof(SweepArgs));
	if (PG_ARGISNULL(ARG_START_PROCESSES))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("start_processes must not be null")));
	args->start_processes = PG_GETARG_INT32(ARG_START_PROCESSES);
	if (!PG_ARGISNULL(ARG_STEP_PROCESSES))
	{
		args->step_processes = PG_GETARG_INT32(ARG_STEP_PROCESSES);
		if (args->step_processes < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("step_processes must be at least 1"),
					 errdetail("The value given is %d.", args->step_processes),
					 errhint("Leave it null to double the processes at each step.")));
	}
	args->max_processes = RANREAD_MAX_PROCESSES;
	if (!PG_ARGISNULL(ARG_MAX_PROCESSES))
	{
		args->max_processes = PG_GETARG_INT32(ARG_MAX_PROCESSES);
		if (args->max_processes > RANREAD_MAX_PROCESSES)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_processes must be between start_processes and %d", RANREAD_MAX_PROCESSES),
					 errdetail("The value given is %d, start_processes %d.",
							   args->max_processes, args->start_processes)));
		/* below the start, which is 10 unless given: say how to sweep lower */
		if (args->max_processes < args->start_processes)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_processes %d is below start_processes %d", args->max_processes,
							args->start_processes),
					 errdetail("A sweep starts at start_processes (10 unless given) and steps up to max_processes."),
					 errhint("To sweep up to %d processes, give a start too: CALL ranread_sweep(start_processes => 1, max_processes => %d, ...).",
							 Max(args->max_processes, 1), Max(args->max_processes, 1))));
	}

	args->rules.stop_latency_ms = positive_argument(fcinfo, ARG_STOP_LATENCY_MS, "stop_latency_ms", false);
	if (PG_ARGISNULL(ARG_MIN_SCALING_PCT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("min_scaling_pct must not be null")));
	args->rules.min_scaling_pct = PG_GETARG_FLOAT8(ARG_MIN_SCALING_PCT);
	if (!(args->rules.min_scaling_pct >= 0 && args->rules.min_scaling_pct < 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_scaling_pct must be at least 0 and below 100"),
				 errdetail("The value given is %g.", args->rules.min_scaling_pct),
				 errhint("0 turns the scaling rule off.")));
	args->rules.slo_mean_ms = positive_argument(fcinfo, ARG_SLO_MEAN_MS, "slo_mean_ms", true);
	args->rules.slo_p99_ms = positive_argument(fcinfo, ARG_SLO_P99_MS, "slo_p99_ms", true);
	args->rules.slo_p999_ms = positive_argument(fcinfo, ARG_SLO_P999_MS, "slo_p999_ms", true);
	args->rules.slo_max_ms = positive_argument(fcinfo, ARG_SLO_MAX_MS, "slo_max_ms", true);

	args->rate_iops = positive_argument(fcinfo, ARG_RATE_IOPS, "rate_iops", true);
	args->rate_step_iops = positive_argument(fcinfo, ARG_RATE_STEP_IOPS, "rate_step_iops", true);
	args->max_rate_iops = positive_argument(fcinfo, ARG_MAX_RATE_IOPS, "max_rate_iops", true);
	if (args->rate_iops == 0 && (args->rate_step_iops > 0 || args->max_rate_iops > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rate_step_iops and max_rate_iops need rate_iops"),
				 errhint("rate_iops makes the sweep open loop: it steps the rate, and its processes stay start_processes.")));
	if (args->rate_iops > 0 && (args->step_processes > 0 || !PG_ARGISNULL(ARG_MAX_PROCESSES)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("step_processes and max_processes do not apply to an open-loop sweep"),
				 errdetail("With rate_iops the sweep steps the rate; every step runs start_processes processes.")));
	if (args->max_rate_iops > RANREAD_MAX_RATE_IOPS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_rate_iops must be at most %.0f", RANREAD_MAX_RATE_IOPS),
				 errdetail("The value given is %g; a step's rate_iops is at most %.0f.",
						   args->max_rate_iops, RANREAD_MAX_RATE_IOPS)));
	if (args->max_rate_iops > 0 && args->max_rate_iops < args->rate_iops)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_rate_iops must be at least rate_iops"),
				 errdetail("rate_iops is %g and max_rate_iops %g.", args->rate_iops, args->max_rate_iops)));
	args->rules.max_rate_iops = args->max_rate_iops > 0 ? args->max_rate_iops : RANREAD_MAX_RATE_IOPS;
	if (args->rate_step_iops > 0 && args->rate_step_iops < SWEEP_MIN_RATE_STEP_IOPS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rate_step_iops must be at least %.1f", SWEEP_MIN_RATE_STEP_IOPS),
				 errdetail("The value given is %g: a smaller step does not change the rate as runs record and show it, and the sweep would not end.",
						   args->rate_step_iops)));
	read_iodepth_arguments(fcinfo, args);
	read_prefetch_arguments(fcinfo, args);
	read_drain_argument(fcinfo, args);
	read_probe_argument(fcinfo, args);
	if (PG_ARGISNULL(ARG_REPEAT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("repeat must not be null")));
	args->repeat = PG_GETARG_INT32(ARG_REPEAT);
	if (args->repeat < 1 || args->repeat > MAX_SWEEP_REPEATS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("repeat must be between 1 and %d", MAX_SWEEP_REPEATS),
				 errdetail("The value given is %d.", args->repeat),
				 errhint("repeat runs the whole sweep that many times and reports the median and spread of its verdicts.")));

	read_run_arguments(fcinfo, args);

	if (args->start_processes > free_slots)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("the first step needs %d worker slots, but only %d are free",
						args->start_processes, free_slots),
				 errdetail("max_worker_processes is %d, shared with parallel query and other background workers.",
						   max_worker_processes),
				 errhint("Give a smaller start_processes, or raise max_worker_processes and restart the server.")));
	if (args->rate_iops > 0 || args->iodepth > 0 || args->prefetch >= 0)
		args->max_processes = args->start_processes;
	else if (args->max_processes > free_slots)
	{
		if (!PG_ARGISNULL(ARG_MAX_PROCESSES))
			ereport(NOTICE,
					(errmsg("max_processes %d is more than the %d free worker slots: the sweep goes up to %d processes",
							args->max_processes, free_slots, free_slots),
					 errhint("Raise max_worker_processes (now %d) and restart the server to go further.",
							 max_worker_processes)));
		args->max_processes = free_slots;
		args->max_by_slots = true;
	}
	/* a step of more processes than the target has units would re-read units, whatever its iterations */
	if (args->cap_iterations && args->iterations > 0 && args->start_processes > args->target_units)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the first step's %d processes are more than the " INT64_FORMAT " read units of the target",
						args->start_processes, args->target_units),
				 errdetail("Each process reads at least one unit, and no step re-reads a unit."),
				 errhint("Use a larger target (ranread_setup), a smaller block_size or a smaller start_processes.")));
	if (args->cap_iterations && args->iterations > 0 && args->max_processes > args->target_units)
	{
		ereport(NOTICE,
				(errmsg("the target has " INT64_FORMAT " read units: the sweep goes up to " INT64_FORMAT " processes",
						args->target_units, args->target_units),
				 errdetail("Each process reads at least one unit, and no step re-reads a unit."),
				 errhint("Use a larger target (ranread_setup) to go further.")));
		args->max_processes = (int) args->target_units;
	}
	args->rules.max_processes = args->max_processes;
	/* the widest, deepest step's buffers, before anything is recorded */
	ranread_check_run_memory(args->max_processes, Max(args->max_iodepth, 1),
							 DatumGetInt32(args->run.value[RUN_ARG_BLOCK_SIZE]),
							 ranread_readpath_by_name(TextDatumGetCString(args->run.value[RUN_ARG_MODE])));
}


/* Refuse to run where a COMMIT cannot be: in a transaction block, a function or an atomic CALL. */
static void
check_may_commit(FunctionCallInfo fcinfo)
{
	if (fcinfo->context == NULL || !IsA(fcinfo->context, CallContext) ||
		((CallContext *) fcinfo->context)->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("ranread_sweep cannot run inside a transaction block"),
				 errdetail("It commits after each step, so that a cancel or a crash keeps the steps done."),
				 errhint("Run CALL ranread_sweep(...) on its own, not within BEGIN and COMMIT, a function, or a procedure called in a transaction block.")));
}

/* May the current user use relation `name` of the extension's schema `nsp` for `mode`? */
static bool
may_use(Oid nsp, const char *name, AclMode mode)
{
	return pg_class_aclcheck(get_relname_relid(name, nsp), GetUserId(), mode) == ACLCHECK_OK;
}

/*
 * The caller runs each step as ranread_run(), reads each step back and
 * records the sweep: check every privilege that takes before anything is
 * recorded, as the sweep would otherwise fail after its first commit.
 */
static void
check_privileges(const SweepArgs *args)
{
	Oid			nsp = get_namespace_oid(ranread_extension_schema(), false);

	if (ranread_function_aclcheck(args->run_function, GetUserId()) != ACLCHECK_OK ||
		!may_use(nsp, "ranread_sweep_runs", ACL_SELECT) ||
		!may_use(nsp, "ranread_batches", ACL_SELECT) ||
		!may_use(nsp, "ranread_sweep_seq", ACL_USAGE))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run a sweep"),
				 errdetail("A sweep runs ranread_run() as its caller and reads its steps from ranread_batches and ranread_sweep_runs."),
				 errhint("Grant EXECUTE on ranread_run(), SELECT on ranread_batches and ranread_sweep_runs and USAGE on ranread_sweep_seq, as docs/reference.md lists.")));
}

/* A run argument the sweep was given, as its ranread_sweep_runs column. */
static void
add_run_argument(RanreadRow *row, const char *column, Oid type, const SweepArgs *args, RunArgument arg)
{
	ranread_row_add(row, column, type, args->run.value[arg], args->run.isnull[arg]);
}

/* An interval argument as seconds (date_part('epoch', ...)), NULL if not given. */
static void
add_interval_seconds(RanreadRow *row, const char *column, const SweepArgs *args, RunArgument arg)
{
	Datum		seconds = (Datum) 0;

	if (!args->run.isnull[arg])
		seconds = DirectFunctionCall2(interval_part, CStringGetTextDatum("epoch"), args->run.value[arg]);
	ranread_row_add(row, column, FLOAT8OID, seconds, args->run.isnull[arg]);
}

/* A float8 setting: 0 stands for NULL (not given) unless it is always set. */
static void
add_float(RanreadRow *row, const char *column, double value, bool always_set)
{
	ranread_row_add(row, column, FLOAT8OID, Float8GetDatum(value), !(value > 0 || always_set));
}

/* Record the sweep's start (committed by the caller), and return its number. */
static int64
record_start(const SweepArgs *args)
{
	Oid			seq = get_relname_relid("ranread_sweep_seq", get_namespace_oid(ranread_extension_schema(), false));
	int64		sweep = DatumGetInt64(DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq)));
	const RanreadSweepRules *rules = &args->rules;
	RanreadRow	row = {0};

	ranread_row_add(&row, "sweep", INT8OID, Int64GetDatum(sweep), false);
	ranread_row_add(&row, "started_at", TIMESTAMPTZOID, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()), false);
	ranread_row_add(&row, "leader_pid", INT4OID, Int32GetDatum(MyProcPid), false);
	add_run_argument(&row, "target", NAMEOID, args, RUN_ARG_TARGET);
	add_run_argument(&row, "mode", TEXTOID, args, RUN_ARG_MODE);
	add_run_argument(&row, "block_size", INT4OID, args, RUN_ARG_BLOCK_SIZE);
	add_run_argument(&row, "iterations", INT8OID, args, RUN_ARG_ITERATIONS);
	add_interval_seconds(&row, "duration_s", args, RUN_ARG_DURATION);
	add_interval_seconds(&row, "ramp_s", args, RUN_ARG_RAMP);
	ranread_row_add(&row, "start_processes", INT4OID, Int32GetDatum(args->start_processes), false);
	ranread_row_add(&row, "step_processes", INT4OID, Int32GetDatum(args->step_processes), args->step_processes == 0);
	ranread_row_add(&row, "max_processes", INT4OID, Int32GetDatum(args->max_processes), false);
	ranread_row_add(&row, "max_processes_by", TEXTOID,
					CStringGetTextDatum(args->max_by_slots ? "worker slots" : "argument"), false);
	/* 0 stands for NULL (not given), except in the two rules always set */
	add_float(&row, "rate_iops", args->rate_iops, false);
	add_float(&row, "rate_step_iops", args->rate_step_iops, false);
	add_float(&row, "max_rate_iops", args->max_rate_iops, false);
	add_float(&row, "stop_latency_ms", rules->stop_latency_ms, true);
	add_float(&row, "min_scaling_pct", rules->min_scaling_pct, true);
	add_float(&row, "slo_mean_ms", rules->slo_mean_ms, false);
	add_float(&row, "slo_p99_ms", rules->slo_p99_ms, false);
	add_float(&row, "slo_p999_ms", rules->slo_p999_ms, false);
	add_float(&row, "slo_max_ms", rules->slo_max_ms, false);
	ranread_row_add(&row, "iodepth", INT4OID, Int32GetDatum(args->iodepth), args->iodepth <= 0);
	ranread_row_add(&row, "max_iodepth", INT4OID, Int32GetDatum(args->max_iodepth), args->iodepth <= 0);
	ranread_row_add(&row, "prefetch", INT4OID, Int32GetDatum(args->prefetch), args->prefetch < 0);
	ranread_row_add(&row, "max_prefetch", INT4OID, Int32GetDatum(args->max_prefetch), args->prefetch < 0);
	add_float(&row, "drain_s", args->drain_s, false);
	ranread_row_add(&row, "probe_s", FLOAT8OID, Float8GetDatum(args->probe_s), args->probe_s < 0);
	ranread_row_add(&row, "status", TEXTOID, CStringGetTextDatum("running"), false);
	if (ranread_row_insert(&row, ranread_extension_schema(), "ranread_sweep_runs") != SPI_OK_INSERT)
		elog(ERROR, "could not record sweep " INT64_FORMAT, sweep);
	return sweep;
}

/* Record how the sweep ended by itself. */
static void
record_end(int64 sweep, const char *status, const char *stop_rule)
{
	Oid			types[] = {INT8OID, TEXTOID, TEXTOID};
	Datum		values[] = {Int64GetDatum(sweep), CStringGetTextDatum(status), CStringGetTextDatum(stop_rule)};

	if (ranread_history_execute(psprintf("UPDATE %s.ranread_sweep_runs SET ended_at = pg_catalog.clock_timestamp(), "
										 "status = $2, stop_rule = $3 WHERE sweep OPERATOR(pg_catalog.=) $1",
										 quote_identifier(ranread_extension_schema())),
								lengthof(types), types, values, NULL) != SPI_OK_UPDATE)
		elog(ERROR, "could not record the end of sweep " INT64_FORMAT, sweep);
}

/*
 * A step of iterations reads no unit twice: with more processes than the
 * target's units allow it reads fewer iterations per process (said once).
 * A time-based step ends when every unit has been read once (worker.c).
 */
static void
cap_iterations(SweepArgs *args, int processes)
{
	int64		fit;

	if (args->iterations == 0 || !args->cap_iterations)
		return;
	fit = ranread_iterations_without_rereads(processes, args->iterations, args->target_units);
	args->run.value[RUN_ARG_ITERATIONS] = Int64GetDatum(fit > 0 ? fit : args->iterations);
	if (fit <= 0 || fit == args->iterations || args->capped_said)
		return;
	args->capped_said = true;
	ereport(NOTICE,
			(errmsg_plural("steps from %d process on read at most " INT64_FORMAT " iterations per process instead of " INT64_FORMAT ", so that no step re-reads a unit",
						   "steps from %d processes on read at most " INT64_FORMAT " iterations per process instead of " INT64_FORMAT ", so that no step re-reads a unit",
						   processes, processes, fit, args->iterations),
			 errdetail("The target has " INT64_FORMAT " read units; a step reads at most that many (processes x iterations), fewer as processes grow, because the OS page cache can answer re-reads instead of the device.",
					   args->target_units),
			 errhint("Use a larger target (ranread_setup) for more iterations per step.")));
}

/* An interval Datum of `seconds`. */
static Datum
interval_datum(double seconds)
{
	Interval   *interval = palloc0(sizeof(Interval));

	interval->time = (TimeOffset) (seconds * USECS_PER_SEC);
	return IntervalPGetDatum(interval);
}

/*
 * The drain's ranread_run() arguments, from the first step's: timed by the
 * drain's bound, without a ramp (its reads spend the bucket too), and ended
 * by the steady-state rule once a bucket ran empty (params.drain, run.c).
 */
static void
drain_arguments(const SweepArgs *args, RanreadRunArgs *run)
{
	run->isnull[RUN_ARG_ITERATIONS] = true;
	run->isnull[RUN_ARG_DURATION] = false;
	run->value[RUN_ARG_DURATION] = interval_datum(args->drain_s);
	run->isnull[RUN_ARG_RAMP] = true;
	run->isnull[RUN_ARG_STEADY_STATE] = false;
	run->value[RUN_ARG_STEADY_STATE] = interval_datum(SWEEP_DRAIN_STEADY_S);
}

/* The size probe's block size: twice the steps', or half when twice is over the largest. */
static int
probe_block_size(int block_size)
{
	return block_size * 2 <= RANREAD_MAX_BLOCK_SIZE ? block_size * 2 : block_size / 2;
}

/*
 * Run one step: a batch of ranread_run() as the caller, with this step's
 * processes, iodepth, prefetch and rate, marked as the sweep's step, stopped by
 * ranread_stop(); step 0 is the drain (drain_arguments()), and after it a
 * step given no ramp has SWEEP_DRAIN_STEP_RAMP_S.  It runs as an SQL call of ranread_run() would: refused
 * without EXECUTE on it, with its SET clause's search_path, an active
 * snapshot for the step, and its memory freed after it.
 */
static void
run_step(SweepArgs *args, int64 sweep, int step, int processes, int iodepth, int prefetch,
		 double rate)
{
	MemoryContext step_context;
	MemoryContext caller_context;
	RanreadParams params;
	RanreadBatchOutcome outcome;
	RanreadRunArgs run;
	int			guc_level;

	args->run.value[RUN_ARG_PROCESSES] = Int32GetDatum(processes);
	cap_iterations(args, processes);
	args->run.value[RUN_ARG_RATE_IOPS] = Float8GetDatum(rate);
	args->run.isnull[RUN_ARG_RATE_IOPS] = !(rate > 0);
	args->run.value[RUN_ARG_IODEPTH] = Int32GetDatum(iodepth);
	args->run.value[RUN_ARG_PREFETCH] = Int32GetDatum(prefetch);

	if (ranread_function_aclcheck(args->run_function, GetUserId()) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, "ranread_run");
	step_context = AllocSetContextCreate(CurrentMemoryContext, "ranread sweep step",
										 ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(step_context);
	guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	PushActiveSnapshot(GetTransactionSnapshot());

	run = args->run;
	if (step == 0)
		drain_arguments(args, &run);
	else if (step == RANREAD_SWEEP_REFILL_PROBE_STEP)
		run.isnull[RUN_ARG_RAMP] = true;	/* its first reads spend the refill */
	else if (args->drain_s > 0 && run.isnull[RUN_ARG_RAMP])
	{
		run.isnull[RUN_ARG_RAMP] = false;
		run.value[RUN_ARG_RAMP] = interval_datum(SWEEP_DRAIN_STEP_RAMP_S);
	}
	if (step == RANREAD_SWEEP_SIZE_PROBE_STEP)
	{
		int			block_size = DatumGetInt32(run.value[RUN_ARG_BLOCK_SIZE]);
		int			probe_size = probe_block_size(block_size);

		/* the same bytes as a step: as many units of the target as a step may read, or fewer */
		run.value[RUN_ARG_BLOCK_SIZE] = Int32GetDatum(probe_size);
		if (!run.isnull[RUN_ARG_ITERATIONS] && probe_size > block_size)
			run.value[RUN_ARG_ITERATIONS] =
				Int64GetDatum(Max(DatumGetInt64(run.value[RUN_ARG_ITERATIONS]) * block_size / probe_size, 1));
	}
	ranread_read_run_arguments(&run, &params);
	params.sweep = sweep;
	params.sweep_step = step;
	params.drain = step == 0;
	/* run_steps() reads the step back from ranread_batches, as recorded */
	ranread_run_batch(&params, &ranread_program_stop_requested, &outcome);

	PopActiveSnapshot();
	AtEOXact_GUC(true, guc_level);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(step_context);
}

/*
 * Run steps until a rule stops the sweep or ranread_stop() does; return the
 * rule's name.  A step whose stop decision lies within its noise runs again
 * (a batch of the same sweep_step, combined with its earlier runs), at most
 * RANREAD_SWEEP_MAX_REPEATS times.
 */
static const char *
run_steps(SweepArgs *args, int64 sweep, const char **status)
{
	int			processes = args->start_processes;
	int			iodepth = Max(args->iodepth, 1);
	int			prefetch = Max(args->prefetch, 0);
	double		rate = args->rate_iops;
	RanreadSweepRecord record;
	int			step = 1;

	*status = "completed";
	if (args->drain_s > 0 && !ranread_program_stop_requested)
	{
		run_step(args, sweep, 0, processes, iodepth, prefetch, rate);
		if (!ranread_sweep_read(sweep, true, &record) || record.drain_batch == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the drain of sweep " INT64_FORMAT " was not recorded", sweep),
					 errhint(RANREAD_NOT_RECORDED_HINT)));
		ereport(NOTICE, (errmsg("drain: batch " INT64_FORMAT ", %s", record.drain_batch, record.drain.status),
						 errdetail("%s", ranread_sweep_drain_text(&record))));
		SPI_commit();
	}
	for (int repeats = 0;; repeats++)
	{
		RanreadSweepStop stop;

		if (ranread_program_stop_requested)
			break;
		run_step(args, sweep, step, processes, iodepth, prefetch, rate);
		if (!ranread_sweep_read(sweep, true, &record) || record.count != step)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("step %d of sweep " INT64_FORMAT " was not recorded", step, sweep),
					 errhint(RANREAD_NOT_RECORDED_HINT)));
		ereport(NOTICE, (errmsg("%s", ranread_sweep_step_text(&record, step - 1)),
						 errdetail("%s", ranread_sweep_step_detail(&record, step - 1))));
		stop = ranread_sweep_stop_after(record.steps, record.count, &record.rules);
		SPI_commit();
		if (ranread_program_stop_requested || strcmp(record.steps[step - 1].status, "stopped") == 0)
			break;
		if (stop == RANREAD_SWEEP_REPEAT)
		{
			char	   *message;
			char	   *detail;

			ranread_sweep_repeat_text(&record, repeats + 1, &message, &detail);
			ereport(NOTICE, (errmsg("%s", message), errdetail("%s", detail)));
			continue;
		}
		repeats = -1;
		step++;
		if (stop != RANREAD_SWEEP_GO_ON)
			return ranread_sweep_stop_rule_name(stop, &record);
		if (rate > 0)
			rate = ranread_sweep_next_rate(rate, args->rate_step_iops, args->rules.max_rate_iops);
		else if (args->iodepth > 0)
			iodepth = ranread_sweep_next_processes(iodepth, 0, args->max_iodepth);
		else if (args->prefetch >= 0)
			prefetch = prefetch == 0 ? 1 : ranread_sweep_next_processes(prefetch, 0, args->max_prefetch);
		else
			processes = ranread_sweep_next_processes(processes, args->step_processes, args->max_processes);
	}
	*status = "stopped";
	return "stopped";
}

/* Wait seconds with no read issued; ranread_stop() or a cancel ends the wait. */
static void
idle_pause(double seconds)
{
	TimestampTz until = GetCurrentTimestamp() + (TimestampTz) (seconds * USECS_PER_SEC);

	while (!ranread_program_stop_requested)
	{
		long		left_ms = (long) ((until - GetCurrentTimestamp()) / 1000);

		if (left_ms <= 0)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(left_ms, 1000L), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Run a probe at the last step's load and say what it read. */
static void
run_probe(SweepArgs *args, int64 sweep, int probe, const RanreadSweepStep *last)
{
	RanreadSweepRecord record;
	RanreadLimit limit;

	run_step(args, sweep, probe, last->processes, Max(last->iodepth, 1), Max(last->prefetch, 0), 0);
	if (!ranread_sweep_read(sweep, true, &record))
		return;
	ranread_sweep_limit(&record, &limit);
	ereport(NOTICE,
			(errmsg("%s probe: batch " INT64_FORMAT ", %s",
					probe == RANREAD_SWEEP_SIZE_PROBE_STEP ? "size" : "refill",
					probe == RANREAD_SWEEP_SIZE_PROBE_STEP ? record.size_probe_batch : record.refill_probe_batch,
					probe == RANREAD_SWEEP_SIZE_PROBE_STEP ? record.size_probe.step.status : record.refill_probe.step.status),
			 errdetail("%s", ranread_sentence_lines(ranread_sweep_limit_text(&record, &limit), VERDICT_LINE_WIDTH))));
	SPI_commit();
}

/*
 * The probes after the last step (probe => ...), at its load
 * (limit_rules.c): when a burst bucket ran empty and probe_s > 0, probe_s
 * idle and then a run without a ramp whose burst measures the refill; when
 * the steps end on a flat plateau, a run at another block size, which tells
 * a cap on IOPS from one on bandwidth and from the device.
 */
static void
run_probes(SweepArgs *args, int64 sweep)
{
	RanreadSweepRecord record;
	RanreadLimit limit;

	if (args->probe_s < 0 || ranread_program_stop_requested ||
		!ranread_sweep_read(sweep, true, &record) || record.count == 0)
		return;
	ranread_sweep_limit(&record, &limit);
	if (limit.bucket && args->probe_s > 0)
	{
		idle_pause(args->probe_s);
		if (ranread_program_stop_requested)
			return;
		run_probe(args, sweep, RANREAD_SWEEP_REFILL_PROBE_STEP, &record.steps[record.count - 1]);
	}
	if (limit.plateau_first >= 0 && !ranread_program_stop_requested)
		run_probe(args, sweep, RANREAD_SWEEP_SIZE_PROBE_STEP, &record.steps[record.count - 1]);
}

/* Say what the sweep found: one NOTICE with the verdict, a sentence a line. */
static void
report_verdict(int64 sweep)
{
	RanreadSweepRecord record;
	RanreadSweepVerdict verdict;

	if (!ranread_sweep_read(sweep, true, &record))
		return;
	ranread_sweep_judge(record.steps, record.count, &record.rules, &verdict);
	ereport(NOTICE,
			(errmsg("sweep " INT64_FORMAT " %s after %d step%s", sweep, record.status, record.count,
					record.count == 1 ? "" : "s"),
			 errdetail("%s", ranread_sentence_lines(ranread_sweep_verdict_text(&record, record.stop_rule, &verdict),
											VERDICT_LINE_WIDTH)),
			 errhint("See ranread_verdict(" INT64_FORMAT ") and ranread_report WHERE sweep = " INT64_FORMAT ".",
					 sweep, sweep)));
}

/*
 * One whole sweep: record it, run its steps (committing each), record how
 * it ended and report the verdict; return its number, and its status.
 */
static int64
run_sweep(SweepArgs *args, const char **status)
{
	volatile int64 sweep = 0;
	const char *stop_rule;
	RanreadProgram program = {0};

	PG_TRY();
	{
		/* in the TRY: its wait for an earlier run's workers can fail */
		ranread_program_begin(&program, RANREAD_LOCK_KIND_SWEEP);
		sweep = record_start(args);
		ranread_program_advertise(&program, sweep);
		SPI_commit();
		stop_rule = run_steps(args, sweep, status);
		if (strcmp(*status, "completed") == 0 && strcmp(stop_rule, "step ended") != 0)
		{
			run_probes(args, sweep);
			if (ranread_program_stop_requested)
				*status = "stopped";
		}
		record_end(sweep, *status, stop_rule);
		SPI_commit();
	}
	PG_FINALLY();
	{
		ranread_program_end(&program);
	}
	PG_END_TRY();
	report_verdict(sweep);
	return sweep;
}

/*
 * CALL ranread_sweep(...): check every argument, then run the sweep, or with
 * repeat => N the whole sweep N times (until one is stopped) and report the
 * median and spread of their verdicts.
 */
Datum
ranread_sweep(PG_FUNCTION_ARGS)
{
	SweepArgs	args;
	int64		sweeps[MAX_SWEEP_REPEATS];
	int			done = 0;

	check_may_commit(fcinfo);
	ranread_check_sql_version();
	read_sweep_arguments(fcinfo, &args);
	check_privileges(&args);

	SPI_connect_ext(SPI_OPT_NONATOMIC);
	while (done < args.repeat)
	{
		const char *status;

		sweeps[done++] = run_sweep(&args, &status);
		if (strcmp(status, "stopped") == 0)
			break;
	}
	if (args.repeat > 1)
		ereport(NOTICE,
				(errmsg("%d sweeps of %d asked", done, args.repeat),
				 errdetail("%s", ranread_sweep_repeats_text(sweeps, done))));
	SPI_finish();
	PG_RETURN_VOID();
}
