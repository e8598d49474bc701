/*-------------------------------------------------------------------------
 *
 * sweep_verdict.c
 *		What a sweep's recorded steps say, in plain words: read a sweep back
 *		from ranread_sweep_runs and ranread_batches, judge it by its rules
 *		(sweep_rules.c) and word the verdict, with what limits the volume
 *		(limit_rules.c: the Limit: sentences); ranread_sweep_verdict(), which
 *		the view ranread_sweeps shows.
 *
 * A sweep's row is written when it starts and again when it ends by itself
 * ('completed' by a stop rule, or 'stopped' by ranread_stop()).  A sweep
 * that a cancel, an error or a crash ended keeps its first row; its status
 * is then read from what remains: still 'running' while its session holds
 * the sweep lock, else 'cancelled' when its last step was cancelled, else
 * 'interrupted'.  The verdict is computed from the steps each time, so that
 * an interrupted sweep has one too, over the steps it completed.  A step
 * the sweep repeated (its stop decision within its noise) is several
 * batches of one sweep_step, read back as one step (sweep_rules.c combines
 * them); each figure is worded with its noise band.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "catalog/namespace.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "run/registry.h"
#include "spi_columns.h"
#include "sweep/sweep_verdict.h"

PG_FUNCTION_INFO_V1(ranread_sweep_verdict);

#define VERDICT_COLUMNS 10

/* Column `name` of `row` as a string copied into `context`, or NULL. */
static char *
text_column(HeapTuple row, TupleDesc desc, const char *name, MemoryContext context)
{
	char	   *text = ranread_spi_text_named(row, desc, name, NULL);

	return text == NULL ? NULL : MemoryContextStrdup(context, text);
}

/* The sweep's rules, from its ranread_sweep_runs row. */
static void
read_rules(HeapTuple row, TupleDesc desc, RanreadSweepRecord *record, MemoryContext context)
{
	RanreadSweepRules *rules = &record->rules;

	rules->max_processes = ranread_spi_int_named(row, desc, "max_processes", 0);
	rules->max_rate_iops = ranread_spi_float_named(row, desc, "max_rate_iops", RANREAD_MAX_RATE_IOPS);
	rules->stop_latency_ms = ranread_spi_float_named(row, desc, "stop_latency_ms", 0);
	rules->min_scaling_pct = ranread_spi_float_named(row, desc, "min_scaling_pct", 0);
	rules->slo_mean_ms = ranread_spi_float_named(row, desc, "slo_mean_ms", 0);
	rules->slo_p99_ms = ranread_spi_float_named(row, desc, "slo_p99_ms", 0);
	rules->slo_p999_ms = ranread_spi_float_named(row, desc, "slo_p999_ms", 0);
	rules->slo_max_ms = ranread_spi_float_named(row, desc, "slo_max_ms", 0);
	record->status = text_column(row, desc, "status", context);
	record->stop_rule = text_column(row, desc, "stop_rule", context);
	record->max_processes_by = text_column(row, desc, "max_processes_by", context);
	record->open_loop = ranread_spi_float_named(row, desc, "rate_iops", 0) > 0;
	rules->max_iodepth = ranread_spi_int_named(row, desc, "max_iodepth", 0);
	rules->max_prefetch = ranread_spi_int_named(row, desc, "max_prefetch", 0);
}

/* One step, from its ranread_batches row. */
static void
read_step(HeapTuple row, TupleDesc desc, RanreadSweepStep *step, int64 *batch)
{
	char	   *status = ranread_spi_text_named(row, desc, "status", "");

	*batch = ranread_spi_int_named(row, desc, "batch", 0);
	step->processes = ranread_spi_int_named(row, desc, "processes", 0);
	step->rate_iops = ranread_spi_float_named(row, desc, "rate_iops", 0);
	step->iops = ranread_spi_float_named(row, desc, "iops", 0);
	step->mean_ms = ranread_spi_float_named(row, desc, "response_time_ms", 0);
	step->p99_ms = ranread_spi_float_named(row, desc, "p99_ms", 0);
	step->p999_ms = ranread_spi_float_named(row, desc, "p999_ms", 0);
	step->max_ms = ranread_spi_float_named(row, desc, "max_ms", 0);
	step->physical_pct = ranread_spi_float_named(row, desc, "physical_pct", -1);
	step->completed = strcmp(status, "completed") == 0;
	strlcpy(step->status, status, sizeof(step->status));
	step->iodepth = ranread_spi_int_named(row, desc, "iodepth", 1);
	step->prefetch = ranread_spi_int_named(row, desc, "prefetch", 0);
	step->iops_band_pct = ranread_spi_float_named(row, desc, "iops_band_pct", -1);
	step->mean_band_pct = ranread_spi_float_named(row, desc, "mean_band_pct", -1);
	step->p99_band_pct = ranread_spi_float_named(row, desc, "p99_band_pct", -1);
	step->runs = step->completed ? 1 : 0;
	step->part_outside_slo = false;
}

/*
 * A column of 1.2's tables for a SELECT list: the column, or NULL under its
 * name while the tables are 1.1's (the library is updated before ALTER
 * EXTENSION UPDATE is run).
 */
static char *
column_of_1_2(const char *table, const char *column, const char *type)
{
	Oid			relid = get_relname_relid(table, get_namespace_oid(ranread_extension_schema(), false));

	if (get_attnum(relid, column) != InvalidAttrNumber)
		return pstrdup(column);
	return psprintf("NULL::pg_catalog.%s AS %s", type, column);
}

/* The batches of a sweep as read, before they are grouped into steps. */
typedef struct SweepRuns
{
	int			n;
	RanreadSweepStep *runs;
	int		   *step_of;		/* sweep_step: 0 the drain, -1 none */
	int64	   *batch_of;
	double	   *wall_s;
	double	   *steady_at_s;	/* -1: not met */
	double	   *counted_from;	/* when counting began, in s since the epoch */
	int		   *block_size;
} SweepRuns;

