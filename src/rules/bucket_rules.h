/*-------------------------------------------------------------------------
 *
 * bucket_rules.h
 *		A burst bucket seen in a per-second series: a level shift down, the
 *		burst and baseline rates on either side, the bucket's size and when
 *		it ran empty, each with its noise band, or why it cannot say
 *		(bucket_rules.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_BUCKET_RULES_H
#define RANREAD_BUCKET_RULES_H

#include "rules/series_rules.h"

/*
 * The rule reads a series only where the device answered at least this share
 * of its reads (or where that was not measured): where memory answered, the
 * CPU's share moves the IOPS, and a shift is no bucket's.
 */
#define RANREAD_BUCKET_MIN_PHYSICAL_PCT	95.0

/* What the rule concluded; only RANREAD_BUCKET_FOUND fills the figures. */
typedef enum RanreadBucketVerdict
{
	RANREAD_BUCKET_FOUND,		/* one level shift down: a bucket ran empty */
	RANREAD_BUCKET_NO_SHIFT,	/* IOPS stayed level within the noise */
	RANREAD_BUCKET_TOO_SHORT,	/* too few full intervals to tell */
	RANREAD_BUCKET_TOO_NOISY	/* a step, but not clear of the noise */
} RanreadBucketVerdict;

typedef struct RanreadBucket
{
	RanreadBucketVerdict verdict;
	const char *reason;			/* a sentence saying why, for every verdict */
	int			full;			/* full intervals looked at */
	int			before;			/* intervals of the burst level */
	int			after;			/* intervals of the baseline level */
	double		noise_pct;		/* a level's standard deviation, % of it: the larger */
	double		burst_iops;		/* mean before the shift, and its 95 % band */
	double		burst_band;
	double		baseline_iops;	/* mean after the shift, and its 95 % band */
	double		baseline_band;
	double		bucket_reads;	/* reads the bucket held: total - baseline x time */
	double		bucket_band;
	double		shift_s;		/* when it ran empty, on the series' clock */
	double		reads_to_shift; /* reads served until then */
} RanreadBucket;

extern RanreadBucketVerdict ranread_series_find_bucket(const RanreadInterval *intervals,
													   int count, int processes,
													   RanreadBucket *bucket);

#endif							/* RANREAD_BUCKET_RULES_H */
