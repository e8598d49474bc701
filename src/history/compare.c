/*-------------------------------------------------------------------------
 *
 * compare.c
 *		ranread_compare() and ranread_compare_sweeps(): two batches, or two
 *		sweeps, side by side, with each difference judged against the noise
 *		of the measurement, so that "B has 3% more IOPS" comes with whether
 *		3% is more than the batches would differ by chance.
 *
 * This file reads the batches and sweeps, and turns each measure into a row
 * with a verdict and the whole into sentences; the noise, and the band a
 * difference must leave to be real, come from compare_noise.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "stats/compare_noise.h"
#include "extension.h"
#include "format.h"
#include "spi_columns.h"
#include "stats/history_checks.h"
#include "sweep/sweep_verdict.h"

PG_FUNCTION_INFO_V1(ranread_compare);
PG_FUNCTION_INFO_V1(ranread_compare_sweeps);

#define COMPARE_COLUMNS 6

/*
 * The longest line of the verdict in words: the measure column (up to 22
 * characters, "p99_ms at 128 processes"), the numbers and the separators
 * take 66 of a terminal's 120 columns.
 */
#define VERDICT_LINE_WIDTH	52

/* The significant digits of the numbers shown (at least the whole number). */
#define SHOWN_SIGNIFICANT_DIGITS 3

/* Which way a measure is better, for the row's verdict. */
typedef enum CompareDirection
{
	HIGHER_IS_FASTER,
	LOWER_IS_FASTER,
	NEUTRAL						/* 'higher' or 'lower' */
} CompareDirection;

/* One row of ranread_compare(). */
typedef struct CompareMeasure
{
	const char *name;
	const char *batch_column;	/* in ranread_batches */
	const char *worker_column;	/* in ranread_results; NULL: none */
	const char *interval_column;	/* in ranread_intervals; NULL: none */
	CompareDirection direction;
	bool		percentile;		/* read from a histogram: one bucket is its floor */
} CompareMeasure;

static const CompareMeasure compare_measures[RANREAD_N_MEASURES] = {
	{"iops", "iops", "iops", "iops", HIGHER_IS_FASTER, false},
	{"mean_ms", "response_time_ms", "response_time_ms", "mean_ms", LOWER_IS_FASTER, false},
	{"p50_ms", "p50_ms", "p50_ms", "p50_ms", LOWER_IS_FASTER, true},
	{"p99_ms", "p99_ms", "p99_ms", "p99_ms", LOWER_IS_FASTER, true},
	{"p999_ms", "p999_ms", "p999_ms", NULL, LOWER_IS_FASTER, true},
	{"physical_pct", "physical_pct", "physical_pct", NULL, NEUTRAL, false},
	/* the device's own count has no per-worker share: it borrows the IOPS noise */
	{"device_reads_per_s", "device_reads_per_s", NULL, NULL, NEUTRAL, false},
};

/* The server's I/O settings a batch records (18 and later), compared by name. */
#define RANREAD_N_IO_SETTINGS 5
static const char *const io_setting_names[RANREAD_N_IO_SETTINGS] = {
	"io_method", "io_workers", "effective_io_concurrency", "io_combine_limit", "io_max_concurrency"
};

/* A batch as compared: its settings, its measures and their noise. */
typedef struct CompareBatch
{
	int64		batch;
	char	   *target;
	char	   *mode;
	char	   *status;
	int			block_size;
	double		rate_iops;		/* open loop: the rate asked for; 0: closed loop */
	int			iodepth;		/* reads in flight per worker */
	int64		reads;
	int			processes;		/* 0: writers alone */
	char	   *io_settings[RANREAD_N_IO_SETTINGS];	/* '' where not recorded */
	bool		known[RANREAD_N_MEASURES];
	double		value[RANREAD_N_MEASURES];
	double		rse[RANREAD_N_MEASURES];	/* relative standard error; < 0: unknown */
} CompareBatch;

/* One compared measure: a row of the result. */
typedef struct CompareRow
{
	double		a;
	double		b;
	double		ratio;			/* b / a */
	double		noise_pct;		/* the noise band, in percent */
	const char *verdict;		/* NULL: none */
	bool		a_known;		/* false: NULL */
	bool		b_known;
	bool		ratio_known;
	bool		noise_known;
} CompareRow;

