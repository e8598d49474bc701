/*-------------------------------------------------------------------------
 *
 * series.h
 *		A batch over time: one RanreadInterval per sample_interval, kept in
 *		the run's shared memory and recorded as rows of ranread_intervals.
 *
 * The leader samples the workers' live histograms at every interval
 * boundary and keeps the difference from its previous sample (series.c);
 * the last worker to stop reading closes the series with the partial
 * interval at the end, so that a run whose leader was cancelled keeps its
 * intervals too.  The rules over a series (steady state, a sharp fall in
 * IOPS) are pure functions (series_rules.c), tested on constructed
 * histories.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SERIES_H
#define RANREAD_SERIES_H

#include "port/atomics.h"
#include "portability/instr_time.h"

#include "record/interval_activity.h"
#include "rules/histogram.h"
#include "rules/series_rules.h"

/* Longest series of a run without a duration (10 h at the default 1 s). */
#define RANREAD_SERIES_ITERATIONS_CAPACITY	36000
/* Longest series of any run (11.6 days at 1 s, 136 MB of shared memory with its activity). */
#define RANREAD_SERIES_MAX_CAPACITY		(1000 * 1000)

typedef struct RanreadSeries
{
	pg_atomic_flag busy;		/* held while one process samples */
	bool		closed;			/* the last interval is in */
	bool		full;			/* intervals were left out: no room */
	double		steady_at_s;	/* when the steady-state rule was met; -1 */
	instr_time	last_sample;
	int			count;			/* intervals kept */
	int			samples;		/* intervals ended, kept or not */
	RanreadHistogram previous;	/* every worker's reads at the last sample */
	RanreadServerCounters counters; /* the server's at the last sample (interval_activity.c) */
	/* then one RanreadIntervalActivity per interval: ranread_series_activity() */
	RanreadInterval intervals[FLEXIBLE_ARRAY_MEMBER];
} RanreadSeries;

/* series.c: sampling, in the leader and the last worker */
struct RanreadShared;
extern Size ranread_series_size(int capacity);
extern RanreadSeries *ranread_series_of(const struct RanreadShared *shared);
extern RanreadIntervalActivity *ranread_series_activity(const struct RanreadShared *shared);
extern void ranread_series_sample(struct RanreadShared *shared, instr_time now);
extern void ranread_series_close(struct RanreadShared *shared, instr_time now);
extern instr_time ranread_series_next_boundary(const struct RanreadShared *shared);
extern void ranread_readers_histogram(const struct RanreadShared *shared, RanreadHistogram *into);

#endif							/* RANREAD_SERIES_H */
