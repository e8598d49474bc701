/*-------------------------------------------------------------------------
 *
 * calibrate.c
 *		ranread_calibrate(): the planner's I/O settings measured from the
 *		target's tablespace, each with its band, and the ALTER TABLESPACE
 *		that would apply them; on PostgreSQL 18, optionally, io_workers.
 *
 * A calibration is a group of ordinary batches of one process each
 * (batch_group.c), marked with the calibration's number:
 *
 *	 1. the look-ahead series, CALIBRATE_DEPTH_PASSES times, up, down and up
 *		again so that a drifting volume favours no depth: the same number of
 *		random reads at depths 0 (15 to 17; 1 on 18), 1, 2, 4 ... max_depth,
 *		through mode smgr with prefetch => depth (what PostgreSQL 15 to 17
 *		advise ahead of a bitmap heap scan at effective_io_concurrency =
 *		depth) or, on 18, mode stream with iodepth => depth (a read stream's
 *		look-ahead);
 *	 2. with io_workers => true, under io_method = worker: the same random
 *		reads through a read stream at the recommended look-ahead, with
 *		io_workers at 1, 2, 3, 4, 6, 8, 12, 16, 32 (up to its maximum), up
 *		and down, twice (io_workers.c sets and restores it); under io_method
 *		= io_uring, the series' own figure at that look-ahead is the
 *		comparison, since io_method takes a restart;
 *	 3. pairs in ABBA order, a sequential batch (consecutive blocks through
 *		the storage manager with the kernel's readahead, as a sequential
 *		scan reads them) and a random one (no unit twice), cold, until the
 *		95 % band of their ratios' median lies within band_pct (or its
 *		ends give the same random_page_cost), or max_pairs or max_duration
 *		is reached.
 *
 * A pair's batch reads up to half a second before it counts (a ramp, as a
 * run's): a throttle spends at once what the batch before left unspent.  As
 * a ramp reads units the batch then cannot count (none is read twice), it
 * is no longer than half the units the batch leaves unread would last at
 * a few times the fastest rate the look-ahead series read at
 * (set_pair_ramps()).
 *
 * A page's cost is the time its read took: a batch's mean response time,
 * which holds the device's wait and PostgreSQL's read path but not what
 * the process did between two reads (1 / IOPS holds that too, and a busy
 * machine stretches it: beside a load of 11 on two cores, the lab's random
 * batches read 386 reads/s at a mean of 2.4977 ms under a cap of 400, the
 * wakeup after each wait costing the rest).  The random/sequential ratio of
 * a pair is the random batch's mean over the sequential one's.  The rules (src/rules/calibrate_rules.c): random_page_cost
 * is recommended from a steady ratio only (or a band whose every ratio
 * gives the same value), with the range its band gives;
 * effective_io_concurrency (and io_workers) is the least setting within
 * RANREAD_CALIBRATE_SHORT_PCT of the most IOPS any reached: the median of
 * the passes' picks, with their range.  Each pass, step and pair says what
 * it measured in one NOTICE.  The figures returned are rounded (ms to
 * 0.1 us).  Nothing is applied: the statement is returned.  A batch that
 * does not complete ends the calibration with an error, and so does
 * ranread_stop() between two batches (a calibration is a program of
 * batches, program.c: it holds the run lock throughout); its batches stay
 * recorded, and io_workers is restored on every way out.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_type.h"
#include "commands/tablespace.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lwlock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "programs/batch_group.h"
#include "programs/io_workers.h"
#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "rules/calibrate_rules.h"
#include "rules/order_statistics.h"
#include "rules/sweep_rules.h"
#include "run/program.h"
#include "run/run.h"
#include "run/run_arguments.h"
#include "run/target.h"

PG_FUNCTION_INFO_V1(ranread_calibrate);

/* A sequential batch reads this many times the random batches' pages. */
#define CALIBRATE_SEQUENTIAL_FACTOR		8
#define CALIBRATE_MIN_ITERATIONS		100
#define CALIBRATE_MIN_PAIRS				RANREAD_MEDIAN_BAND_MIN_VALUES
#define CALIBRATE_MAX_PAIRS				200
#define CALIBRATE_MIN_BAND_PCT			1.0
#define CALIBRATE_MAX_BAND_PCT			100.0
#define CALIBRATE_MIN_DURATION_S		1.0
#define CALIBRATE_MAX_DURATION_S		86400.0
#define CALIBRATE_MAX_DEPTH				1000	/* effective_io_concurrency's maximum */
#define CALIBRATE_MAX_DEPTHS			12		/* 0, 1, 2, 4 ... 1000 */
/* The look-ahead series runs up, down and up: a drift favours no depth, and the median pick is one of them. */
#define CALIBRATE_DEPTH_PASSES			3
/* The I/O worker counts stepped, up to io_workers' maximum; up, down, up, down. */
#define CALIBRATE_IO_WORKER_PASSES		4
#define CALIBRATE_COLUMNS				25
/*
 * A pair's batch reads up to this long before it counts: what a throttle
 * left unspent in the batch before (a sequential batch uses few of a
 * volume's IOPS) is spent at once when the next begins, and would be counted
 * as the device's.
 */