/*
 * Read batch `number` with its measures and their noise into `batch`
 * (strings in the caller's memory context); false if there is no such batch.
 */
static bool
read_batch(int64 number, CompareBatch *batch)
{
	MemoryContext context = CurrentMemoryContext;
	const char *schema = quote_identifier(ranread_extension_schema());
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(number)};
	StringInfoData select;
	const char *worker_columns[RANREAD_N_MEASURES];
	const char *interval_columns[RANREAD_N_MEASURES];
	HeapTuple	row;
	TupleDesc	desc;
	Datum		histogram;
	Datum		min_ms;
	Datum		max_ms;
	bool		isnull;
	bool		min_isnull;
	bool		max_isnull;
	bool		found;
	int			buckets;

	memset(batch, 0, sizeof(CompareBatch));
	batch->batch = number;
	initStringInfo(&select);
	appendStringInfoString(&select, "SELECT target::text AS target, mode, status, block_size, "
						   "coalesce(rate_iops, 0) AS rate_iops, reads, processes");
	for (int m = 0; m < RANREAD_N_MEASURES; m++)
	{
		appendStringInfo(&select, ", %s", compare_measures[m].batch_column);
		worker_columns[m] = compare_measures[m].worker_column;
		interval_columns[m] = compare_measures[m].interval_column;
		batch->rse[m] = -1;
	}
	appendStringInfoString(&select, ", histogram, min_ms, max_ms, coalesce(iodepth, 1) AS iodepth");
	for (int s = 0; s < RANREAD_N_IO_SETTINGS; s++)
		appendStringInfo(&select, ", coalesce(%s::text, '') AS %s", io_setting_names[s], io_setting_names[s]);
	appendStringInfo(&select, " FROM %s.ranread_batches WHERE batch OPERATOR(pg_catalog.=) $1", schema);

	SPI_connect();
	if (SPI_execute_with_args(select.data, 1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read batch " INT64_FORMAT, number);
	found = SPI_processed == 1;
	if (found)
	{
		row = SPI_tuptable->vals[0];
		desc = SPI_tuptable->tupdesc;
		batch->target = MemoryContextStrdup(context, ranread_spi_text_named(row, desc, "target", ""));
		batch->mode = MemoryContextStrdup(context, ranread_spi_text_named(row, desc, "mode", ""));
		batch->status = MemoryContextStrdup(context, ranread_spi_text_named(row, desc, "status", ""));
		batch->block_size = (int) ranread_spi_int_named(row, desc, "block_size", 0);
		batch->rate_iops = ranread_spi_float_named(row, desc, "rate_iops", 0);
		batch->iodepth = (int) ranread_spi_int_named(row, desc, "iodepth", 1);
		batch->reads = ranread_spi_int_named(row, desc, "reads", 0);
		batch->processes = (int) ranread_spi_int_named(row, desc, "processes", 0);
		for (int s = 0; s < RANREAD_N_IO_SETTINGS; s++)
			batch->io_settings[s] = MemoryContextStrdup(context,
														ranread_spi_text_named(row, desc, io_setting_names[s], ""));
		for (int m = 0; m < RANREAD_N_MEASURES; m++)
		{
			Datum		value = ranread_spi_datum_named(row, desc, compare_measures[m].batch_column, &isnull);

			batch->known[m] = !isnull;
			batch->value[m] = isnull ? 0 : DatumGetFloat8(value);
		}

		histogram = ranread_spi_datum_named(row, desc, "histogram", &isnull);
		min_ms = ranread_spi_datum_named(row, desc, "min_ms", &min_isnull);
		max_ms = ranread_spi_datum_named(row, desc, "max_ms", &max_isnull);
		if (!isnull)
			(void) ranread_histogram_buckets(DatumGetArrayTypeP(histogram), &buckets,
											 psprintf("batch " INT64_FORMAT " in ranread_batches", number));
		if (!isnull && !min_isnull && !max_isnull)
			ranread_noise_from_histogram(DatumGetArrayTypeP(histogram), DatumGetFloat8(min_ms),
										 DatumGetFloat8(max_ms), batch->known, batch->value, batch->rse);
		ranread_noise_from_workers(schema, number, worker_columns, batch->rse);
		ranread_noise_from_intervals(schema, number, interval_columns, batch->rse);
		batch->rse[RANREAD_MEASURE_DEVICE_READS] = batch->rse[RANREAD_MEASURE_IOPS];
	}
	SPI_finish();
	return found;
}

/* Batch `number`, which must exist and have read something. */
static void
read_batch_with_reads(int64 number, CompareBatch *batch)
{
	if (!read_batch(number, batch))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " does not exist", number),
				 errhint("The batches are listed in ranread_summary.")));
	if (batch->processes == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " has no reads to compare", number),
				 errdetail("It ran writers alone (processes 0)."),
				 errhint("Its writes are in ranread_write_summary.")));
	if (batch->reads <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " has no reads to compare", number),
				 errdetail("It ended with status %s before any read was timed.", batch->status)));
}

