/*-------------------------------------------------------------------------
 *
 * sweep_decide.c
 *		ranread_sweep_decide(): the sweep's rule book (sweep_rules.c) and its
 *		words (sweep_verdict.c) for steps measured elsewhere, so that the
 *		fleet sweep (PL/pgSQL, sql/ranread--1.2--1.3.sql) stops, repeats a
 *		step and judges by the same rules as ranread_sweep(), noise bands
 *		and repeat => N included, and a rule added in C reaches both.
 *
 * The fleet sweep passes every fleet run of its sweeps so far, in order, as
 * parallel arrays (a run's sweep, step, processes per server, status,
 * figures and noise bands, and whether a server of it was outside the SLO)
 * with its rules; the runs of one step are combined as ranread_sweep()
 * combines a repeated step's batches.  The answer concerns the last run:
 * go on (with the next step's processes), repeat the step, or stop, with
 * the rule's name and the words ranread_sweep() would say, and the verdict
 * of the last sweep, and with more than one sweep what they found together.
 *
 * It is a pure function of its arguments: it reads no table, writes
 * nothing and calls no SQL, so it is left executable by PUBLIC, like the
 * histogram functions.  Arrays of different lengths, NULL elements where a
 * value is needed and figures that are negative or not finite are refused
 * with 22023.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "extension.h"
#include "rules/sweep_rules.h"
#include "sweep/sweep_verdict.h"

PG_FUNCTION_INFO_V1(ranread_sweep_decide);

/* The most runs it takes: a fleet sweep's steps, repeats and sweeps, with room. */
#define DECIDE_MAX_RUNS		10000

/* ranread_sweep_decide()'s arguments, in the order of its SQL signature. */
typedef enum DecideArgument
{
	ARG_SWEEP,
	ARG_STEP,
	ARG_PROCESSES,
	ARG_STATUS,
	ARG_IOPS,
	ARG_MEAN_MS,
	ARG_P99_MS,
	ARG_P999_MS,
	ARG_MAX_MS,
	ARG_IOPS_BAND_PCT,
	ARG_MEAN_BAND_PCT,
	ARG_P99_BAND_PCT,
	ARG_PART_OUTSIDE_SLO,
	ARG_MAX_PROCESSES,
	ARG_MAX_PROCESSES_BY,
	ARG_STOP_LATENCY_MS,
	ARG_MIN_SCALING_PCT,
	ARG_SLO_MEAN_MS,
	ARG_SLO_P99_MS,
	ARG_ENDED_BY,
	N_ARGS
} DecideArgument;

/* The first array argument and the one past the last. */
#define FIRST_ARRAY		ARG_SWEEP
#define END_ARRAYS		ARG_MAX_PROCESSES

#define DECIDE_COLUMNS	9

/* The arguments' names, for the messages. */
static const char *const arg_names[N_ARGS] = {
	"sweep", "step", "processes", "status", "iops", "mean_ms", "p99_ms", "p999_ms", "max_ms",
	"iops_band_pct", "mean_band_pct", "p99_band_pct", "part_outside_slo", "max_processes",
	"max_processes_by", "stop_latency_ms", "min_scaling_pct", "slo_mean_ms", "slo_p99_ms", "ended_by"
};

/* One array argument, deconstructed. */
typedef struct DecideArray
{
	Datum	   *values;
	bool	   *nulls;
	int			n;
} DecideArray;

/* Refuse bad input: nothing is decided. */
static void
refuse(const char *message, const char *argument)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(message, argument)));
}

