/*-------------------------------------------------------------------------
 *
 * layers.c
 *		ranread_layers(): the latency each layer of PostgreSQL's read path adds.
 *
 * The layers are read paths, from the device up: 'direct' (the device),
 * 'smgr' (plus the OS page cache and the storage manager, cold), 'buffer'
 * (plus the buffer manager, cold) and, from PostgreSQL 18, 'stream' (plus a
 * read stream through io_method).  A layers run reads them in rounds of
 * short batches, up the layers and down again (ABCCBA, layer_rules.c), so
 * that a storage that drifts during the run slows every layer alike; each
 * layer's share is what it adds over the layer below, round by round, with
 * the 95 % interval of those differences.  The rounds go on until every
 * share's band is within band_pct percent of the top layer's mean, or
 * max_rounds rounds have run.  Every batch reads the same units in the same
 * order (one seed for the run), with the same processes, one read in flight
 * each, and iterations (or duration) / (2 max_rounds) of them: a layer
 * reads at most what the caller gave it over all its rounds.  Each batch is
 * an ordinary batch, recorded as any other and marked with the layers run's
 * number (batch_group.c), the target evicted from shared buffers before
 * each batch of mode buffer; its own NOTICEs are DEBUG1 (report.c), and the
 * run says one NOTICE a round and one at the end.  A share whose band
 * contains zero is "not measurable here", never a negative time.  A batch
 * that does not complete ends the run, and so does ranread_stop() between
 * two batches (the run is a program of batches, program.c): the complete
 * rounds are reported, every batch stays recorded, and the NOTICE says what
 * was cut.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "common/pg_prng.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "programs/batch_group.h"
#include "extension.h"
#include "compat.h"
#include "format.h"
#include "ranread.h"
#include "readpath/readpath.h"
#include "rules/layer_rules.h"
#include "run/program.h"
#include "run/run.h"
#include "run/run_arguments.h"
#include "run/target.h"

PG_FUNCTION_INFO_V1(ranread_layers);

/*
 * A batch the device answered less than this share of ends the run: memory
 * answered most of its reads, so its layer's latency is not the device's
 * (a target that fits in memory does this round by round).  Not a batch of
 * mode buffer whose target could not be evicted from shared buffers before
 * it (before 18, while another session held a lock on it: compat.h): its
 * share is known not to be the device's, and its row says so (physical_pct).
 */
#define LAYERS_MIN_PHYSICAL_PCT	50.0

/* The layers, from the device up, and what each adds over the one below. */
static const struct
{
	const char *mode;
	const char *layer;
}			layers[] = {
	{"direct", "device"},
	{"smgr", "page cache"},		/* and the storage manager */
	{"buffer", "buffer manager"},
	{"stream", "read stream"},	/* and io_method */
};

#define MAX_LAYERS		lengthof(layers)
#define LAYER_COLUMNS	9

/* ranread_layers()'s arguments, in the order of its SQL signature. */
enum
{
	ARG_PROCESSES,
	ARG_ITERATIONS,
	ARG_TARGET,
	ARG_DURATION,
	ARG_MAX_ROUNDS,
	ARG_BAND_PCT
};

/* A layers run: the layers this server runs, and what their batches measured. */
typedef struct LayersRun
{
	int64		number;
	int			count;			/* layers this server runs */
	int			layer[MAX_LAYERS];	/* their index in layers[] */
	RanreadParams params[MAX_LAYERS];
	int			rounds;			/* complete rounds */
	int			recorded;		/* batches recorded, the cut round's too */
	int			running;		/* the layer whose batch runs; -1 between batches */
	/* per layer and round: the mean of its two batches */
	double		mean_ms[MAX_LAYERS][RANREAD_LAYERS_MAX_ROUNDS];
	double		p99_ms[MAX_LAYERS][RANREAD_LAYERS_MAX_ROUNDS];
	/* per layer, its batches of the complete rounds, in the order they ran */
	RanreadBatchFigures batches[MAX_LAYERS][2 * RANREAD_LAYERS_MAX_ROUNDS];
	RanreadLayerShare mean_share[MAX_LAYERS];	/* [0]: unused (the device) */
	RanreadLayerShare p99_share[MAX_LAYERS];
} LayersRun;

