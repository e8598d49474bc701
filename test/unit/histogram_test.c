/*
 * histogram_test.c: accuracy of the latency histogram (src/rules/histogram.c)
 * against exact percentiles of the same samples (error <= 1/128), sorted.  Prints TAP.
 * Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/histogram.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf
#undef qsort

#define SAMPLES		200000
#define MAX_RELATIVE_ERROR	(1.0 / 128.0)

#include "unit_tap.h"

static int
compare_uint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

/* The sample of rank ceil(fraction * n), as the histogram defines it. */
static double
exact_ms(const uint64 *sorted, int n, double fraction)
{
	int			rank = (int) ceil(fraction * n);

	return (double) sorted[Max(rank, 1) - 1] / 1e6;
}

static void
check_distribution(const char *name, uint64 (*draw) (void))
{
	static uint64 samples[SAMPLES];
	RanreadHistogram *hist = malloc(sizeof(RanreadHistogram));
	RanreadLatency latency;
	const double fractions[] = {0.50, 0.95, 0.99, 0.999};
	const double *got[] = {&latency.p50_ms, &latency.p95_ms, &latency.p99_ms, &latency.p999_ms};
	double		sum = 0;
	char		what[200];

	ranread_hist_init(hist);
	for (int i = 0; i < SAMPLES; i++)
	{
		samples[i] = draw();
		sum += samples[i];
		ranread_hist_record(hist, samples[i]);
	}
	qsort(samples, SAMPLES, sizeof(uint64), compare_uint64);
	ranread_hist_latency(hist, &latency);

	for (int i = 0; i < (int) lengthof(fractions); i++)
	{
		double		exact = exact_ms(samples, SAMPLES, fractions[i]);
		double		error = fabs(*got[i] - exact) / exact;

		snprintf(what, sizeof(what), "%s: p%g = %.4f ms, exact %.4f ms, relative error %.4f <= 1/128",
				 name, fractions[i] * 100, *got[i], exact, error);
		ok(error <= MAX_RELATIVE_ERROR, what);
	}
	snprintf(what, sizeof(what), "%s: mean, min and max are exact", name);
	ok(fabs(latency.mean_ms - sum / SAMPLES / 1e6) < 1e-9 &&
	   latency.min_ms == samples[0] / 1e6 && latency.max_ms == samples[SAMPLES - 1] / 1e6, what);
	free(hist);
}

static double
uniform01(void)
{
	return (random() + 1.0) / ((double) RAND_MAX + 2.0);
}

/* Flash-like: 80 us to 2 ms, uniform. */
static uint64
draw_uniform(void)
{
	return (uint64) (80000 + uniform01() * 1920000);
}

/* Disk-like: log-normal around 5 ms with a long tail. */
static uint64
draw_lognormal(void)
{
	double		z = sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());

	return (uint64) (5e6 * exp(0.8 * z));
}

/* Cache hits and misses: 3 us or 3 ms. */
static uint64
draw_bimodal(void)
{
	return uniform01() < 0.7 ? 3000 + (uint64) (uniform01() * 500) : 3000000 + (uint64) (uniform01() * 500000);
}

/*
 * The p99's 95 % band from order statistics, on the values 1 ms to n ms
 * (each exact in the histogram to 1/128): for 10,000 values the ranks 9,880
 * and 9,921 (9,900 -/+ 1.96 sqrt(99), then one up); for 54 values the upper
 * rank lies beyond the values, so that side is open (-1).  And the
 * difference of two readings of a growing histogram is the values recorded
 * in between.
 */
static void
check_band_and_difference(void)
{
	RanreadHistogram *hist = malloc(sizeof(RanreadHistogram));
	RanreadHistogram *earlier = malloc(sizeof(RanreadHistogram));
	RanreadHistogram *between = malloc(sizeof(RanreadHistogram));
	double		low;
	double		high;

	ranread_hist_init(hist);
	for (int v = 1; v <= 10000; v++)
		ranread_hist_record(hist, (uint64) v * 1000000);
	ranread_hist_percentile_band_ms(hist, 0.99, &low, &high);
	ok(fabs(low - 9880) / 9880 <= MAX_RELATIVE_ERROR && fabs(high - 9921) / 9921 <= MAX_RELATIVE_ERROR,
	   "p99 band of 1..10000 ms: the values of ranks 9880 and 9921");
	ranread_hist_init(hist);
	for (int v = 1; v <= 54; v++)
		ranread_hist_record(hist, (uint64) v * 1000000);
	ranread_hist_percentile_band_ms(hist, 0.99, &low, &high);
	ok(fabs(low - 52) / 52 <= MAX_RELATIVE_ERROR && high < 0,
	   "p99 band of 54 values: rank 52 below, open above (-1)");
	ranread_hist_init(hist);
	ranread_hist_percentile_band_ms(hist, 0.99, &low, &high);
	ok(low < 0 && high < 0, "no band without values");

	ranread_hist_init(hist);
	for (int v = 1; v <= 100; v++)
		ranread_hist_record(hist, 1000000);
	memcpy(earlier, hist, sizeof(RanreadHistogram));
	for (int v = 1; v <= 50; v++)
		ranread_hist_record(hist, 8000000);
	ranread_hist_difference(between, hist, earlier);
	ok(between->count == 50 && between->sum_ns == 50 * UINT64CONST(8000000) &&
	   fabs(ranread_hist_percentile_ms(between, 0.5) - 8) / 8 <= MAX_RELATIVE_ERROR,
	   "the difference of two readings holds the 50 values of 8 ms recorded between them");
	free(hist);
	free(earlier);
	free(between);
}

int
main(void)
{
	RanreadHistogram *hist = malloc(sizeof(RanreadHistogram));
	RanreadLatency latency;

	srandom(42);
	printf("1..21\n");
	check_distribution("uniform 0.08-2 ms", draw_uniform);
	check_distribution("log-normal around 5 ms", draw_lognormal);
	check_distribution("bimodal 3 us / 3 ms", draw_bimodal);
	check_band_and_difference();

	ranread_hist_init(hist);
	ranread_hist_record(hist, UINT64CONST(1) << 50);
	ranread_hist_latency(hist, &latency);
	ok(latency.max_ms == (double) (UINT64CONST(1) << 50) / 1e6 &&
	   latency.p50_ms == latency.max_ms,
	   "a value beyond the last bucket is clamped to the recorded maximum, not lost");
	ranread_hist_init(hist);
	ranread_hist_latency(hist, &latency);
	ok(latency.p50_ms < 0 && latency.mean_ms < 0, "an empty histogram reports nothing (-1)");
	free(hist);
	return failures > 0;
}
