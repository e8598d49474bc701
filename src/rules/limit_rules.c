/*-------------------------------------------------------------------------
 *
 * limit_rules.c
 *		What limits a volume: a rate cap on IOPS, a rate cap on bandwidth,
 *		or the device itself; and whether a burst bucket ran empty on the
 *		way.  Read from a closed-loop sweep's steps and from the probes the
 *		sweep ran after its last step (ranread_sweep(probe => ...)).
 *
 * Past its knee a rate cap holds IOPS flat whatever the concurrency, and a
 * read's mean latency is then what a fixed-rate server gives: the reads in
 * flight over the rate (Little's law).  A device's own limit is a knee with
 * no flat plateau: past it IOPS still move beyond their noise, up (more
 * parallelism inside the device) or down (contention).  But in a steady
 * closed loop an IOPS cap C on a device answering in s is the same as a
 * device of C s slots each busy s per read: both scale to the same knee and
 * stay flat with the same latency.  Telling them apart takes a read of a
 * different size (the size probe): an IOPS cap keeps its IOPS, a bandwidth
 * cap keeps its bytes (IOPS times the sizes' ratio), and a device whose
 * every read costs a fixed time plus a time per byte falls in between.  A
 * device that spends the same time on any read size is, by every measure
 * reads can take, an IOPS cap, and is named one.
 *
 * A burst bucket is seen where it runs empty (bucket_rules.c, in a step's
 * series or the drain's); its sustained level is then judged as above, on
 * the steps from the one in which it ran empty.  After an idle pause the
 * refill probe reads at the last step's load: the credits its series shows
 * over the seconds no read was issued are the refill rate, a lower bound
 * when the bucket refilled to the size it had.
 *
 * Pure functions, checked by test/unit/limit_rules_test.c; the sentences
 * with their figures are sweep_limit.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/limit_rules.h"
#include "rules/sweep_rules.h"

/* A step that gains at least this share of linear scaling has not reached a limit. */
#define LIMIT_STILL_SCALING_PCT	50.0

static double
in_flight(const RanreadSweepStep *step)
{
	return (double) step->processes * Max(step->iodepth, 1) * (Max(step->prefetch, 0) + 1);
}

static double
band_fraction(double band_pct)
{
	return band_pct > 0 ? band_pct / 100 : 0;
}

/* Two figures' relative band in quadrature, at least RANREAD_LIMIT_FLAT_PCT. */
static double
joint_band(double a_pct, double b_pct)
{
	double		a = band_fraction(a_pct);
	double		b = band_fraction(b_pct);

	return Max(sqrt(a * a + b * b), RANREAD_LIMIT_FLAT_PCT / 100);
}

/* A step that counts as the volume's sustained level. */
static bool
counts(const RanreadSweepStep *step)
{
	return !step->burst_era && ranread_sweep_step_valid(step);
}

/* The first burst bucket that ran empty, in the drain or a step. */
static void
find_bucket(const RanreadSweepStep *steps, int count, const RanreadSweepStep *drain,
			const RanreadLimitProbe *refill_probe, RanreadLimit *limit)
{
	const RanreadSweepStep *at = drain != NULL && drain->bucket ? drain : NULL;

	for (int i = 0; i < count && at == NULL; i++)
		if (steps[i].bucket)
			at = &steps[i];
	if (at == NULL)
		return;
	limit->bucket = true;
	limit->burst_iops = at->burst_iops;
	limit->burst_band_pct = at->burst_band_pct;
	limit->bucket_reads = at->bucket_reads;
	limit->bucket_band = at->bucket_band;
	limit->bucket_s = at->shift_s;
	if (refill_probe != NULL && refill_probe->present && refill_probe->step.bucket &&
		refill_probe->idle_s > 0)
	{
		const RanreadSweepStep *probe = &refill_probe->step;

		limit->refill_per_s = probe->bucket_reads / refill_probe->idle_s;
		limit->refill_band = probe->bucket_band / refill_probe->idle_s;
		limit->refill_full = probe->bucket_reads + probe->bucket_band >= at->bucket_reads - at->bucket_band;
	}
}

/* The counted step before steps[i], or -1. */
static int
counted_before(const RanreadSweepStep *steps, int i)
{
	while (--i >= 0)
		if (counts(&steps[i]))
			return i;
	return -1;
}

/*
 * The plateau: the longest run of counted steps ending at steps[last] whose
 * IOPS all equal the last's within their joint band, spanning at least a
 * doubling of the reads in flight.  Fills its ends and level; false if none.
 */
static bool
find_plateau(const RanreadSweepStep *steps, int last, RanreadLimit *limit)
{
	const RanreadSweepStep *end = &steps[last];
	int			first = last;
	int			n = 0;
	double		sum = 0;
	double		squares = 0;

	for (int before = counted_before(steps, last); before >= 0; before = counted_before(steps, before))
	{
		if (!(end->iops > 0) ||
			fabs(steps[before].iops / end->iops - 1) > joint_band(steps[before].iops_band_pct, end->iops_band_pct))
			break;
		first = before;
	}
	if (first == last || in_flight(end) < 2 * in_flight(&steps[first]))
		return false;
	limit->plateau_first = first;
	limit->plateau_last = last;
	for (int i = first; i <= last; i++)
	{
		const RanreadSweepStep *step = &steps[i];
		double		band = band_fraction(step->iops_band_pct);

		if (!counts(step))
			continue;
		n++;
		sum += step->iops;
		squares += band * band;
		if (step->mean_ms > 0)
			limit->little_pct = Max(limit->little_pct,
									100 * fabs(step->mean_ms * step->iops / (1000.0 * in_flight(step)) - 1));
	}
	limit->rate_iops = sum / n;
	limit->rate_band_pct = 100 * sqrt(squares) / n;
	return true;
}

