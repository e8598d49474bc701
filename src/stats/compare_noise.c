/*-------------------------------------------------------------------------
 *
 * compare_noise.c
 *		How much a batch's measures would differ by chance, for
 *		ranread_compare() and ranread_compare_sweeps() (compare.c): the
 *		relative standard error of each measure, and the noise band a
 *		difference between two batches must leave to be real.
 *
 * The noise is estimated from what ranread stores of each batch, as the
 * relative standard error of each measure, from three sources:
 *
 * - sampling, from the batch's latency histogram: a mean of N reads whose
 *   latencies have standard deviation s varies by s / sqrt(N) from one run
 *   to the next even on a device that never changes; a percentile varies
 *   as the ranks N p +- 1.96 sqrt(N p (1 - p)) of the order-statistic
 *   confidence interval, read off the histogram; physical_pct as a
 *   binomial proportion.  IOPS, processes over the mean latency, takes the
 *   mean's;
 * - between workers: ranread_results has one row per worker, and the
 *   spread of their values (standard deviation over the square root of
 *   their number, at least 2) is the standard error of the batch's value;
 * - over time: ranread_intervals has IOPS, mean, p50 and p99 per sample
 *   interval (1 s by default); their spread over at least 3 full intervals
 *   also catches a rate that drifts during the run (burst credits, garbage
 *   collection) while every worker drifts alike.
 *
 * Each source sees only part of the noise, so each is a lower bound and the
 * largest counts.  A's and B's add in quadrature, and the noise band is twice
 * that (about 95 %): B differs from A for real when B / A - 1 is outside it.
 * Percentiles come from histogram buckets 1/64 of their value wide, so their
 * band is at least one bucket.  This is noise within the batches; a repeat a
 * day later may differ more (a device's state, its neighbours), which only
 * repeated batches can show.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"

#include "stats/compare_noise.h"
#include "rules/histogram.h"
#include "spi_columns.h"
#include "stats/history_checks.h"

/* The fewest workers, or full sample intervals, whose spread is an estimate. */
#define COMPARE_MIN_WORKERS		2
#define COMPARE_MIN_INTERVALS	3

/* Standard errors in the noise band: about 95 %. */
#define COMPARE_BAND_ERRORS		2.0

/* The normal quantile of a two-sided 95 % interval, for the order statistics. */
#define COMPARE_Z95				1.96

/* A histogram bucket's width relative to its value: what a percentile can resolve. */
#define COMPARE_PERCENTILE_RESOLUTION_PCT	(100.0 / RANREAD_HIST_SUB_BUCKETS)

/*
 * The relative standard error of the mean of values[0..n-1]; false when
 * there are fewer than `min_n` or their mean is not positive.
 */
static bool
relative_standard_error(const double *values, int n, int min_n, double *rse)
{
	double		sum = 0;
	double		squares = 0;
	double		mean;

	if (n < min_n)
		return false;
	for (int i = 0; i < n; i++)
		sum += values[i];
	mean = sum / n;
	if (mean <= 0)
		return false;
	for (int i = 0; i < n; i++)
		squares += (values[i] - mean) * (values[i] - mean);
	*rse = sqrt(squares / (n - 1)) / sqrt((double) n) / mean;
	return true;
}

/*
 * Take the spread of each measure's column in the rows `from_where` selects
 * (a FROM and WHERE clause; $1: the batch) as its standard error, where it
 * is larger than the one already in `rse`.  `columns[m]` names measure m's
 * column, or is NULL.
 */