/*
 * Measure m of A and B compared: the ratio B/A, the noise band in percent
 * (ranread_noise_band_pct()) and the verdict.
 */
static CompareRow
compare_measure(const CompareBatch *a, const CompareBatch *b, int m)
{
	const CompareMeasure *measure = &compare_measures[m];
	CompareRow	row = {0};

	row.a = a->value[m];
	row.b = b->value[m];
	row.a_known = a->known[m];
	row.b_known = b->known[m];
	row.ratio_known = row.a_known && row.b_known && row.a != 0;
	row.ratio = row.ratio_known ? row.b / row.a : 0;
	if (row.a_known && row.b_known && a->rse[m] >= 0 && b->rse[m] >= 0)
	{
		row.noise_known = true;
		row.noise_pct = ranread_noise_band_pct(a->rse[m], b->rse[m], measure->percentile);
	}

	if (!row.a_known || !row.b_known)
		row.verdict = "not measured";
	else if (row.a == row.b)
		row.verdict = "same";
	else if (row.ratio_known && !row.noise_known)
		row.verdict = "noise unknown";
	else if (row.ratio_known && fabs(row.ratio - 1) * 100.0 <= row.noise_pct)
		row.verdict = "same within noise";
	else if (measure->direction == NEUTRAL)
		row.verdict = row.b > row.a ? "higher" : "lower";
	else
		row.verdict = (row.b > row.a) == (measure->direction == HIGHER_IS_FASTER) ? "faster" : "slower";
	return row;
}

/*
 * x as people read it: three significant digits (1.06, 0.332, 22.7), and the
 * whole number from 100 up (26038, not 26000), as ranread_summary shows IOPS.
 * The verdicts are judged on the unrounded values; only the output is rounded.
 */
static double
round_for_reading(double x)
{
	int			decimals;
	double		scale;

	if (x == 0 || !isfinite(x))
		return x;
	decimals = SHOWN_SIGNIFICANT_DIGITS - (int) ceil(log10(fabs(x)));
	if (decimals <= 0)
		return round(x);
	scale = pow(10, decimals);
	return round(x * scale) / scale;
}

