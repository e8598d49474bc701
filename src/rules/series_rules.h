/*-------------------------------------------------------------------------
 *
 * series_rules.h
 *		Pure functions of a per-second series: IOPS of an interval, the
 *		steady-state rule and a sharp fall (series_rules.c), and the two
 *		plain types they read and write, so that they need no other header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SERIES_RULES_H
#define RANREAD_SERIES_RULES_H

/* One sample interval of a batch (series.h keeps them in shared memory). */
typedef struct RanreadInterval
{
	double		start_s;		/* since counting began (after the ramp) */
	double		seconds;
	int64		reads;
	double		mean_ms;		/* latencies: -1 when nothing was read */
	double		p50_ms;
	double		p99_ms;
	double		max_ms;
	int			reading;		/* workers still reading at its end */
} RanreadInterval;

/* A sharp fall in IOPS partway through a series. */
typedef struct RanreadDrop
{
	double		from_iops;		/* mean of the first third */
	double		to_iops;		/* mean of the last third */
	double		after_s;		/* start of the interval where it fell */
} RanreadDrop;

extern double ranread_interval_iops(const RanreadInterval *interval);
extern bool ranread_series_is_steady(const RanreadInterval *intervals, int count,
									 int window, double band_pct, int processes);
extern bool ranread_series_find_drop(const RanreadInterval *intervals, int count,
									 int processes, RanreadDrop *drop);

#endif							/* RANREAD_SERIES_RULES_H */