/* The batches of a sweep, from the rows of ranread_batches, in order. */
static void
read_runs(SPITupleTable *table, uint64 rows, SweepRuns *runs)
{
	runs->n = (int) rows;
	runs->runs = palloc0(sizeof(RanreadSweepStep) * Max(1, rows));
	runs->step_of = palloc(sizeof(int) * Max(1, rows));
	runs->batch_of = palloc(sizeof(int64) * Max(1, rows));
	runs->wall_s = palloc(sizeof(double) * Max(1, rows));
	runs->steady_at_s = palloc(sizeof(double) * Max(1, rows));
	runs->counted_from = palloc(sizeof(double) * Max(1, rows));
	runs->block_size = palloc(sizeof(int) * Max(1, rows));
	for (uint64 i = 0; i < rows; i++)
	{
		runs->counted_from[i] = ranread_spi_float_named(table->vals[i], table->tupdesc, "started_epoch", 0) +
			ranread_spi_float_named(table->vals[i], table->tupdesc, "ramp_s", 0);
		runs->block_size[i] = (int) ranread_spi_int_named(table->vals[i], table->tupdesc, "block_size", 0);
		runs->step_of[i] = ranread_spi_int_named(table->vals[i], table->tupdesc, "sweep_step", -1);
		runs->wall_s[i] = ranread_spi_float_named(table->vals[i], table->tupdesc, "wall_s", 0);
		runs->steady_at_s[i] = ranread_spi_float_named(table->vals[i], table->tupdesc, "steady_at_s", -1);
		read_step(table->vals[i], table->tupdesc, &runs->runs[i], &runs->batch_of[i]);
	}
}

/*
 * The bucket rule (bucket_rules.c, as the batch's WARNING applies it) on
 * the series of each completed batch of the sweep, read from
 * ranread_intervals: a batch whose series shows a burst bucket running
 * empty counts at its baseline (ranread_sweep_step_bucket()).
 */
static void
read_buckets(int64 sweep, const char *schema, bool fresh, SweepRuns *runs)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(sweep)};
	RanreadInterval *intervals;
	uint64		row = 0;

	if (SPI_execute_with_args(psprintf("SELECT i.batch, i.start_s, i.seconds, i.reads, i.mean_ms, i.workers_reading "
									   "FROM %s.ranread_intervals i JOIN %s.ranread_batches b USING (batch) "
									   "WHERE b.sweep OPERATOR(pg_catalog.=) $1 ORDER BY i.batch, i.interval_no",
									   schema, schema),
							  1, types, values, NULL, !fresh, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the series of sweep " INT64_FORMAT, sweep);
	intervals = palloc(sizeof(RanreadInterval) * Max(1, SPI_processed));
	while (row < SPI_processed)
	{
		int64		batch = ranread_spi_int_named(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, "batch", 0);
		int			count = 0;

		for (; row < SPI_processed &&
			 ranread_spi_int_named(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, "batch", 0) == batch; row++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[row];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			RanreadInterval *interval = &intervals[count++];

			interval->start_s = ranread_spi_float_named(tuple, desc, "start_s", 0);
			interval->seconds = ranread_spi_float_named(tuple, desc, "seconds", 0);
			interval->reads = ranread_spi_int_named(tuple, desc, "reads", 0);
			interval->mean_ms = ranread_spi_float_named(tuple, desc, "mean_ms", -1);
			interval->reading = (int) ranread_spi_int_named(tuple, desc, "workers_reading", 0);
		}
		for (int i = 0; i < runs->n; i++)
		{
			RanreadSweepStep *run = &runs->runs[i];
			RanreadBucket bucket;

			if (runs->batch_of[i] != batch || !run->completed ||
				!(run->physical_pct < 0 || run->physical_pct >= RANREAD_BUCKET_MIN_PHYSICAL_PCT))
				continue;
			if (ranread_series_find_bucket(intervals, count, run->processes, &bucket) == RANREAD_BUCKET_FOUND)
				ranread_sweep_step_bucket(run, &bucket);
		}
	}
}

/*
 * A probe after the last step (sweep_step RANREAD_SWEEP_SIZE_PROBE_STEP or
 * RANREAD_SWEEP_REFILL_PROBE_STEP) into the record: its block size against
 * the steps', and for the refill probe the seconds between the end of the
 * batch before it and its own counting, in which no read was issued.
 */
static void
read_probe(const SweepRuns *runs, int i, RanreadSweepRecord *record)
{
	bool		refill = runs->step_of[i] == RANREAD_SWEEP_REFILL_PROBE_STEP;
	RanreadLimitProbe *probe = refill ? &record->refill_probe : &record->size_probe;
	int			steps_block_size = 0;
	int			before = -1;

	if (runs->step_of[i] != RANREAD_SWEEP_SIZE_PROBE_STEP && !refill)
		return;
	for (int k = 0; k < runs->n; k++)
	{
		if (runs->step_of[k] > 0 && steps_block_size == 0)
			steps_block_size = runs->block_size[k];
		if (runs->step_of[k] >= 0 && runs->batch_of[k] < runs->batch_of[i] &&
			(before < 0 || runs->batch_of[k] > runs->batch_of[before]))
			before = k;
	}
	probe->present = true;
	probe->step = runs->runs[i];
	probe->size_ratio = steps_block_size > 0 ? (double) runs->block_size[i] / steps_block_size : 0;
	if (refill && before >= 0)
		probe->idle_s = runs->counted_from[i] - (runs->counted_from[before] + runs->wall_s[before]);
	if (refill)
		record->refill_probe_batch = runs->batch_of[i];
	else
		record->size_probe_batch = runs->batch_of[i];
}

/*
 * The batches of a sweep as its steps (returned: how many): the drain
 * (sweep_step 0) into the record's drain; the batches of a repeated step
 * (one sweep_step) combined into one (ranread_sweep_group_runs()), each
 * step's batch its first; the steps read on a burst bucket marked
 * (ranread_sweep_mark_burst()).
 */
static int
group_steps(SweepRuns *runs, RanreadSweepRecord *record)
{
	int		   *first = palloc(sizeof(int) * Max(1, runs->n));
	int			from = 0;
	int			count;

	/* the arrays hold at least one step, also for a sweep without any */
	memset(&record->steps[0], 0, sizeof(RanreadSweepStep));
	record->batches[0] = 0;
	record->drain_steady_at_s = -1;
	/* ordered by sweep_step: the probes first, then the drain */
	for (; from < runs->n && runs->step_of[from] < 0; from++)
		read_probe(runs, from, record);
	for (; from < runs->n && runs->step_of[from] == 0; from++)
	{
		record->drain = runs->runs[from];
		record->drain_batch = runs->batch_of[from];
		record->drain_wall_s = runs->wall_s[from];
		record->drain_steady_at_s = runs->steady_at_s[from];
	}
	count = ranread_sweep_group_runs(runs->runs + from, runs->step_of + from, runs->n - from,
									 record->steps, first);
	for (int k = 0; k < count; k++)
		record->batches[k] = runs->batch_of[from + first[k]];
	if (count > 0)
		record->block_size = runs->block_size[from + first[0]];
	ranread_sweep_mark_burst(record->steps, count);
	return count;
}

/*
 * Read sweep `sweep` and its steps, in order, into `record` (allocated in
 * the caller's memory context); false if there is no such sweep.  With
 * `fresh`, under a new snapshot: the sweep reads the step its workers have
 * just committed.
 */
bool
ranread_sweep_read(int64 sweep, bool fresh, RanreadSweepRecord *record)
{
	MemoryContext context = CurrentMemoryContext;
	const char *schema = quote_identifier(ranread_extension_schema());
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(sweep)};
	bool		found;

	memset(record, 0, sizeof(RanreadSweepRecord));
	record->sweep = sweep;
	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT max_processes, max_rate_iops, stop_latency_ms, min_scaling_pct, "
									   "slo_mean_ms, slo_p99_ms, slo_p999_ms, slo_max_ms, status, stop_rule, "
									   "max_processes_by, rate_iops, max_iodepth, %s, %s, %s FROM %s.ranread_sweep_runs "
									   "WHERE sweep OPERATOR(pg_catalog.=) $1",
									   column_of_1_2("ranread_sweep_runs", "max_prefetch", "int4"),
									   column_of_1_2("ranread_sweep_runs", "drain_s", "float8"),
									   column_of_1_2("ranread_sweep_runs", "probe_s", "float8"), schema),
							  1, types, values, NULL, !fresh, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read sweep " INT64_FORMAT, sweep);
	found = SPI_processed == 1;
	if (found)
	{
		const char *columns_1_2 = psprintf("%s, %s, %s, %s",
									 column_of_1_2("ranread_batches", "iops_band_pct", "float8"),
									 column_of_1_2("ranread_batches", "mean_band_pct", "float8"),
									 column_of_1_2("ranread_batches", "p99_band_pct", "float8"),
									 column_of_1_2("ranread_batches", "prefetch", "int4"));

		SweepRuns	runs;

		read_rules(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, record, context);
		record->drain_bound_s = ranread_spi_float_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "drain_s", 0);
		record->probe_bound_s = ranread_spi_float_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "probe_s", -1);
		if (SPI_execute_with_args(psprintf("SELECT batch, processes, rate_iops, iops, response_time_ms, p99_ms, "
										   "p999_ms, max_ms, physical_pct, status, iodepth, sweep_step, wall_s, "
										   "steady_at_s, block_size, ramp_s, "
										   "pg_catalog.date_part('epoch', started_at) AS started_epoch, %s FROM %s.ranread_batches "
										   "WHERE sweep OPERATOR(pg_catalog.=) $1 ORDER BY sweep_step, batch",
										   columns_1_2, schema),
								  1, types, values, NULL, !fresh, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not read the steps of sweep " INT64_FORMAT, sweep);
		read_runs(SPI_tuptable, SPI_processed, &runs);
		record->steps = MemoryContextAllocZero(context, sizeof(RanreadSweepStep) * Max(1, runs.n));
		record->batches = MemoryContextAllocZero(context, sizeof(int64) * Max(1, runs.n));
		read_buckets(sweep, schema, fresh, &runs);
		record->count = group_steps(&runs, record);
	}
	SPI_finish();
	return found;
}

