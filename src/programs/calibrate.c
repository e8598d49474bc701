/*-------------------------------------------------------------------------
 *
 * calibrate.c
 *		ranread_calibrate(): the planner's I/O settings measured from the
 *		target's tablespace, and the ALTER TABLESPACE that would apply them.
 *
 * A calibration is a group of ordinary batches of one process each
 * (batch_group.c), marked with the calibration's number:
 *
 *	 1. the look-ahead series: the same number of random reads at depths 0
 *		(15 to 17; 1 on 18), 1, 2, 4 ... max_depth, through mode smgr with
 *		prefetch => depth (what PostgreSQL 15 to 17 advise ahead of a bitmap
 *		heap scan at effective_io_concurrency = depth) or, on 18, mode stream
 *		with iodepth => depth (a read stream's look-ahead);
 *	 2. `repetitions` pairs, in ABBA order: a sequential batch (consecutive
 *		blocks through the storage manager with the kernel's readahead, as
 *		a sequential scan reads them) and a random one (no unit twice), cold.
 *
 * A page's cost is the time one process takes per page (1 / IOPS), so the
 * random/sequential ratio of a pair is the sequential batch's IOPS over the
 * random one's; the result gives the median over the pairs and their range.
 * PostgreSQL's default random_page_cost of 4 models random reads as 40
 * times slower than sequential ones with 90 % of them cached (its
 * documentation says so), so the recommendation is the measured ratio times
 * the share not cached (cached_pct, 90 by default), at least seq_page_cost,
 * 1.  effective_io_concurrency is the smallest depth that reached within
 * CALIBRATE_DEPTH_SHORT_PCT of the most IOPS any depth reached: past it,
 * more look-ahead pins more buffers for little (a rule on the best, not on
 * each doubling, so that one noisy step does not end the series early).
 * The figures returned are rounded (ms to 0.1 us).  Nothing is applied:
 * the statement is returned.  A batch that does not complete ends the
 * calibration with an error; its batches stay recorded.
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
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "programs/batch_group.h"
#include "format.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/run.h"
#include "run/run_arguments.h"
#include "run/target.h"

PG_FUNCTION_INFO_V1(ranread_calibrate);

/* effective_io_concurrency: the smallest depth within this share of the best IOPS */
#define CALIBRATE_DEPTH_SHORT_PCT		10.0
/* A sequential batch reads this many times the random batches' pages. */
#define CALIBRATE_SEQUENTIAL_FACTOR		8
#define CALIBRATE_MIN_ITERATIONS		100
#define CALIBRATE_MAX_REPETITIONS		10
#define CALIBRATE_MAX_DEPTH				1000	/* effective_io_concurrency's maximum */
#define CALIBRATE_MAX_DEPTHS			12		/* 0, 1, 2, 4 ... 1000 */
#define CALIBRATE_COLUMNS				12

/* What the caller asked for, checked. */
typedef struct CalibrateArgs
{
	Datum		target;
	int64		iterations;
	int			repetitions;
	int			max_depth;
	double		cached_pct;
} CalibrateArgs;

static void
read_calibrate_arguments(FunctionCallInfo fcinfo, CalibrateArgs *args)
{
	for (int i = 0; i < 5; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("target, iterations, repetitions, max_depth and cached_pct must not be null")));
	args->target = PG_GETARG_DATUM(0);
	args->iterations = PG_GETARG_INT64(1);
	args->repetitions = PG_GETARG_INT32(2);
	args->max_depth = PG_GETARG_INT32(3);
	args->cached_pct = PG_GETARG_FLOAT8(4);
	if (args->iterations < CALIBRATE_MIN_ITERATIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iterations must be at least %d", CALIBRATE_MIN_ITERATIONS),
				 errdetail("The value given is " INT64_FORMAT ". Fewer reads per batch measure more noise than cost.",
						   args->iterations)));
	if (args->repetitions < 1 || args->repetitions > CALIBRATE_MAX_REPETITIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("repetitions must be between 1 and %d", CALIBRATE_MAX_REPETITIONS),
				 errdetail("The value given is %d.", args->repetitions)));
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

