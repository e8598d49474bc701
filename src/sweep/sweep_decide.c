/*-------------------------------------------------------------------------
 *
 * sweep_decide.c
 *		ranread_sweep_decide(): the sweep's rule book (sweep_rules.c) and its
 *		words (sweep_verdict.c) for steps measured elsewhere, so that the
 *		fleet sweep (PL/pgSQL, sql/src/fleet_sweep.sql) stops, repeats a
 *		step and judges by the same rules as ranread_sweep(), noise bands,
 *		repeat => N and burst buckets included, and a rule added in C
 *		reaches both; and ranread_series_bucket(), the bucket rule
 *		(bucket_rules.c) on a server's series, which the fleet run gathers.
 *
 * The fleet sweep passes every fleet run of its sweeps so far, in order, as
 * parallel arrays (a run's sweep, step, processes per server, status,
 * figures and noise bands, and whether a server of it was outside the SLO)
 * with its rules; the runs of one step are combined as ranread_sweep()
 * combines a repeated step's batches.  A run in which a server's burst
 * bucket ran empty comes with its bucket (bucket, a row of figures a run:
 * the fleet's IOPS with that server's baseline, and with its burst), and
 * counts at that sustained level as a step of ranread_sweep() does, the
 * steps before it read on the bucket and not counted.  The answer concerns
 * the last run: go on (with the next step's processes), repeat the step, or
 * stop, with the rule's name and the words ranread_sweep() would say, and
 * the verdict of the last sweep, and with more than one sweep what they
 * found together.
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
#include "record/series.h"
#include "rules/bucket_rules.h"
#include "rules/sweep_rules.h"
#include "sweep/sweep_verdict.h"

PG_FUNCTION_INFO_V1(ranread_sweep_decide);
PG_FUNCTION_INFO_V1(ranread_series_bucket);

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
	ARG_BUCKET,
	N_ARGS
} DecideArgument;

/*
 * A burst bucket's figures, in this order: a row of ranread_sweep_decide()'s
 * bucket for each run, and the columns of ranread_series_bucket().
 */
typedef enum BucketFigure
{
	BUCKET_BURST_IOPS,
	BUCKET_BURST_BAND_PCT,
	BUCKET_BASELINE_IOPS,
	BUCKET_BASELINE_BAND_PCT,
	BUCKET_READS,
	BUCKET_READS_BAND,
	BUCKET_SHIFT_S,
	N_BUCKET_FIGURES
} BucketFigure;

/* The first array argument and the one past the last. */
#define FIRST_ARRAY		ARG_SWEEP
#define END_ARRAYS		ARG_MAX_PROCESSES

#define DECIDE_COLUMNS	9

