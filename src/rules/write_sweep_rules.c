/*-------------------------------------------------------------------------
 *
 * write_sweep_rules.c
 *		The write sweep's rule book: after each step, stop, repeat it or go
 *		on to the next write rate.
 *
 * A write sweep steps write_rate_iops open loop, and a step is within the
 * SLO when the writers kept their rate (RANREAD_SWEEP_RATE_KEPT_PCT of it,
 * the read sweep's rule for an open loop), their mean and p99 commit
 * latency met their bounds, and the readers, if any, kept their p99 within
 * slo_p99_ms.  The sweep stops at the first step outside the SLO, naming
 * the first rule broken in that order: a missed rate comes first, since it
 * is why latencies grow.  A readers' p99 whose noise band straddles its
 * bound is a coin flip, so the step is measured again, at most
 * RANREAD_SWEEP_MAX_REPEATS times, as the read sweep does
 * (RANREAD_SWEEP_SLO_DOUBT_MAX_BAND bounds the band that counts).  The
 * writers' latencies carry no band (ranread_write_results records none):
 * their point estimates decide.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "rules/sweep_rules.h"
#include "rules/write_sweep_rules.h"

/* The first SLO rule the step breaks, or GO_ON. */
static RanreadWriteSweepStop
broken_rule(const RanreadWriteSweepStep *step, const RanreadWriteSweepRules *rules)
{
	if (!step->completed)
		return RANREAD_WRITE_SWEEP_STOP_STEP_ENDED;
	if (!(step->write_iops >= step->write_rate_iops * RANREAD_SWEEP_RATE_KEPT_PCT / 100))
		return RANREAD_WRITE_SWEEP_STOP_RATE_MISSED;
	if (rules->slo_write_mean_ms > 0 && !(step->write_mean_ms <= rules->slo_write_mean_ms))
		return RANREAD_WRITE_SWEEP_STOP_WRITE_MEAN;
	if (rules->slo_write_p99_ms > 0 && !(step->write_p99_ms <= rules->slo_write_p99_ms))
		return RANREAD_WRITE_SWEEP_STOP_WRITE_P99;
	if (step->readers && rules->slo_p99_ms > 0 && !(step->read_p99_ms <= rules->slo_p99_ms))
		return RANREAD_WRITE_SWEEP_STOP_READ_P99;
	return RANREAD_WRITE_SWEEP_GO_ON;
}

/* The readers' p99 band straddles slo_p99_ms, and is narrow enough to settle by repeating. */
static bool
reads_near_slo(const RanreadWriteSweepStep *step, const RanreadWriteSweepRules *rules)
{
	double		band = step->read_p99_band_pct / 100;

	return step->readers && rules->slo_p99_ms > 0 && step->read_p99_band_pct > 0 &&
		step->read_p99_band_pct <= RANREAD_SWEEP_SLO_DOUBT_MAX_BAND &&
		step->read_p99_ms * (1 - band) <= rules->slo_p99_ms &&
		rules->slo_p99_ms <= step->read_p99_ms * (1 + band);
}

/* The step is within the SLO: every rule of broken_rule() holds. */
bool
ranread_write_sweep_within_slo(const RanreadWriteSweepStep *step, const RanreadWriteSweepRules *rules)
{
	return broken_rule(step, rules) == RANREAD_WRITE_SWEEP_GO_ON;
}

/* Whether the write sweep stops after `step`, measures it again, or goes on. */
RanreadWriteSweepStop
ranread_write_sweep_decide_step(const RanreadWriteSweepStep *step, const RanreadWriteSweepRules *rules)
{
	RanreadWriteSweepStop broken = broken_rule(step, rules);
	bool		at_max = rules->max_write_rate_iops > 0 &&
		step->write_rate_iops >= rules->max_write_rate_iops;

	/* at its max the sweep ends whatever a repeat would decide, as the read sweep does */
	if ((broken == RANREAD_WRITE_SWEEP_GO_ON || broken == RANREAD_WRITE_SWEEP_STOP_READ_P99) &&
		!at_max && reads_near_slo(step, rules))
		return step->runs > RANREAD_SWEEP_MAX_REPEATS ? RANREAD_WRITE_SWEEP_STOP_UNDECIDED :
			RANREAD_WRITE_SWEEP_REPEAT;
	if (broken != RANREAD_WRITE_SWEEP_GO_ON)
		return broken;
	return at_max ? RANREAD_WRITE_SWEEP_STOP_MAX : RANREAD_WRITE_SWEEP_GO_ON;
}

/* The rule's name, as the sweep's NOTICEs, verdict and rows say it. */
const char *
ranread_write_sweep_stop_name(RanreadWriteSweepStop stop)
{
	switch (stop)
	{
		case RANREAD_WRITE_SWEEP_GO_ON:
			return "go on";
		case RANREAD_WRITE_SWEEP_STOP_STEP_ENDED:
			return "step ended";
		case RANREAD_WRITE_SWEEP_STOP_RATE_MISSED:
			return "write rate missed";
		case RANREAD_WRITE_SWEEP_STOP_WRITE_MEAN:
			return "write mean over SLO";
		case RANREAD_WRITE_SWEEP_STOP_WRITE_P99:
			return "write p99 over SLO";
		case RANREAD_WRITE_SWEEP_STOP_READ_P99:
			return "read p99 over SLO";
		case RANREAD_WRITE_SWEEP_STOP_MAX:
			return "max_write_rate_iops";
		case RANREAD_WRITE_SWEEP_REPEAT:
			return "repeat";
		case RANREAD_WRITE_SWEEP_STOP_UNDECIDED:
			return "undecided";
	}
	return "unknown";
}