#define CALIBRATE_RAMP_MS				500
/*
 * A ramp's reads are bounded by this many times the fastest rate the
 * look-ahead series read at, and a sequential batch's by as many times that
 * again as a readahead of 128 kB brings pages a read.
 */
#define CALIBRATE_RAMP_RATE_MARGIN		4.0
#define CALIBRATE_RAMP_SEQUENTIAL_PAGES	16.0

static const int io_worker_counts[] = {1, 2, 3, 4, 6, 8, 12, 16, 32};

/* What the caller asked for, checked. */
typedef struct CalibrateArgs
{
	Datum		target;
	int64		iterations;
	int			max_pairs;
	int			max_depth;
	double		cached_pct;
	double		band_pct;
	double		max_duration_s;
	bool		io_workers;
	RanreadIoWorkersPart io_part;
} CalibrateArgs;

/* The batches the calibration ran, in order. */
typedef struct CalibrateBatches
{
	int64	   *batches;
	int			count;
	/* the random (uniform) batch the device answered the least of, if any */
	int64		least_physical_batch;
	double		least_physical_pct;
} CalibrateBatches;

/* The look-ahead series over its passes, and what it recommends. */
typedef struct DepthSeries
{
	int			depths[CALIBRATE_MAX_DEPTHS];
	int			count;
	double		iops[CALIBRATE_DEPTH_PASSES][CALIBRATE_MAX_DEPTHS];
	double		median_iops[CALIBRATE_MAX_DEPTHS];
	int			pick;			/* the median of the passes' picks */
	int			pick_low;
	int			pick_high;
} DepthSeries;

/* The pairs' medians: a page's mean read time and one process's IOPS. */
typedef struct PairMedians
{
	double		random_ms;
	double		sequential_ms;
	double		random_iops;
	double		sequential_iops;
} PairMedians;

/* The I/O worker counts stepped, their IOPS (median of the passes), the pick. */
typedef struct IoWorkerSteps
{
	int			counts[lengthof(io_worker_counts)];
	int			count;
	double		pass_iops[lengthof(io_worker_counts)][CALIBRATE_IO_WORKER_PASSES];
	double		iops[lengthof(io_worker_counts)];
	int			pick;
	RanreadIoWorkers state;
} IoWorkerSteps;

static void
read_calibrate_arguments(FunctionCallInfo fcinfo, CalibrateArgs *args)
{
	for (int i = 0; i < 8; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("no argument of ranread_calibrate may be null")));
	args->target = PG_GETARG_DATUM(0);
	args->iterations = PG_GETARG_INT64(1);
	args->max_pairs = PG_GETARG_INT32(2);
	args->max_depth = PG_GETARG_INT32(3);
	args->cached_pct = PG_GETARG_FLOAT8(4);
	args->band_pct = PG_GETARG_FLOAT8(5);
	args->max_duration_s = ranread_interval_seconds(PG_GETARG_INTERVAL_P(6));
	args->io_workers = PG_GETARG_BOOL(7);
	if (args->iterations < CALIBRATE_MIN_ITERATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iterations must be at least %d", CALIBRATE_MIN_ITERATIONS),
				 errdetail("The value given is " INT64_FORMAT ". Fewer reads per batch measure more noise than cost.",
						   args->iterations)));
	if (args->max_pairs < CALIBRATE_MIN_PAIRS || args->max_pairs > CALIBRATE_MAX_PAIRS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_pairs must be between %d and %d", CALIBRATE_MIN_PAIRS, CALIBRATE_MAX_PAIRS),
				 errdetail("The value given is %d. Fewer than %d pairs give the ratio's median no 95%% band.",
						   args->max_pairs, CALIBRATE_MIN_PAIRS)));
	if (args->max_depth < 1 || args->max_depth > CALIBRATE_MAX_DEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_depth must be between 1 and %d", CALIBRATE_MAX_DEPTH),
				 errdetail("The value given is %d.", args->max_depth)));
	if (!(args->cached_pct >= 0 && args->cached_pct < 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cached_pct must be at least 0 and below 100"),
				 errdetail("The value given is %g.", args->cached_pct)));
	if (!(args->band_pct >= CALIBRATE_MIN_BAND_PCT && args->band_pct <= CALIBRATE_MAX_BAND_PCT))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("band_pct must be between %.0f and %.0f", CALIBRATE_MIN_BAND_PCT, CALIBRATE_MAX_BAND_PCT),
				 errdetail("The value given is %g: the widest side of the ratio's 95%% band, in percent of the ratio, at which the pairs stop.",
						   args->band_pct)));
	if (args->max_duration_s < CALIBRATE_MIN_DURATION_S || args->max_duration_s > CALIBRATE_MAX_DURATION_S)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_duration must be between 1 second and 1 day"),
				 errdetail("No part of the interval may be negative.")));
	/* the privilege and the server, before anything runs */
	if (args->io_workers)
		args->io_part = ranread_io_workers_check();
}

