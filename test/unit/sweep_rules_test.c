/*
 * sweep_rules_test.c: the rules of a sweep (src/rules/sweep_rules.c) on
 * constructed histories: which rule stops a flash device that saturates, a
 * disk whose latency passes the stop, a sweep at its max; which step is the
 * highest within the SLO (mean, p99, p99.9 and max bounds), the highest of
 * all and the knee; that a step memory answered or that did not complete is
 * never counted; the open loop's rules; and the next step's processes and
 * rate; and, on noisy histories, the repeat of a marginal step, the stop
 * of a clear one, the search on while within the SLO and rising, and a
 * step's runs combined; and a burst bucket that runs empty at a step,
 * which the rules go by the baseline after.  Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/sweep_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

#define MAX_STEPS	8

static RanreadSweepStep steps[MAX_STEPS];

/* A completed closed-loop step the device answered, p99 three times the mean. */
static RanreadSweepStep
step(int processes, double iops, double mean_ms)
{
	RanreadSweepStep s = {0};

	s.processes = processes;
	s.iops = iops;
	s.mean_ms = mean_ms;
	s.p99_ms = mean_ms * 3;
	s.p999_ms = mean_ms * 5;
	s.max_ms = mean_ms * 8;
	s.physical_pct = 100;
	s.completed = true;
	strcpy(s.status, "completed");
	s.iops_band_pct = s.mean_band_pct = s.p99_band_pct = -1;
	s.runs = 1;
	return s;
}

/* The same step with its noise: every band band_pct. */
static RanreadSweepStep
noisy(int processes, double iops, double mean_ms, double band_pct)
{
	RanreadSweepStep s = step(processes, iops, mean_ms);

	s.iops_band_pct = s.mean_band_pct = s.p99_band_pct = band_pct;
	return s;
}

/* RanRead's defaults: stop at a mean of 10 ms or under 25 % of linear; SLO mean <= 2 ms, p99 <= 5 ms. */
static RanreadSweepRules
default_rules(int max_processes)
{
	RanreadSweepRules r = {0};

	r.max_processes = max_processes;
	r.stop_latency_ms = 10;
	r.min_scaling_pct = 25;
	r.slo_mean_ms = 2;
	r.slo_p99_ms = 5;
	return r;
}

