/*-------------------------------------------------------------------------
 *
 * histogram.h
 *		Fixed-size latency histogram with bounded relative error.
 *
 * Values are nanoseconds.  Buckets are log-linear (the HdrHistogram layout):
 * below 2 * RANREAD_HIST_SUB_BUCKETS every nanosecond has its own bucket;
 * above, each power of two is split into RANREAD_HIST_SUB_BUCKETS equal
 * buckets, so a bucket is at most 1/64 of its lower bound wide (fio's
 * resolution).  Percentiles report the bucket's midpoint clamped to the
 * observed min and max: the relative error is at most 1/128 (0.8 %).  Values of 2^41 ns (36 minutes) or
 * more land in the last bucket.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_HISTOGRAM_H
#define RANREAD_HISTOGRAM_H

#include "port/pg_bitutils.h"

#define RANREAD_HIST_SUB_BITS		6
#define RANREAD_HIST_SUB_BUCKETS	(1 << RANREAD_HIST_SUB_BITS)
#define RANREAD_HIST_MAX_BITS		40
#define RANREAD_HIST_BUCKETS \
	((RANREAD_HIST_MAX_BITS - RANREAD_HIST_SUB_BITS) * RANREAD_HIST_SUB_BUCKETS + 2 * RANREAD_HIST_SUB_BUCKETS)

typedef struct RanreadHistogram
{
	uint64		count;
	uint64		sum_ns;
	uint64		min_ns;
	uint64		max_ns;
	uint64		buckets[RANREAD_HIST_BUCKETS];
} RanreadHistogram;

/* The latency columns of a result row, in ms; all -1 when nothing was read. */
typedef struct RanreadLatency
{
	double		mean_ms;
	double		min_ms;
	double		max_ms;
	double		p50_ms;
	double		p95_ms;
	double		p99_ms;
	double		p999_ms;
} RanreadLatency;

extern void ranread_hist_init(RanreadHistogram *hist);
extern void ranread_hist_merge(RanreadHistogram *into, const RanreadHistogram *from);
extern void ranread_hist_latency(const RanreadHistogram *hist, RanreadLatency *latency);
extern void ranread_hist_difference(RanreadHistogram *into, const RanreadHistogram *later,
									const RanreadHistogram *earlier);
extern double ranread_hist_percentile_ms(const RanreadHistogram *hist, double fraction);
extern void ranread_hist_percentile_band_ms(const RanreadHistogram *hist, double fraction,
											double *low_ms, double *high_ms);
extern double ranread_hist_pct_over_ms(const RanreadHistogram *hist, double threshold_ms);
extern int	ranread_hist_used_buckets(const RanreadHistogram *hist);

/*
 * Index of the bucket holding value_ns, without a branch: a value of 2^41
 * ns or more is taken as 2^41 - 1 (the last bucket), and the low bits set
 * make the shift 0 below 2 * RANREAD_HIST_SUB_BUCKETS, where each value is
 * its own bucket.
 */
static inline int
ranread_hist_bucket(uint64 value_ns)
{
	uint64		value = Min(value_ns, (UINT64CONST(1) << (RANREAD_HIST_MAX_BITS + 1)) - 1);
	int			shift = pg_leftmost_one_pos64(value | (2 * RANREAD_HIST_SUB_BUCKETS - 1)) -
		RANREAD_HIST_SUB_BITS;

	return shift * RANREAD_HIST_SUB_BUCKETS + (int) (value >> shift);
}

/* Record one latency; called once per read, so kept inline and branch-light. */
static inline void
ranread_hist_record(RanreadHistogram *hist, uint64 value_ns)
{
	hist->buckets[ranread_hist_bucket(value_ns)]++;
	hist->count++;
	hist->sum_ns += value_ns;
	if (value_ns < hist->min_ns)
		hist->min_ns = value_ns;
	if (value_ns > hist->max_ns)
		hist->max_ns = value_ns;
}

#endif							/* RANREAD_HISTOGRAM_H */