/* The look-ahead depths: 0 (no advice; not on a read stream), 1, 2, 4 ... max_depth. */
static int
depth_series(int max_depth, bool stream, int *depths)
{
	int			count = 0;

	if (!stream)
		depths[count++] = 0;
	for (int depth = 1;; depth *= 2)
	{
		depths[count++] = Min(depth, max_depth);
		if (depth >= max_depth)
			break;
	}
	return count;
}

/*
 * One batch's parameters: the defaults with these arguments, checked; the
 * look-ahead depth is a read stream's iodepth in mode stream, else prefetch.
 */
static void
batch_params(RanreadRunArgs *args, const char *mode, int64 iterations, int depth,
			 const char *distribution, int64 calibration, RanreadParams *params)
{
	bool		stream = strcmp(mode, "stream") == 0;

	args->value[RUN_ARG_PROCESSES] = Int32GetDatum(1);
	args->isnull[RUN_ARG_PROCESSES] = false;
	args->value[RUN_ARG_ITERATIONS] = Int64GetDatum(iterations);
	args->isnull[RUN_ARG_ITERATIONS] = false;
	args->value[RUN_ARG_MODE] = CStringGetTextDatum(mode);
	args->value[RUN_ARG_IODEPTH] = Int32GetDatum(stream ? Max(depth, 1) : 1);
	args->value[RUN_ARG_PREFETCH] = Int32GetDatum(stream ? 0 : depth);
	args->value[RUN_ARG_DISTRIBUTION] = CStringGetTextDatum(distribution);
	ranread_read_run_arguments(args, params);
	params->calibration = calibration;
}

/*
 * Run one batch of the calibration; its IOPS, and its mean response time in
 * *mean_ms unless that is NULL.  Errors out if it did not complete, or if
 * ranread_stop() came before it.
 */
static double
run_calibration_batch(const RanreadParams *params, int64 calibration, CalibrateBatches *batches,
					  double *mean_ms)
{
	RanreadBatchOutcome outcome;
	RanreadBatchFigures figures;

	if (ranread_program_stop_requested)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("calibration " INT64_FORMAT " was stopped by ranread_stop() between two batches", calibration),
				 errdetail("The batches it ran are kept in ranread_batches (calibration = " INT64_FORMAT ").",
						   calibration)));
	ranread_run_batch(params, &ranread_program_stop_requested, &outcome);
	batches->batches[batches->count++] = outcome.batch;
	if (!outcome.recorded || !ranread_group_read_batch(outcome.batch, &figures) ||
		!ranread_group_batch_completed(&figures) || figures.iops <= 0 ||
		(mean_ms != NULL && figures.mean_ms <= 0))
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("calibration " INT64_FORMAT " ended at batch " INT64_FORMAT ", which did not complete",
						calibration, outcome.batch),
				 errdetail("The batches it ran are kept in ranread_batches (calibration = " INT64_FORMAT ").",
						   calibration)));
	/* a sequential batch reads what readahead brought in, by design: random ones only */
	if (params->distribution.kind == RANREAD_DISTRIBUTION_UNIFORM && figures.physical_pct >= 0 &&
		(batches->least_physical_batch == 0 || figures.physical_pct < batches->least_physical_pct))
	{
		batches->least_physical_batch = outcome.batch;
		batches->least_physical_pct = figures.physical_pct;
	}
	if (mean_ms != NULL)
		*mean_ms = figures.mean_ms;
	return figures.iops;
}

/*
 * A calibration some of whose random reads memory answered: its IOPS, and
 * what it recommends from them, are partly the page cache's.  Under
 * io_method = worker that is the I/O workers' readahead (report.c says it of
 * the batch): the fix is the device's.
 */
static void
warn_reads_from_memory(int64 calibration, const CalibrateBatches *batches)
{
	if (batches->least_physical_batch == 0 || batches->least_physical_pct >= RANREAD_SWEEP_MIN_PHYSICAL_PCT)
		return;
	ereport(WARNING,
			(errmsg("calibration " INT64_FORMAT ": the device answered only %.1f%% of the random reads of batch " INT64_FORMAT,
					calibration, batches->least_physical_pct, batches->least_physical_batch),
			 errdetail("Memory answered the rest, so its IOPS, and what the calibration recommends from them, are partly the page cache's; physical_pct in ranread_batches (calibration = " INT64_FORMAT ") gives each batch's share.",
					   calibration),
			 ranread_io_method_is_worker() ?
			 errhint("Under io_method = worker the I/O workers' reads take the device's readahead: set its read_ahead_kb to 0 and restart the server, or set io_method = io_uring, and calibrate again.") :
			 errhint("Use a target at least twice the server's memory (ranread_setup), and calibrate again.")));
}

