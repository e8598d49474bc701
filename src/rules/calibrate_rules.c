/*-------------------------------------------------------------------------
 *
 * calibrate_rules.c
 *		The rules of a calibration (ranread_calibrate()) on its figures.
 *
 * The ratio of a pair is its sequential batch's IOPS over its random one's.
 * A volume drifts between batches, so one pair says little: the pairs go on
 * until the 95 % band of their median (order_statistics.c) lies within
 * band_pct of the median on both sides, and a recommendation is made from
 * a steady ratio only -- or from a band whose every ratio recommends the
 * same random_page_cost (rounded to 0.1, at least 1): then how unsteady
 * the volume is changes nothing a DBA would set.
 *
 * PostgreSQL's default random_page_cost of 4 models random reads as 40
 * times slower than sequential ones with 90 % of them cached (its
 * documentation says so), so a ratio recommends the ratio times the share
 * not cached, rounded to 0.1 and at least seq_page_cost, 1.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/calibrate_rules.h"
#include "rules/order_statistics.h"

/* The most values ranread_ratio_band() takes (ranread_calibrate()'s max_pairs). */
#define RATIO_BAND_MAX_VALUES	1000

/*
 * The index of the first of iops[0..count-1] within short_pct of the
 * largest: of settings in increasing order, the least that pays.
 */
int
ranread_least_within(const double *iops, int count, double short_pct)
{
	int			best = 0;

	for (int i = 1; i < count; i++)
		if (iops[i] > iops[best])
			best = i;
	for (int i = 0; i < best; i++)
		if (iops[i] >= iops[best] * (1.0 - short_pct / 100.0))
			return i;
	return best;
}

/*
 * The median of ratios[0..pairs-1] (left as they are), its 95 % band, how
 * wide that is, and whether it lies within band_pct of the median.
 */
void
ranread_ratio_band(double *ratios, int pairs, double band_pct, RanreadRatioBand *band)
{
	double		sorted[RATIO_BAND_MAX_VALUES];
	int			n = Min(pairs, RATIO_BAND_MAX_VALUES);

	memcpy(sorted, ratios, sizeof(double) * n);
	band->median = ranread_median(sorted, n);
	band->banded = ranread_median_band(sorted, n, &band->low, &band->high);
	band->reached_pct = -1;
	band->steady = false;
	if (!band->banded || band->median <= 0)
		return;
	band->reached_pct = 100.0 * Max(band->median - band->low, band->high - band->median) / band->median;
	band->steady = band->reached_pct <= band_pct;
}

/* random_page_cost for a random/sequential ratio with cached_pct of random reads cached. */
double
ranread_page_cost(double ratio, double cached_pct)
{
	return Max(1.0, rint(10.0 * ratio * (1.0 - cached_pct / 100.0)) / 10.0);
}

/*
 * Whether the band decides random_page_cost: it is steady, or both its ends
 * recommend the same value.
 */
bool
ranread_page_cost_decided(const RanreadRatioBand *band, double cached_pct)
{
	return band->steady ||
		(band->banded && ranread_page_cost(band->low, cached_pct) == ranread_page_cost(band->high, cached_pct));
}