static double
median(double *values, int count)
{
	for (int i = 1; i < count; i++)
		for (int j = i; j > 0 && values[j - 1] > values[j]; j--)
		{
			double		swap = values[j];

			values[j] = values[j - 1];
			values[j - 1] = swap;
		}
	return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* Run one batch of the calibration; errors out if it did not complete. */
static double
run_calibration_batch(const RanreadParams *params, int64 calibration, int64 *batches, int *count)
{
	RanreadBatchOutcome outcome;
	RanreadBatchFigures figures;

	ranread_run_batch(params, NULL, &outcome);
	batches[(*count)++] = outcome.batch;
	if (!outcome.recorded || !ranread_group_read_batch(outcome.batch, &figures) ||
		!ranread_group_batch_completed(&figures) || figures.iops <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("calibration " INT64_FORMAT " ended at batch " INT64_FORMAT ", which did not complete",
						calibration, outcome.batch),
				 errdetail("The batches it ran are kept in ranread_batches (calibration = " INT64_FORMAT ").",
						   calibration)));
	ranread_group_report_batch("calibration", calibration, params, &figures);
	return figures.iops;
}

/* The smallest depth within CALIBRATE_DEPTH_SHORT_PCT of the most IOPS; *best: its index. */
static int
recommended_depth(const int *depths, const double *iops, int count, int *best)
{
	*best = 0;
	for (int i = 1; i < count; i++)
		if (iops[i] > iops[*best])
			*best = i;
	for (int i = 0; i < count; i++)
		if (iops[i] >= iops[*best] * (1.0 - CALIBRATE_DEPTH_SHORT_PCT / 100.0))
			return depths[i];
	return depths[*best];
}

/* The IOPS of each depth, for the NOTICE's DETAIL. */
static char *
depth_text(const int *depths, const double *iops, int count)
{
	StringInfoData text;

	initStringInfo(&text);
	for (int i = 0; i < count; i++)
		appendStringInfo(&text, "%s%d: %.0f", i == 0 ? "" : ", ", depths[i], iops[i]);
	return text.data;
}

/*
 * ranread_calibrate(target, iterations, repetitions, max_depth, cached_pct):
 * the random/sequential cost ratio and the look-ahead that pays, measured,
 * with the settings they recommend.
 */
