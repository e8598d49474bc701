/*
 * limit_rules_test.c: what limits a volume (src/rules/limit_rules.c) on
 * constructed sweeps: a flat plateau that a read of twice the size keeps in
 * IOPS is an IOPS cap, in bytes a bandwidth cap, in neither the device; a
 * plateau without that probe is undecided; a knee with no plateau is the
 * device; a sweep still scaling, an open loop and a single step are
 * undecided; a burst bucket's figures and its refill over an idle pause.
 * Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/limit_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

#define MAX_STEPS	8

static RanreadSweepStep steps[MAX_STEPS];

/* A completed closed-loop step the device answered, its IOPS known to +-1 %. */
static RanreadSweepStep
step(int processes, double iops)
{
	RanreadSweepStep s = {0};

	s.processes = processes;
	s.iodepth = 1;
	s.iops = iops;
	s.mean_ms = 1000.0 * processes / iops;
	s.p99_ms = s.mean_ms * 2;
	s.physical_pct = 100;
	s.completed = true;
	strcpy(s.status, "completed");
	s.iops_band_pct = s.mean_band_pct = s.p99_band_pct = 1;
	s.runs = 1;
	return s;
}

/* A sweep of 1, 2, 4, ... processes at the IOPS given. */
static int
sweep(const double *iops, int count)
{
	for (int i = 0; i < count; i++)
		steps[i] = step(1 << i, iops[i]);
	return count;
}

/* A size probe at twice the block size, at the last step's load. */
static RanreadLimitProbe
size_probe(int processes, double iops)
{
	RanreadLimitProbe probe = {0};

	probe.present = true;
	probe.step = step(processes, iops);
	probe.size_ratio = 2;
	return probe;
}

static bool
near(double value, double expected, double fraction)
{
	return fabs(value - expected) <= fabs(expected) * fraction;
}

int
main(void)
{
	static const double cap[] = {1000, 1005, 998, 1001};
	static const double knee[] = {1000, 2000, 3000, 3300};
	static const double scaling[] = {1000, 2000, 3900};
	RanreadLimit limit;
	RanreadLimitProbe probe;
	RanreadLimitProbe refill = {0};
	int			n;

	printf("1..26\n");

	n = sweep(cap, 4);
	probe = size_probe(8, 1002);
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_IOPS_CAP, "a plateau whose IOPS a read of twice the size keeps is an IOPS cap");
	ok(near(limit.rate_iops, 1001, 0.001), "at the plateau's mean, 1,001 reads/s");
	ok(limit.plateau_first == 0 && limit.plateau_last == 3, "over all four steps");
	ok(limit.little_pct < 0.01, "whose mean latency is in flight over the rate");
	ok(near(limit.probe_ratio, 1002.0 / 1001, 0.001), "the probe's ratio is kept");

	probe = size_probe(8, 500);
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_BANDWIDTH_CAP, "one whose bytes it keeps is a bandwidth cap");

	probe = size_probe(8, 750);
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_DEVICE, "one that keeps neither is the device");

	probe = size_probe(8, 1200);
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED, "a probe faster than the plateau decides nothing");

	ranread_limit_judge(steps, n, false, NULL, NULL, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED && limit.plateau_first == 0, "without a probe a plateau is undecided");
	ok(strstr(limit.reason, "another size") != NULL, "and says what would decide it");

	probe = size_probe(8, 500);
	probe.step.iops_band_pct = 60;
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED && strstr(limit.reason, "covers both") != NULL,
	   "a probe whose noise covers both caps decides nothing, and says so");

	probe = size_probe(8, 1002);
	probe.step.physical_pct = 50;
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED, "a probe memory answered decides nothing");

	steps[3].iops_band_pct = 8;
	steps[3].iops = 1060;
	probe = size_probe(8, 1002);
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.plateau_first == 0, "a step 6 % off within its 8 % band stays on the plateau");

	n = sweep(knee, 4);
	probe = size_probe(8, 3300);
	ranread_limit_judge(steps, n, false, NULL, &probe, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_DEVICE, "a knee with no flat plateau is the device, whatever a probe says");
	ok(limit.plateau_first == -1 && near(limit.rate_iops, 3300, 0.001), "at its last step's IOPS");

	n = sweep(scaling, 3);
	ranread_limit_judge(steps, n, false, NULL, NULL, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED && strstr(limit.reason, "before the volume's limit") != NULL,
	   "a sweep still scaling has not reached the limit");

	n = sweep(cap, 4);
	ranread_limit_judge(steps, n, true, NULL, NULL, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED && strstr(limit.reason, "open-loop") != NULL,
	   "an open-loop sweep is undecided");
	ranread_limit_judge(steps, 1, false, NULL, NULL, NULL, &limit);
	ok(limit.kind == RANREAD_LIMIT_UNDECIDED, "one step is undecided");

	/* a bucket ran empty in step 2: step 1 read on it, the rest at the baseline */
	n = sweep(cap, 4);
	steps[0].iops = 2000;
	steps[0].burst_era = true;
	steps[1].bucket = true;
	steps[1].burst_iops = 2000;
	steps[1].burst_band_pct = 1;
	steps[1].bucket_reads = 6000;
	steps[1].bucket_band = 100;
	steps[1].shift_s = 6;
	refill.present = true;
	refill.step = step(8, 1000);
	refill.step.bucket = true;
	refill.step.bucket_reads = 3000;
	refill.step.bucket_band = 60;
	refill.idle_s = 5;
	refill.size_ratio = 1;
	probe = size_probe(8, 1000);
	ranread_limit_judge(steps, n, false, NULL, &probe, &refill, &limit);
	ok(limit.bucket && limit.burst_iops == 2000 && limit.bucket_reads == 6000 && limit.bucket_s == 6,
	   "a bucket that ran empty in a step: its burst, size and seconds");
	ok(limit.kind == RANREAD_LIMIT_IOPS_CAP && limit.plateau_first == 1, "its baseline judged from that step on");
	ok(near(limit.refill_per_s, 600, 0.001) && near(limit.refill_band, 12, 0.001),
	   "the refill: credits over the idle seconds, 600 +- 12 a second");
	ok(!limit.refill_full, "a bucket found half full is no lower bound");
	refill.step.bucket_reads = 6000;
	ranread_limit_judge(steps, n, false, NULL, &probe, &refill, &limit);
	ok(limit.refill_full, "one found full is a lower bound");
	refill.step.bucket = false;
	ranread_limit_judge(steps, n, false, NULL, &probe, &refill, &limit);
	ok(limit.refill_per_s < 0, "a refill probe that saw no burst measures no refill");

	/* the drain's bucket */
	n = sweep(cap, 4);
	{
		RanreadSweepStep drain = step(1, 1000);

		drain.bucket = true;
		drain.burst_iops = 3000;
		drain.bucket_reads = 9000;
		ranread_limit_judge(steps, n, false, &drain, &probe, NULL, &limit);
		ok(limit.bucket && limit.burst_iops == 3000 && limit.bucket_reads == 9000, "a bucket the drain emptied");
	}
	ok(strcmp(ranread_limit_kind_name(RANREAD_LIMIT_BANDWIDTH_CAP), "bandwidth cap") == 0, "the kinds' names");
	return failures > 0;
}