int
main(void)
{
	RanreadSweepRules rules = default_rules(1024);
	RanreadSweepVerdict verdict;
	char		what[300];

	printf("1..80\n");

	/* a flash device that scales to 40 processes, then saturates */
	steps[0] = step(10, 10000, 1.0);
	steps[1] = step(20, 20000, 1.0);
	steps[2] = step(40, 39000, 1.02);
	steps[3] = step(80, 41000, 1.95);
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_GO_ON,
	   "flash: 10, 20, 40 processes scaling at 95 % of linear go on");
	ok(ranread_sweep_stop_after(steps, 4, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "flash: 40 to 80 processes gaining 5 % of linear stops by the scaling rule");
	snprintf(what, sizeof(what), "the share of linear from 40 to 80 processes is 5.1 %% (%.1f)",
			 ranread_sweep_scaling_pct(&steps[2], &steps[3]));
	ok(fabs(ranread_sweep_scaling_pct(&steps[2], &steps[3]) - 5.128) < 0.01, what);
	ranread_sweep_judge(steps, 4, &rules, &verdict);
	ok(verdict.max_step == 3 && verdict.slo_step == 2,
	   "flash: highest IOPS at 80 processes, highest within the SLO at 40 (p99 5.85 ms > 5 ms at 80)");
	ok(verdict.knee_step == 2, "flash: the knee (IOPS per ms of mean latency) is at 40 processes");

	/* a tighter SLO: p99.9 <= 4 ms leaves only the steps with mean <= 0.8 ms */
	rules.slo_p999_ms = 4;
	ranread_sweep_judge(steps, 4, &rules, &verdict);
	ok(verdict.slo_step == -1, "with p99.9 <= 4 ms no step (p99.9 5 ms and more) meets the SLO");
	rules.slo_p999_ms = 0;
	rules.slo_max_ms = 8.1;
	ranread_sweep_judge(steps, 4, &rules, &verdict);
	ok(verdict.slo_step == 1, "with max <= 8.1 ms the highest within the SLO is 20 processes (max 8 ms; 8.16 ms at 40)");
	rules.slo_max_ms = 0;

	rules.min_scaling_pct = 0;
	ok(ranread_sweep_stop_after(steps, 4, &rules) == RANREAD_SWEEP_GO_ON,
	   "min_scaling_pct 0 turns the scaling rule off");
	rules.min_scaling_pct = 25;

	/* a disk: latency passes 10 ms before IOPS stops growing much */
	steps[0] = step(10, 2000, 5.0);
	steps[1] = step(20, 3200, 6.25);
	steps[2] = step(40, 4100, 10.5);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "disk: 10 to 20 processes at 60 % of linear and 6.25 ms go on");
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_STOP_LATENCY,
	   "disk: a mean of 10.5 ms at 40 processes stops by the latency rule (it is checked first)");
	ranread_sweep_judge(steps, 3, &rules, &verdict);
	ok(verdict.max_step == 2 && verdict.slo_step == -1,
	   "disk: highest IOPS at 40 processes; no step within a mean of 2 ms");

	/* the max processes, reached while still scaling */
	rules = default_rules(20);
	steps[0] = step(10, 10000, 0.5);
	steps[1] = step(20, 20000, 0.5);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_MAX,
	   "a sweep still scaling stops at max_processes");

	/* a sweep stepping iodepth at one process: scaling counts reads in flight */
	rules = default_rules(1);
	rules.max_iodepth = 32;
	steps[0] = step(1, 20000, 0.2);
	steps[0].iodepth = 4;
	steps[1] = step(1, 38000, 0.21);
	steps[1].iodepth = 8;
	steps[2] = step(1, 40000, 0.4);
	steps[2].iodepth = 16;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "iodepth 4 to 8 at one process gaining 90 % of linear goes on (max_processes 1 does not stop it)");
	snprintf(what, sizeof(what), "the share of linear from iodepth 8 to 16 is 5.3 %% (%.1f)",
			 ranread_sweep_scaling_pct(&steps[1], &steps[2]));
	ok(fabs(ranread_sweep_scaling_pct(&steps[1], &steps[2]) - 5.263) < 0.01, what);
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_GO_ON,
	   "iodepth 8 to 16 gaining 5 % of linear within the SLO goes on: one more step confirms the plateau");
	rules.max_iodepth = 64;
	steps[3] = step(1, 40500, 0.8);
	steps[3].iodepth = 32;
	ok(ranread_sweep_stop_after(steps, 4, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "iodepth 16 to 32 flat again: two flat steps in a row stop by the scaling rule");
	rules.max_iodepth = 32;
	steps[2] = step(1, 76000, 0.21);
	steps[2].iodepth = 32;
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_STOP_MAX,
	   "a sweep stepping iodepth still scaling stops at max_iodepth");

	/* a step memory answered: flagged, not counted, and skipped by the scaling rule */
	rules = default_rules(1024);
	steps[0] = step(10, 10000, 1.0);
	steps[1] = step(20, 200000, 0.05);
	steps[1].physical_pct = 40;
	steps[2] = step(40, 30000, 1.3);
	ok(!ranread_sweep_step_valid(&steps[1]), "a step the device answered 40 % of is not valid");
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "a memory-answered step is not compared for scaling");
	steps[1].mean_ms = 12;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_LATENCY,
	   "but its latency over stop_latency_ms stops the sweep all the same");
	steps[1].mean_ms = 0.05;
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_GO_ON,
	   "the next step is compared with the last valid step (10 to 40 processes: 67 % of linear), not with memory's 200,000 IOPS");
	ranread_sweep_judge(steps, 3, &rules, &verdict);
	ok(verdict.max_step == 2 && verdict.memory_steps == 1,
	   "the highest IOPS is 30,000 at 40 processes, not memory's 200,000; one step is flagged");
	steps[1].physical_pct = 99.5;
	ok(ranread_sweep_step_valid(&steps[1]), "a step the device answered 99.5 % of is valid");

	/* a step stopped by ranread_stop(), or failed */
	steps[2].completed = false;
	strcpy(steps[2].status, "stopped");
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_STOP_STEP_ENDED,
	   "a step that did not complete ends the sweep");
	ranread_sweep_judge(steps, 3, &rules, &verdict);
	ok(verdict.partial_steps == 1 && verdict.max_step == 1,
	   "it is not counted: the highest IOPS is that of a completed step");

	/* open loop: the rate kept, missed, and the max rate */
	rules = default_rules(4);
	rules.max_rate_iops = 40000;
	steps[0] = step(4, 9990, 0.2);
	steps[0].rate_iops = 10000;
	steps[1] = step(4, 18500, 0.4);
	steps[1].rate_iops = 20000;
	ok(ranread_sweep_stop_after(steps, 1, &rules) == RANREAD_SWEEP_GO_ON,
	   "open loop: 9,990 of 10,000 reads/s goes on (and max_processes does not apply)");
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_RATE_MISSED,
	   "open loop: 18,500 of 20,000 reads/s (92.5 %) stops: the rate was missed");
	steps[1].mean_ms = 800;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_RATE_MISSED,
	   "open loop: the missed rate, not the 800 ms it caused, is named as the reason");
	steps[1].mean_ms = 0.4;
	steps[1].iops = 39500;
	steps[1].rate_iops = 40000;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_MAX,
	   "open loop: a kept rate at max_rate_iops stops at the max");

	/* the next step */
	ok(ranread_sweep_next_processes(10, 0, 1024) == 20 && ranread_sweep_next_processes(20, 0, 31) == 31,
	   "processes double (10 to 20), at most max_processes (20 to 31, not 40)");
	ok(ranread_sweep_next_processes(10, 5, 1024) == 15 && ranread_sweep_next_processes(1020, 5, 1024) == 1024,
	   "a fixed step adds step_processes (10 to 15), at most max_processes");
	ok(ranread_sweep_next_rate(5000, 0, 0) == 10000 && ranread_sweep_next_rate(30000, 0, 40000) == 40000 &&
	   ranread_sweep_next_rate(5000, 2500, 0) == 7500,
	   "rates double or step, at most max_rate_iops");

	/* noisy histories: a marginal decision is repeated, a clear one is not */
	rules = default_rules(1024);
	steps[0] = noisy(10, 30000, 1.0, 12);
	steps[1] = noisy(20, 33000, 2.5, 12);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_REPEAT &&
	   ranread_sweep_doubt(steps, 2, &rules) == RANREAD_SWEEP_DOUBT_SCALING,
	   "noisy: 10 to 20 processes outside the SLO gaining 10 % of linear, +/- 12 % each, reaches 25 %: the step is repeated");
	steps[1].runs = RANREAD_SWEEP_MAX_REPEATS;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_REPEAT,
	   "noisy: still repeated after one repeat (runs 2)");
	steps[1].runs = RANREAD_SWEEP_MAX_REPEATS + 1;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_UNDECIDED,
	   "noisy: after the most repeats the sweep stops undecided instead of guessing");
	steps[0] = noisy(10, 30000, 1.0, 2);
	steps[1] = noisy(20, 33000, 2.5, 2);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "noisy: the same 10 % outside the SLO with +/- 2 % is clearly below 25 %: it stops, no repeat");
	steps[1] = noisy(20, 33000, 1.5, 2);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "noisy: within the SLO and 10 % more IOPS, beyond the 2.8 % noise: the sweep searches on");
	steps[1] = noisy(20, 33000, 2.5, -1);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "noisy: with the noise unknown, outside the SLO, the scaling rule stops as in 1.1");

	/* within the SLO but flat: the next step confirms (a dip of the volume for one step) */
	steps[0] = noisy(10, 24000, 0.4, 3);
	steps[1] = noisy(20, 25200, 0.8, 3);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "confirm: 10 to 20 processes gaining 5 % of linear, clearly, but within the SLO: one more step");
	steps[2] = noisy(40, 39600, 1.0, 3);
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_GO_ON,
	   "confirm: 40 processes gain 57 % over 20: the dip was not the plateau, the sweep goes on");
	ranread_sweep_judge(steps, 3, &rules, &verdict);
	ok(verdict.slo_step == 2, "confirm: the highest within the SLO is 40 processes (39,600), not 20");
	steps[2] = noisy(40, 25500, 1.6, 3);
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "confirm: flat again at 40 processes (two flat steps in a row): the scaling rule stops");
	steps[2] = noisy(40, 25500, 3.0, 3);
	ok(ranread_sweep_stop_after(steps, 3, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "confirm: a flat step outside the SLO stops at once");

	/* the latency rule and its noise */
	steps[0] = noisy(10, 2000, 5.0, 3);
	steps[1] = noisy(20, 3000, 10.4, 6);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_REPEAT &&
	   ranread_sweep_doubt(steps, 2, &rules) == RANREAD_SWEEP_DOUBT_LATENCY,
	   "noisy: a mean of 10.4 ms +/- 6 % reaches below stop_latency_ms 10: repeated");
	steps[1] = noisy(20, 3000, 11, 3);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_LATENCY,
	   "noisy: a mean of 11 ms +/- 3 % is clearly over 10 ms: it stops");
	rules.max_processes = 20;
	steps[1] = noisy(20, 3000, 10.4, 6);
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_MAX,
	   "noisy: a marginal step at max_processes is not repeated: the sweep ends there anyway");

	/* within the SLO and rising: a marginal scaling step does not hide a higher in-SLO point */
	rules = default_rules(1024);
	steps[0] = noisy(10, 10000, 1.0, 2);
	steps[1] = noisy(20, 20000, 1.0, 2);
	steps[2] = noisy(40, 39000, 1.02, 2);
	steps[3] = noisy(80, 44000, 1.5, 2);
	steps[3].p99_ms = 4.5;
	steps[4] = noisy(160, 45000, 3.5, 2);
	ok(ranread_sweep_stop_after(steps, 4, &rules) == RANREAD_SWEEP_GO_ON,
	   "search: 40 to 80 processes gaining 13 % of linear but within the SLO and beyond the noise goes on");
	ok(ranread_sweep_stop_after(steps, 5, &rules) == RANREAD_SWEEP_STOP_SCALING,
	   "search: 80 to 160 processes, outside the SLO and 2 % of linear, stops by the scaling rule");
	ranread_sweep_judge(steps, 5, &rules, &verdict);
	ok(verdict.slo_step == 3 && verdict.knee_step == 2,
	   "search: the highest within the SLO is 80 processes (44,000), the knee stays at 40");

	/* within the SLO, or not, by less than the noise: measured again before going on */
	rules = default_rules(1024);
	steps[0] = noisy(10, 24000, 0.5, 5);
	steps[1] = noisy(20, 40000, 0.6, 5);
	steps[1].p99_ms = 4.7;
	steps[1].p99_band_pct = 10;
	ok(ranread_sweep_near_slo(&steps[1], &rules), "slo: a p99 of 4.7 ms +/- 10 % straddles the SLO's 5 ms");
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_REPEAT &&
	   ranread_sweep_doubt(steps, 2, &rules) == RANREAD_SWEEP_DOUBT_SLO,
	   "slo: a step going on whose p99 straddles the SLO runs again");
	steps[1].runs = RANREAD_SWEEP_MAX_REPEATS + 1;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "slo: after the most repeats the runs combined decide and the sweep goes on");
	steps[1].runs = 1;
	steps[1].p99_band_pct = 5;
	ok(!ranread_sweep_near_slo(&steps[1], &rules) &&
	   ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "slo: 4.7 ms +/- 5 % is clearly within 5 ms: no repeat");
	steps[1].p99_ms = 5.3;
	steps[1].p99_band_pct = 10;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_REPEAT,
	   "slo: 5.3 ms +/- 10 % straddles it from above: runs again too");
	steps[1].p99_band_pct = -1;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "slo: with the noise unknown the point estimate decides, as in 1.1");
	steps[1].p99_ms = 2.5;
	steps[1].p99_band_pct = 125;
	ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
	   "slo: a band of 125 % (a short step) reaches 5 ms but two more runs could not settle it: the point estimate decides");

	/* a step's runs combined */
	{
		RanreadSweepStep runs[3];
		RanreadSweepStep combined;

		runs[0] = noisy(20, 30000, 1.0, 4);
		runs[1] = noisy(20, 34000, 1.2, 4);
		ranread_sweep_combine(runs, 2, &combined);
		snprintf(what, sizeof(what), "combine: two runs average to 32,000 IOPS (%.0f), +/-12.5 %% from their spread (%.2f), runs 2 (%d)",
				 combined.iops, combined.iops_band_pct, combined.runs);
		ok(combined.iops == 32000 && fabs(combined.iops_band_pct - 12.5) < 0.01 && combined.runs == 2 &&
		   fabs(combined.mean_ms - 1.1) < 1e-9, what);
		runs[1] = noisy(20, 30100, 1.0, 4);
		ranread_sweep_combine(runs, 2, &combined);
		snprintf(what, sizeof(what), "combine: two close runs keep their own noise over the root of 2 (2.83 %%: %.2f)",
				 combined.iops_band_pct);
		ok(fabs(combined.iops_band_pct - 4 * sqrt(30000.0 * 30000 + 30100.0 * 30100) / 2 / 30050) < 0.01, what);
		runs[1].completed = false;
		strcpy(runs[1].status, "cancelled");
		ranread_sweep_combine(runs, 2, &combined);
		ok(combined.completed && combined.runs == 1 && combined.iops == 30000 &&
		   strcmp(combined.status, "cancelled") == 0,
		   "combine: a cancelled repeat keeps the completed run's figures, and says it was cancelled");
		runs[0] = noisy(20, 30000, 1.0, 4);
		ranread_sweep_combine(runs, 1, &combined);
		ok(combined.iops == 30000 && combined.iops_band_pct == 4 && combined.runs == 1,
		   "combine: one run is itself");
	}

	/* one figure of several sweeps against its steps' own noise */
	{
		double		values[3] = {1100, 900, 1000};
		double		bands[3] = {5, -1, 4};
		RanreadSweepSpread spread;

		ranread_sweep_spread(values, bands, 3, &spread);
		snprintf(what, sizeof(what), "spread: 1,100/900/1,000 IOPS: median %.0f, from %.0f to %.0f, between sweeps +-20 %% (%.2f), within a step +-4.5 %% (%.2f), drift +-19.49 %% (%.2f)",
				 spread.median, spread.low, spread.high, spread.between_band_pct, spread.within_band_pct, spread.drift_band_pct);
		ok(spread.median == 1000 && spread.low == 900 && spread.high == 1100 &&
		   fabs(spread.between_band_pct - 20) < 1e-9 && spread.within_band_pct == 4.5 &&
		   fabs(spread.drift_band_pct - sqrt(400 - 4.5 * 4.5)) < 1e-9, what);
		values[0] = 1000;
		values[1] = 1010;
		bands[0] = bands[1] = 3;
		ranread_sweep_spread(values, bands, 2, &spread);
		snprintf(what, sizeof(what), "spread: two sweeps closer than their steps' noise (+-%.2f %% within +-%.2f %%) leave no drift (%.2f)",
				 spread.between_band_pct, spread.within_band_pct, spread.drift_band_pct);
		ok(fabs(spread.between_band_pct - 200 * sqrt(50.0) / 1005) < 1e-9 && spread.within_band_pct == 3 &&
		   spread.drift_band_pct == 0, what);
		/* 3 sweeps whose band is 1.6 times a step's: within what 3 sweeps' noise gives (1.73 times) */
		values[0] = 1000;
		values[1] = 1040;
		values[2] = 1020;
		bands[0] = bands[1] = bands[2] = 2.5;
		ranread_sweep_spread(values, bands, 3, &spread);
		snprintf(what, sizeof(what), "spread: 3 sweeps +-%.2f %% against a step's +-%.2f %% (1.6 times, below 1.73) show no drift (%.2f)",
				 spread.between_band_pct, spread.within_band_pct, spread.drift_band_pct);
		ok(fabs(spread.between_band_pct - 4 / 1.02) < 1e-9 && spread.drift_band_pct == 0, what);
		bands[0] = bands[1] = bands[2] = 2.0;
		values[0] = 1000;
		values[1] = 1040;
		values[2] = 1020;
		ranread_sweep_spread(values, bands, 3, &spread);
		snprintf(what, sizeof(what), "spread: the same against a step's +-2 %% (1.96 times, above 1.73) drifted +-%.2f %%",
				 spread.drift_band_pct);
		ok(fabs(spread.drift_band_pct - sqrt(pow(4 / 1.02, 2) - 4)) < 1e-9, what);
		values[0] = 1000;
		bands[0] = 3;
		ranread_sweep_spread(values, bands, 1, &spread);
		ok(spread.median == 1000 && spread.between_band_pct == -1 && spread.within_band_pct == 3 &&
		   spread.drift_band_pct == -1, "spread: one sweep has no band between sweeps, nor a drift");
		values[0] = 1000;
		values[1] = 1200;
		bands[0] = bands[1] = -1;
		ranread_sweep_spread(values, bands, 2, &spread);
		ok(spread.median == 1100 && spread.between_band_pct > 0 && spread.within_band_pct == -1 &&
		   spread.drift_band_pct == -1, "spread: steps of unknown noise (before 1.2) leave the drift unknown");
	}

	/* a fleet's step with a server outside the SLO is outside it, whatever its own figures */
	steps[0] = step(4, 20000, 0.5);
	ok(ranread_sweep_meets_slo(&steps[0], &rules), "a fleet step within the SLO, every server too, meets it");
	steps[0].part_outside_slo = true;
	ok(!ranread_sweep_meets_slo(&steps[0], &rules), "with one server outside the SLO it does not");

	/* runs grouped into steps: a repeated step combined, runs of no step alone, at most 3 runs a step */
	{
		RanreadSweepStep runs[7];
		RanreadSweepStep grouped[7];
		int			step_of[7] = {1, 2, 2, 2, 2, -1, -1};
		int			first[7];
		int			count;

		runs[0] = noisy(1, 1000, 0.5, 2);
		for (int i = 1; i < 7; i++)
			runs[i] = noisy(2, 1000 + 100 * i, 0.5, 2);
		runs[2].part_outside_slo = runs[3].part_outside_slo = true;
		count = ranread_sweep_group_runs(runs, step_of, 7, grouped, first);
		ok(count == 5 && first[0] == 0 && first[1] == 1 && first[2] == 4 && first[3] == 5 && first[4] == 6,
		   "group runs: step 2's first 3 runs combined, its 4th a step of its own, each run of no step alone");
		ok(grouped[1].runs == 3 && fabs(grouped[1].iops - 1200) < 1e-9,
		   "group runs: a repeated step's runs are combined (their mean IOPS)");
		ok(grouped[1].part_outside_slo, "group runs: 2 of its 3 runs with a server outside the SLO: the step is outside");
		runs[3].part_outside_slo = false;
		count = ranread_sweep_group_runs(runs, step_of, 7, grouped, first);
		ok(!grouped[1].part_outside_slo, "1 of 3: within");
	}

	/*
	 * A burst bucket: 1,000 IOPS at 10 processes on a full bucket, then at
	 * 20 the bucket runs empty (an average of 700, a baseline of 600, the
	 * mean over the SLO), then 610 at 40.  Read as averages, 20 processes
	 * fell: the scaling rule stops there, a knee that is the bucket.
	 */
	{
		RanreadBucket bucket = {0};

		steps[0] = step(10, 1000, 0.5);
		steps[1] = step(20, 700, 2.5);
		ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_STOP_SCALING,
		   "bucket: the averages alone stop at the shift (a knee that is the bucket)");
		bucket.verdict = RANREAD_BUCKET_FOUND;
		bucket.burst_iops = 1000;
		bucket.burst_band = 10;
		bucket.baseline_iops = 600;
		bucket.baseline_band = 6;
		bucket.bucket_reads = 5000;
		bucket.shift_s = 12.5;
		ranread_sweep_step_bucket(&steps[1], &bucket);
		ok(steps[1].bucket && steps[1].iops == 600 && fabs(steps[1].iops_band_pct - 1) < 1e-9 &&
		   steps[1].average_iops == 700 && steps[1].burst_iops == 1000 && fabs(steps[1].burst_band_pct - 1) < 1e-9,
		   "bucket: the step counts at its baseline (600 ± 1 %), its average and burst kept");
		ok(ranread_sweep_mark_burst(steps, 2) == 1 && steps[0].burst_era && !steps[1].burst_era,
		   "bucket: the step before the shift was read on the bucket");
		ok(ranread_sweep_valid_before(steps, 1) == -1,
		   "bucket: the step of the shift is not compared with the burst before it");
		ok(ranread_sweep_stop_after(steps, 2, &rules) == RANREAD_SWEEP_GO_ON,
		   "bucket: so the sweep goes on from the shift");
		steps[2] = step(40, 610, 1.9);
		ranread_sweep_mark_burst(steps, 3);
		ok(ranread_sweep_valid_before(steps, 2) == 1 &&
		   fabs(ranread_sweep_scaling_pct(&steps[1], &steps[2]) - 100.0 * 10 / 600) < 1e-9,
		   "bucket: the next step is compared with the baseline (1.7 % of linear), not the burst");
		ranread_sweep_judge(steps, 3, &rules, &verdict);
		ok(verdict.bucket_step == 1 && verdict.burst_steps == 1 && verdict.max_step == 2 &&
		   verdict.slo_step == -1 && verdict.knee_step == 2 && verdict.memory_steps == 0,
		   "bucket: the verdict counts the sustained steps only; the burst step apart, not as memory's");
	}

	/* a latency that is not a number meets no SLO */
	steps[0] = step(10, 1000, NAN);
	ok(!ranread_sweep_meets_slo(&steps[0], &rules), "a NaN mean does not meet the SLO");

	return failures > 0;
}
