/*-------------------------------------------------------------------------
 *
 * histogram.c
 *		Merging and reading the latency histogram declared in histogram.h.
 *
 * Workers record into their own histogram (histogram.h, inline); the leader
 * and the last worker of a batch merge them and read percentiles here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/histogram.h"

#define NS_PER_MS	1000000.0

void
ranread_hist_init(RanreadHistogram *hist)
{
	memset(hist, 0, sizeof(RanreadHistogram));
	hist->min_ns = PG_UINT64_MAX;
}

void
ranread_hist_merge(RanreadHistogram *into, const RanreadHistogram *from)
{
	int			i;

	for (i = 0; i < RANREAD_HIST_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
	into->count += from->count;
	into->sum_ns += from->sum_ns;
	into->min_ns = Min(into->min_ns, from->min_ns);
	into->max_ns = Max(into->max_ns, from->max_ns);
}

/*
 * The values recorded between two readings of the same growing histogram
 * (earlier, then later).  The count is the buckets' sum: a histogram read
 * while it is written may have its count and its buckets a value apart.  The
 * minimum is unknown (0) and the maximum at most later's.
 */
void
ranread_hist_difference(RanreadHistogram *into, const RanreadHistogram *later,
						const RanreadHistogram *earlier)
{
	ranread_hist_init(into);
	for (int i = 0; i < RANREAD_HIST_BUCKETS; i++)
	{
		into->buckets[i] = later->buckets[i] - earlier->buckets[i];
		into->count += into->buckets[i];
	}
	into->sum_ns = later->sum_ns - earlier->sum_ns;
	into->min_ns = 0;
	into->max_ns = later->max_ns;
}

/* Midpoint of a bucket, in nanoseconds. */
static double
bucket_midpoint_ns(int index)
{
	int			shift;
	uint64		mantissa;

	if (index < 2 * RANREAD_HIST_SUB_BUCKETS)
		return (double) index;
	shift = index / RANREAD_HIST_SUB_BUCKETS - 1;
	mantissa = index - shift * RANREAD_HIST_SUB_BUCKETS;
	return (double) (mantissa << shift) + (double) (UINT64CONST(1) << shift) / 2.0;
}

/*
 * The value below which `fraction` (0..1) of the recorded reads fall, in
 * milliseconds; -1 when nothing was recorded.
 */
double
ranread_hist_percentile_ms(const RanreadHistogram *hist, double fraction)
{
	uint64		rank;
	uint64		seen = 0;
	int			i;

	if (hist->count == 0)
		return -1;
	rank = (uint64) ceil(fraction * (double) hist->count);
	/* a count above 2^53 rounds in the double: never rank past the last read */
	rank = Min(Max(rank, 1), hist->count);
	for (i = 0; i < RANREAD_HIST_BUCKETS; i++)
	{
		seen += hist->buckets[i];
		if (seen >= rank)
		{
			double		ns = bucket_midpoint_ns(i);

			ns = Max(ns, (double) hist->min_ns);
			ns = Min(ns, (double) hist->max_ns);
			return ns / NS_PER_MS;
		}
	}
	return (double) hist->max_ns / NS_PER_MS;
}

/*
 * The 95 % band of the percentile `fraction` of the recorded values, from
 * order statistics: the values of ranks n f -/+ 1.96 sqrt(n f (1 - f)) (the
 * normal approximation of the binomial count below the true percentile), at
 * the histogram's resolution.  It assumes the values independent.  A side
 * whose rank falls outside the values is open: -1 (a p99's upper side needs
 * about 560 values); both -1 when nothing was recorded.
 */
void
ranread_hist_percentile_band_ms(const RanreadHistogram *hist, double fraction,
								double *low_ms, double *high_ms)
{
	double		n = (double) hist->count;
	double		spread = 1.96 * sqrt(n * fraction * (1 - fraction));
	double		low_rank = floor(n * fraction - spread);
	double		high_rank = ceil(n * fraction + spread) + 1;

	/* ranks to fractions half a rank below, so that ceil() finds the rank again */
	*low_ms = low_rank >= 1 && n > 0 ? ranread_hist_percentile_ms(hist, (low_rank - 0.5) / n) : -1;
	*high_ms = high_rank <= n ? ranread_hist_percentile_ms(hist, (high_rank - 0.5) / n) : -1;
}

static double
mean_ms(const RanreadHistogram *hist)
{
	if (hist->count == 0)
		return -1;
	return (double) hist->sum_ns / (double) hist->count / NS_PER_MS;
}

void
ranread_hist_latency(const RanreadHistogram *hist, RanreadLatency *latency)
{
	bool		empty = hist->count == 0;

	latency->mean_ms = mean_ms(hist);
	latency->min_ms = empty ? -1 : (double) hist->min_ns / NS_PER_MS;
	latency->max_ms = empty ? -1 : (double) hist->max_ns / NS_PER_MS;
	latency->p50_ms = ranread_hist_percentile_ms(hist, 0.50);
	latency->p95_ms = ranread_hist_percentile_ms(hist, 0.95);
	latency->p99_ms = ranread_hist_percentile_ms(hist, 0.99);
	latency->p999_ms = ranread_hist_percentile_ms(hist, 0.999);
}

/*
 * Percentage of reads slower than threshold_ms, counting each bucket by its
 * midpoint (so within half a bucket, 1/128 of the threshold); -1 when empty.
 */
double
ranread_hist_pct_over_ms(const RanreadHistogram *hist, double threshold_ms)
{
	double		threshold_ns = threshold_ms * NS_PER_MS;
	uint64		over = 0;

	if (hist->count == 0)
		return -1;
	for (int i = RANREAD_HIST_BUCKETS - 1; i >= 0 && bucket_midpoint_ns(i) > threshold_ns; i--)
		over += hist->buckets[i];
	return 100.0 * (double) over / (double) hist->count;
}

/* Number of leading buckets that hold every recorded value. */
int
ranread_hist_used_buckets(const RanreadHistogram *hist)
{
	int			n = RANREAD_HIST_BUCKETS;

	while (n > 0 && hist->buckets[n - 1] == 0)
		n--;
	return n;
}