/* The name ranread_sweeps gives a stop rule. */
const char *
ranread_sweep_stop_rule_name(RanreadSweepStop stop, const RanreadSweepRecord *record)
{
	switch (stop)
	{
		case RANREAD_SWEEP_STOP_LATENCY:
			return "latency";
		case RANREAD_SWEEP_STOP_SCALING:
			return "scaling";
		case RANREAD_SWEEP_STOP_RATE_MISSED:
			return "rate missed";
		case RANREAD_SWEEP_STOP_MAX:
			if (record->open_loop)
				return "max rate";
			if (record->rules.max_iodepth > 0)
				return "max iodepth";
			if (record->rules.max_prefetch > 0)
				return "max prefetch";
			if (record->max_processes_by != NULL && strcmp(record->max_processes_by, "worker slots") == 0)
				return "worker slots";
			return "max processes";
		case RANREAD_SWEEP_STOP_STEP_ENDED:
			return "step ended";
		case RANREAD_SWEEP_STOP_UNDECIDED:
			return "undecided";
		case RANREAD_SWEEP_GO_ON:
		case RANREAD_SWEEP_REPEAT:
			break;
	}
	return NULL;
}

/*
 * Where a step stands on the sweep's axis: "40 processes", "1 process at
 * queue depth 32", "1 process with prefetch 16" or "20,000 reads/s".
 */
static char *
step_at(const RanreadSweepRecord *record, const RanreadSweepStep *step)
{
	const char *per = record->per_server ? " per server" : "";

	if (record->open_loop)
		return psprintf("%s reads/s", ranread_format_rate(step->rate_iops));
	if (record->rules.max_iodepth > 0)
		return psprintf("%d process%s at queue depth %d", step->processes,
						step->processes == 1 ? "" : "es", step->iodepth);
	if (record->rules.max_prefetch > 0)
		return psprintf("%d process%s with prefetch %d", step->processes,
						step->processes == 1 ? "" : "es", step->prefetch);
	return psprintf("%d process%s%s", step->processes, step->processes == 1 ? "" : "es", per);
}

/* The SLO's bounds in words: "mean <= 2 ms, p99 <= 5 ms". */
static char *
slo_text(const RanreadSweepRules *rules)
{
	StringInfoData out;
	const char *names[] = {"mean", "p99", "p99.9", "max"};
	double		bounds[] = {rules->slo_mean_ms, rules->slo_p99_ms, rules->slo_p999_ms, rules->slo_max_ms};

	initStringInfo(&out);
	for (int i = 0; i < lengthof(bounds); i++)
	{
		if (bounds[i] > 0)
			appendStringInfo(&out, "%s%s <= %g ms", out.len > 0 ? ", " : "", names[i], bounds[i]);
	}
	return out.len > 0 ? out.data : "no bound";
}

