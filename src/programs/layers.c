/*-------------------------------------------------------------------------
 *
 * layers.c
 *		ranread_layers(): the latency each layer of PostgreSQL's read path adds.
 *
 * One batch per read path, from the device up: 'direct' (the device),
 * 'smgr' (plus the OS page cache and the storage manager, cold), 'buffer'
 * (plus the buffer manager, cold) and, from PostgreSQL 18, 'stream' (plus a
 * read stream through io_method).  Every batch reads the same units in the
 * same order (one seed for all), with the same processes and iterations or
 * duration, one read in flight per process; each is an ordinary batch,
 * recorded as any other and marked with the layers run's number
 * (batch_group.c).  The result has one row per layer with IOPS, mean, p50, p99 and
 * what the layer adds over the one below; a NOTICE says where the time
 * goes.  A batch that does not complete ends the layers run there; those
 * recorded stay.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "common/pg_prng.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "programs/batch_group.h"
#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "run/run.h"
#include "run/run_arguments.h"
#include "run/target.h"

PG_FUNCTION_INFO_V1(ranread_layers);

/* The layers, from the device up, and what each adds over the one below. */
static const struct
{
	const char *mode;
	const char *layer;
}			layers[] = {
	{"direct", "device"},
	{"smgr", "page cache and storage manager"},
	{"buffer", "buffer manager"},
	{"stream", "read stream and io_method"},
};

#define LAYER_COLUMNS	10

/* A figure of a result row, rounded; NULL if negative (not measured). */
static void
put_float(Datum *values, bool *nulls, int column, double value, int decimals)
{
	values[column] = Float8GetDatum(ranread_round(value, decimals));
	nulls[column] = value < 0;
}

/* One result row: the layer, its batch's figures and what it adds over `below` (NULL: none). */
static void
put_layer(ReturnSetInfo *rsinfo, int layer, const RanreadBatchFigures *result, const RanreadBatchFigures *below)
{
	Datum		values[LAYER_COLUMNS];
	bool		nulls[LAYER_COLUMNS] = {0};

	values[0] = CStringGetTextDatum(layers[layer].layer);
	values[1] = CStringGetTextDatum(layers[layer].mode);
	values[2] = Int64GetDatum(result->batch);
	put_float(values, nulls, 3, result->iops, 0);
	put_float(values, nulls, 4, result->mean_ms, RESULT_MS_DECIMALS);
	put_float(values, nulls, 5, result->p50_ms, RESULT_MS_DECIMALS);
	put_float(values, nulls, 6, result->p99_ms, RESULT_MS_DECIMALS);
	values[7] = Float8GetDatum(below != NULL ? ranread_round(result->mean_ms - below->mean_ms, RESULT_MS_DECIMALS) : 0);
	nulls[7] = below == NULL || result->mean_ms < 0 || below->mean_ms < 0;
	values[8] = Float8GetDatum(below != NULL ? ranread_round(result->p99_ms - below->p99_ms, RESULT_MS_DECIMALS) : 0);
	nulls[8] = below == NULL || result->p99_ms < 0 || below->p99_ms < 0;
	put_float(values, nulls, 9, result->physical_pct, 2);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Where the time goes, in a sentence: each layer's share of the top layer's
 * mean; results[i] is the batch of layers[layer_of[i]].
 */
static void
report_layers(int64 run, const RanreadBatchFigures *results, const int *layer_of, int count)
{
	StringInfoData where;
	double		top;

	if (count < 2)
		return;
	top = results[count - 1].mean_ms;
	if (top <= 0)
		return;
	initStringInfo(&where);
	for (int i = 0; i < count; i++)
	{
		double		own = i == 0 ? results[0].mean_ms : results[i].mean_ms - results[i - 1].mean_ms;

		appendStringInfo(&where, "%s%s %s ms (%.0f%%)", i == 0 ? "" : i == count - 1 ? " and " : ", ",
						 layers[layer_of[i]].layer, ranread_format_ms(own), 100.0 * own / top);
	}
	ereport(NOTICE,
			(errmsg("layers run " INT64_FORMAT ": of a mean %s ms through mode %s, %s",
					run, ranread_format_ms(top), layers[layer_of[count - 1]].mode, where.data),
			 errdetail("Each layer's share is its batch's mean read time less the layer's below; the same units were read in the same order by each.")));
}

/*
 * ranread_layers(processes, iterations, target, duration): a batch per read
 * path on the same units, and the latency each layer adds.
 */
Datum
ranread_layers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RanreadRunArgs args;
	RanreadParams params[lengthof(layers)];
	bool		runs[lengthof(layers)];	/* the server runs the layer's read path */
	RanreadBatchFigures results[lengthof(layers)];
	int			layer_of[lengthof(layers)];
	int			count = 0;
	int64		run;
	uint64		seed = pg_prng_uint64(&pg_global_prng_state) | 1;

	(void) ranread_group_start("ranread_layers", &args);
	InitMaterializedSRF(fcinfo, 0);
	ranread_check_result_columns(rsinfo->setDesc, LAYER_COLUMNS);
	args.isnull[RUN_ARG_PROCESSES] = PG_ARGISNULL(0);
	args.value[RUN_ARG_PROCESSES] = PG_GETARG_DATUM(0);
	args.isnull[RUN_ARG_ITERATIONS] = PG_ARGISNULL(1);
	args.value[RUN_ARG_ITERATIONS] = PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1);
	args.isnull[RUN_ARG_TARGET] = PG_ARGISNULL(2);
	args.value[RUN_ARG_TARGET] = PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2);
	args.isnull[RUN_ARG_DURATION] = PG_ARGISNULL(3);
	args.value[RUN_ARG_DURATION] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);

	/* every layer's arguments, and what its target allows, checked before anything runs */
	for (int i = 0; i < lengthof(layers); i++)
	{
		Relation	target;

		runs[i] = ranread_readpath_runs_here(ranread_readpath_by_name(layers[i].mode));
		if (!runs[i])
			continue;
		args.value[RUN_ARG_MODE] = CStringGetTextDatum(layers[i].mode);
		ranread_read_run_arguments(&args, &params[i]);
		params[i].seed = seed;
		target = ranread_target_open_for_run(params[i].target_name);
		ranread_check_batch_target(&params[i], target);
		relation_close(target, NoLock);
	}

	run = ranread_group_number();
	for (int i = 0; i < lengthof(layers); i++)
	{
		RanreadBatchOutcome outcome;

		if (!runs[i])
			continue;
		params[i].layers = run;
		ranread_run_batch(&params[i], NULL, &outcome);
		if (!outcome.recorded || !ranread_group_read_batch(outcome.batch, &results[count]))
			break;
		put_layer(rsinfo, i, &results[count], count > 0 ? &results[count - 1] : NULL);
		layer_of[count++] = i;
		if (!ranread_group_batch_completed(&results[count - 1]))
			break;
	}
	report_layers(run, results, layer_of, count);
	return (Datum) 0;
}