/*
 * The ramp of a pair's batch that counts units of the target's blocks:
 * CALIBRATE_RAMP_MS, or as long as half the units it leaves unread would
 * last at max_rate units a second, if that is shorter.
 */
static uint64
pair_ramp_ns(BlockNumber blocks, int64 units, double max_rate)
{
	double		spare = (double) blocks - (double) units;

	if (spare <= 0 || max_rate <= 0)
		return 0;
	return (uint64) (Min(CALIBRATE_RAMP_MS / 1000.0, spare / 2 / max_rate) * 1e9);
}

/*
 * The ramps of a pair's random and sequential batches, bounded by the
 * fastest rate the look-ahead series read at: CALIBRATE_RAMP_RATE_MARGIN
 * times it for a random batch, and CALIBRATE_RAMP_SEQUENTIAL_PAGES times
 * that for a sequential one.
 */
static void
set_pair_ramps(const DepthSeries *series, BlockNumber blocks, RanreadParams *random,
			   RanreadParams *sequential)
{
	double		fastest = 0;
	double		max_rate;

	for (int pass = 0; pass < CALIBRATE_DEPTH_PASSES; pass++)
		for (int i = 0; i < series->count; i++)
			fastest = Max(fastest, series->iops[pass][i]);
	max_rate = CALIBRATE_RAMP_RATE_MARGIN * fastest;
	random->ramp_ns = pair_ramp_ns(blocks, random->iterations, max_rate);
	sequential->ramp_ns = pair_ramp_ns(blocks, sequential->iterations, CALIBRATE_RAMP_SEQUENTIAL_PAGES * max_rate);
}

/* "1: 2,000, 2: 3,900, ..." for a NOTICE's DETAIL. */
static char *
settings_text(const int *settings, const double *iops, int count)
{
	StringInfoData text;

	initStringInfo(&text);
	for (int i = 0; i < count; i++)
		appendStringInfo(&text, "%s%d: %s", i == 0 ? "" : ", ", settings[i], ranread_format_rate(iops[i]));
	return text.data;
}

/* Where a calibration is, for the CONTEXT of an error (a cancel included) that ends it. */
typedef struct CalibrateProgress
{
	int64		calibration;
	const char *step;
} CalibrateProgress;

static void
calibrate_error_context(void *arg)
{
	const CalibrateProgress *progress = arg;

	errcontext("calibration " INT64_FORMAT ", cut %s; the batches it ran are kept (ranread_batches.calibration)",
			   progress->calibration, progress->step);
}

/* One step's NOTICE: what it measured, in one line (and its detail). */
static void
step_notice(int64 calibration, const char *message, const char *detail)
{
	if (detail != NULL)
		ereport(NOTICE, (errmsg("calibration " INT64_FORMAT ": %s", calibration, message),
						 errdetail("%s", detail)));
	else
		ereport(NOTICE, (errmsg("calibration " INT64_FORMAT ": %s", calibration, message)));
}

/*
 * The look-ahead series, CALIBRATE_DEPTH_PASSES times in alternating
 * order; each pass's pick, their median and range, and each depth's median
 * IOPS.
 */
static void
run_depth_series(const RanreadParams *params, bool stream, int64 calibration,
				 CalibrateBatches *batches, DepthSeries *series)
{
	double		picks[CALIBRATE_DEPTH_PASSES];

	for (int pass = 0; pass < CALIBRATE_DEPTH_PASSES; pass++)
	{
		int			best;

		for (int n = 0; n < series->count; n++)
		{
			int			i = pass % 2 == 0 ? n : series->count - 1 - n;

			series->iops[pass][i] = run_calibration_batch(&params[i], calibration, batches, NULL);
		}
		best = ranread_least_within(series->iops[pass], series->count, 0);
		picks[pass] = series->depths[ranread_least_within(series->iops[pass], series->count,
														  RANREAD_CALIBRATE_SHORT_PCT)];
		step_notice(calibration,
					psprintf("look-ahead pass %d of %d: %d, the least within %.0f%% of the most IOPS (%s at %d)",
							 pass + 1, CALIBRATE_DEPTH_PASSES, (int) picks[pass], RANREAD_CALIBRATE_SHORT_PCT,
							 ranread_format_rate(series->iops[pass][best]), series->depths[best]),
					psprintf("IOPS of one process by %s: %s.", stream ? "read stream look-ahead" : "prefetch depth",
							 settings_text(series->depths, series->iops[pass], series->count)));
	}
	for (int i = 0; i < series->count; i++)
	{
		double		values[CALIBRATE_DEPTH_PASSES];

		for (int pass = 0; pass < CALIBRATE_DEPTH_PASSES; pass++)
			values[pass] = series->iops[pass][i];
		series->median_iops[i] = ranread_median(values, CALIBRATE_DEPTH_PASSES);
	}
	series->pick = (int) ranread_median(picks, CALIBRATE_DEPTH_PASSES);
	series->pick_low = (int) picks[0];
	series->pick_high = (int) picks[CALIBRATE_DEPTH_PASSES - 1];
}