/* Append one row to the result, its numbers rounded for reading. */
static void
put_row(ReturnSetInfo *rsinfo, const char *measure, const CompareRow *row)
{
	Datum		values[COMPARE_COLUMNS];
	bool		nulls[COMPARE_COLUMNS] = {0};

	values[0] = CStringGetTextDatum(measure);
	values[1] = Float8GetDatum(round_for_reading(row->a));
	nulls[1] = !row->a_known;
	values[2] = Float8GetDatum(round_for_reading(row->b));
	nulls[2] = !row->b_known;
	values[3] = Float8GetDatum(round_for_reading(row->ratio));
	nulls[3] = !row->ratio_known;
	values[4] = Float8GetDatum(round_for_reading(row->noise_pct));
	nulls[4] = !row->noise_known;
	values[5] = CStringGetTextDatum(row->verdict ? row->verdict : "");
	nulls[5] = row->verdict == NULL;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * The verdict rows: no numbers, the words, a sentence a line and no line
 * longer than VERDICT_LINE_WIDTH, so that the answer fits a terminal of 120
 * columns beside the other columns.
 */
static void
put_verdict(ReturnSetInfo *rsinfo, const char *text)
{
	char	   *lines = ranread_sentence_lines(text, VERDICT_LINE_WIDTH);
	char	   *line = lines;

	for (;;)
	{
		char	   *end = strchr(line, '\n');
		CompareRow	row = {0};

		if (end != NULL)
			*end = '\0';
		row.verdict = line;
		put_row(rsinfo, "verdict", &row);
		if (end == NULL)
			break;
		line = end + 1;
	}
}

/* "12.3% more" / "4.0% lower": how far B is from A, in `more` or `less` words. */
static char *
change_text(double ratio, const char *more, const char *less)
{
	return psprintf("%.1f%% %s", fabs(ratio - 1) * 100.0, ratio >= 1 ? more : less);
}

/* ", more than the 2.1% noise: a real difference." and the like. */
static void
append_noise_judgement(StringInfo out, const CompareRow *row)
{
	if (!row->noise_known)
		appendStringInfoString(out, "; the noise is unknown (a batch has one worker, fewer than 3 full sample intervals and no histogram). ");
	else if (fabs(row->ratio - 1) * 100.0 > row->noise_pct)
		appendStringInfo(out, ", more than the %.1f%% noise: a real difference. ", row->noise_pct);
	else
		appendStringInfo(out, ", within the %.1f%% noise: no real difference. ", row->noise_pct);
}

/*
 * One sentence on IOPS: "B has 12.3% more IOPS than A (45,100 against
 * 40,160), more than the 2.1% noise: a real difference."
 */
static void
append_iops_sentence(StringInfo out, const CompareRow *row)
{
	if (!row->ratio_known)
		return;
	if (row->a == row->b)
	{
		appendStringInfo(out, "B has the same IOPS as A (%s). ", ranread_format_rate(row->a));
		return;
	}
	appendStringInfo(out, "B has %s IOPS than A (%s against %s)", change_text(row->ratio, "more", "fewer"),
					 ranread_format_rate(row->b), ranread_format_rate(row->a));
	append_noise_judgement(out, row);
}

/* One sentence on a latency: "B's mean latency is 10.9% lower (0.44 ms against 0.49 ms), ..." */
static void
append_latency_sentence(StringInfo out, const char *what, const CompareRow *row)
{
	if (!row->ratio_known)
		return;
	if (row->a == row->b)
	{
		appendStringInfo(out, "B's %s is the same as A's (%s ms). ", what, ranread_format_ms(row->a));
		return;
	}
	appendStringInfo(out, "B's %s is %s (%s ms against %s ms)", what, change_text(row->ratio, "higher", "lower"),
					 ranread_format_ms(row->b), ranread_format_ms(row->a));
	append_noise_judgement(out, row);
}

/* "iodepth 1 vs 32, mode smgr vs direct": what differs in how two batches were read. */
static void
append_setting_differences(StringInfo differences, const char *target_a, const char *target_b,
						   const char *mode_a, const char *mode_b, int block_a, int block_b,
						   double rate_a, double rate_b, int iodepth_a, int iodepth_b)
{
	const char *separator = differences->len > 0 ? ", " : "";

	if (iodepth_a != iodepth_b)
	{
		appendStringInfo(differences, "%siodepth %d vs %d", separator, iodepth_a, iodepth_b);
		separator = ", ";
	}

	if (strcmp(mode_a, mode_b) != 0)
	{
		appendStringInfo(differences, "%smode %s vs %s", separator, mode_a, mode_b);
		separator = ", ";
	}
	if (block_a != block_b)
	{
		appendStringInfo(differences, "%sblock_size %d vs %d", separator, block_a, block_b);
		separator = ", ";
	}
	if (strcmp(target_a, target_b) != 0)
	{
		appendStringInfo(differences, "%starget %s vs %s", separator, target_a, target_b);
		separator = ", ";
	}
	if ((rate_a > 0) != (rate_b > 0))
		appendStringInfo(differences, "%s%s vs %s", separator,
						 rate_a > 0 ? "open loop" : "closed loop", rate_b > 0 ? "open loop" : "closed loop");
}

/*
 * The server's I/O settings that differ between two batches (io_method
 * worker vs io_uring, from batches before and after a restart, say); a
 * setting one batch did not record (before 18) is "unrecorded".
 */
static void
append_io_setting_differences(StringInfo differences, const CompareBatch *a, const CompareBatch *b)
{
	for (int s = 0; s < RANREAD_N_IO_SETTINGS; s++)
	{
		const char *value_a = a->io_settings[s][0] != '\0' ? a->io_settings[s] : "unrecorded";
		const char *value_b = b->io_settings[s][0] != '\0' ? b->io_settings[s] : "unrecorded";

		if (strcmp(value_a, value_b) != 0)
			appendStringInfo(differences, "%s%s %s vs %s", differences->len > 0 ? ", " : "",
							 io_setting_names[s], value_a, value_b);
	}
}

/* A sentence when a batch did not complete or memory answered its reads. */
static void
append_batch_caveats(StringInfo out, const char *name, const CompareBatch *batch)
{
	if (strcmp(batch->status, "completed") != 0)
		appendStringInfo(out, "Batch %s (" INT64_FORMAT ") did not complete: it was %s. ",
						 name, batch->batch, batch->status);
	if (batch->known[RANREAD_MEASURE_PHYSICAL] && batch->value[RANREAD_MEASURE_PHYSICAL] < RANREAD_SWEEP_MIN_PHYSICAL_PCT)
		appendStringInfo(out, "The device answered only %.1f%% of batch %s's reads, memory the rest. ",
						 batch->value[RANREAD_MEASURE_PHYSICAL], name);
}

/*
 * What limits each sweep's volume (sweep_limit.c), when either is decided or
 * saw a burst bucket: "What limits the volume: A: IOPS cap at 1,000
 * reads/s, B: device at 1,322 reads/s."
 */
static void
append_limit_sentence(StringInfo out, const RanreadSweepRecord *a, const RanreadSweepRecord *b)
{
	RanreadLimit limit_a;
	RanreadLimit limit_b;
	const RanreadLimit *limits[2] = {&limit_a, &limit_b};

	ranread_sweep_limit(a, &limit_a);
	ranread_sweep_limit(b, &limit_b);
	if (limit_a.kind == RANREAD_LIMIT_UNDECIDED && limit_b.kind == RANREAD_LIMIT_UNDECIDED &&
		!limit_a.bucket && !limit_b.bucket)
		return;
	appendStringInfoString(out, "What limits the volume:");
	for (int i = 0; i < 2; i++)
	{
		const RanreadLimit *limit = limits[i];

		appendStringInfo(out, "%s %c: %s", i == 0 ? "" : ",", 'A' + i, ranread_limit_kind_name(limit->kind));
		if (limit->rate_iops > 0)
			appendStringInfo(out, " at %s reads/s", ranread_format_rate(limit->rate_iops));
		if (limit->bucket)
			appendStringInfo(out, " after a burst bucket of %s reads at %s reads/s",
							 ranread_format_rate(limit->bucket_reads), ranread_format_rate(limit->burst_iops));
	}
	appendStringInfoString(out, ". ");
}

/* Argument n, a batch or a sweep, named `name`; never NULL. */
static int64
number_argument(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
	return PG_GETARG_INT64(n);
}

/*
 * ranread_compare(batch_a, batch_b): one row per measure (iops, mean_ms,
 * p50_ms, p99_ms, p999_ms, physical_pct, device_reads_per_s) with A, B, B/A,
 * the noise band in percent and whether B is faster, slower or the same
 * within the noise; then a row 'verdict' that says it in words.  Both
 * batches must exist and have read something.
 */
Datum
ranread_compare(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		number_a = number_argument(fcinfo, 0, "batch_a");
	int64		number_b = number_argument(fcinfo, 1, "batch_b");
	CompareBatch a;
	CompareBatch b;
	CompareRow	rows[RANREAD_N_MEASURES];
	StringInfoData verdict;
	StringInfoData differences;

	ranread_check_sql_version();
	InitMaterializedSRF(fcinfo, 0);
	ranread_check_result_columns(rsinfo->setDesc, COMPARE_COLUMNS);
	read_batch_with_reads(number_a, &a);
	read_batch_with_reads(number_b, &b);

	for (int m = 0; m < RANREAD_N_MEASURES; m++)
	{
		rows[m] = compare_measure(&a, &b, m);
		put_row(rsinfo, compare_measures[m].name, &rows[m]);
	}

	initStringInfo(&verdict);
	initStringInfo(&differences);
	append_setting_differences(&differences, a.target, b.target, a.mode, b.mode, a.block_size, b.block_size,
							   a.rate_iops, b.rate_iops, a.iodepth, b.iodepth);
	append_io_setting_differences(&differences, &a, &b);
	if (differences.len > 0)
		appendStringInfo(&verdict, "Not like for like: %s. ", differences.data);
	append_iops_sentence(&verdict, &rows[RANREAD_MEASURE_IOPS]);
	append_latency_sentence(&verdict, "mean latency", &rows[RANREAD_MEASURE_MEAN]);
	append_latency_sentence(&verdict, "p99", &rows[RANREAD_MEASURE_P99]);
	append_batch_caveats(&verdict, "A", &a);
	append_batch_caveats(&verdict, "B", &b);
	if (verdict.len > 0 && verdict.data[verdict.len - 1] == ' ')
		verdict.data[--verdict.len] = '\0';
	put_verdict(rsinfo, verdict.data);
	return (Datum) 0;
}

/* A sweep's settings, from its ranread_sweep_runs row. */
typedef struct CompareSweepSettings
{
	char	   *target;
	char	   *mode;
	int			block_size;
	double		rate_iops;		/* open loop: the first rate; 0: closed loop */
} CompareSweepSettings;

static void
read_sweep_settings(int64 sweep, CompareSweepSettings *settings)
{
	MemoryContext context = CurrentMemoryContext;
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(sweep)};

	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT target::text AS target, mode, block_size, coalesce(rate_iops, 0) AS rate_iops "
									   "FROM %s.ranread_sweep_runs WHERE sweep OPERATOR(pg_catalog.=) $1",
									   quote_identifier(ranread_extension_schema())),
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read sweep " INT64_FORMAT, sweep);
	settings->target = MemoryContextStrdup(context, ranread_spi_text_named(SPI_tuptable->vals[0],
																		   SPI_tuptable->tupdesc, "target", ""));
	settings->mode = MemoryContextStrdup(context, ranread_spi_text_named(SPI_tuptable->vals[0],
																		 SPI_tuptable->tupdesc, "mode", ""));
	settings->block_size = (int) ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "block_size", 0);
	settings->rate_iops = ranread_spi_float_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "rate_iops", 0);
	SPI_finish();
}