/* Array argument `arg`, one-dimensional (or empty), no longer than DECIDE_MAX_RUNS. */
static void
read_array(FunctionCallInfo fcinfo, int arg, DecideArray *out)
{
	ArrayType  *array;
	Oid			element;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	const char *name = arg_names[arg];

	if (PG_ARGISNULL(arg))
		refuse("%s must not be null", name);
	array = PG_GETARG_ARRAYTYPE_P(arg);
	if (ARR_NDIM(array) > 1)
		refuse("%s must be a one-dimensional array", name);
	element = ARR_ELEMTYPE(array);
	get_typlenbyvalalign(element, &typlen, &typbyval, &typalign);
	deconstruct_array(array, element, typlen, typbyval, typalign, &out->values, &out->nulls, &out->n);
	if (out->n > DECIDE_MAX_RUNS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must hold at most %d runs", name, DECIDE_MAX_RUNS)));
}

/* A figure of run i: NULL (a run that measured none) counts as `unknown`. */
static double
figure(const DecideArray *arrays, int arg, int i, double unknown)
{
	double		value;

	if (arrays[arg].nulls[i])
		return unknown;
	value = DatumGetFloat8(arrays[arg].values[i]);
	if (!(value >= 0 && isfinite(value)))
		refuse("%s must hold numbers that are finite and not negative", arg_names[arg]);
	return value;
}

/* An element that must be there. */
static Datum
needed(const DecideArray *arrays, int arg, int i)
{
	if (arrays[arg].nulls[i])
		refuse("%s must hold no NULL", arg_names[arg]);
	return arrays[arg].values[i];
}

/* A float argument that must be given, finite and at least `low`. */
static double
rule_argument(FunctionCallInfo fcinfo, int arg, double low)
{
	const char *name = arg_names[arg];
	double		value;

	if (PG_ARGISNULL(arg))
		refuse("%s must not be null", name);
	value = PG_GETARG_FLOAT8(arg);
	if (!(value >= low && isfinite(value)))
		refuse("%s must be a finite number, not below the rule's least", name);
	return value;
}

/* Run i of the arrays as a step, and its step number in *step_of. */
static void
read_run(const DecideArray *arrays, int i, RanreadSweepStep *run, int *step_of)
{
	char	   *status = TextDatumGetCString(needed(arrays, ARG_STATUS, i));

	memset(run, 0, sizeof(RanreadSweepStep));
	*step_of = DatumGetInt32(needed(arrays, ARG_STEP, i));
	run->processes = DatumGetInt32(needed(arrays, ARG_PROCESSES, i));
	if (*step_of < 1 || run->processes < 1)
		refuse("%s must hold numbers of at least 1", arg_names[*step_of < 1 ? ARG_STEP : ARG_PROCESSES]);
	run->iodepth = 1;
	run->iops = figure(arrays, ARG_IOPS, i, 0);
	run->mean_ms = figure(arrays, ARG_MEAN_MS, i, 0);
	run->p99_ms = figure(arrays, ARG_P99_MS, i, 0);
	run->p999_ms = figure(arrays, ARG_P999_MS, i, 0);
	run->max_ms = figure(arrays, ARG_MAX_MS, i, 0);
	run->iops_band_pct = figure(arrays, ARG_IOPS_BAND_PCT, i, -1);
	run->mean_band_pct = figure(arrays, ARG_MEAN_BAND_PCT, i, -1);
	run->p99_band_pct = figure(arrays, ARG_P99_BAND_PCT, i, -1);
	run->part_outside_slo = DatumGetBool(needed(arrays, ARG_PART_OUTSIDE_SLO, i));
	run->physical_pct = -1;
	run->completed = strcmp(status, "completed") == 0;
	strlcpy(run->status, status, sizeof(run->status));
	run->runs = run->completed ? 1 : 0;
}

/*
 * The runs of each sweep (consecutive runs of one sweep number) as its
 * record, with the rules; returns how many sweeps.
 */
static int
read_sweeps(const DecideArray *arrays, int n, const RanreadSweepRules *rules,
			const char *max_processes_by, RanreadSweepRecord *records)
{
	RanreadSweepStep *runs = palloc(sizeof(RanreadSweepStep) * n);
	int		   *step_of = palloc(sizeof(int) * n);
	int		   *first = palloc(sizeof(int) * n);
	int			count = 0;

	for (int i = 0; i < n; i++)
		read_run(arrays, i, &runs[i], &step_of[i]);
	for (int i = 0; i < n;)
	{
		int64		sweep = DatumGetInt64(needed(arrays, ARG_SWEEP, i));
		int			end = i + 1;
		RanreadSweepRecord *record = &records[count++];

		while (end < n && DatumGetInt64(needed(arrays, ARG_SWEEP, end)) == sweep)
			end++;
		memset(record, 0, sizeof(RanreadSweepRecord));
		record->sweep = sweep;
		record->status = "running";
		record->max_processes_by = pstrdup(max_processes_by);
		record->per_server = true;
		record->rules = *rules;
		record->steps = palloc0(sizeof(RanreadSweepStep) * (end - i));
		record->batches = palloc0(sizeof(int64) * (end - i));
		record->count = ranread_sweep_group_runs(&runs[i], &step_of[i], end - i, record->steps, first);
		i = end;
	}
	return count;
}

/* A text column, or NULL. */
static void
set_text(Datum *values, bool *nulls, int column, const char *text)
{
	nulls[column] = text == NULL;
	values[column] = text == NULL ? (Datum) 0 : CStringGetTextDatum(text);
}

/*
 * ranread_sweep_decide(sweep, step, processes, status, iops, mean_ms,
 * p99_ms, p999_ms, max_ms, iops_band_pct, mean_band_pct, p99_band_pct,
 * part_outside_slo, max_processes, max_processes_by, stop_latency_ms,
 * min_scaling_pct, slo_mean_ms, slo_p99_ms, ended_by): what ranread_sweep()
 * would decide after the last of these runs, and say.  With ended_by (the
 * sweep ended for a reason of its caller's: 'worker slots', 'stopped') it
 * decides nothing and words the verdict with that reason.
 */
Datum
ranread_sweep_decide(PG_FUNCTION_ARGS)
{
	DecideArray arrays[END_ARRAYS];
	RanreadSweepRules rules = {0};
	RanreadSweepRecord *records;
	RanreadSweepRecord *record;
	RanreadSweepStep *last;
	RanreadSweepVerdict verdict;
	const char *max_processes_by;
	const char *decision = "go on";
	const char *stop_rule = NULL;
	char	   *repeat_text = NULL;
	char	   *repeat_detail = NULL;
	int			nsweeps;
	int			n;
	TupleDesc	desc;
	Datum		values[DECIDE_COLUMNS];
	bool		nulls[DECIDE_COLUMNS] = {0};

	desc = ranread_result_row_desc(fcinfo, DECIDE_COLUMNS);
	for (int arg = FIRST_ARRAY; arg < END_ARRAYS; arg++)
	{
		read_array(fcinfo, arg, &arrays[arg]);
		if (arrays[arg].n != arrays[FIRST_ARRAY].n)
			refuse("%s must hold as many elements as sweep", arg_names[arg]);
	}
	n = arrays[FIRST_ARRAY].n;
	if (n == 0)
		refuse("%s must hold at least one run", "sweep");
	if (PG_ARGISNULL(ARG_MAX_PROCESSES) || PG_GETARG_INT32(ARG_MAX_PROCESSES) < 1)
		refuse("%s must be at least 1", "max_processes");
	rules.max_processes = PG_GETARG_INT32(ARG_MAX_PROCESSES);
	max_processes_by = PG_ARGISNULL(ARG_MAX_PROCESSES_BY) ? "argument" : text_to_cstring(PG_GETARG_TEXT_PP(ARG_MAX_PROCESSES_BY));
	if (strcmp(max_processes_by, "argument") != 0 && strcmp(max_processes_by, "worker slots") != 0)
		refuse("%s must be 'argument' or 'worker slots'", "max_processes_by");
	rules.stop_latency_ms = rule_argument(fcinfo, ARG_STOP_LATENCY_MS, 0);
	rules.min_scaling_pct = rule_argument(fcinfo, ARG_MIN_SCALING_PCT, 0);
	rules.slo_mean_ms = rule_argument(fcinfo, ARG_SLO_MEAN_MS, 0);
	rules.slo_p99_ms = rule_argument(fcinfo, ARG_SLO_P99_MS, 0);

	records = palloc(sizeof(RanreadSweepRecord) * n);
	nsweeps = read_sweeps(arrays, n, &rules, max_processes_by, records);
	record = &records[nsweeps - 1];
	last = &record->steps[record->count - 1];

	if (!PG_ARGISNULL(ARG_ENDED_BY))
	{
		decision = "stop";
		stop_rule = text_to_cstring(PG_GETARG_TEXT_PP(ARG_ENDED_BY));
	}
	else if (strcmp(last->status, "completed") != 0)
	{
		/* its last run did not complete; a repeat's earlier runs still count */
		decision = "stop";
		stop_rule = ranread_sweep_stop_rule_name(RANREAD_SWEEP_STOP_STEP_ENDED, record);
	}
	else
	{
		RanreadSweepStop stop = ranread_sweep_stop_after(record->steps, record->count, &rules);

		if (stop == RANREAD_SWEEP_REPEAT)
		{
			decision = "repeat";
			ranread_sweep_repeat_text(record, last->runs, &repeat_text, &repeat_detail);
		}
		else if (stop != RANREAD_SWEEP_GO_ON)
		{
			decision = "stop";
			stop_rule = ranread_sweep_stop_rule_name(stop, record);
		}
	}
	record->stop_rule = (char *) stop_rule;
	ranread_sweep_judge(record->steps, record->count, &rules, &verdict);

	set_text(values, nulls, 0, decision);
	set_text(values, nulls, 1, stop_rule);
	values[2] = Int32GetDatum(ranread_sweep_next_processes(last->processes, 0, rules.max_processes));
	nulls[2] = strcmp(decision, "go on") != 0;
	set_text(values, nulls, 3, ranread_sweep_step_text(record, record->count - 1));
	set_text(values, nulls, 4, ranread_sweep_step_detail(record, record->count - 1));
	set_text(values, nulls, 5, repeat_text);
	set_text(values, nulls, 6, repeat_detail);
	set_text(values, nulls, 7, ranread_sweep_verdict_text(record, stop_rule, &verdict));
	set_text(values, nulls, 8, nsweeps > 1 ? ranread_sweep_records_text(records, nsweeps) : NULL);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