/* A noise band in words, " ± 2.7 %", or nothing while unknown (or not finite). */
static char *
band_text(double band_pct)
{
	if (!(band_pct >= 0 && isfinite(band_pct)))
		return "";
	return psprintf(band_pct < 10 ? " ± %.1f %%" : " ± %.0f %%", band_pct);
}

/*
 * A step's measures in words, with their noise bands:
 * "45,100 IOPS ± 2.1 % (mean 0.44 ms ± 2.0 %, p99 1.20 ms ± 3.1 %)".
 */
static char *
measures(const RanreadSweepStep *step)
{
	return psprintf("%s IOPS%s (mean %s ms%s, p99 %s ms%s)",
					ranread_format_rate(step->iops), band_text(step->iops_band_pct),
					ranread_format_ms(step->mean_ms), band_text(step->mean_band_pct),
					ranread_format_ms(step->p99_ms), band_text(step->p99_band_pct));
}

/* Why the sweep ended (or that it runs), in words, after its last step. */
char *
ranread_sweep_stop_text(const RanreadSweepRecord *record, const char *stop_rule)
{
	const RanreadSweepRules *rules = &record->rules;
	const RanreadSweepStep *last = record->count > 0 ? &record->steps[record->count - 1] : NULL;

	if (stop_rule == NULL)
		return psprintf("It is running step %d.", record->count + 1);
	if (strcmp(stop_rule, "stopped") == 0)
		return pstrdup("It was stopped by ranread_stop().");
	if (strcmp(stop_rule, "cancelled") == 0 && last != NULL && last->completed)
		return psprintf("It was cancelled during a repeat of step %d; the step's completed run%s and the steps before are kept.",
						record->count, last->runs == 1 ? "" : "s");
	if (strcmp(stop_rule, "cancelled") == 0)
		return psprintf("It was cancelled during step %d; the steps before are kept.", record->count);
	if (strcmp(stop_rule, "interrupted") == 0)
		return psprintf("It was ended by an error or a crash after %d step%s.",
						record->count, record->count == 1 ? "" : "s");
	if (last == NULL)
		return psprintf("It stopped (%s) before any step.", stop_rule);
	if (strcmp(stop_rule, "latency") == 0)
		return psprintf("It stopped because the mean latency at %s, %s ms, passed stop_latency_ms (%g ms).",
						step_at(record, last), ranread_format_ms(last->mean_ms), rules->stop_latency_ms);
	if (strcmp(stop_rule, "scaling") == 0 && record->count >= 2)
	{
		int			before = Max(ranread_sweep_valid_before(record->steps, record->count - 1), 0);

		if (rules->max_iodepth > 0)
			return psprintf("It stopped because from queue depth %d to %d IOPS gained %.0f%% of what linear scaling would have gained (min_scaling_pct %g%%): the storage is saturated.",
							record->steps[before].iodepth, last->iodepth,
							ranread_sweep_scaling_pct(&record->steps[before], last), rules->min_scaling_pct);
		if (rules->max_prefetch > 0)
			return psprintf("It stopped because from prefetch %d to %d IOPS gained %.0f%% of what linear scaling with the reads in flight would have gained (min_scaling_pct %g%%): more look-ahead no longer pays.",
							record->steps[before].prefetch, last->prefetch,
							ranread_sweep_scaling_pct(&record->steps[before], last), rules->min_scaling_pct);
		return psprintf("It stopped because from %d to %d processes IOPS gained %.0f%% of what linear scaling would have gained (min_scaling_pct %g%%): the storage is saturated.",
						record->steps[before].processes, last->processes,
						ranread_sweep_scaling_pct(&record->steps[before], last), rules->min_scaling_pct);
	}
	if (strcmp(stop_rule, "rate missed") == 0)
		return psprintf("It stopped because at %s asked it achieved %s: the storage is saturated.",
						step_at(record, last), ranread_format_rate(last->iops));
	if (strcmp(stop_rule, "worker slots") == 0)
		return psprintf("It stopped at %d processes, as many as background worker slots were free; raise max_worker_processes to go further.",
						last->processes);
	if (strcmp(stop_rule, "max processes") == 0)
		return psprintf("It stopped at max_processes (%d).", rules->max_processes);
	if (strcmp(stop_rule, "max iodepth") == 0)
		return psprintf("It stopped at max_iodepth (%d).", rules->max_iodepth);
	if (strcmp(stop_rule, "max prefetch") == 0)
		return psprintf("It stopped at max_prefetch (%d).", rules->max_prefetch);
	if (strcmp(stop_rule, "max rate") == 0)
		return psprintf("It stopped at max_rate_iops (%s reads/s).", ranread_format_rate(rules->max_rate_iops));
	if (strcmp(stop_rule, "step ended") == 0)
		return psprintf("It stopped because step %d was %s.", record->count, last->status);
	if (strcmp(stop_rule, "undecided") == 0)
	{
		bool		latency = ranread_sweep_doubt(record->steps, record->count, rules) ==
			RANREAD_SWEEP_DOUBT_LATENCY;

		return psprintf("It stopped undecided at %s: after %d runs the step's %s was still within its noise of %s, so the sweep cannot tell whether that rule holds there.",
						step_at(record, last), last->runs, latency ? "mean latency" : "scaling",
						latency ? psprintf("stop_latency_ms (%g ms)", rules->stop_latency_ms) :
						psprintf("min_scaling_pct (%g%%)", rules->min_scaling_pct));
	}
	return psprintf("It stopped (%s).", stop_rule);
}

/*
 * Whether the sweep ended by one of its own rules: one stopped, cancelled,
 * interrupted or still running measured only the steps it reached, so its
 * best step within the SLO is no figure to quote.
 */
static bool
ended_by_its_rules(const RanreadSweepRecord *record, const char *stop_rule)
{
	if (stop_rule == NULL)
		return strcmp(record->status, "running") != 0;
	return strcmp(stop_rule, "stopped") != 0 && strcmp(stop_rule, "cancelled") != 0 &&
		strcmp(stop_rule, "interrupted") != 0;
}