static void
add_spread(int64 batch, const char *from_where, const char *const *columns, int min_n, double *rse)
{
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(batch)};
	StringInfoData select;

	initStringInfo(&select);
	for (int m = 0; m < RANREAD_N_MEASURES; m++)
	{
		if (columns[m] != NULL)
			appendStringInfo(&select, "%s%s", select.len > 0 ? ", " : "", columns[m]);
	}
	if (SPI_execute_with_args(psprintf("SELECT %s %s", select.data, from_where), 1, types, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the spread of batch " INT64_FORMAT, batch);
	for (int m = 0; m < RANREAD_N_MEASURES; m++)
	{
		double	   *values;
		int			n = 0;
		double		spread;

		if (columns[m] == NULL)
			continue;
		values = palloc(sizeof(double) * Max(1, SPI_processed));
		for (uint64 row = 0; row < SPI_processed; row++)
		{
			bool		isnull;
			Datum		value = ranread_spi_datum_named(SPI_tuptable->vals[row], SPI_tuptable->tupdesc,
														columns[m], &isnull);

			if (!isnull)
				values[n++] = DatumGetFloat8(value);
		}
		if (relative_standard_error(values, n, min_n, &spread))
			rse[m] = Max(rse[m], spread);
	}
}

/*
 * Raise rse[measure] to the spread of values[0..n-1]: the measure's value in
 * each worker of a batch, or (over_time) in each of its full sample
 * intervals; for a batch still in memory, whose rows are not written yet.
 */
void
ranread_noise_from_spread(int measure, const double *values, int n, bool over_time, double *rse)
{
	double		spread;

	if (relative_standard_error(values, n, over_time ? COMPARE_MIN_INTERVALS : COMPARE_MIN_WORKERS, &spread))
		rse[measure] = Max(rse[measure], spread);
}

/* The smallest latency, in ns, that histogram.h files in bucket `index` or a later one. */
static uint64
bucket_lower_ns(int index)
{
	uint64		low = 0;
	uint64		high = UINT64CONST(1) << (RANREAD_HIST_MAX_BITS + 1);

	while (low < high)
	{
		uint64		middle = low + (high - low) / 2;

		if (ranread_hist_bucket(middle) >= index)
			high = middle;
		else
			low = middle + 1;
	}
	return low;
}

/*
 * The relative standard error of percentile p of the reads in hist, from
 * the ranks of its order-statistic 95 % confidence interval.
 */
static double
percentile_rse(const RanreadHistogram *hist, double p)
{
	double		n = (double) hist->count;
	double		half = COMPARE_Z95 * sqrt(p * (1 - p) / n);
	double		value = ranread_hist_percentile_ms(hist, p);
	double		low = ranread_hist_percentile_ms(hist, Max(p - half, 1 / n));
	double		high = ranread_hist_percentile_ms(hist, Min(p + half, 1.0));

	return value > 0 ? (high - low) / (2 * COMPARE_Z95) / value : 0;
}

/*
 * Raise `rse` to the sampling noise of a batch's measures, from its merged
 * latency histogram (which 1.0's batches do not have) and its min and max:
 * what they would vary by from run to run on a device that never changes.
 * `known` and `value` are the batch's measures, indexed as `rse` is.
 */
void
ranread_noise_from_histogram(ArrayType *histogram, double min_ms, double max_ms,
							 const bool *known, const double *value, double *rse)
{
	RanreadHistogram *hist = palloc0(sizeof(RanreadHistogram));
	Datum	   *elements;
	bool	   *nulls;
	int			n;
	double		sum = 0;
	double		squares = 0;
	double		count;
	double		mean;
	const int	percentiles[] = {RANREAD_MEASURE_P50, RANREAD_MEASURE_P99, RANREAD_MEASURE_P999};
	const double fractions[] = {0.50, 0.99, 0.999};

	hist->min_ns = ranread_history_ns(min_ms);
	hist->max_ns = ranread_history_ns(max_ms);
	deconstruct_array(histogram, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elements, &nulls, &n);
	for (int i = 0; i < Min(n, RANREAD_HIST_BUCKETS); i++)
	{
		int64		reads = nulls[i] ? 0 : DatumGetInt64(elements[i]);
		double		midpoint;

		if (reads <= 0)
			continue;
		hist->buckets[i] = (uint64) reads;
		hist->count += (uint64) reads;
		midpoint = (bucket_lower_ns(i) + bucket_lower_ns(i + 1)) / 2.0;
		midpoint = Min(Max(midpoint, (double) hist->min_ns), (double) hist->max_ns);
		sum += reads * midpoint;
		squares += reads * midpoint * midpoint;
	}
	if (hist->count < 2 || sum <= 0)
		return;
	count = (double) hist->count;
	mean = sum / count;
	rse[RANREAD_MEASURE_MEAN] = Max(rse[RANREAD_MEASURE_MEAN],
									sqrt(Max(squares / count - mean * mean, 0)) / mean / sqrt(count));
	/* closed loop, IOPS is processes over the mean latency */
	rse[RANREAD_MEASURE_IOPS] = Max(rse[RANREAD_MEASURE_IOPS], rse[RANREAD_MEASURE_MEAN]);
	for (int i = 0; i < lengthof(percentiles); i++)
		rse[percentiles[i]] = Max(rse[percentiles[i]], percentile_rse(hist, fractions[i]));
	if (known[RANREAD_MEASURE_PHYSICAL] && value[RANREAD_MEASURE_PHYSICAL] > 0)
	{
		double		share = Min(value[RANREAD_MEASURE_PHYSICAL] / 100.0, 1.0);

		rse[RANREAD_MEASURE_PHYSICAL] = Max(rse[RANREAD_MEASURE_PHYSICAL],
											sqrt(share * (1 - share) / count) / share);
	}
}

/*
 * Raise `rse` to the spread of the batch's workers' values (ranread_results);
 * `columns[m]` names measure m's column there, or is NULL.  Connected to SPI.
 */
void
ranread_noise_from_workers(const char *schema, int64 batch, const char *const *columns, double *rse)
{
	add_spread(batch, psprintf("FROM %s.ranread_results WHERE batch OPERATOR(pg_catalog.=) $1 "
							   "AND reads OPERATOR(pg_catalog.>) 0", schema),
			   columns, COMPARE_MIN_WORKERS, rse);
}

/*
 * Raise `rse` to the spread of the batch's values over its full sample
 * intervals (ranread_intervals); `columns[m]` names measure m's column
 * there, or is NULL.  Connected to SPI.
 */
void
ranread_noise_from_intervals(const char *schema, int64 batch, const char *const *columns, double *rse)
{
	/* full intervals only: the last is shorter, and so noisier */
	add_spread(batch, psprintf("FROM %s.ranread_intervals WHERE batch OPERATOR(pg_catalog.=) $1 "
							   "AND reads OPERATOR(pg_catalog.>) 0 AND seconds OPERATOR(pg_catalog.>=) "
							   "(%g::pg_catalog.float8 OPERATOR(pg_catalog.*) (SELECT pg_catalog.max(seconds) "
							   "FROM %s.ranread_intervals WHERE batch OPERATOR(pg_catalog.=) $1))",
							   schema, RANREAD_NOISE_FULL_INTERVAL, schema),
			   columns, COMPARE_MIN_INTERVALS, rse);
}

/*
 * The noise band, in percent, of a measure whose relative standard errors
 * are rse_a in A and rse_b in B (both known): twice the two in quadrature,
 * and for a percentile at least one histogram bucket.
 */
double
ranread_noise_band_pct(double rse_a, double rse_b, bool percentile)
{
	double		band = 100.0 * COMPARE_BAND_ERRORS * sqrt(rse_a * rse_a + rse_b * rse_b);

	if (percentile)
		band = Max(band, COMPARE_PERCENTILE_RESOLUTION_PCT);
	return band;
}

/*
 * The relative standard error that a band of one measure alone stands for
 * (the band ranread_noise_band_pct(rse, 0, ...) gives, as a sweep's step
 * records it); -1 for an unknown band (< 0).  A percentile's band raised to
 * one bucket gives that bucket's error back: the larger, never the smaller.
 */
double
ranread_noise_rse_of_band(double band_pct)
{
	return band_pct < 0 ? -1 : band_pct / (100.0 * COMPARE_BAND_ERRORS);
}
