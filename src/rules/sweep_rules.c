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
 * flight, processes x iodepth x (prefetch + 1), so that one rule serves a
 * sweep stepping processes, one stepping iodepth and one stepping
 * prefetch.  Below the device's knee a doubling gains most of linear;
 * past it, the device is saturated and more processes only queue, so IOPS
 * stays flat (a share near 0) while latency grows.  The default stop at 25 % sits far from both, and well above the few percent
 * that two runs of the same step differ by.
 *
 * The knee is the step with the highest IOPS per millisecond of mean
 * latency: Kleinrock's "power", which peaks where more concurrency stops
 * buying throughput and starts buying only queueing.
 *
 * Every step's IOPS, mean and p99 carry a noise band (the 95 % half-width
 * of compare_noise.c, stored with the batch), and the two stop rules that
 * read a measure respect it: the latency rule fires only when the mean is
 * over stop_latency_ms by more than its band, the scaling rule only when
 * even the top of the scaling share's band (the two steps' IOPS bands in
 * quadrature) is below min_scaling_pct.  When the point estimate says stop
 * but its band reaches the threshold, the decision is a coin flip: the
 * sweep runs the step again (RANREAD_SWEEP_REPEAT) and decides on the runs
 * combined (ranread_sweep_combine()), at most RANREAD_SWEEP_MAX_REPEATS
 * times, and then stops saying it could not decide.  A band that reaches
 * the threshold from the other side (go on, but might have stopped) needs
 * no repeat: the next step decides, with more load.
 *
 * And the scaling rule does not stop a sweep whose last step is within the
 * SLO and gained IOPS beyond the two steps' noise: saturation describes the
 * knee, but the highest IOPS within the SLO may lie further on, so the sweep
 * searches for it until a step leaves the SLO or stops gaining.  Nor does
 * one flat step within the SLO stop it: the next step confirms the plateau
 * (two flat steps in a row, or a step outside the SLO, end the sweep).  A
 * volume's IOPS can dip for a whole step (a burst budget, another tenant):
 * on the development VM one default sweep in five stopped at 20 processes
 * on such a dip while 40 gave 57 % more within the SLO.
 *
 * Whether a step meets the SLO is a coin flip too when its mean or p99 lies
 * within its band of the bound (a p99 of 4.7 ms +- 7 % against 5 ms): a
 * sweep going on from such a step runs it again first, at most
 * RANREAD_SWEEP_MAX_REPEATS times, so that the verdict's "highest within
 * the SLO" rests on the runs combined; still near the bound after that, the
 * combined point estimate decides and the sweep goes on.
 *
 * A volume with a burst bucket (AWS gp2, Azure Premium SSD) serves a sweep
 * that starts on a full bucket at its burst rate until the bucket runs
 * empty, then at its baseline: read as the steps' averages, that is a knee
 * (IOPS flat or falling as processes grow) that is the bucket, not the
 * volume.  So a step whose series shows the shift (bucket_rules.c, the rule
 * of the batch's WARNING) counts at the baseline after it
 * (ranread_sweep_step_bucket()), and the steps before it, read on the
 * bucket, are neither compared with nor counted (ranread_sweep_mark_burst()):
 * the rules and the verdict go by the sustained level, and the burst is
 * stated apart.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/order_statistics.h"
#include "rules/sweep_rules.h"

/* The step read everything it was asked to and the device answered it. */
bool
ranread_sweep_step_valid(const RanreadSweepStep *step)
{
	return step->completed &&
		(step->physical_pct < 0 || step->physical_pct >= RANREAD_SWEEP_MIN_PHYSICAL_PCT);
}

/* Each SLO bound that is set holds, and every part of the step met it. */
bool
ranread_sweep_meets_slo(const RanreadSweepStep *step, const RanreadSweepRules *rules)
{
	if (step->part_outside_slo)
		return false;
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

/*
 * bound is set and within value's noise band (band_pct < 0: unknown, never;
 * wider than RANREAD_SWEEP_SLO_DOUBT_MAX_BAND: too little evidence, never).
 */
static bool
near_bound(double value, double band_pct, double bound)
{
	return bound > 0 && band_pct > 0 && band_pct <= RANREAD_SWEEP_SLO_DOUBT_MAX_BAND &&
		value * (1 - band_pct / 100) <= bound && bound <= value * (1 + band_pct / 100);
}

/*
 * Whether the step's mean or p99 lies within its noise band of the SLO's
 * bound: whether it meets the SLO is then a coin flip.  (p99.9 and max carry
 * no band.)
 */
bool
ranread_sweep_near_slo(const RanreadSweepStep *step, const RanreadSweepRules *rules)
{
	return near_bound(step->mean_ms, step->mean_band_pct, rules->slo_mean_ms) ||
		near_bound(step->p99_ms, step->p99_band_pct, rules->slo_p99_ms);
}

/*
 * Reads a step keeps in flight: processes x iodepth, or with prefetch each
 * process's read and the units advised ahead of it.
 */
static double
reads_in_flight(const RanreadSweepStep *step)
{
	return (double) step->processes * Max(step->iodepth, 1) * (Max(step->prefetch, 0) + 1);
}

/*
 * The IOPS `after` gained over `before`, as a percentage of what linear
 * scaling with the reads in flight (processes x iodepth x (prefetch + 1),
 * whichever the sweep steps) would have gained (100: linear, 0: flat, < 0: fell).
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

/*
 * The last valid step before steps[last], or -1; never one read on a burst
 * bucket that ran empty later: a step is compared with the sustained level,
 * not with the burst.
 */
int
ranread_sweep_valid_before(const RanreadSweepStep *steps, int last)
{
	for (int i = last - 1; i >= 0; i--)
	{
		if (steps[i].burst_era)
			return -1;
		if (ranread_sweep_step_valid(&steps[i]))
			return i;
	}
	return -1;
}

/* A noise band as a fraction: 0 while unknown. */
static double
band_of(double band_pct)
{
	return band_pct > 0 ? band_pct / 100 : 0;
}

/* The relative band of after's IOPS over before's: both bands in quadrature. */
static double
ratio_band(const RanreadSweepStep *before, const RanreadSweepStep *after)
{
	double		a = band_of(before->iops_band_pct);
	double		b = band_of(after->iops_band_pct);

	return sqrt(a * a + b * b);
}

/*
 * The range of ranread_sweep_scaling_pct(before, after) that the two steps'
 * IOPS bands allow (each band unknown counts as none).
 */
void
ranread_sweep_scaling_range(const RanreadSweepStep *before, const RanreadSweepStep *after,
							double *low, double *high)
{
	double		linear;
	double		ratio;
	double		band = ratio_band(before, after);

	*low = *high = ranread_sweep_scaling_pct(before, after);
	if (before->processes <= 0 || before->iops <= 0 || reads_in_flight(after) <= reads_in_flight(before))
		return;
	linear = reads_in_flight(after) / reads_in_flight(before) - 1;
	ratio = after->iops / before->iops;
	*low = 100 * (ratio * (1 - band) - 1) / linear;
	*high = 100 * (ratio * (1 + band) - 1) / linear;
}

/*
 * after has more IOPS than before, by more than the two steps' noise; never
 * while a band is unknown (1.1's batches): a gain cannot be told from noise.
 */
bool
ranread_sweep_rises(const RanreadSweepStep *before, const RanreadSweepStep *after)
{
	return before->iops > 0 && before->iops_band_pct >= 0 && after->iops_band_pct >= 0 &&
		after->iops / before->iops - 1 > ratio_band(before, after);
}

/*
 * steps[step] gained less than min_scaling_pct of linear over the valid step
 * before it (false for the first valid step): it was flat already.
 */
static bool
flat_before(const RanreadSweepStep *steps, int step, const RanreadSweepRules *rules)
{
	int			before = ranread_sweep_valid_before(steps, step);

	return before >= 0 && ranread_sweep_scaling_pct(&steps[before], &steps[step]) < rules->min_scaling_pct;
}

/*
 * Whether the sweep stops after the last of its `count` steps, and why; and
 * in *doubt, which threshold the step's noise band straddles, if any.
 */
static RanreadSweepStop
decide(const RanreadSweepStep *steps, int count, const RanreadSweepRules *rules, RanreadSweepDoubt *doubt)
{
	const RanreadSweepStep *last = &steps[count - 1];
	bool		open_loop = last->rate_iops > 0;
	bool		at_max;

	*doubt = RANREAD_SWEEP_DOUBT_NONE;
	if (!last->completed)
		return RANREAD_SWEEP_STOP_STEP_ENDED;
	/* these two hold whoever answered: more load only makes them worse */
	/* first: a missed rate is why an open loop's latency grew */
	if (open_loop && last->iops < last->rate_iops * RANREAD_SWEEP_RATE_KEPT_PCT / 100)
		return RANREAD_SWEEP_STOP_RATE_MISSED;
	if (rules->stop_latency_ms > 0 && last->mean_ms > rules->stop_latency_ms)
	{
		if (last->mean_ms * (1 - band_of(last->mean_band_pct)) > rules->stop_latency_ms)
			return RANREAD_SWEEP_STOP_LATENCY;
		*doubt = RANREAD_SWEEP_DOUBT_LATENCY;
	}
	else if (!open_loop && rules->min_scaling_pct > 0 && ranread_sweep_step_valid(last))
	{
		int			before = ranread_sweep_valid_before(steps, count - 1);

		/*
		 * Within the SLO and still gaining beyond the noise: search on.
		 * Within the SLO but flat: one more step confirms it, unless the step
		 * before was flat too.
		 */
		if (before >= 0 &&
			ranread_sweep_scaling_pct(&steps[before], last) < rules->min_scaling_pct &&
			!(ranread_sweep_meets_slo(last, rules) &&
			  (ranread_sweep_rises(&steps[before], last) || !flat_before(steps, before, rules))))
		{
			double		low;
			double		high;

			ranread_sweep_scaling_range(&steps[before], last, &low, &high);
			if (high < rules->min_scaling_pct)
				return RANREAD_SWEEP_STOP_SCALING;
			*doubt = RANREAD_SWEEP_DOUBT_SCALING;
		}
	}
	at_max = open_loop ? (rules->max_rate_iops > 0 && last->rate_iops >= rules->max_rate_iops)
		: rules->max_iodepth > 0 ? last->iodepth >= rules->max_iodepth
		: rules->max_prefetch > 0 ? last->prefetch >= rules->max_prefetch
		: last->processes >= rules->max_processes;
	/* at its max the sweep ends whatever a repeat would decide */
	if (at_max)
		return RANREAD_SWEEP_STOP_MAX;
	if (*doubt != RANREAD_SWEEP_DOUBT_NONE)
		return last->runs > RANREAD_SWEEP_MAX_REPEATS ? RANREAD_SWEEP_STOP_UNDECIDED : RANREAD_SWEEP_REPEAT;
	/* going on from a step whose place within the SLO is a coin flip: measure it again */
	if (!open_loop && ranread_sweep_step_valid(last) && ranread_sweep_near_slo(last, rules) &&
		last->runs <= RANREAD_SWEEP_MAX_REPEATS)
	{
		*doubt = RANREAD_SWEEP_DOUBT_SLO;
		return RANREAD_SWEEP_REPEAT;
	}
	return RANREAD_SWEEP_GO_ON;
}

/* Whether the sweep stops after the last of its `count` steps, repeats it, or goes on. */
RanreadSweepStop
ranread_sweep_stop_after(const RanreadSweepStep *steps, int count, const RanreadSweepRules *rules)
{
	RanreadSweepDoubt doubt;

	return decide(steps, count, rules, &doubt);
}

/* Which threshold the last step's noise band straddles (none unless it is repeated or undecided). */
RanreadSweepDoubt
ranread_sweep_doubt(const RanreadSweepStep *steps, int count, const RanreadSweepRules *rules)
{
	RanreadSweepDoubt doubt;

	(void) decide(steps, count, rules, &doubt);
	return doubt;
}

/* The mean of values[0..n-1], n > 0. */
static double
mean_of(const double *values, int n)
{
	double		sum = 0;

	for (int i = 0; i < n; i++)
		sum += values[i];
	return sum / n;
}

/* The sample standard deviation of values[0..n-1] around their mean, n >= 2. */
static double
standard_deviation(const double *values, int n, double mean)
{
	double		squares = 0;

	for (int i = 0; i < n; i++)
		squares += (values[i] - mean) * (values[i] - mean);
	return sqrt(squares / (n - 1));
}

/*
 * One measure of the completed runs combined: their mean, and its band, the
 * larger of the runs' own bands combined (sum in quadrature over the number
 * of runs) and the spread between the runs (standard error, two or more).
 */
static void
combine_measure(const double *values, const double *bands, int n, double *value, double *band_pct)
{
	double		within = 0;
	bool		known = false;

	*value = mean_of(values, n);
	for (int i = 0; i < n; i++)
	{
		if (bands[i] >= 0)
		{
			known = true;
			within += (bands[i] * values[i]) * (bands[i] * values[i]);
		}
	}
	if (*value <= 0 || (!known && n < 2))
	{
		*band_pct = known ? 0 : -1;
		return;
	}
	*band_pct = sqrt(within) / n / *value;
	if (n >= 2)
		*band_pct = Max(*band_pct, 100 * RANREAD_SWEEP_BAND_ERRORS * standard_deviation(values, n, *value) /
						sqrt((double) n) / *value);
}

/*
 * The runs of one step (the batch and its repeats, in order) as one step:
 * the completed runs' measures averaged (percentiles too: the runs read as
 * many reads each), their bands combined; the status of the last run, so
 * that a repeat stopped or cancelled shows, with the earlier runs' figures.
 */
void
ranread_sweep_combine(const RanreadSweepStep *runs, int count, RanreadSweepStep *step)
{
	double		values[3][RANREAD_SWEEP_MAX_REPEATS + 1];
	double		bands[3][RANREAD_SWEEP_MAX_REPEATS + 1];
	double		p999 = 0;
	double		physical = 0;
	int			outside = 0;
	int			n = 0;

	*step = runs[0];
	step->runs = 0;
	for (int i = 0; i < count; i++)
	{
		if (!runs[i].completed)
			continue;
		if (n == 0)
			*step = runs[i];
		if (n < RANREAD_SWEEP_MAX_REPEATS + 1)
		{
			values[0][n] = runs[i].iops;
			values[1][n] = runs[i].mean_ms;
			values[2][n] = runs[i].p99_ms;
			bands[0][n] = runs[i].iops_band_pct;
			bands[1][n] = runs[i].mean_band_pct;
			bands[2][n] = runs[i].p99_band_pct;
			p999 += runs[i].p999_ms;
			physical += runs[i].physical_pct;
			outside += runs[i].part_outside_slo;
			step->max_ms = Max(step->max_ms, runs[i].max_ms);
			n++;
		}
	}
	step->runs = n;
	memcpy(step->status, runs[count - 1].status, sizeof(step->status));
	if (n < 2)
		return;
	/* as its figures are the runs' mean: outside when half its runs or more were */
	step->part_outside_slo = 2 * outside >= n;
	combine_measure(values[0], bands[0], n, &step->iops, &step->iops_band_pct);
	combine_measure(values[1], bands[1], n, &step->mean_ms, &step->mean_band_pct);
	combine_measure(values[2], bands[2], n, &step->p99_ms, &step->p99_band_pct);
	step->p999_ms = p999 / n;
	if (step->physical_pct >= 0)
		step->physical_pct = physical / n;
}

/*
 * The runs of a sweep, in order, as its steps (returned: how many):
 * consecutive runs of one step number (step_of[i]; < 0: a run of no step,
 * a step alone) combined by ranread_sweep_combine(), at most
 * RANREAD_SWEEP_MAX_REPEATS + 1 runs a step; first[k] is step k's first run.
 * steps and first hold n each.
 */
int
ranread_sweep_group_runs(const RanreadSweepStep *runs, const int *step_of, int n,
						 RanreadSweepStep *steps, int *first)
{
	int			count = 0;

	for (int i = 0; i < n;)
	{
		int			end = i + 1;

		while (end < n && step_of[i] >= 0 && step_of[end] == step_of[i] &&
			   end - i < RANREAD_SWEEP_MAX_REPEATS + 1)
			end++;
		ranread_sweep_combine(&runs[i], end - i, &steps[count]);
		first[count++] = i;
		i = end;
	}
	return count;
}

/*
 * Processes of the next step: doubled, or step_processes more, at most
 * max_processes.  A sweep stepping iodepth or prefetch steps it the same
 * way (doubled; prefetch 0 steps to 1).
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

	verdict->max_step = verdict->slo_step = verdict->knee_step = verdict->bucket_step = -1;
	verdict->memory_steps = verdict->partial_steps = verdict->burst_steps = 0;
	for (int i = 0; i < count; i++)
	{
		const RanreadSweepStep *step = &steps[i];

		if (step->bucket && verdict->bucket_step < 0)
			verdict->bucket_step = i;
		if (step->burst_era)
		{
			verdict->burst_steps++;
			continue;
		}
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

/*
 * A burst bucket ran empty within a run of a step (bucket_rules.c found it
 * in the run's series): the run's IOPS become the baseline after the shift,
 * the rate the volume sustains, with its band; the average over both levels
 * and the burst are kept beside them.
 */
void
ranread_sweep_step_bucket(RanreadSweepStep *step, const RanreadBucket *bucket)
{
	if (bucket->verdict != RANREAD_BUCKET_FOUND || !(bucket->baseline_iops > 0))
		return;
	step->bucket = true;
	step->average_iops = step->iops;
	step->iops = bucket->baseline_iops;
	step->iops_band_pct = 100 * bucket->baseline_band / bucket->baseline_iops;
	step->burst_iops = bucket->burst_iops;
	step->burst_band_pct = bucket->burst_iops > 0 ? 100 * bucket->burst_band / bucket->burst_iops : -1;
	step->bucket_reads = bucket->bucket_reads;
	step->bucket_band = bucket->bucket_band;
	step->shift_s = bucket->shift_s;
}

/*
 * Mark the steps read on a burst bucket: those before the first step in
 * which one ran empty (returned; -1: none), whose IOPS were the burst's.
 * The stop rules, the SLO and the knee then go by the sustained level from
 * that step on (ranread_sweep_valid_before(), ranread_sweep_judge()), so
 * that the bucket running empty is not read as the volume's knee.
 */
int
ranread_sweep_mark_burst(RanreadSweepStep *steps, int count)
{
	int			first = -1;

	for (int i = 0; i < count && first < 0; i++)
		if (steps[i].bucket)
			first = i;
	for (int i = 0; i < count; i++)
		steps[i].burst_era = i < first;
	return first;
}

/*
 * The 95th percentile of sqrt(chi^2(df) / df): how much wider than its true
 * value a standard deviation estimated from df + 1 values is, 1 time in 20.
 * df from 1 to 9 (2 to 10 sweeps, repeat's range); more sweeps use 9's.
 */
static double
chi_ratio_95(int df)
{
	static const double quantiles[] = {3.841, 5.991, 7.815, 9.488, 11.070, 12.592, 14.067, 15.507, 16.919};
	int			k = Min(Max(df, 1), (int) lengthof(quantiles));

	return sqrt(quantiles[k - 1] / k);
}

/*
 * One figure of n sweeps (values, n > 0) and its step's own IOPS band in
 * each (bands, -1 unknown), both sorted here: their median and range; the
 * band of one sweep's figure from their spread (RANREAD_SWEEP_BAND_ERRORS
 * standard deviations, in percent of the median), which is the same kind
 * of band as a step's own, so that the two compare; and what the steps'
 * own noise leaves unexplained, the bands being independent errors that
 * add in quadrature: between^2 = within^2 + drift^2.  The drift is what
 * changed between the sweeps (the device's state, other load on the machine
 * or the volume).  A few sweeps estimate their spread loosely, so the
 * between-sweep band counts as wider than the steps' own noise only when a
 * chi-square test says so (its ratio to the within-step band above the 95th
 * percentile of sqrt(chi^2(n - 1) / (n - 1)): 1.73 for 3 sweeps, 1.54 for 5);
 * else the drift is 0: the sweeps differed by no more than the noise makes
 * them.
 */
void
ranread_sweep_spread(double *values, double *bands, int n, RanreadSweepSpread *spread)
{
	int			known = 0;

	spread->median = ranread_median(values, n);
	spread->low = values[0];
	spread->high = values[n - 1];
	spread->between_band_pct = n >= 2 && spread->median > 0 ?
		100 * RANREAD_SWEEP_BAND_ERRORS * standard_deviation(values, n, mean_of(values, n)) / spread->median : -1;
	for (int i = 0; i < n; i++)
		if (bands[i] >= 0)
			bands[known++] = bands[i];
	spread->within_band_pct = known > 0 ? ranread_median(bands, known) : -1;
	if (spread->between_band_pct < 0 || spread->within_band_pct < 0)
		spread->drift_band_pct = -1;
	else if (spread->between_band_pct <= spread->within_band_pct * chi_ratio_95(n - 1))
		spread->drift_band_pct = 0;
	else
		spread->drift_band_pct = sqrt(spread->between_band_pct * spread->between_band_pct -
									  spread->within_band_pct * spread->within_band_pct);
}