/* A plateau's kind, by the size probe. */
static void
judge_plateau(const RanreadLimitProbe *size_probe, RanreadLimit *limit)
{
	const RanreadSweepStep *probe;
	double		band;
	double		bandwidth_ratio;

	if (size_probe == NULL || !size_probe->present || !(size_probe->size_ratio > 0) ||
		size_probe->size_ratio == 1)
	{
		limit->reason = "a flat plateau: a rate cap or a device with a fixed number of slots, which only a read of another size tells apart";
		return;
	}
	probe = &size_probe->step;
	if (!probe->completed || !ranread_sweep_step_valid(probe) || !(probe->iops > 0))
	{
		limit->reason = "a flat plateau, and the size probe did not complete or memory answered it";
		return;
	}
	limit->probe_ratio = probe->iops / limit->rate_iops;
	band = joint_band(limit->rate_band_pct, probe->iops_band_pct);
	limit->probe_band_pct = 100 * band;
	bandwidth_ratio = 1 / size_probe->size_ratio;
	if (fabs(limit->probe_ratio - 1) <= band && fabs(limit->probe_ratio / bandwidth_ratio - 1) <= band)
		limit->reason = "a flat plateau, and the size probe's noise covers both an IOPS and a bandwidth cap";
	else if (fabs(limit->probe_ratio - 1) <= band)
	{
		limit->kind = RANREAD_LIMIT_IOPS_CAP;
		limit->reason = "a flat plateau whose IOPS the size probe kept: a cap on reads a second";
	}
	else if (fabs(limit->probe_ratio / bandwidth_ratio - 1) <= band)
	{
		limit->kind = RANREAD_LIMIT_BANDWIDTH_CAP;
		limit->reason = "a flat plateau whose bytes a second the size probe kept: a cap on bandwidth";
	}
	else if ((limit->probe_ratio - 1) * (limit->probe_ratio - bandwidth_ratio) < 0)
	{
		limit->kind = RANREAD_LIMIT_DEVICE;
		limit->reason = "a flat plateau, but the size probe kept neither its IOPS nor its bytes: reads that cost a fixed time and a time per byte, the device's own";
	}
	else
		limit->reason = "a flat plateau, and the size probe moved IOPS beyond both caps' figures";
}

/*
 * Judge what limits the volume from a sweep's count steps (after
 * ranread_sweep_mark_burst()), its drain (NULL: none) and its probes (NULL
 * or not present: none); open_loop: the sweep stepped a rate.
 */
void
ranread_limit_judge(const RanreadSweepStep *steps, int count, bool open_loop,
					const RanreadSweepStep *drain, const RanreadLimitProbe *size_probe,
					const RanreadLimitProbe *refill_probe, RanreadLimit *limit)
{
	int			last = counted_before(steps, count);
	int			before = last >= 0 ? counted_before(steps, last) : -1;

	memset(limit, 0, sizeof(RanreadLimit));
	limit->kind = RANREAD_LIMIT_UNDECIDED;
	limit->plateau_first = limit->plateau_last = -1;
	limit->probe_ratio = limit->refill_per_s = -1;
	find_bucket(steps, count, drain, refill_probe, limit);
	if (open_loop)
		limit->reason = "an open-loop sweep sets the rate itself: only a closed loop finds where IOPS stop growing";
	else if (before < 0)
		limit->reason = "fewer than two steps count: no shape to read";
	else if (find_plateau(steps, last, limit))
		judge_plateau(size_probe, limit);
	else
	{
		limit->rate_iops = steps[last].iops;
		limit->rate_band_pct = steps[last].iops_band_pct;
		if (ranread_sweep_scaling_pct(&steps[before], &steps[last]) >= LIMIT_STILL_SCALING_PCT)
			limit->reason = "the last step still gained half of linear scaling or more: the sweep ended before the volume's limit";
		else
		{
			limit->kind = RANREAD_LIMIT_DEVICE;
			limit->reason = "a knee with no flat plateau: past it IOPS still moved beyond their noise, as a device's do";
		}
	}
}

/* The kind as ranread_limit() names it. */
const char *
ranread_limit_kind_name(RanreadLimitKind kind)
{
	switch (kind)
	{
		case RANREAD_LIMIT_IOPS_CAP:
			return "IOPS cap";
		case RANREAD_LIMIT_BANDWIDTH_CAP:
			return "bandwidth cap";
		case RANREAD_LIMIT_DEVICE:
			return "device";
		case RANREAD_LIMIT_UNDECIDED:
			break;
	}
	return "undecided";
}