/* A share in microseconds, for the NOTICEs. */
#define US(ms)	((ms) * 1000.0)

/*
 * Read the iterations or duration a layer reads over all its rounds into
 * each batch's share of them (two batches a round); the rest of the
 * arguments as ranread_run() takes them.
 */
static void
read_layer_arguments(FunctionCallInfo fcinfo, int max_rounds, RanreadRunArgs *args)
{
	int			batches = 2 * max_rounds;

	args->isnull[RUN_ARG_PROCESSES] = PG_ARGISNULL(ARG_PROCESSES);
	args->value[RUN_ARG_PROCESSES] = PG_GETARG_DATUM(ARG_PROCESSES);
	args->isnull[RUN_ARG_TARGET] = PG_ARGISNULL(ARG_TARGET);
	args->value[RUN_ARG_TARGET] = PG_ARGISNULL(ARG_TARGET) ? (Datum) 0 : PG_GETARG_DATUM(ARG_TARGET);
	args->isnull[RUN_ARG_ITERATIONS] = PG_ARGISNULL(ARG_ITERATIONS);
	args->value[RUN_ARG_ITERATIONS] = (Datum) 0;
	if (!PG_ARGISNULL(ARG_ITERATIONS))
	{
		int64		iterations = PG_GETARG_INT64(ARG_ITERATIONS);

		if (iterations >= 1 && iterations < batches)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("iterations must be at least 2 x max_rounds (%d)", batches),
					 errdetail("Each layer reads its " INT64_FORMAT " iterations per process over at most %d rounds of two batches.",
							   iterations, max_rounds),
					 errhint("Give more iterations or fewer max_rounds.")));
		args->value[RUN_ARG_ITERATIONS] = Int64GetDatum(iterations >= 1 ? iterations / batches : iterations);
	}
	args->isnull[RUN_ARG_DURATION] = PG_ARGISNULL(ARG_DURATION);
	args->value[RUN_ARG_DURATION] = PG_ARGISNULL(ARG_DURATION) ? (Datum) 0 :
		DirectFunctionCall2(interval_div, PG_GETARG_DATUM(ARG_DURATION), Float8GetDatum(batches));
}

/* max_rounds and band_pct, checked. */
static void
read_round_arguments(FunctionCallInfo fcinfo, int *max_rounds, double *band_pct)
{
	if (PG_ARGISNULL(ARG_MAX_ROUNDS) || PG_ARGISNULL(ARG_BAND_PCT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("max_rounds and band_pct must not be null")));
	*max_rounds = PG_GETARG_INT32(ARG_MAX_ROUNDS);
	*band_pct = PG_GETARG_FLOAT8(ARG_BAND_PCT);
	if (*max_rounds < RANREAD_LAYERS_MIN_ROUNDS || *max_rounds > RANREAD_LAYERS_MAX_ROUNDS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_rounds must be between %d and %d", RANREAD_LAYERS_MIN_ROUNDS, RANREAD_LAYERS_MAX_ROUNDS),
				 errdetail("The value given is %d. A band needs %d rounds.", *max_rounds, RANREAD_LAYERS_MIN_ROUNDS)));
	if (!(*band_pct > 0 && *band_pct <= 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("band_pct must be above 0 and at most 100"),
				 errdetail("The value given is %g.", *band_pct)));
}

/* The figures of a layer's result row (enum LayerFigure). */
enum LayerFigure
{
	FIGURE_MEAN,
	FIGURE_P99,
	FIGURE_COUNT
};

/*
 * A layer's figures over the complete rounds: the means of its batches'
 * mean and p99 (each -1 if a batch's is unknown).
 */