/* Sweep `sweep`, which must exist, with its verdict and settings. */
static void
read_sweep(int64 sweep, RanreadSweepRecord *record, RanreadSweepVerdict *verdict,
		   CompareSweepSettings *settings)
{
	if (!ranread_sweep_read(sweep, false, record))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sweep " INT64_FORMAT " does not exist", sweep),
				 errhint("The sweeps are listed in ranread_sweeps.")));
	ranread_sweep_judge(record->steps, record->count, &record->rules, verdict);
	read_sweep_settings(sweep, settings);
}

/* A measure of a compared step: its value, and the relative error its band stands for. */
static void
set_step_measure(CompareBatch *batch, int m, double value, double band_pct)
{
	batch->known[m] = true;
	batch->value[m] = value;
	batch->rse[m] = ranread_noise_rse_of_band(band_pct);
}

/*
 * Step `step` of a sweep as a batch to compare; all unknown for no step (-1).
 * A step that ran more than once is compared as the sweep judged it and
 * ranread_sweeps shows it: its completed runs combined (ranread_sweep_read()),
 * IOPS, mean and p99 with their bands, rather than its first batch alone.
 */
static void
read_step_batch(const RanreadSweepRecord *record, int step, CompareBatch *batch)
{
	const RanreadSweepStep *combined;

	if (step < 0 || !read_batch(record->batches[step], batch))
	{
		memset(batch, 0, sizeof(CompareBatch));
		batch->status = "";
		for (int m = 0; m < RANREAD_N_MEASURES; m++)
			batch->rse[m] = -1;
		return;
	}
	combined = &record->steps[step];
	if (combined->runs < 2)
		return;
	set_step_measure(batch, RANREAD_MEASURE_IOPS, combined->iops, combined->iops_band_pct);
	set_step_measure(batch, RANREAD_MEASURE_MEAN, combined->mean_ms, combined->mean_band_pct);
	set_step_measure(batch, RANREAD_MEASURE_P99, combined->p99_ms, combined->p99_band_pct);
}