/*
 * "a burst of 1,000 reads/s ± 0.5 % for 12.5 s, a bucket of about 5,000
 * ± 150 reads when counting began, then a baseline of 600 reads/s ± 0.4 %":
 * a step whose series shows a burst bucket running empty.
 */
static char *
bucket_text(const RanreadSweepStep *step)
{
	return psprintf("a burst of %s reads/s%s for %.1f s (a bucket of about %s ± %s reads when counting began), then a baseline of %s reads/s%s",
					ranread_format_rate(step->burst_iops), band_text(step->burst_band_pct), step->shift_s,
					ranread_format_rate(step->bucket_reads), ranread_format_rate(step->bucket_band),
					ranread_format_rate(step->iops), band_text(step->iops_band_pct));
}

/*
 * The sustained figures apart from the burst: where a burst bucket ran
 * empty in the steps, and which steps it served, or what the drain before
 * step 1 found.
 */
static void
append_bucket(StringInfo out, const RanreadSweepRecord *record, const RanreadSweepVerdict *verdict)
{
	if (verdict->bucket_step >= 0)
	{
		const RanreadSweepStep *step = &record->steps[verdict->bucket_step];

		appendStringInfo(out, "A burst bucket ran empty at step %d (%s): %s. Sustained: %s reads/s%s, the baseline after it: the figures above are of that level and the steps after it, the ones to quote. Burst: %s reads/s%s while the bucket lasted: what a full bucket gives for a while, not the volume's rate. ",
						 verdict->bucket_step + 1, step_at(record, step), bucket_text(step),
						 ranread_format_rate(step->iops), band_text(step->iops_band_pct),
						 ranread_format_rate(step->burst_iops), band_text(step->burst_band_pct));
		if (verdict->burst_steps > 0)
			appendStringInfo(out, "Step%s 1%s read on the bucket and %s not counted. ",
							 verdict->burst_steps == 1 ? "" : "s",
							 verdict->burst_steps == 1 ? "" : psprintf(" to %d", verdict->burst_steps),
							 verdict->burst_steps == 1 ? "is" : "are");
	}
	if (record->drain_bound_s > 0)
		appendStringInfo(out, "%s ", ranread_sweep_drain_text(record));
}

/*
 * What the drain before step 1 found, in a sentence: whether a burst bucket
 * ran empty (its burst and baseline), whether the level after it was steady,
 * or that it was stopped; "" without a drain.
 */
char *
ranread_sweep_drain_text(const RanreadSweepRecord *record)
{
	const RanreadSweepStep *drain = &record->drain;
	StringInfoData out_data;
	StringInfo	out = &out_data;

	initStringInfo(out);
	if (record->drain_bound_s <= 0)
		return out->data;
	if (record->drain_batch == 0)
	{
		appendStringInfo(out, "The drain asked for (%g s) did not run.", record->drain_bound_s);
		return out->data;
	}
	appendStringInfo(out, "The drain (batch " INT64_FORMAT ", %s, at most %g s) read %.1f s",
					 record->drain_batch, step_at(record, drain), record->drain_bound_s, record->drain_wall_s);
	if (strcmp(drain->status, "completed") != 0)
		appendStringInfo(out, " and was %s%s",
						 drain->status, drain->bucket ? psprintf(", after %s", bucket_text(drain)) : "");
	else if (drain->bucket && record->drain_steady_at_s >= 0)
		appendStringInfo(out, ": %s, steady after %.1f s: the steps read the volume's sustained rate",
						 bucket_text(drain), record->drain_steady_at_s);
	else if (drain->bucket)
		appendStringInfo(out, ": %s, not steady within its time: the steps may still have read a changing level",
						 bucket_text(drain));
	else
		appendStringInfo(out, " at %s IOPS%s with no burst bucket running empty: either the volume has none, or one that lasts longer than that at this load, which the steps then read",
						 ranread_format_rate(drain->iops), band_text(drain->iops_band_pct));
	appendStringInfoChar(out, '.');
	return out->data;
}

/* Judge the limit of a sweep as read by ranread_sweep_read(). */
void
ranread_sweep_limit(const RanreadSweepRecord *record, RanreadLimit *limit)
{
	ranread_limit_judge(record->steps, record->count, record->open_loop,
						record->drain_batch != 0 ? &record->drain : NULL,
						&record->size_probe, &record->refill_probe, limit);
}

/* A rate with its band: "1,000 reads/s ± 1.2 %" (no band that rounds to 0.0 %). */
static char *
rate_text(double iops, double band_pct)
{
	if (band_pct >= 0.05)
		return psprintf("%s reads/s ± %.1f %%", ranread_format_rate(iops), band_pct);
	return psprintf("%s reads/s", ranread_format_rate(iops));
}

/* MB/s (10^6 bytes) of iops reads of block_size bytes. */
static double
mb_per_s(double iops, int block_size)
{
	return iops * block_size / 1e6;
}

/* The plateau and the size probe, as evidence. */
static void
append_plateau(StringInfo out, const RanreadSweepRecord *record, const RanreadLimit *limit)
{
	const RanreadSweepStep *first = &record->steps[limit->plateau_first];
	const RanreadSweepStep *last = &record->steps[limit->plateau_last];

	appendStringInfo(out, " IOPS held flat within their noise from step %d to step %d (%d to %d reads in flight), and the mean latency was the reads in flight over that rate within %.1f %%",
					 limit->plateau_first + 1, limit->plateau_last + 1,
					 first->processes * Max(first->iodepth, 1) * (Max(first->prefetch, 0) + 1),
					 last->processes * Max(last->iodepth, 1) * (Max(last->prefetch, 0) + 1),
					 limit->little_pct);
	if (limit->probe_ratio >= 0)
		appendStringInfo(out, "; reads of %d kB (the size probe, batch " INT64_FORMAT ") gave %.2f × those IOPS, ± %.1f %%: an IOPS cap keeps 1, a bandwidth cap %.2f",
						 (int) lround(record->size_probe.size_ratio * record->block_size / 1024),
						 record->size_probe_batch, limit->probe_ratio, limit->probe_band_pct,
						 1 / record->size_probe.size_ratio);
}