static void
layer_figures(const LayersRun *run, int i, double *figures)
{
	for (int f = 0; f < FIGURE_COUNT; f++)
		figures[f] = 0;
	for (int b = 0; b < 2 * run->rounds; b++)
	{
		const RanreadBatchFigures *batch = &run->batches[i][b];
		const double values[FIGURE_COUNT] = {batch->mean_ms, batch->p99_ms};

		for (int f = 0; f < FIGURE_COUNT; f++)
			figures[f] = figures[f] < 0 || values[f] < 0 ? -1 : figures[f] + values[f];
	}
	for (int f = 0; f < FIGURE_COUNT; f++)
		if (figures[f] >= 0)
			figures[f] /= 2 * run->rounds;
}

/* A layer's mean read time over the complete rounds. */
static double
layer_mean_ms(const LayersRun *run, int i)
{
	double		figures[FIGURE_COUNT];

	layer_figures(run, i, figures);
	return figures[FIGURE_MEAN];
}

/* The least physical_pct of a layer's batches; -1 if one is unknown. */
static double
layer_physical_pct(const LayersRun *run, int i)
{
	double		least = 100;

	for (int b = 0; b < 2 * run->rounds; b++)
	{
		if (run->batches[i][b].physical_pct < 0)
			return -1;
		least = Min(least, run->batches[i][b].physical_pct);
	}
	return least;
}

/* The shares of every layer above the device over the complete rounds. */
static void
compute_shares(LayersRun *run)
{
	for (int i = 1; i < run->count; i++)
	{
		double		mean_differences[RANREAD_LAYERS_MAX_ROUNDS];
		double		p99_differences[RANREAD_LAYERS_MAX_ROUNDS];

		for (int r = 0; r < run->rounds; r++)
		{
			mean_differences[r] = run->mean_ms[i][r] - run->mean_ms[i - 1][r];
			p99_differences[r] = run->p99_ms[i][r] - run->p99_ms[i - 1][r];
		}
		ranread_layer_share(mean_differences, run->rounds, &run->mean_share[i]);
		ranread_layer_share(p99_differences, run->rounds, &run->p99_share[i]);
	}
}

/* A share in words: "12.3 ± 4.5 µs", or what its band says instead of a time. */
static void
append_share(StringInfo out, const LayersRun *run, int i)
{
	const RanreadLayerShare *share = &run->mean_share[i];

	if (share->band < 0)
		appendStringInfo(out, "%s not measurable yet (no band from one round)", layers[run->layer[i]].layer);
	else if (share->kind == RANREAD_SHARE_ADDS)
		appendStringInfo(out, "%s %.1f ± %.1f µs", layers[run->layer[i]].layer, US(share->value), US(share->band));
	else if (share->kind == RANREAD_SHARE_WITHIN_NOISE)
		appendStringInfo(out, "%s not measurable here (± %.1f µs)", layers[run->layer[i]].layer, US(share->band));
	else
		appendStringInfo(out, "%s not measurable here (mode %s read %.1f ± %.1f µs faster than mode %s)",
						 layers[run->layer[i]].layer, layers[run->layer[i]].mode, US(-share->value),
						 US(share->band), layers[run->layer[i - 1]].mode);
}

/* The step NOTICE of a round: each layer's mean in it, and the shares so far. */
static void
report_round(const LayersRun *run, int max_rounds)
{
	StringInfoData text;
	int			r = run->rounds - 1;

	initStringInfo(&text);
	appendStringInfo(&text, "layers run " INT64_FORMAT ", round %d of at most %d: ", run->number, run->rounds, max_rounds);
	for (int i = 0; i < run->count; i++)
		appendStringInfo(&text, "%s%s %s ms", i == 0 ? "" : ", ", layers[run->layer[i]].mode,
						 ranread_format_ms(run->mean_ms[i][r]));
	for (int i = 1; i < run->count; i++)
	{
		appendStringInfoString(&text, i == 1 ? "; " : ", ");
		append_share(&text, run, i);
	}
	ereport(NOTICE, (errmsg("%s", text.data)));
}

/*
 * The one WARNING of a layers run whose batch memory answered: it ends the
 * run (the batches' own WARNINGs, one a batch, are DEBUG1 in a layers run),
 * with the cause and the fix.
 */