/* The arguments' names, for the messages. */
static const char *const arg_names[N_ARGS] = {
	"sweep", "step", "processes", "status", "iops", "mean_ms", "p99_ms", "p999_ms", "max_ms",
	"iops_band_pct", "mean_band_pct", "p99_band_pct", "part_outside_slo", "max_processes",
	"max_processes_by", "stop_latency_ms", "min_scaling_pct", "slo_mean_ms", "slo_p99_ms", "ended_by",
	"bucket"
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

/*
 * Array argument `arg`, called `name`, one-dimensional (or empty), of at
 * most `most` elements, each a `unit`.
 */
static void
read_array(FunctionCallInfo fcinfo, int arg, const char *name, int most, const char *unit,
		   DecideArray *out)
{
	ArrayType  *array;
	Oid			element;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (PG_ARGISNULL(arg))
		refuse("%s must not be null", name);
	array = PG_GETARG_ARRAYTYPE_P(arg);
	if (ARR_NDIM(array) > 1)
		refuse("%s must be a one-dimensional array", name);
	element = ARR_ELEMTYPE(array);
	get_typlenbyvalalign(element, &typlen, &typbyval, &typalign);
	deconstruct_array(array, element, typlen, typbyval, typalign, &out->values, &out->nulls, &out->n);
	if (out->n > most)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must hold at most %d %s", name, most, unit)));
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
 * Each run's burst bucket, from argument bucket (NULL: none ran empty): a
 * row of N_BUCKET_FIGURES for each of the n runs, its baseline NULL where
 * none ran empty.  A completed run with one counts at that sustained level
 * (ranread_sweep_step_bucket()), as ranread_sweep() counts a batch whose
 * series shows one; a band not known is -1.
 */
static void
read_buckets(FunctionCallInfo fcinfo, int n, RanreadSweepStep *runs)
{
	ArrayType  *array;
	Datum	   *values;
	bool	   *nulls;
	int			count;

	if (PG_ARGISNULL(ARG_BUCKET))
		return;
	array = PG_GETARG_ARRAYTYPE_P(ARG_BUCKET);
	if (ARR_NDIM(array) != 2 || ARR_DIMS(array)[0] != n || ARR_DIMS(array)[1] != N_BUCKET_FIGURES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bucket must hold a row of %d figures for each run", N_BUCKET_FIGURES)));
	deconstruct_array(array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &values, &nulls, &count);
	for (int i = 0; i < n; i++)
	{
		const bool *missing = &nulls[i * N_BUCKET_FIGURES];
		double		f[N_BUCKET_FIGURES];
		RanreadBucket bucket = {0};

		if (missing[BUCKET_BASELINE_IOPS] || !runs[i].completed)
			continue;
		for (int k = 0; k < N_BUCKET_FIGURES; k++)
		{
			f[k] = missing[k] ? 0 : DatumGetFloat8(values[i * N_BUCKET_FIGURES + k]);
			if (!(f[k] >= 0 && isfinite(f[k])))
				refuse("%s must hold numbers that are finite and not negative", "bucket");
		}
		if (missing[BUCKET_BURST_IOPS] || missing[BUCKET_READS] || missing[BUCKET_READS_BAND] ||
			missing[BUCKET_SHIFT_S] || !(f[BUCKET_BASELINE_IOPS] > 0))
			refuse("%s must give a bucket's burst, baseline, reads and shift_s, its baseline above 0", "bucket");
		bucket.verdict = RANREAD_BUCKET_FOUND;
		bucket.burst_iops = f[BUCKET_BURST_IOPS];
		bucket.burst_band = f[BUCKET_BURST_BAND_PCT] * f[BUCKET_BURST_IOPS] / 100;
		bucket.baseline_iops = f[BUCKET_BASELINE_IOPS];
		bucket.baseline_band = f[BUCKET_BASELINE_BAND_PCT] * f[BUCKET_BASELINE_IOPS] / 100;
		bucket.bucket_reads = f[BUCKET_READS];
		bucket.bucket_band = f[BUCKET_READS_BAND];
		bucket.shift_s = f[BUCKET_SHIFT_S];
		ranread_sweep_step_bucket(&runs[i], &bucket);
		if (missing[BUCKET_BASELINE_BAND_PCT])
			runs[i].iops_band_pct = -1;
		if (missing[BUCKET_BURST_BAND_PCT])
			runs[i].burst_band_pct = -1;
	}
}

/*
 * The runs of each sweep (consecutive runs of one sweep number) as its
 * record, with the rules and the runs' buckets; returns how many sweeps.
 */
static int
read_sweeps(FunctionCallInfo fcinfo, const DecideArray *arrays, int n, const RanreadSweepRules *rules,
			const char *max_processes_by, RanreadSweepRecord *records)
{
	RanreadSweepStep *runs = palloc(sizeof(RanreadSweepStep) * n);
	int		   *step_of = palloc(sizeof(int) * n);
	int		   *first = palloc(sizeof(int) * n);
	int			count = 0;

	for (int i = 0; i < n; i++)
		read_run(arrays, i, &runs[i], &step_of[i]);
	read_buckets(fcinfo, n, runs);
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
		ranread_sweep_mark_burst(record->steps, record->count);
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
 * min_scaling_pct, slo_mean_ms, slo_p99_ms, ended_by, bucket): what
 * ranread_sweep() would decide after the last of these runs, and say.  With ended_by (the
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
		read_array(fcinfo, arg, arg_names[arg], DECIDE_MAX_RUNS, "runs", &arrays[arg]);
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
	nsweeps = read_sweeps(fcinfo, arrays, n, &rules, max_processes_by, records);
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

/* ranread_series_bucket()'s arguments, in the order of its SQL signature. */
typedef enum SeriesArgument
{
	SERIES_PROCESSES,
	SERIES_PHYSICAL_PCT,
	SERIES_START_S,
	SERIES_SECONDS,
	SERIES_READS,
	SERIES_WORKERS_READING,
	N_SERIES_ARGS
} SeriesArgument;

static const char *const series_names[N_SERIES_ARGS] = {
	"processes", "physical_pct", "start_s", "seconds", "reads", "workers_reading"
};

/*
 * ranread_series_bucket(processes, physical_pct, start_s, seconds, reads,
 * workers_reading): the bucket rule (bucket_rules.c) on a batch's series,
 * given as arrays, one element an interval of ranread_intervals: the burst
 * and its band, the baseline and its band, the bucket's reads and band and
 * when it ran empty, or a row of NULLs when the rule names no bucket (or
 * memory answered under RANREAD_BUCKET_MIN_PHYSICAL_PCT of the reads,
 * physical_pct NULL: not measured).  The fleet run applies it to what each
 * server's ranread_intervals hold; it is pure, as ranread_sweep_decide().
 */
Datum
ranread_series_bucket(PG_FUNCTION_ARGS)
{
	TupleDesc	desc = ranread_result_row_desc(fcinfo, N_BUCKET_FIGURES);
	DecideArray arrays[N_SERIES_ARGS];
	Datum		values[N_BUCKET_FIGURES] = {0};
	bool		nulls[N_BUCKET_FIGURES];
	RanreadInterval *intervals;
	RanreadBucket bucket;
	double		physical_pct = -1;
	int			processes;
	int			n;

	if (PG_ARGISNULL(SERIES_PROCESSES) || PG_GETARG_INT32(SERIES_PROCESSES) < 1)
		refuse("%s must be at least 1", "processes");
	processes = PG_GETARG_INT32(SERIES_PROCESSES);
	if (!PG_ARGISNULL(SERIES_PHYSICAL_PCT))
	{
		physical_pct = PG_GETARG_FLOAT8(SERIES_PHYSICAL_PCT);
		if (!(physical_pct >= 0 && physical_pct <= 100))
			refuse("%s must be a number from 0 to 100, or NULL", "physical_pct");
	}
	for (int arg = SERIES_START_S; arg < N_SERIES_ARGS; arg++)
	{
		read_array(fcinfo, arg, series_names[arg], RANREAD_SERIES_MAX_CAPACITY, "intervals", &arrays[arg]);
		if (arrays[arg].n != arrays[SERIES_START_S].n)
			refuse("%s must hold as many elements as start_s", series_names[arg]);
		for (int i = 0; i < arrays[arg].n; i++)
			if (arrays[arg].nulls[i])
				refuse("%s must hold no NULL", series_names[arg]);
	}
	n = arrays[SERIES_START_S].n;
	intervals = palloc0(sizeof(RanreadInterval) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		RanreadInterval *interval = &intervals[i];

		interval->start_s = DatumGetFloat8(arrays[SERIES_START_S].values[i]);
		interval->seconds = DatumGetFloat8(arrays[SERIES_SECONDS].values[i]);
		interval->reads = DatumGetInt64(arrays[SERIES_READS].values[i]);
		interval->reading = DatumGetInt32(arrays[SERIES_WORKERS_READING].values[i]);
		interval->mean_ms = interval->p50_ms = interval->p99_ms = interval->max_ms = -1;
		if (!(interval->start_s >= 0 && isfinite(interval->start_s) &&
			  interval->seconds >= 0 && isfinite(interval->seconds) &&
			  interval->reads >= 0 && interval->reading >= 0))
			refuse("%s must hold numbers that are finite and not negative",
				   "start_s, seconds, reads and workers_reading");
	}
	for (int k = 0; k < N_BUCKET_FIGURES; k++)
		nulls[k] = true;
	if ((physical_pct < 0 || physical_pct >= RANREAD_BUCKET_MIN_PHYSICAL_PCT) &&
		ranread_series_find_bucket(intervals, n, processes, &bucket) == RANREAD_BUCKET_FOUND &&
		bucket.burst_iops > 0 && bucket.baseline_iops > 0)
	{
		values[BUCKET_BURST_IOPS] = Float8GetDatum(bucket.burst_iops);
		values[BUCKET_BURST_BAND_PCT] = Float8GetDatum(100 * bucket.burst_band / bucket.burst_iops);
		values[BUCKET_BASELINE_IOPS] = Float8GetDatum(bucket.baseline_iops);
		values[BUCKET_BASELINE_BAND_PCT] = Float8GetDatum(100 * bucket.baseline_band / bucket.baseline_iops);
		values[BUCKET_READS] = Float8GetDatum(bucket.bucket_reads);
		values[BUCKET_READS_BAND] = Float8GetDatum(bucket.bucket_band);
		values[BUCKET_SHIFT_S] = Float8GetDatum(bucket.shift_s);
		for (int k = 0; k < N_BUCKET_FIGURES; k++)
			nulls[k] = false;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