/*
 * Step io_workers up and down with one read stream at look-ahead depth;
 * each count's IOPS is the median of its passes.  The caller restores.
 */
static void
step_io_workers(RanreadRunArgs *run_args, int64 iterations, int depth, int64 calibration,
				CalibrateBatches *batches, IoWorkerSteps *steps)
{
	RanreadParams params;
	int			max = ranread_io_workers_max();

	batch_params(run_args, "stream", iterations, depth, "uniform", calibration, &params);
	steps->count = 0;
	for (int i = 0; i < lengthof(io_worker_counts) && io_worker_counts[i] <= max; i++)
		steps->counts[steps->count++] = io_worker_counts[i];
	for (int pass = 0; pass < CALIBRATE_IO_WORKER_PASSES; pass++)
	{
		for (int n = 0; n < steps->count; n++)
		{
			int			i = pass % 2 == 0 ? n : steps->count - 1 - n;

			ranread_io_workers_set(&steps->state, steps->counts[i]);
			steps->pass_iops[i][pass] = run_calibration_batch(&params, calibration, batches, NULL);
			step_notice(calibration,
						psprintf("io_workers = %d, pass %d of %d: %s IOPS of one read stream at look-ahead %d",
								 steps->counts[i], pass + 1, CALIBRATE_IO_WORKER_PASSES,
								 ranread_format_rate(steps->pass_iops[i][pass]), depth),
						NULL);
		}
	}
	for (int i = 0; i < steps->count; i++)
		steps->iops[i] = ranread_median(steps->pass_iops[i], CALIBRATE_IO_WORKER_PASSES);
	steps->pick = steps->counts[ranread_least_within(steps->iops, steps->count, RANREAD_CALIBRATE_SHORT_PCT)];
}

/*
 * The io_workers part under io_method = worker: the steps, with io_workers
 * restored on every way out (an error, a cancel, ranread_stop()).
 */