static void
warn_memory_answered(const LayersRun *run, const RanreadBatchFigures *batch, int layer)
{
	bool		io_workers = strcmp(layers[run->layer[layer]].mode, "stream") == 0 &&
		ranread_io_method_is_worker();

	ereport(WARNING,
			(errmsg("layers run " INT64_FORMAT " ended in round %d: the device answered only %.0f%% of the reads of batch " INT64_FORMAT " (mode %s)",
					run->number, run->rounds + 1, batch->physical_pct, batch->batch, layers[run->layer[layer]].mode),
			 errdetail("Memory answered the rest, so that layer's latency would not be the device's; the complete rounds before are reported."),
			 io_workers ?
			 errhint("Under io_method = worker the I/O workers' reads take the device's readahead (the batch's own WARNING, at client_min_messages = debug1, says how much): set its read_ahead_kb to 0 and restart the server, or set io_method = io_uring.") :
			 errhint("Use a target at least twice the server's memory (ranread_setup), so that eviction and readahead leave the device the reads, or fewer iterations.")));
}

/*
 * Where the time goes, in a sentence: the device's mean and each share,
 * with its band, over the complete rounds; and what was cut, if a batch did
 * not complete or ranread_stop() came between two (cut: its figures, batch
 * 0 for the latter, else NULL).
 */
static void
report_layers(const LayersRun *run, int max_rounds, double band_pct, bool settled,
			  const RanreadBatchFigures *cut, int cut_layer)
{
	StringInfoData where;
	StringInfoData cut_text;
	double		top;

	initStringInfo(&cut_text);
	if (cut != NULL && cut->batch == 0)
		appendStringInfo(&cut_text, "round %d was stopped before its batch of mode %s: ",
						 run->rounds + 1, layers[run->layer[cut_layer]].mode);
	else if (cut != NULL)
		appendStringInfo(&cut_text, "batch " INT64_FORMAT " (mode %s) of round %d was %s: ",
						 cut->batch, layers[run->layer[cut_layer]].mode, run->rounds + 1, cut->status);
	if (run->rounds == 0)
	{
		ereport(NOTICE,
				(errmsg("layers run " INT64_FORMAT " has no complete round: %sno share was measured",
						run->number, cut_text.data),
				 errdetail("Its %d batches stay recorded in ranread_batches (layers = " INT64_FORMAT ").",
						   run->recorded, run->number)));
		return;
	}
	if (cut != NULL)
		appendStringInfo(&cut_text, "the figures are those of the %d complete round%s; ", run->rounds,
						 run->rounds == 1 ? "" : "s");
	top = layer_mean_ms(run, run->count - 1);
	initStringInfo(&where);
	appendStringInfo(&where, "device %s ms", ranread_format_ms(layer_mean_ms(run, 0)));
	for (int i = 1; i < run->count; i++)
	{
		appendStringInfoString(&where, i == run->count - 1 ? " and " : ", ");
		append_share(&where, run, i);
	}
	ereport(NOTICE,
			(errmsg("layers run " INT64_FORMAT " after %d round%s: %sof a mean %s ms through mode %s, %s",
					run->number, run->rounds, run->rounds == 1 ? "" : "s", cut_text.data,
					ranread_format_ms(top), layers[run->layer[run->count - 1]].mode, where.data),
			 errdetail("Each round read every layer twice, up the layers and down again, so that a drift of the storage slows each alike. A share is its layer's mean less the layer below's in each round, averaged over the rounds, with the 95%% interval of those differences; its %d batches stay recorded in ranread_batches (layers = " INT64_FORMAT ").",
					   run->recorded, run->number),
			 cut == NULL && !settled ?
			 errhint("Not every band came within %g%% of the top mean in %d rounds: more iterations or max_rounds narrow them.",
					 band_pct, max_rounds) : 0));
}

/*
 * One result row, a terminal's line: a layer's mean and p99 over the complete
 * rounds, and its share of each with its band.  Its batches, with every other
 * figure, are those of ranread_batches with the run's number in layers.
 */
