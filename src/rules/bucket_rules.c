/*-------------------------------------------------------------------------
 *
 * bucket_rules.c
 *		Does a batch's per-second series show a burst bucket running empty:
 *		one level shift down, from a burst rate to a baseline it then holds?
 *
 * The model is a token bucket as AWS gp2 and Azure Premium SSD state theirs
 * (and the FUSE laboratory, test/lab/labfs.c, keeps one): credits accrue at
 * the baseline rate b up to the bucket's size N, each read spends one, and
 * while credits last the volume serves up to its burst rate B.  A closed
 * loop that starts on a full bucket therefore reads at B for T = N / (B - b)
 * seconds, then at b; the reads served until then are B T = N + b T.  Over
 * the whole series of D seconds and R reads, R = B T + b (D - T) = N + b D,
 * so the bucket's size is N = R - b D: it needs only the baseline, measured
 * on the part after the shift, and the reads counted, and T follows as
 * N / (B - b).  Reads before the series began (a ramp) spent credits too and
 * are not seen: the size is the credits left when counting began.
 *
 * The shift is the split of the full intervals (those at whose end every
 * worker still read, as series_rules.c) into two runs of least squared
 * error about their means; the interval on each side of the split is left
 * out of the levels, as the bucket ran empty within one of them.  The rule
 * names a bucket only when the step down is at least BUCKET_MIN_STEP_PCT of
 * the burst and BUCKET_MIN_SIGMAS times the noise; otherwise it says why it
 * cannot (too short, too noisy, or level), never a guess.  Pure functions,
 * checked by test/unit/bucket_rules_test.c on constructed series.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/bucket_rules.h"
#include "rules/series_rules.h"

/* Fewest intervals each level is measured on, besides the transition. */
#define BUCKET_MIN_LEVEL		3
/* A step smaller than this share of the burst is no bucket. */
#define BUCKET_MIN_STEP_PCT		10.0
/* A level whose intervals' standard deviation exceeds this share of it is noise. */
#define BUCKET_MAX_NOISE_PCT	10.0
/* The step must stand this many standard deviations clear of the noise. */
#define BUCKET_MIN_SIGMAS		5.0
/* The 95 % band of a mean: 1.96 standard errors. */
#define BUCKET_BAND_Z			1.96

static bool
is_full(const RanreadInterval *interval, int processes)
{
	return interval->reading >= processes && interval->seconds > 0;
}

/* Mean and sum of squared deviations of the IOPS of intervals [from, to). */
static void
level_of(const RanreadInterval *intervals, int from, int to, double *mean, double *squares)
{
	double		sum = 0;

	*squares = 0;
	for (int i = from; i < to; i++)
		sum += ranread_interval_iops(&intervals[i]);
	*mean = sum / (to - from);
	for (int i = from; i < to; i++)
	{
		double		d = ranread_interval_iops(&intervals[i]) - *mean;

		*squares += d * d;
	}
}

/*
 * Look for a burst bucket in a series of count intervals of a batch of
 * processes workers; fills *bucket (its reason always, its figures when
 * found) and returns the verdict.
 */
RanreadBucketVerdict
ranread_series_find_bucket(const RanreadInterval *intervals, int count, int processes,
						   RanreadBucket *bucket)
{
	int			full = 0;
	int			split = -1;
	double		best = INFINITY;
	double		burst,
				baseline,
				burst_squares,
				baseline_squares,
				noise,
				step,
				reads = 0,
				seconds;

	memset(bucket, 0, sizeof(RanreadBucket));
	while (full < count && is_full(&intervals[full], processes))
		full++;
	bucket->full = full;
	if (full < 2 * BUCKET_MIN_LEVEL + 2)
	{
		bucket->verdict = RANREAD_BUCKET_TOO_SHORT;
		bucket->reason = "too few full intervals to see two levels: at least 8 are needed, 3 a level and the shift between";
		return bucket->verdict;
	}

	/* the split into [0, k) and [k, full) of least squared error */
	for (int k = BUCKET_MIN_LEVEL + 1; k <= full - BUCKET_MIN_LEVEL - 1; k++)
	{
		double		m1,
					s1,
					m2,
					s2;

		level_of(intervals, 0, k, &m1, &s1);
		level_of(intervals, k, full, &m2, &s2);
		if (s1 + s2 < best)
		{
			best = s1 + s2;
			split = k;
		}
	}
	bucket->before = split - 1;
	bucket->after = full - split - 1;
	level_of(intervals, 0, split - 1, &burst, &burst_squares);
	level_of(intervals, split + 1, full, &baseline, &baseline_squares);
	noise = sqrt((burst_squares + baseline_squares) / (bucket->before + bucket->after - 2));
	step = burst - baseline;
	bucket->burst_iops = burst;
	bucket->baseline_iops = baseline;
	bucket->burst_band = BUCKET_BAND_Z * sqrt(burst_squares / (bucket->before - 1) / bucket->before);
	bucket->baseline_band = BUCKET_BAND_Z * sqrt(baseline_squares / (bucket->after - 1) / bucket->after);
	/* each level's seconds about that level: the larger share */
	bucket->noise_pct = baseline > 0 ?
		100.0 * fmax(sqrt(burst_squares / (bucket->before - 1)) / burst,
					 sqrt(baseline_squares / (bucket->after - 1)) / baseline) : INFINITY;

	if (step < burst * BUCKET_MIN_STEP_PCT / 100.0)
	{
		bucket->verdict = bucket->noise_pct > BUCKET_MAX_NOISE_PCT ?
			RANREAD_BUCKET_TOO_NOISY : RANREAD_BUCKET_NO_SHIFT;
		bucket->reason = bucket->verdict == RANREAD_BUCKET_NO_SHIFT ?
			"no level shift down: IOPS held one level, within 10 % of it" :
			"too noisy: each second's IOPS moved more than 10 % about its level";
		return bucket->verdict;
	}
	if (step < BUCKET_MIN_SIGMAS * noise || bucket->noise_pct > BUCKET_MAX_NOISE_PCT)
	{
		bucket->verdict = RANREAD_BUCKET_TOO_NOISY;
		bucket->reason = "too noisy: the step down is not 5 standard deviations clear of the seconds' noise, or that noise exceeds 10 % of the level";
		return bucket->verdict;
	}

	/* N = R - b D over the full intervals; T = N / (B - b) */
	for (int i = 0; i < full; i++)
		reads += intervals[i].reads;
	seconds = intervals[full - 1].start_s + intervals[full - 1].seconds - intervals[0].start_s;
	bucket->bucket_reads = reads - baseline * seconds;
	bucket->bucket_band = bucket->baseline_band * seconds;
	if (bucket->bucket_reads <= 0)
	{
		bucket->verdict = RANREAD_BUCKET_TOO_NOISY;
		bucket->reason = "the levels do not fit a bucket: the reads counted are fewer than the baseline explains";
		return bucket->verdict;
	}
	bucket->shift_s = intervals[0].start_s + bucket->bucket_reads / step;
	bucket->reads_to_shift = burst * bucket->bucket_reads / step;
	bucket->verdict = RANREAD_BUCKET_FOUND;
	bucket->reason = "one level shift down, from a burst rate to a baseline held to the end: a burst bucket ran empty";
	return bucket->verdict;
}