/* A row comparing a whole number (processes) of A and B: same, more or fewer. */
static void
put_count_row(ReturnSetInfo *rsinfo, const char *measure, const RanreadSweepRecord *a, int step_a,
			  const RanreadSweepRecord *b, int step_b)
{
	CompareRow	row = {0};

	row.a_known = step_a >= 0;
	row.b_known = step_b >= 0;
	row.a = row.a_known ? a->steps[step_a].processes : 0;
	row.b = row.b_known ? b->steps[step_b].processes : 0;
	row.ratio_known = row.a_known && row.b_known && row.a != 0;
	row.ratio = row.ratio_known ? row.b / row.a : 0;
	if (!row.a_known || !row.b_known)
		row.verdict = "not measured";
	else
		row.verdict = row.a == row.b ? "same" : row.b > row.a ? "more" : "fewer";
	put_row(rsinfo, measure, &row);
}

/* A step's reads in flight per worker (recorded 0 or 1: one). */
static int
step_iodepth(const RanreadSweepStep *step)
{
	return Max(step->iodepth, 1);
}

/* The reads in flight per worker of a sweep's first step, for the like-for-like check. */
static int
first_iodepth(const RanreadSweepRecord *record)
{
	return record->count > 0 ? step_iodepth(&record->steps[0]) : 1;
}