static void
put_layer(ReturnSetInfo *rsinfo, const LayersRun *run, int i)
{
	Datum		values[LAYER_COLUMNS];
	bool		nulls[LAYER_COLUMNS] = {0};
	double		figures[FIGURE_COUNT];
	double		physical_pct = layer_physical_pct(run, i);
	const RanreadLayerShare *shares[2] = {&run->mean_share[i], &run->p99_share[i]};

	layer_figures(run, i, figures);
	values[0] = CStringGetTextDatum(layers[run->layer[i]].layer);
	values[1] = CStringGetTextDatum(layers[run->layer[i]].mode);
	for (int f = 0; f < FIGURE_COUNT; f++)
	{
		values[2 + f] = Float8GetDatum(ranread_round(figures[f], RESULT_MS_DECIMALS));
		nulls[2 + f] = figures[f] < 0;
	}
	/* each share: its value only when its band is above zero; its band when known */
	for (int s = 0; s < 2; s++)
	{
		values[4 + 2 * s] = Float8GetDatum(ranread_round(shares[s]->value, RESULT_MS_DECIMALS));
		nulls[4 + 2 * s] = i == 0 || shares[s]->kind != RANREAD_SHARE_ADDS;
		values[5 + 2 * s] = Float8GetDatum(ranread_round(shares[s]->band, RESULT_MS_DECIMALS));
		nulls[5 + 2 * s] = i == 0 || shares[s]->band < 0;
	}
	values[8] = Float8GetDatum(ranread_round(physical_pct, 2));
	nulls[8] = physical_pct < 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Evict the target from shared buffers before a batch of mode buffer: the
 * batch before it of mode buffer, or of mode stream (18), left the units it
 * read there, and every batch reads the same units.  Mode stream evicts them
 * itself (run.c).  False if it could not (before 18, while another session
 * holds a lock on the target: compat.h).
 */
static bool
evict_from_shared_buffers(const char *target_name)
{
	Relation	target = ranread_target_open_for_run(target_name);
	bool		evicted = ranread_evict_relation_buffers(target);

	relation_close(target, NoLock);
	return evicted;
}

/* What a cancel or an error during the run cuts: said in its CONTEXT. */
static void
layers_context(void *arg)
{
	const LayersRun *run = (const LayersRun *) arg;

	if (run->running >= 0)
		errcontext("layers run " INT64_FORMAT ", round %d, mode %s: the run's %d batches before this one, and this one with its status, stay recorded in ranread_batches (layers = " INT64_FORMAT ")",
				   run->number, run->rounds + 1, layers[run->layer[run->running]].mode, run->recorded, run->number);
}

/*
 * The rounds, until every band is within band_pct, max_rounds have run or a
 * batch does not complete (then *cut gets its figures, batch 0 if
 * ranread_stop() came between two batches, and *cut_layer its layer);
 * whether the bands settled.
 */
static bool
run_rounds(LayersRun *run, int max_rounds, double band_pct, RanreadBatchFigures *cut, int *cut_layer)
{
	bool		settled = false;
	int			cut_at = -1;
	ErrorContextCallback context;

	context.callback = layers_context;
	context.arg = run;
	context.previous = error_context_stack;
	error_context_stack = &context;
	while (run->rounds < max_rounds && !settled && cut_at < 0)
	{
		RanreadBatchFigures round[2 * MAX_LAYERS] = {0};

		for (int position = 0; position < 2 * run->count && cut_at < 0; position++)
		{
			int			i = ranread_layers_round_layer(run->count, position);
			bool		buffer_layer = strcmp(layers[run->layer[i]].mode, "buffer") == 0;
			bool		evicted = false;
			RanreadBatchOutcome outcome;

			if (ranread_program_stop_requested)
			{
				/* ranread_stop() between two batches: the round is cut before this one */
				cut->status = pstrdup("stopped");
				cut_at = i;
				break;
			}
			run->params[i].layers = run->number;
			if (buffer_layer)
				evicted = evict_from_shared_buffers(run->params[i].target_name);
			run->running = i;
			ranread_run_batch(&run->params[i], &ranread_program_stop_requested, &outcome);
			run->running = -1;
			if (outcome.recorded)
				run->recorded++;
			if (!outcome.recorded || !ranread_group_read_batch(outcome.batch, &round[position]) ||
				!ranread_group_batch_completed(&round[position]) || round[position].mean_ms < 0)
			{
				*cut = round[position];
				cut->batch = outcome.batch;
				if (cut->status == NULL)
					cut->status = pstrdup("not recorded");
				cut_at = i;
			}
			else if (round[position].physical_pct >= 0 &&
					 round[position].physical_pct < LAYERS_MIN_PHYSICAL_PCT && (!buffer_layer || evicted))
			{
				/* memory answered the layer: no share of the device's from here on */
				*cut = round[position];
				cut->status = psprintf("answered %.0f%% by the device", round[position].physical_pct);
				cut_at = i;
				warn_memory_answered(run, &round[position], i);
			}
		}
		if (cut_at >= 0)
			break;
		for (int i = 0; i < run->count; i++)
		{
			const RanreadBatchFigures *up = &round[i];
			const RanreadBatchFigures *down = &round[2 * run->count - 1 - i];

			run->batches[i][2 * run->rounds] = *up;
			run->batches[i][2 * run->rounds + 1] = *down;
			run->mean_ms[i][run->rounds] = (up->mean_ms + down->mean_ms) / 2;
			run->p99_ms[i][run->rounds] = (up->p99_ms + down->p99_ms) / 2;
		}
		run->rounds++;
		compute_shares(run);
		report_round(run, max_rounds);
		settled = run->count < 2 ||
			ranread_layers_settled(&run->mean_share[1], run->count - 1, run->rounds,
								   layer_mean_ms(run, run->count - 1), band_pct);
	}
	error_context_stack = context.previous;
	*cut_layer = cut_at;
	return settled;
}

/*
 * ranread_layers(processes, iterations, target, duration, max_rounds,
 * band_pct): rounds of batches through each read path on the same units,
 * and the latency each layer adds, with its band.
 */
Datum
ranread_layers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RanreadRunArgs args;
	LayersRun  *run = palloc0(sizeof(LayersRun));
	uint64		seed = pg_prng_uint64(&pg_global_prng_state) | 1;
	int			max_rounds;
	double		band_pct;
	bool		settled = false;
	RanreadBatchFigures cut = {0};
	int			cut_layer = -1;
	RanreadProgram program = {0};

	InitMaterializedSRF(fcinfo, 0);
	ranread_check_result_columns(rsinfo->setDesc, LAYER_COLUMNS);
	(void) ranread_group_start("ranread_layers", &args);
	read_round_arguments(fcinfo, &max_rounds, &band_pct);
	read_layer_arguments(fcinfo, max_rounds, &args);

	/* every layer's arguments, and what its target allows, checked before anything runs */
	for (int i = 0; i < lengthof(layers); i++)
	{
		Relation	target;
		RanreadParams *params = &run->params[run->count];

		if (!ranread_readpath_runs_here(ranread_readpath_by_name(layers[i].mode)))
			continue;
		args.value[RUN_ARG_MODE] = CStringGetTextDatum(layers[i].mode);
		ranread_read_run_arguments(&args, params);
		params->seed = seed;
		target = ranread_target_open_for_run(params->target_name);
		ranread_check_batch_target(params, target, -1);
		relation_close(target, NoLock);
		run->layer[run->count++] = i;
	}

	run->running = -1;
	PG_TRY();
	{
		ranread_program_begin(&program, RANREAD_LOCK_KIND_LAYERS);
		/* its number drawn once no other run can start */
		run->number = ranread_group_number();
		ranread_program_advertise(&program, run->number);
		settled = run_rounds(run, max_rounds, band_pct, &cut, &cut_layer);
	}
	PG_FINALLY();
	{
		ranread_program_end(&program);
	}
	PG_END_TRY();

	for (int i = 0; i < run->count && run->rounds > 0; i++)
		put_layer(rsinfo, run, i);
	report_layers(run, max_rounds, band_pct, settled, cut_layer >= 0 ? &cut : NULL, cut_layer);
	return (Datum) 0;
}