Datum
ranread_calibrate(PG_FUNCTION_ARGS)
{
	CalibrateArgs args;
	RanreadRunArgs run_args;
	const RanreadReadPath *stream_path = ranread_readpath_by_name("stream");
	bool		stream = ranread_readpath_runs_here(stream_path);
	int			depths[CALIBRATE_MAX_DEPTHS];
	double		depth_iops[CALIBRATE_MAX_DEPTHS] = {0};
	int			depth_count;
	RanreadParams *depth_params;
	RanreadParams sequential_params;
	RanreadParams random_params;
	double		ratios[CALIBRATE_MAX_REPETITIONS] = {0};
	double		sequential_iops[CALIBRATE_MAX_REPETITIONS] = {0};
	double		random_iops[CALIBRATE_MAX_REPETITIONS] = {0};
	int64	   *batches;
	int			batch_count = 0;
	int64		calibration;
	Relation	target;
	BlockNumber blocks;
	Oid			tablespace;
	double		ratio,
				ratio_min,
				ratio_max,
				page_cost;
	int			io_concurrency;
	int			best;
	char	   *statement;
	TupleDesc	desc;
	Datum		values[CALIBRATE_COLUMNS];
	bool		nulls[CALIBRATE_COLUMNS] = {0};
	Datum	   *depth_datums;
	Datum	   *iops_datums;
	Datum	   *batch_datums;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ranread_calibrate must return a row");
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

	/* every batch's arguments checked before anything runs */
	calibration = ranread_group_number();
	depth_count = depth_series(args.max_depth, stream, depths);
	depth_params = palloc(sizeof(RanreadParams) * depth_count);
	for (int i = 0; i < depth_count; i++)
		batch_params(&run_args, stream ? "stream" : "smgr", args.iterations, depths[i],
					 "uniform", calibration, &depth_params[i]);
	batch_params(&run_args, "smgr", Min((int64) blocks, args.iterations * CALIBRATE_SEQUENTIAL_FACTOR),
				 0, "sequential", calibration, &sequential_params);
	batch_params(&run_args, "smgr", args.iterations, 0, "uniform", calibration, &random_params);

	batches = palloc(sizeof(int64) * (depth_count + 2 * args.repetitions));
	for (int i = 0; i < depth_count; i++)
		depth_iops[i] = run_calibration_batch(&depth_params[i], calibration, batches, &batch_count);
	for (int i = 0; i < args.repetitions; i++)
	{
		/* ABBA: sequential first in even repetitions, random first in odd ones */
		if (i % 2 == 0)
			sequential_iops[i] = run_calibration_batch(&sequential_params, calibration, batches, &batch_count);
		random_iops[i] = run_calibration_batch(&random_params, calibration, batches, &batch_count);
		if (i % 2 == 1)
			sequential_iops[i] = run_calibration_batch(&sequential_params, calibration, batches, &batch_count);
		ratios[i] = sequential_iops[i] / random_iops[i];
	}

	ratio = median(ratios, args.repetitions);
	ratio_min = ratios[0];
	ratio_max = ratios[args.repetitions - 1];
	page_cost = Max(1.0, rint(10.0 * ratio * (1.0 - args.cached_pct / 100.0)) / 10.0);
	io_concurrency = recommended_depth(depths, depth_iops, depth_count, &best);
	statement = psprintf("ALTER TABLESPACE %s SET (random_page_cost = %.1f, effective_io_concurrency = %d);",
						 quote_identifier(get_tablespace_name(tablespace)), page_cost, io_concurrency);

	ereport(NOTICE,
			(errmsg("calibration " INT64_FORMAT ": effective_io_concurrency = %d, the least look-ahead within %.0f%% of the most IOPS (%.0f at %d)",
					calibration, io_concurrency, CALIBRATE_DEPTH_SHORT_PCT, depth_iops[best], depths[best]),
			 errdetail("IOPS of one process by %s: %s.", stream ? "read stream look-ahead" : "prefetch depth",
					   depth_text(depths, depth_iops, depth_count))));
	ereport(NOTICE,
			(errmsg("calibration " INT64_FORMAT ": a random page costs %.1f sequential ones (%.1f to %.1f over %d repetitions); random_page_cost = %.1f",
					calibration, ratio, ratio_min, ratio_max, args.repetitions, page_cost),
			 errdetail("A random page took %s ms and a sequential one %s ms (median IOPS of one process: %.0f and %.0f). The recommendation assumes %g%% of random reads cached, as PostgreSQL's default of 4 assumes 90%% of a ratio of 40.",
					   ranread_format_ms(1000.0 / median(random_iops, args.repetitions)),
					   ranread_format_ms(1000.0 / median(sequential_iops, args.repetitions)),
					   median(random_iops, args.repetitions), median(sequential_iops, args.repetitions),
					   args.cached_pct),
			 errhint("Nothing was changed. To apply: %s", statement)));

	depth_datums = palloc(sizeof(Datum) * depth_count);
	iops_datums = palloc(sizeof(Datum) * depth_count);
	for (int i = 0; i < depth_count; i++)
	{
		depth_datums[i] = Int32GetDatum(depths[i]);
		iops_datums[i] = Float8GetDatum(rint(depth_iops[i]));
	}
	batch_datums = palloc(sizeof(Datum) * batch_count);
	for (int i = 0; i < batch_count; i++)
		batch_datums[i] = Int64GetDatum(batches[i]);

	values[0] = Int64GetDatum(calibration);
	values[1] = Float8GetDatum(ranread_round(1000.0 / median(random_iops, args.repetitions), RESULT_MS_DECIMALS));
	values[2] = Float8GetDatum(ranread_round(1000.0 / median(sequential_iops, args.repetitions), RESULT_MS_DECIMALS));
	values[3] = Float8GetDatum(ranread_round(ratio, 2));
	values[4] = Float8GetDatum(ranread_round(ratio_min, 2));
	values[5] = Float8GetDatum(ranread_round(ratio_max, 2));
	values[6] = Float8GetDatum(page_cost);
	values[7] = Int32GetDatum(io_concurrency);
	values[8] = PointerGetDatum(construct_array(depth_datums, depth_count, INT4OID, sizeof(int32), true, TYPALIGN_INT));
	values[9] = PointerGetDatum(construct_array(iops_datums, depth_count, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	values[10] = CStringGetTextDatum(statement);
	values[11] = PointerGetDatum(construct_array(batch_datums, batch_count, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