/*
 * Where a step stands on its sweep's axis: "8 processes", "1 process at
 * queue depth 32" or "10,000 reads/s".
 */
static char *
step_axis(const RanreadSweepRecord *record, int step)
{
	const RanreadSweepStep *s = &record->steps[step];

	if (record->open_loop)
		return psprintf("%s reads/s", ranread_format_rate(s->rate_iops));
	if (step_iodepth(s) > 1)
		return psprintf("%d %s at queue depth %d", s->processes, s->processes == 1 ? "process" : "processes",
						step_iodepth(s));
	return psprintf("%d %s", s->processes, s->processes == 1 ? "process" : "processes");
}

/*
 * A sentence comparing the IOPS of a step each sweep picked (the highest,
 * the highest within the SLO): "B's highest IOPS, 45,100 at 8 processes,
 * is 12.3% more than A's, 40,160 at 8 processes, more than ..."
 */
static void
append_step_sentence(StringInfo out, const char *what, const RanreadSweepRecord *a, int step_a,
					 const RanreadSweepRecord *b, int step_b, const CompareRow *row)
{
	if (step_a < 0 && step_b < 0)
	{
		appendStringInfo(out, "Neither sweep has a %s. ", what);
		return;
	}
	if (step_a < 0 || step_b < 0)
	{
		appendStringInfo(out, "Only sweep %s has a %s: %s IOPS at %s. ", step_a >= 0 ? "A" : "B", what,
						 ranread_format_rate(step_a >= 0 ? row->a : row->b),
						 step_a >= 0 ? step_axis(a, step_a) : step_axis(b, step_b));
		return;
	}
	if (!row->ratio_known)
		return;
	appendStringInfo(out, "B's %s, %s at %s, is %s than A's, %s at %s", what, ranread_format_rate(row->b),
					 step_axis(b, step_b), change_text(row->ratio, "more", "less"),
					 ranread_format_rate(row->a), step_axis(a, step_a));
	append_noise_judgement(out, row);
}

/* The step of `record` at the same place on the axis as step `step` of `other`, or -1. */
static int
matching_step(const RanreadSweepRecord *record, const RanreadSweepRecord *other, int step)
{
	for (int i = 0; i < record->count; i++)
	{
		if (record->open_loop ? fabs(record->steps[i].rate_iops - other->steps[step].rate_iops) < 0.5 :
			record->steps[i].processes == other->steps[step].processes &&
			step_iodepth(&record->steps[i]) == step_iodepth(&other->steps[step]))
			return i;
	}
	return -1;
}

/*
 * ranread_compare_sweeps(sweep_a, sweep_b): the sweeps' verdicts side by
 * side (highest IOPS, highest IOPS within the SLO, where each was reached,
 * the knee), as ranread_sweep_judge() finds them, then for each process
 * count (open loop: rate) both sweeps ran, its IOPS and p99; each IOPS and
 * latency compared as ranread_compare() compares the two steps' batches.
 * A last row 'verdict' says it in words.
 */
