/*-------------------------------------------------------------------------
 *
 * sweep_rules.c
 *		The rules of a sweep (ranread_sweep()), on its steps so far.
 *
 * A step counts as the storage's result only when it read all it was asked
 * to and its physical-read proof holds (the device answered at least
 * RANREAD_SWEEP_MIN_PHYSICAL_PCT of its reads): a step that memory answered
 * is flagged, never taken for the device.
 *
 * The latency and open-loop rate rules apply to every completed step (more
 * load only makes them worse); the scaling rule compares a valid step with
 * the last valid one before it, and min_scaling_pct 0 turns it off.  If
 * N processes gave I IOPS, linear scaling would give I * M / N at M
 * processes; the step's share of linear is the IOPS it gained over the
 * IOPS linear scaling would have gained.  Processes here are reads in
 * flight, processes x iodepth, so that one rule serves a sweep stepping
 * processes and one stepping iodepth.  Below the device's knee a doubling
 * gains most of linear; past it, the device is saturated and more processes
 * only queue, so IOPS stays flat (a share near 0) while latency grows.  The
 * default stop at 25 % sits far from both, and well above the few percent
 * that two runs of the same step differ by.
 *
 * The knee is the step with the highest IOPS per millisecond of mean
 * latency: Kleinrock's "power", which peaks where more concurrency stops
 * buying throughput and starts buying only queueing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "sweep_rules.h"

/* The step read everything it was asked to and the device answered it. */
bool
ranread_sweep_step_valid(const RanreadSweepStep *step)
{
	return step->completed &&
		(step->physical_pct < 0 || step->physical_pct >= RANREAD_SWEEP_MIN_PHYSICAL_PCT);
}

/* Each SLO bound that is set holds. */
bool
ranread_sweep_meets_slo(const RanreadSweepStep *step, const RanreadSweepRules *rules)
{
	if (rules->slo_mean_ms > 0 && !(step->mean_ms <= rules->slo_mean_ms))
		return false;
	if (rules->slo_p99_ms > 0 && !(step->p99_ms <= rules->slo_p99_ms))
		return false;
	if (rules->slo_p999_ms > 0 && !(step->p999_ms <= rules->slo_p999_ms))
		return false;
	if (rules->slo_max_ms > 0 && !(step->max_ms <= rules->slo_max_ms))
		return false;
	return true;
}

/* Reads a step keeps in flight: processes x iodepth. */
static double
reads_in_flight(const RanreadSweepStep *step)
{
	return (double) step->processes * Max(step->iodepth, 1);
}

/*
 * The IOPS `after` gained over `before`, as a percentage of what linear
 * scaling with the reads in flight (processes x iodepth, whichever the
 * sweep steps) would have gained (100: linear, 0: flat, < 0: fell).
 */
double
ranread_sweep_scaling_pct(const RanreadSweepStep *before, const RanreadSweepStep *after)
{
	double		linear_gain;

	if (before->processes <= 0 || reads_in_flight(after) <= reads_in_flight(before))
		return 100;
	linear_gain = before->iops * (reads_in_flight(after) / reads_in_flight(before) - 1);
	if (linear_gain <= 0)
		return 100;
	return 100 * (after->iops - before->iops) / linear_gain;
}

/* The last valid step before steps[last], or -1. */
static int
valid_before(const RanreadSweepStep *steps, int last)
{
	for (int i = last - 1; i >= 0; i--)
	{
		if (ranread_sweep_step_valid(&steps[i]))
			return i;
	}
	return -1;
}

/* Whether the sweep stops after the last of its `count` steps, and why. */
RanreadSweepStop
ranread_sweep_stop_after(const RanreadSweepStep *steps, int count, const RanreadSweepRules *rules)
{
	const RanreadSweepStep *last = &steps[count - 1];
	bool		open_loop = last->rate_iops > 0;

	if (!last->completed)
		return RANREAD_SWEEP_STOP_STEP_ENDED;
	/* these two hold whoever answered: more load only makes them worse */
	/* first: a missed rate is why an open loop's latency grew */
	if (open_loop && last->iops < last->rate_iops * RANREAD_SWEEP_RATE_KEPT_PCT / 100)
		return RANREAD_SWEEP_STOP_RATE_MISSED;
	if (rules->stop_latency_ms > 0 && last->mean_ms > rules->stop_latency_ms)
		return RANREAD_SWEEP_STOP_LATENCY;
	if (!open_loop && rules->min_scaling_pct > 0 && ranread_sweep_step_valid(last))
	{
		int			before = valid_before(steps, count - 1);

		if (before >= 0 &&
			ranread_sweep_scaling_pct(&steps[before], last) < rules->min_scaling_pct)
			return RANREAD_SWEEP_STOP_SCALING;
	}
	if (open_loop ? (rules->max_rate_iops > 0 && last->rate_iops >= rules->max_rate_iops)
		: rules->max_iodepth > 0 ? last->iodepth >= rules->max_iodepth
		: last->processes >= rules->max_processes)
		return RANREAD_SWEEP_STOP_MAX;
	return RANREAD_SWEEP_GO_ON;
}

/*
 * Processes of the next step: doubled, or step_processes more, at most
 * max_processes.  A sweep stepping iodepth steps it the same way (doubled).
 */
int
ranread_sweep_next_processes(int processes, int step_processes, int max_processes)
{
	int64		next = step_processes > 0 ? (int64) processes + step_processes : (int64) processes * 2;

	return (int) Min(next, (int64) max_processes);
}

/* The next step's rate: doubled, or rate_step more, at most max_rate (if > 0). */
double
ranread_sweep_next_rate(double rate, double rate_step, double max_rate)
{
	double		next = rate_step > 0 ? rate + rate_step : rate * 2;

	return max_rate > 0 ? Min(next, max_rate) : next;
}

/* The highest IOPS, the highest within the SLO and the knee, over the valid steps. */
void
ranread_sweep_judge(const RanreadSweepStep *steps, int count, const RanreadSweepRules *rules,
					RanreadSweepVerdict *verdict)
{
	double		best_power = 0;

	verdict->max_step = verdict->slo_step = verdict->knee_step = -1;
	verdict->memory_steps = verdict->partial_steps = 0;
	for (int i = 0; i < count; i++)
	{
		const RanreadSweepStep *step = &steps[i];

		if (!step->completed)
		{
			verdict->partial_steps++;
			continue;
		}
		if (!ranread_sweep_step_valid(step))
		{
			verdict->memory_steps++;
			continue;
		}
		if (verdict->max_step < 0 || step->iops > steps[verdict->max_step].iops)
			verdict->max_step = i;
		if (ranread_sweep_meets_slo(step, rules) &&
			(verdict->slo_step < 0 || step->iops > steps[verdict->slo_step].iops))
			verdict->slo_step = i;
		if (step->mean_ms > 0 && step->iops / step->mean_ms > best_power)
		{
			best_power = step->iops / step->mean_ms;
			verdict->knee_step = i;
		}
	}
}