/* The burst bucket's figures and its refill, for the Limit: sentences. */
static void
append_limit_bucket(StringInfo out, const RanreadSweepRecord *record, const RanreadLimit *limit)
{
	appendStringInfo(out, " A burst bucket ran empty: %s for %.1f s from about %s ± %s reads, then the sustained level",
					 rate_text(limit->burst_iops, limit->burst_band_pct), limit->bucket_s,
					 ranread_format_rate(limit->bucket_reads), ranread_format_rate(limit->bucket_band));
	if (limit->refill_per_s >= 0)
		appendStringInfo(out, "; after %.1f s idle the refill probe (batch " INT64_FORMAT ") found %s ± %s credits: a refill of %s ± %s a second%s.",
						 record->refill_probe.idle_s, record->refill_probe_batch,
						 ranread_format_rate(record->refill_probe.step.bucket_reads),
						 ranread_format_rate(record->refill_probe.step.bucket_band),
						 ranread_format_rate(limit->refill_per_s), ranread_format_rate(limit->refill_band),
						 limit->refill_full ? " at least: the bucket had refilled to its size" : "");
	else if (record->refill_probe.present)
		appendStringInfo(out, "; the refill probe (batch " INT64_FORMAT ") after %.1f s idle saw no burst, so the refill is not measured.",
						 record->refill_probe_batch, record->refill_probe.idle_s);
	else
		appendStringInfoString(out, "; the refill is not measured (probe => an idle pause measures it).");
}

/* What limits the volume, in sentences: the kind, its figures, the evidence. */
char *
ranread_sweep_limit_text(const RanreadSweepRecord *record, const RanreadLimit *limit)
{
	StringInfoData out;

	initStringInfo(&out);
	switch (limit->kind)
	{
		case RANREAD_LIMIT_IOPS_CAP:
			appendStringInfo(&out, "Limit: a cap of %s.", rate_text(limit->rate_iops, limit->rate_band_pct));
			break;
		case RANREAD_LIMIT_BANDWIDTH_CAP:
			appendStringInfo(&out, "Limit: a cap of %.1f MB/s (%s of %d kB).",
							 mb_per_s(limit->rate_iops, record->block_size),
							 rate_text(limit->rate_iops, limit->rate_band_pct), record->block_size / 1024);
			break;
		case RANREAD_LIMIT_DEVICE:
			appendStringInfo(&out, "Limit: the device's own, at %s.", rate_text(limit->rate_iops, limit->rate_band_pct));
			break;
		case RANREAD_LIMIT_UNDECIDED:
			appendStringInfoString(&out, "Limit: undecided.");
			break;
	}
	appendStringInfo(&out, " Why: %s.", limit->reason);
	if (limit->plateau_first >= 0)
		append_plateau(&out, record, limit);
	if (limit->plateau_first >= 0)
		appendStringInfoChar(&out, '.');
	if (limit->bucket)
		append_limit_bucket(&out, record, limit);
	return out.data;
}

/* The verdict in plain words. */
char *
ranread_sweep_verdict_text(const RanreadSweepRecord *record, const char *stop_rule,
						   const RanreadSweepVerdict *verdict)
{
	StringInfoData out;
	const RanreadSweepStep *steps = record->steps;

	initStringInfo(&out);
	if (verdict->max_step < 0)
		appendStringInfoString(&out, "No step measured the storage. ");
	else
	{
		appendStringInfo(&out, "Highest IOPS: %s at %s. ",
						 measures(&steps[verdict->max_step]), step_at(record, &steps[verdict->max_step]));
		if (verdict->slo_step >= 0 && ended_by_its_rules(record, stop_rule))
			appendStringInfo(&out, "Highest within the SLO (%s%s): %s at %s: what this volume can do within the SLO, the figure to quote. ",
							 slo_text(&record->rules), record->per_server ? ", on the fleet and on every server" : "",
							 measures(&steps[verdict->slo_step]),
							 step_at(record, &steps[verdict->slo_step]));
		else if (verdict->slo_step >= 0)
			appendStringInfo(&out, "Highest within the SLO (%s%s) of the steps it reached: %s at %s; the sweep did not end by its rules, so it has no figure to quote. ",
							 slo_text(&record->rules), record->per_server ? ", on the fleet and on every server" : "",
							 measures(&steps[verdict->slo_step]),
							 step_at(record, &steps[verdict->slo_step]));
		else
			appendStringInfo(&out, "No step met the SLO (%s%s). ", slo_text(&record->rules),
							 record->per_server ? ", on the fleet and on every server" : "");
		if (verdict->knee_step >= 0)
			appendStringInfo(&out, "Knee at %s: the most IOPS per ms of mean latency, the most efficient load, not the capacity. ",
							 step_at(record, &steps[verdict->knee_step]));
	}
	append_bucket(&out, record, verdict);
	if (record->probe_bound_s >= 0 && ended_by_its_rules(record, stop_rule))
	{
		RanreadLimit limit;

		ranread_sweep_limit(record, &limit);
		appendStringInfo(&out, "%s ", ranread_sweep_limit_text(record, &limit));
	}
	for (int i = 0; i < record->count; i++)
	{
		if (steps[i].completed && !ranread_sweep_step_valid(&steps[i]))
			appendStringInfo(&out, "Step %d (%s) is not counted: the device answered only %.0f%% of its reads, memory the rest. ",
							 i + 1, step_at(record, &steps[i]), steps[i].physical_pct);
	}
	appendStringInfoString(&out, ranread_sweep_stop_text(record, stop_rule));
	return out.data;
}

/*
 * A step as the sweep's NOTICE says it, short enough for a terminal: what
 * ran, IOPS with its band, mean and p99, whether it counts and meets the
 * SLO, and its share of linear scaling; ranread_sweep_step_detail() has the
 * rest.
 */
char *
ranread_sweep_step_text(const RanreadSweepRecord *record, int step)
{
	const RanreadSweepStep *s = &record->steps[step];
	StringInfoData out;

	initStringInfo(&out);
	appendStringInfo(&out, "step %d: %s, %s IOPS%s, mean %s ms, p99 %s ms",
					 step + 1, step_at(record, s), ranread_format_rate(s->iops), band_text(s->iops_band_pct),
					 ranread_format_ms(s->mean_ms), ranread_format_ms(s->p99_ms));
	if (s->runs > 1)
		appendStringInfo(&out, ", %d runs combined", s->runs);
	if (!s->completed)
		appendStringInfo(&out, "; %s, not counted", s->status);
	else if (!ranread_sweep_step_valid(s))
		appendStringInfoString(&out, "; memory answered, not counted");
	else
	{
		int			before = ranread_sweep_valid_before(record->steps, step);

		appendStringInfoString(&out, ranread_sweep_meets_slo(s, &record->rules) ?
							   "; within the SLO" : "; outside the SLO");
		if (!record->open_loop && before >= 0)
			appendStringInfo(&out, "; %.0f%% of linear scaling",
							 ranread_sweep_scaling_pct(&record->steps[before], s));
	}
	if (s->bucket)
		appendStringInfoString(&out, "; a burst bucket ran empty: IOPS after it");
	return out.data;
}