Datum
ranread_compare_sweeps(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		sweep_a = number_argument(fcinfo, 0, "sweep_a");
	int64		sweep_b = number_argument(fcinfo, 1, "sweep_b");
	RanreadSweepRecord a;
	RanreadSweepRecord b;
	RanreadSweepVerdict verdict_a;
	RanreadSweepVerdict verdict_b;
	CompareSweepSettings settings_a;
	CompareSweepSettings settings_b;
	CompareBatch batch_a;
	CompareBatch batch_b;
	CompareRow	max_row;
	CompareRow	slo_row;
	StringInfoData verdict;
	StringInfoData differences;
	int			common = 0;

	ranread_check_sql_version();
	InitMaterializedSRF(fcinfo, 0);
	ranread_check_result_columns(rsinfo->setDesc, COMPARE_COLUMNS);
	read_sweep(sweep_a, &a, &verdict_a, &settings_a);
	read_sweep(sweep_b, &b, &verdict_b, &settings_b);

	read_step_batch(&a, verdict_a.max_step, &batch_a);
	read_step_batch(&b, verdict_b.max_step, &batch_b);
	max_row = compare_measure(&batch_a, &batch_b, RANREAD_MEASURE_IOPS);
	put_row(rsinfo, "max iops", &max_row);
	put_count_row(rsinfo, "max iops processes", &a, verdict_a.max_step, &b, verdict_b.max_step);

	read_step_batch(&a, verdict_a.slo_step, &batch_a);
	read_step_batch(&b, verdict_b.slo_step, &batch_b);
	slo_row = compare_measure(&batch_a, &batch_b, RANREAD_MEASURE_IOPS);
	put_row(rsinfo, "slo iops", &slo_row);
	put_count_row(rsinfo, "slo processes", &a, verdict_a.slo_step, &b, verdict_b.slo_step);
	put_count_row(rsinfo, "knee processes", &a, verdict_a.knee_step, &b, verdict_b.knee_step);

	/* step by step, where both sweeps stood at the same place */
	if (a.open_loop == b.open_loop)
	{
		for (int i = 0; i < a.count; i++)
		{
			int			j = matching_step(&b, &a, i);
			CompareRow	row;

			if (j < 0)
				continue;
			common++;
			read_step_batch(&a, i, &batch_a);
			read_step_batch(&b, j, &batch_b);
			row = compare_measure(&batch_a, &batch_b, RANREAD_MEASURE_IOPS);
			put_row(rsinfo, psprintf("iops at %s", step_axis(&a, i)), &row);
			row = compare_measure(&batch_a, &batch_b, RANREAD_MEASURE_P99);
			put_row(rsinfo, psprintf("p99_ms at %s", step_axis(&a, i)), &row);
		}
	}

	initStringInfo(&verdict);
	initStringInfo(&differences);
	append_setting_differences(&differences, settings_a.target, settings_b.target, settings_a.mode,
							   settings_b.mode, settings_a.block_size, settings_b.block_size,
							   settings_a.rate_iops, settings_b.rate_iops,
							   first_iodepth(&a), first_iodepth(&b));
	if (a.rules.slo_mean_ms != b.rules.slo_mean_ms || a.rules.slo_p99_ms != b.rules.slo_p99_ms ||
		a.rules.slo_p999_ms != b.rules.slo_p999_ms || a.rules.slo_max_ms != b.rules.slo_max_ms)
		appendStringInfo(&differences, "%sdifferent SLOs", differences.len > 0 ? ", " : "");
	if (differences.len > 0)
		appendStringInfo(&verdict, "Not like for like: %s. ", differences.data);
	append_step_sentence(&verdict, "highest IOPS", &a, verdict_a.max_step, &b, verdict_b.max_step, &max_row);
	append_step_sentence(&verdict, "highest IOPS within the SLO", &a, verdict_a.slo_step, &b,
						 verdict_b.slo_step, &slo_row);
	if (verdict_a.knee_step >= 0 && verdict_b.knee_step >= 0)
		appendStringInfo(&verdict, "Knee at %s in A, %s in B. ", step_axis(&a, verdict_a.knee_step),
						 step_axis(&b, verdict_b.knee_step));
	if (common == 0)
		appendStringInfoString(&verdict, "The sweeps have no step in common. ");
	append_limit_sentence(&verdict, &a, &b);
	if (verdict.len > 0 && verdict.data[verdict.len - 1] == ' ')
		verdict.data[--verdict.len] = '\0';
	put_verdict(rsinfo, verdict.data);
	return (Datum) 0;
}
