/*-------------------------------------------------------------------------
 *
 * series.c
 *		Sampling a running batch into its per-interval series.
 *
 * Each worker records every counted read in its own histogram in shared
 * memory, and keeps the longest read since the last sample.  At every
 * interval boundary the leader adds up the workers' histograms and keeps
 * the difference from its previous sum: the reads of that interval alone,
 * from which its IOPS, mean, p50, p99 and max follow.  The workers' counters
 * are read while they are written: a read that ends as the sum is taken
 * falls into this interval or the next, never both.  What the server did
 * meanwhile is read right after (interval_activity.c).  The last worker to stop
 * reading adds the partial interval at the end and closes the series, so a
 * batch whose leader is gone keeps every interval it completed.  One process
 * samples at a time (RanreadSeries.busy).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "compat.h"
#include "ranread.h"
#include "record/series.h"

/* The sum of every worker's histogram, and the difference: too large for the stack. */
static RanreadHistogram sum;
static RanreadHistogram delta;

/* Where the intervals' activity starts, from the series' start. */
static Size
activity_offset(int capacity)
{
	return MAXALIGN(add_size(offsetof(RanreadSeries, intervals), mul_size(capacity, sizeof(RanreadInterval))));
}

/* Shared memory for a series of at most capacity intervals, with their activity. */
Size
ranread_series_size(int capacity)
{
	return add_size(activity_offset(capacity), mul_size(capacity, sizeof(RanreadIntervalActivity)));
}

RanreadSeries *
ranread_series_of(const RanreadShared *shared)
{
	return (RanreadSeries *) ((char *) shared + shared->series_offset);
}

/* What the server did in each interval (interval_activity.c), after the intervals. */
RanreadIntervalActivity *
ranread_series_activity(const RanreadShared *shared)
{
	return (RanreadIntervalActivity *) ((char *) ranread_series_of(shared) +
										activity_offset(shared->series_capacity));
}

/* Every reader's histogram summed, as they are now (they may be reading). */
void
ranread_readers_histogram(const RanreadShared *shared, RanreadHistogram *into)
{
	ranread_hist_init(into);
	for (int i = 0; i < shared->params.processes; i++)
		ranread_hist_merge(into, &shared->slots[i].hist);
}

static double
seconds_between(instr_time from, instr_time to)
{
	INSTR_TIME_SUBTRACT(to, from);
	return ranread_instr_time_s(to);
}

/* The reads since the previous sample: one interval, ending at now. */
static void
add_interval(RanreadShared *shared, RanreadSeries *series, instr_time now)
{
	RanreadInterval *interval;
	uint64		max_ns = 0;
	int			reading = (int) pg_atomic_read_u32(&shared->reading);

	for (int i = 0; i < shared->params.processes; i++)
	{
		uint64		worker_max_ns = pg_atomic_exchange_u64(&shared->slots[i].interval_max_ns, 0);

		max_ns = Max(max_ns, worker_max_ns);
	}
	ranread_readers_histogram(shared, &sum);
	ranread_hist_difference(&delta, &sum, &series->previous);
	delta.max_ns = max_ns;
	memcpy(&series->previous, &sum, sizeof(RanreadHistogram));
	series->samples++;
	ranread_interval_activity_sample(shared, &series->counters, series->count < shared->series_capacity ?
									 &ranread_series_activity(shared)[series->count] : NULL);

	if (series->count >= shared->series_capacity)
	{
		series->full = true;
		series->last_sample = now;
		return;
	}
	interval = &series->intervals[series->count];
	interval->start_s = seconds_between(shared->count_from, series->last_sample);
	interval->seconds = seconds_between(series->last_sample, now);
	interval->reads = (int64) delta.count;
	interval->reading = reading;
	if (delta.count > 0)
	{
		interval->mean_ms = (double) delta.sum_ns / (double) delta.count / 1e6;
		interval->p50_ms = ranread_hist_percentile_ms(&delta, 0.50);
		interval->p99_ms = ranread_hist_percentile_ms(&delta, 0.99);
		interval->max_ms = (double) max_ns / 1e6;
	}
	else
		interval->mean_ms = interval->p50_ms = interval->p99_ms = interval->max_ms = -1;
	series->count++;
	series->last_sample = now;
}

/*
 * Leader: at an interval boundary, add the interval that ends now.  Skipped
 * if the last worker is closing the series at this moment.
 */
void
ranread_series_sample(RanreadShared *shared, instr_time now)
{
	RanreadSeries *series = ranread_series_of(shared);

	if (!pg_atomic_test_set_flag(&series->busy))
		return;
	if (!series->closed)
		add_interval(shared, series, now);
	pg_atomic_clear_flag(&series->busy);
}

/*
 * The last worker to stop reading: add the partial interval at the end,
 * unless reading ended before counting began, and close the series.
 */
void
ranread_series_close(RanreadShared *shared, instr_time now)
{
	RanreadSeries *series = ranread_series_of(shared);

	while (!pg_atomic_test_set_flag(&series->busy))
		pg_usleep(1000L);
	if (!series->closed && shared->params.processes > 0 &&
		ranread_instr_time_s(now) > ranread_instr_time_s(series->last_sample))
		add_interval(shared, series, now);
	series->closed = true;
	pg_atomic_clear_flag(&series->busy);
}

/* When the leader should sample next: the next boundary of the grid from count_from. */
instr_time
ranread_series_next_boundary(const RanreadShared *shared)
{
	const RanreadSeries *series = ranread_series_of(shared);

	return ranread_instr_time_from_ns(ranread_instr_time_ns(shared->count_from) +
									  (uint64) (series->samples + 1) * shared->params.sample_interval_ns);
}