/*
 * The rest of a step, for its NOTICE's DETAIL: the bands of mean and p99,
 * p99.9, max and the physical-read proof.
 */
char *
ranread_sweep_step_detail(const RanreadSweepRecord *record, int step)
{
	const RanreadSweepStep *s = &record->steps[step];
	StringInfoData out;

	initStringInfo(&out);
	if (s->mean_band_pct >= 0 || s->p99_band_pct >= 0)
		appendStringInfo(&out, "Noise: mean%s, p99%s. ",
						 s->mean_band_pct >= 0 ? band_text(s->mean_band_pct) : " unknown",
						 s->p99_band_pct >= 0 ? band_text(s->p99_band_pct) : " unknown");
	appendStringInfo(&out, "p99.9 %s ms, max %s ms", ranread_format_ms(s->p999_ms),
					 ranread_format_ms(s->max_ms));
	if (s->physical_pct >= 0)
		appendStringInfo(&out, "; the device answered %.1f%%", s->physical_pct);
	appendStringInfoChar(&out, '.');
	if (s->bucket)
		appendStringInfo(&out, " A burst bucket ran empty in it: %s; %s IOPS on average over both. The sweep goes on from the baseline, not from the steps read on the bucket.",
						 bucket_text(s), ranread_format_rate(s->average_iops));
	return out.data;
}

/*
 * Why the last step runs again, as a NOTICE fits a terminal: the message
 * says which threshold its noise band straddles and which repeat this is,
 * the detail the step's figures against that threshold.
 */
void
ranread_sweep_repeat_text(const RanreadSweepRecord *record, int repeat, char **message, char **detail)
{
	const RanreadSweepRules *rules = &record->rules;
	int			last = record->count - 1;
	const RanreadSweepStep *s = &record->steps[last];
	RanreadSweepDoubt doubt = ranread_sweep_doubt(record->steps, record->count, rules);

	*message = psprintf("step %d is within the noise of %s: running it again (repeat %d of at most %d), its runs combined",
						record->count, doubt == RANREAD_SWEEP_DOUBT_SLO ? "the SLO" : "a stop rule",
						repeat, RANREAD_SWEEP_MAX_REPEATS);
	if (doubt == RANREAD_SWEEP_DOUBT_LATENCY)
		*detail = psprintf("Its mean latency, %s ms%s, is over stop_latency_ms (%g ms) by less than its noise.",
						   ranread_format_ms(s->mean_ms), band_text(s->mean_band_pct), rules->stop_latency_ms);
	else if (doubt == RANREAD_SWEEP_DOUBT_SLO)
		*detail = psprintf("Its mean %s ms%s and p99 %s ms%s against %s.",
						   ranread_format_ms(s->mean_ms), band_text(s->mean_band_pct),
						   ranread_format_ms(s->p99_ms), band_text(s->p99_band_pct), slo_text(rules));
	else
	{
		int			before = Max(ranread_sweep_valid_before(record->steps, last), 0);
		double		low;
		double		high;

		ranread_sweep_scaling_range(&record->steps[before], s, &low, &high);
		*detail = psprintf("Its IOPS gained %.0f%% of linear scaling, %.0f%% to %.0f%% within the noise, around min_scaling_pct (%g%%).",
						   ranread_sweep_scaling_pct(&record->steps[before], s), low, high, rules->min_scaling_pct);
	}
}

/* The most common of places[0..n-1], and in *count how many times it occurs. */
static const char *
most_common(char **places, int n, int *count)
{
	int			best = 0;

	*count = 0;
	for (int i = 0; i < n; i++)
	{
		int			same = 0;

		for (int j = 0; j < n; j++)
			same += strcmp(places[i], places[j]) == 0;
		if (same > *count)
		{
			best = i;
			*count = same;
		}
	}
	return places[best];
}

/*
 * "median 40,600 IOPS, from 38,000 to 42,000 (spread 9.8 % of the median),
 * at 40 processes in 4 of 5 sweeps; between sweeps ± 7.1 %, within a step
 * ± 2.0 %: ...": values[0..n-1] and their steps' own IOPS bands (both
 * sorted here), where each was found (the most common place is named), and
 * what the between-sweep band says against the within-step one.
 */
static void
append_spread(StringInfo out, double *values, double *bands, char **places, int n, int of)
{
	RanreadSweepSpread spread;
	int			count;
	const char *place = most_common(places, n, &count);

	ranread_sweep_spread(values, bands, n, &spread);
	appendStringInfo(out, "median %s IOPS, from %s to %s (spread %.1f %% of the median), at %s in %d of %d sweeps",
					 ranread_format_rate(spread.median), ranread_format_rate(spread.low),
					 ranread_format_rate(spread.high),
					 spread.median > 0 ? 100 * (spread.high - spread.low) / spread.median : 0,
					 place, count, of);
	if (spread.between_band_pct < 0)
		return;
	appendStringInfo(out, "; between sweeps%s", band_text(spread.between_band_pct));
	if (spread.within_band_pct < 0)
		return;
	appendStringInfo(out, ", within a step%s", band_text(spread.within_band_pct));
	if (spread.drift_band_pct == 0)
		appendStringInfoString(out, ": the sweeps differed by no more than a step's own noise makes them");
	else
		appendStringInfo(out, ":%s of it is not a step's own noise but changed between the sweeps (the device's state, other load)",
						 band_text(spread.drift_band_pct));
}

/*
 * What repeat => N's sweeps (records[0..count-1], count > 0) found together: the median and spread of each
 * verdict figure (highest within the SLO, highest IOPS), its band between
 * sweeps against its step's own, and where the most sweeps found it and the
 * knee.
 */
