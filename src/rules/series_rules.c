/*-------------------------------------------------------------------------
 *
 * series_rules.c
 *		What a batch's per-interval series says: has it reached a steady
 *		state, and did its IOPS fall sharply partway?
 *
 * Both rules look only at full intervals, those at whose end every worker
 * was still reading: at the end of an iteration-based run the workers that
 * finish first leave the others to read alone, and IOPS falls for that
 * reason only.  Pure functions, so that test/unit/series_rules_test.c
 * checks them on constructed histories.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/series_rules.h"

/* Fewest full intervals the fall rule looks at: two per third. */
#define DROP_MIN_INTERVALS	6

double
ranread_interval_iops(const RanreadInterval *interval)
{
	return interval->seconds > 0 ? (double) interval->reads / interval->seconds : 0;
}

static bool
is_full(const RanreadInterval *interval, int processes)
{
	return interval->reading >= processes;
}

/*
 * fio's ss= rule, on both IOPS and mean latency: the last `window` intervals
 * are all full and each lies within band_pct of their mean.
 */
bool
ranread_series_is_steady(const RanreadInterval *intervals, int count, int window,
						 double band_pct, int processes)
{
	double		iops_mean = 0;
	double		latency_mean = 0;

	if (window < 2 || count < window)
		return false;
	for (int i = count - window; i < count; i++)
	{
		if (!is_full(&intervals[i], processes) || intervals[i].reads == 0)
			return false;
		iops_mean += ranread_interval_iops(&intervals[i]) / window;
		latency_mean += intervals[i].mean_ms / window;
	}
	for (int i = count - window; i < count; i++)
	{
		if (fabs(ranread_interval_iops(&intervals[i]) - iops_mean) > iops_mean * band_pct / 100.0 ||
			fabs(intervals[i].mean_ms - latency_mean) > latency_mean * band_pct / 100.0)
			return false;
	}
	return true;
}

/*
 * IOPS fell sharply if the mean of the last third of the full intervals is
 * below half the mean of the first third.  It fell after the first interval
 * below the midpoint of the two from which on the mean stays below it.
 */
bool
ranread_series_find_drop(const RanreadInterval *intervals, int count, int processes,
						 RanreadDrop *drop)
{
	int			full = 0;
	int			third;
	double		first = 0;
	double		last = 0;
	double		rest = 0;		/* IOPS summed over intervals i.. */
	double		midpoint;

	while (full < count && is_full(&intervals[full], processes))
		full++;
	if (full < DROP_MIN_INTERVALS)
		return false;
	third = full / 3;
	for (int i = 0; i < third; i++)
	{
		first += ranread_interval_iops(&intervals[i]) / third;
		last += ranread_interval_iops(&intervals[full - third + i]) / third;
	}
	if (!(last < first / 2))
		return false;
	midpoint = (first + last) / 2;
	drop->from_iops = first;
	drop->to_iops = last;
	drop->after_s = intervals[full - third].start_s;
	for (int i = 0; i < full; i++)
		rest += ranread_interval_iops(&intervals[i]);
	for (int i = 0; i < full; i++)
	{
		if (ranread_interval_iops(&intervals[i]) < midpoint && rest / (full - i) < midpoint)
		{
			drop->after_s = intervals[i].start_s;
			break;
		}
		rest -= ranread_interval_iops(&intervals[i]);
	}
	return true;
}
