/*
 * write_sweep_rules_test.c: the write sweep's rule book
 * (src/rules/write_sweep_rules.c) on constructed steps: a missed rate, the
 * writers' mean and p99 and the readers' p99 against their SLO bounds, the
 * order in which they are named, the last rate, and a readers' p99 within
 * its noise band of the bound measured again until the repeats run out.
 * Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <stdio.h>

#include "rules/sweep_rules.h"
#include "rules/write_sweep_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

/* A step at `rate` that kept it, writes of mean 1 ms and p99 4 ms, without readers. */
static RanreadWriteSweepStep
step_at(double rate)
{
	RanreadWriteSweepStep step = {0};

	step.write_rate_iops = rate;
	step.write_iops = rate;
	step.write_mean_ms = 1;
	step.write_p99_ms = 4;
	step.completed = true;
	step.read_p99_band_pct = -1;
	step.runs = 1;
	return step;
}

int
main(void)
{
	RanreadWriteSweepRules rules = {.max_write_rate_iops = 800, .slo_write_p99_ms = 10};
	RanreadWriteSweepStep step;

	printf("1..16\n");

	step = step_at(100);
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_GO_ON, "within the SLO below the max: go on");
	ok(ranread_write_sweep_within_slo(&step, &rules), "and it is within the SLO");
	step = step_at(800);
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_MAX, "within the SLO at the max: stop there");

	step = step_at(400);
	step.write_iops = 379;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_RATE_MISSED, "379 of 400 writes/s (94.75 %): rate missed");
	step.write_iops = 380;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_GO_ON, "380 of 400 (95 %): kept");
	step.write_iops = 300;
	step.write_p99_ms = 50;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_RATE_MISSED, "a missed rate is named before the latency it caused");

	step = step_at(400);
	step.write_p99_ms = 10.5;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_WRITE_P99, "write p99 10.5 ms over 10: stop");
	ok(!ranread_write_sweep_within_slo(&step, &rules), "and it is outside the SLO");
	step.write_p99_ms = 10;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_GO_ON, "write p99 at the bound: within");
	rules.slo_write_mean_ms = 0.5;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_WRITE_MEAN, "write mean 1 ms over 0.5: stop, named before the p99");
	rules.slo_write_mean_ms = 0;

	step = step_at(400);
	step.readers = true;
	rules.slo_p99_ms = 5;
	step.read_p99_ms = 8;
	step.read_p99_band_pct = 10;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_READ_P99, "read p99 8 ms (band 10 %) over 5: stop");
	step.read_p99_ms = 5.2;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_REPEAT, "read p99 5.2 ms, band 10 %, straddles 5: repeat");
	step.read_p99_ms = 4.8;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_REPEAT, "read p99 4.8 ms within its band below 5: repeat too");
	step.runs = RANREAD_SWEEP_MAX_REPEATS + 1;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_UNDECIDED, "still straddling after the repeats: undecided");
	step.runs = 1;
	step.write_rate_iops = step.write_iops = 800;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_MAX, "at the max the sweep ends whatever a repeat would say");
	step = step_at(400);
	step.completed = false;
	ok(ranread_write_sweep_decide_step(&step, &rules) == RANREAD_WRITE_SWEEP_STOP_STEP_ENDED, "a step that did not complete ends the sweep");
	return failures > 0;
}