static void
run_io_workers_part(RanreadRunArgs *run_args, int64 iterations, int depth, int64 calibration,
					CalibrateBatches *batches, IoWorkerSteps *steps)
{
	MemoryContext context = CurrentMemoryContext;

	ranread_io_workers_save(&steps->state);
	PG_TRY();
	{
		step_io_workers(run_args, iterations, depth, calibration, batches, steps);
		ranread_io_workers_restore(&steps->state, true);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(context);
		HOLD_INTERRUPTS();
		/* an error while writing postgresql.auto.conf holds its lock */
		if (steps->state.changed && LWLockHeldByMe(AutoFileLock))
			ereport(WARNING,
					(errmsg("io_workers was left as the calibration set it"),
					 errhint("Run ALTER SYSTEM %s; SELECT pg_reload_conf();",
							 steps->state.previous == NULL ? "RESET io_workers" :
							 psprintf("SET io_workers = %s", steps->state.previous))));
		else
			ranread_io_workers_restore(&steps->state, false);
		RESUME_INTERRUPTS();
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/* The io_workers part's NOTICE. */
static void
io_workers_notice(int64 calibration, const CalibrateArgs *args, const DepthSeries *series,
				  const IoWorkerSteps *steps)
{
	int			at = 0;
	int			best;

	if (args->io_part == RANREAD_IO_WORKERS_URING)
	{
		for (int i = 0; i < series->count; i++)
			if (series->depths[i] == series->pick)
				at = i;
		ereport(NOTICE,
				(errmsg("calibration " INT64_FORMAT ": io_method = io_uring has no I/O workers to step: one read stream at look-ahead %d read %s IOPS",
						calibration, series->pick, ranread_format_rate(series->median_iops[at])),
				 errdetail("The comparison for io_method = worker, which takes a restart: calibrate there with io_workers => true.")));
		return;
	}
	best = ranread_least_within(steps->iops, steps->count, 0);
	ereport(NOTICE,
			(errmsg("calibration " INT64_FORMAT ": io_workers = %d, the least within %.0f%% of the most IOPS of one read stream at look-ahead %d (%s with %d)",
					calibration, steps->pick, RANREAD_CALIBRATE_SHORT_PCT, series->pick,
					ranread_format_rate(steps->iops[best]), steps->counts[best]),
			 errdetail("IOPS by io_workers, the median of %d passes (up and down, twice): %s. After each reload the postmaster took %.0f to %.0f ms to run that many. io_workers is back as it was (%s).",
					   CALIBRATE_IO_WORKER_PASSES, settings_text(steps->counts, steps->iops, steps->count),
					   steps->state.wait_min_ms, steps->state.wait_max_ms,
					   steps->state.previous == NULL ? "not set by ALTER SYSTEM" :
					   psprintf("ALTER SYSTEM set %s", steps->state.previous)),
			 errhint("Nothing was changed. To apply: ALTER SYSTEM SET io_workers = %d; SELECT pg_reload_conf();",
					 steps->pick)));
}

/* The ratio's NOTICE: with its band and the recommendation, or why there is none. */
static void
ratio_notice(int64 calibration, const CalibrateArgs *args, const RanreadRatioBand *band, bool decided,
			 int pairs, const char *why_stopped, const PairMedians *medians, double page_cost,
			 const char *statement)
{
	char	   *message;

	if (decided)
		message = psprintf("a random page costs %.1f sequential ones (95%% band %.1f to %.1f, ± %.0f %%, over %d pairs); random_page_cost = %.1f (%.1f to %.1f)%s",
						   band->median, band->low, band->high, band->reached_pct, pairs, page_cost,
						   ranread_page_cost(band->low, args->cached_pct),
						   ranread_page_cost(band->high, args->cached_pct),
						   band->steady ? "" : ": the band is wide, but every ratio in it gives that");
	else if (band->banded)
		message = psprintf("a random page costs %.1f sequential ones, but the volume was too unsteady to recommend random_page_cost: its 95%% band %.1f to %.1f is ± %.0f %% after %d pairs, wider than ± %.0f %%",
						   band->median, band->low, band->high, band->reached_pct, pairs, args->band_pct);
	else
		message = psprintf("a random page costs %.1f sequential ones, but %d pairs give no 95%% band (%d are needed): no random_page_cost recommended",
						   band->median, pairs, CALIBRATE_MIN_PAIRS);
	ereport(NOTICE,
			(errmsg("calibration " INT64_FORMAT ": %s", calibration, message),
			 errdetail("The pairs stopped %s. A random page's read took %s ms and a sequential one's %s ms (median IOPS of one process: %s and %s). The recommendation assumes %g%% of random reads cached, as PostgreSQL's default of 4 assumes 90%% of a ratio of 40.",
					   why_stopped, ranread_format_ms(medians->random_ms), ranread_format_ms(medians->sequential_ms),
					   ranread_format_rate(medians->random_iops), ranread_format_rate(medians->sequential_iops),
					   args->cached_pct),
			 errhint("Nothing was changed. To apply: %s", statement)));
}

static Datum
int_array(const int *values, int count)
{
	Datum	   *datums = palloc(sizeof(Datum) * count);

	for (int i = 0; i < count; i++)
		datums[i] = Int32GetDatum(values[i]);
	return PointerGetDatum(construct_array(datums, count, INT4OID, sizeof(int32), true, TYPALIGN_INT));
}

static Datum
iops_array(const double *values, int count)
{
	Datum	   *datums = palloc(sizeof(Datum) * count);

	for (int i = 0; i < count; i++)
		datums[i] = Float8GetDatum(rint(values[i]));
	return PointerGetDatum(construct_array(datums, count, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static Datum
batch_array(const CalibrateBatches *batches)
{
	Datum	   *datums = palloc(sizeof(Datum) * batches->count);

	for (int i = 0; i < batches->count; i++)
		datums[i] = Int64GetDatum(batches->batches[i]);
	return PointerGetDatum(construct_array(datums, batches->count, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
										   TYPALIGN_DOUBLE));
}

/*
 * ranread_calibrate(target, iterations, max_pairs, max_depth, cached_pct,
 * band_pct, max_duration, io_workers): the random/sequential cost ratio
 * with its band and the look-ahead that pays, measured, with the settings
 * they recommend; with io_workers, the I/O workers that pay on 18.
 */
Datum
ranread_calibrate(PG_FUNCTION_ARGS)
{
	CalibrateArgs args = {0};
	RanreadRunArgs run_args;
	const RanreadReadPath *stream_path = ranread_readpath_by_name("stream");
	bool		stream = ranread_readpath_runs_here(stream_path);
	DepthSeries series = {0};
	IoWorkerSteps steps = {0};
	RanreadParams *depth_params;
	RanreadParams sequential_params;
	RanreadParams random_params;
	double	   *ratios;
	double	   *sequential_iops;
	double	   *random_iops;
	double	   *sequential_ms;
	double	   *random_ms;
	CalibrateBatches batches = {0};
	int64		calibration;
	TimestampTz started;
	Relation	target;
	BlockNumber blocks;
	Oid			tablespace;
	RanreadRatioBand band = {0};
	bool		decided = false;
	int			pairs = 0;
	const char *why_stopped;
	double		page_cost;
	PairMedians medians;
	char	   *statement;
	CalibrateProgress progress;
	ErrorContextCallback context;
	RanreadProgram program = {0};
	TupleDesc	desc;
	Datum		values[CALIBRATE_COLUMNS];
	bool		nulls[CALIBRATE_COLUMNS] = {0};

	desc = ranread_result_row_desc(fcinfo, CALIBRATE_COLUMNS);
	(void) ranread_group_start("ranread_calibrate", &run_args);
	read_calibrate_arguments(fcinfo, &args);
	run_args.value[RUN_ARG_TARGET] = args.target;
	run_args.isnull[RUN_ARG_TARGET] = false;

	target = ranread_target_open_for_run(NameStr(*DatumGetName(args.target)));
	blocks = RelationGetNumberOfBlocks(target);
	tablespace = OidIsValid(target->rd_rel->reltablespace) ? target->rd_rel->reltablespace :
		MyDatabaseTableSpace;
	relation_close(target, NoLock);
	if (args.iterations > (int64) blocks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iterations must be at most the target's %u blocks", blocks),
				 errdetail("Each random batch reads " INT64_FORMAT " blocks, none twice.", args.iterations),
				 errhint("Use fewer iterations or a larger target (ranread_setup).")));
	ranread_target_warn_if_small(NameStr(*DatumGetName(args.target)), blocks);

	PG_TRY();
	{
		ranread_program_begin(&program, RANREAD_LOCK_KIND_CALIBRATION);
		/*
		 * its number drawn once no other run can start; every batch's
		 * arguments checked before any runs
		 */
		calibration = ranread_group_number();
		ranread_program_advertise(&program, calibration);
		started = GetCurrentTimestamp();
		series.count = depth_series(args.max_depth, stream, series.depths);
		depth_params = palloc(sizeof(RanreadParams) * series.count);
		for (int i = 0; i < series.count; i++)
			batch_params(&run_args, stream ? "stream" : "smgr", args.iterations, series.depths[i],
						 "uniform", calibration, &depth_params[i]);
		batch_params(&run_args, "smgr", Min((int64) blocks, args.iterations * CALIBRATE_SEQUENTIAL_FACTOR),
					 0, "sequential", calibration, &sequential_params);
		batch_params(&run_args, "smgr", args.iterations, 0, "uniform", calibration, &random_params);

		batches.batches = palloc(sizeof(int64) * (series.count * CALIBRATE_DEPTH_PASSES +
												  lengthof(io_worker_counts) * CALIBRATE_IO_WORKER_PASSES +
												  2 * args.max_pairs));
		ratios = palloc(sizeof(double) * args.max_pairs);
		sequential_iops = palloc(sizeof(double) * args.max_pairs);
		random_iops = palloc(sizeof(double) * args.max_pairs);
		sequential_ms = palloc(sizeof(double) * args.max_pairs);
		random_ms = palloc(sizeof(double) * args.max_pairs);

		progress.calibration = calibration;
		progress.step = "in its look-ahead series";
		context.callback = calibrate_error_context;
		context.arg = &progress;
		context.previous = error_context_stack;
		error_context_stack = &context;
		run_depth_series(depth_params, stream, calibration, &batches, &series);
		set_pair_ramps(&series, blocks, &random_params, &sequential_params);
		if (args.io_workers && args.io_part == RANREAD_IO_WORKERS_STEP)
		{
			progress.step = "while it stepped io_workers (put back as it was)";
			run_io_workers_part(&run_args, args.iterations, series.pick, calibration, &batches, &steps);
		}

		for (;;)
		{
			progress.step = psprintf("in pair %d", pairs + 1);
			/* ABBA: sequential first in even pairs, random first in odd ones */
			if (pairs % 2 == 0)
				sequential_iops[pairs] = run_calibration_batch(&sequential_params, calibration, &batches,
															   &sequential_ms[pairs]);
			random_iops[pairs] = run_calibration_batch(&random_params, calibration, &batches, &random_ms[pairs]);
			if (pairs % 2 == 1)
				sequential_iops[pairs] = run_calibration_batch(&sequential_params, calibration, &batches,
															   &sequential_ms[pairs]);
			ratios[pairs] = random_ms[pairs] / sequential_ms[pairs];
			pairs++;
			ranread_ratio_band(ratios, pairs, args.band_pct, &band);
			step_notice(calibration,
						band.banded ?
						psprintf("pair %d: a random page costs %.1f sequential ones; their median %.1f, 95%% band %.1f to %.1f (± %.0f %%)",
								 pairs, ratios[pairs - 1], band.median, band.low, band.high, band.reached_pct) :
						psprintf("pair %d: a random page costs %.1f sequential ones; their median %.1f, no 95%% band before %d pairs",
								 pairs, ratios[pairs - 1], band.median, CALIBRATE_MIN_PAIRS),
						NULL);
			decided = ranread_page_cost_decided(&band, args.cached_pct);
			if (decided)
			{
				why_stopped = band.steady ? psprintf("when the band was within %.0f%%", args.band_pct) :
					pstrdup("when every ratio in the band gave the same random_page_cost");
				break;
			}
			if (pairs == args.max_pairs)
			{
				why_stopped = psprintf("at max_pairs (%d)", args.max_pairs);
				break;
			}
			if (TimestampDifferenceExceeds(started, GetCurrentTimestamp(), (int) (args.max_duration_s * 1000)))
			{
				why_stopped = psprintf("at max_duration (%.0f s)", args.max_duration_s);
				break;
			}
		}
		error_context_stack = context.previous;
	}
	PG_FINALLY();
	{
		ranread_program_end(&program);
	}
	PG_END_TRY();

	medians.random_ms = ranread_median(random_ms, pairs);
	medians.sequential_ms = ranread_median(sequential_ms, pairs);
	medians.random_iops = ranread_median(random_iops, pairs);
	medians.sequential_iops = ranread_median(sequential_iops, pairs);
	page_cost = ranread_page_cost(band.median, args.cached_pct);
	statement = decided ?
		psprintf("ALTER TABLESPACE %s SET (random_page_cost = %.1f, effective_io_concurrency = %d);",
				 quote_identifier(get_tablespace_name(tablespace)), page_cost, series.pick) :
		psprintf("ALTER TABLESPACE %s SET (effective_io_concurrency = %d);",
				 quote_identifier(get_tablespace_name(tablespace)), series.pick);

	ereport(NOTICE,
			(errmsg("calibration " INT64_FORMAT ": effective_io_concurrency = %d (%d to %d over %d passes), the least look-ahead within %.0f%% of the most IOPS",
					calibration, series.pick, series.pick_low, series.pick_high, CALIBRATE_DEPTH_PASSES,
					RANREAD_CALIBRATE_SHORT_PCT),
			 errdetail("Median IOPS of one process by %s: %s.", stream ? "read stream look-ahead" : "prefetch depth",
					   settings_text(series.depths, series.median_iops, series.count))));
	if (args.io_workers)
		io_workers_notice(calibration, &args, &series, &steps);
	ratio_notice(calibration, &args, &band, decided, pairs, why_stopped, &medians,
				 page_cost, statement);
	warn_reads_from_memory(calibration, &batches);

	values[0] = Int64GetDatum(calibration);
	values[1] = Float8GetDatum(ranread_round(medians.random_ms, RESULT_MS_DECIMALS));
	values[2] = Float8GetDatum(ranread_round(medians.sequential_ms, RESULT_MS_DECIMALS));
	values[3] = Float8GetDatum(ranread_round(band.median, 2));
	values[4] = Float8GetDatum(ranread_round(band.low, 2));
	values[5] = Float8GetDatum(ranread_round(band.high, 2));
	values[6] = Float8GetDatum(ranread_round(band.reached_pct, 1));
	nulls[4] = nulls[5] = nulls[6] = !band.banded;
	values[7] = BoolGetDatum(band.steady);
	values[8] = Int32GetDatum(pairs);
	ranread_sort_values(ratios, pairs);
	values[9] = Float8GetDatum(ranread_round(ratios[0], 2));
	values[10] = Float8GetDatum(ranread_round(ratios[pairs - 1], 2));
	values[11] = Float8GetDatum(page_cost);
	nulls[11] = !decided;
	values[12] = Float8GetDatum(ranread_page_cost(band.low, args.cached_pct));
	values[13] = Float8GetDatum(ranread_page_cost(band.high, args.cached_pct));
	nulls[12] = nulls[13] = !band.banded;
	values[14] = Int32GetDatum(series.pick);
	values[15] = Int32GetDatum(series.pick_low);
	values[16] = Int32GetDatum(series.pick_high);
	values[17] = int_array(series.depths, series.count);
	values[18] = iops_array(series.median_iops, series.count);
	values[19] = args.io_workers ? CStringGetTextDatum(GetConfigOption("io_method", false, false)) : (Datum) 0;
	nulls[19] = !args.io_workers;
	values[20] = Int32GetDatum(steps.pick);
	values[21] = steps.count > 0 ? int_array(steps.counts, steps.count) : (Datum) 0;
	values[22] = steps.count > 0 ? iops_array(steps.iops, steps.count) : (Datum) 0;
	nulls[20] = nulls[21] = nulls[22] = steps.count == 0;
	values[23] = CStringGetTextDatum(statement);
	values[24] = batch_array(&batches);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