char *
ranread_sweep_records_text(const RanreadSweepRecord *records, int count)
{
	StringInfoData out;
	double	   *slo = palloc(sizeof(double) * count);
	double	   *slo_band = palloc(sizeof(double) * count);
	double	   *max = palloc(sizeof(double) * count);
	double	   *max_band = palloc(sizeof(double) * count);
	char	  **slo_at = palloc(sizeof(char *) * count);
	char	  **max_at = palloc(sizeof(char *) * count);
	char	  **knee_at = palloc(sizeof(char *) * count);
	int			nslo = 0;
	int			nmax = 0;
	int			nknee = 0;

	for (int i = 0; i < count; i++)
	{
		const RanreadSweepRecord *record = &records[i];
		RanreadSweepVerdict verdict;

		ranread_sweep_judge(record->steps, record->count, &record->rules, &verdict);
		if (verdict.slo_step >= 0)
		{
			slo[nslo] = record->steps[verdict.slo_step].iops;
			slo_band[nslo] = record->steps[verdict.slo_step].iops_band_pct;
			slo_at[nslo++] = step_at(record, &record->steps[verdict.slo_step]);
		}
		if (verdict.max_step >= 0)
		{
			max[nmax] = record->steps[verdict.max_step].iops;
			max_band[nmax] = record->steps[verdict.max_step].iops_band_pct;
			max_at[nmax++] = step_at(record, &record->steps[verdict.max_step]);
		}
		if (verdict.knee_step >= 0)
			knee_at[nknee++] = step_at(record, &record->steps[verdict.knee_step]);
	}
	initStringInfo(&out);
	appendStringInfo(&out, "Sweeps " INT64_FORMAT " to " INT64_FORMAT ". ", records[0].sweep, records[count - 1].sweep);
	if (nslo > 0)
	{
		appendStringInfoString(&out, "Highest within the SLO: ");
		append_spread(&out, slo, slo_band, slo_at, nslo, count);
		appendStringInfoString(&out, ". ");
	}
	if (nslo < count)
		appendStringInfo(&out, "In %d of %d sweeps no step met the SLO. ", count - nslo, count);
	if (nmax > 0)
	{
		appendStringInfoString(&out, "Highest IOPS: ");
		append_spread(&out, max, max_band, max_at, nmax, count);
		appendStringInfoString(&out, ". ");
	}
	if (nknee > 0)
	{
		int			same;
		const char *place = most_common(knee_at, nknee, &same);

		appendStringInfo(&out, "Knee at %s in %d of %d sweeps.", place, same, count);
	}
	return out.data;
}

/* ranread_sweep_records_text() of the recorded sweeps[0..count-1] (those there are). */
char *
ranread_sweep_repeats_text(const int64 *sweeps, int count)
{
	RanreadSweepRecord *records = palloc(sizeof(RanreadSweepRecord) * count);
	int			n = 0;

	for (int i = 0; i < count; i++)
		n += ranread_sweep_read(sweeps[i], true, &records[n]);
	return n > 0 ? ranread_sweep_records_text(records, n) : pstrdup("");
}

/*
 * The status and stop rule of a sweep as they stand: as recorded once it
 * ended by itself, else read from its session and its last step.
 */
static void
current_status(const RanreadSweepRecord *record, const char **status, const char **stop_rule)
{
	const char *last_status = record->count > 0 ? record->steps[record->count - 1].status :
		record->drain_batch != 0 ? record->drain.status : "";

	*status = record->status;
	*stop_rule = record->stop_rule;
	if (strcmp(record->status, "running") != 0)
	{
		if (*stop_rule == NULL && record->count > 0)
			*stop_rule = ranread_sweep_stop_rule_name(ranread_sweep_stop_after(record->steps, record->count,
																			   &record->rules), record);
		return;
	}
	if (ranread_running_sweep(record->sweep, false, NULL, NULL) == record->sweep)
		*stop_rule = NULL;
	else if (strcmp(last_status, "cancelled") == 0 || strcmp(last_status, "stopped") == 0)
		*status = *stop_rule = last_status;
	else
		*status = *stop_rule = "interrupted";
}

/* ranread_sweep_verdict(sweep): what sweep `sweep` found and why it ended. */
Datum
ranread_sweep_verdict(PG_FUNCTION_ARGS)
{
	int64		sweep = PG_GETARG_INT64(0);
	RanreadSweepRecord record;
	RanreadSweepVerdict verdict;
	TupleDesc	desc;
	Datum		values[VERDICT_COLUMNS];
	bool		nulls[VERDICT_COLUMNS] = {0};
	const char *status;
	const char *stop_rule;
	const RanreadSweepStep *max_step;
	const RanreadSweepStep *slo_step;
	const RanreadSweepStep *knee_step;

	desc = ranread_result_row_desc(fcinfo, VERDICT_COLUMNS);
	if (!ranread_sweep_read(sweep, false, &record))
		PG_RETURN_NULL();
	ranread_sweep_judge(record.steps, record.count, &record.rules, &verdict);
	current_status(&record, &status, &stop_rule);
	max_step = verdict.max_step >= 0 ? &record.steps[verdict.max_step] : NULL;
	slo_step = verdict.slo_step >= 0 ? &record.steps[verdict.slo_step] : NULL;
	knee_step = verdict.knee_step >= 0 ? &record.steps[verdict.knee_step] : NULL;

	values[0] = CStringGetTextDatum(status);
	values[1] = Int32GetDatum(record.count);
	values[2] = Float8GetDatum(max_step ? max_step->iops : 0);
	values[3] = Int32GetDatum(max_step ? max_step->processes : 0);
	nulls[2] = nulls[3] = max_step == NULL;
	values[4] = Float8GetDatum(slo_step ? slo_step->iops : 0);
	values[5] = Int32GetDatum(slo_step ? slo_step->processes : 0);
	nulls[4] = nulls[5] = slo_step == NULL;
	values[6] = Int32GetDatum(knee_step ? knee_step->processes : 0);
	nulls[6] = knee_step == NULL;
	values[7] = Int32GetDatum(verdict.memory_steps);
	values[8] = CStringGetTextDatum(stop_rule ? stop_rule : "");
	nulls[8] = stop_rule == NULL;
	values[9] = CStringGetTextDatum(ranread_sweep_verdict_text(&record, stop_rule, &verdict));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
