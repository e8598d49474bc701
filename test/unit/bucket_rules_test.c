/*
 * bucket_rules_test.c: the burst-bucket rule (src/rules/bucket_rules.c) on
 * constructed series: a clean bucket and one whose baseline is above half
 * its burst give their burst, baseline, size and shift, as does a kernel
 * cap lowered partway; a level series or a shift up has no shift, a noisy
 * one and a short one are undecided, each with the reason.  Prints TAP.
 * Built and run by test/t/005_unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/bucket_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

#define PROCESSES	4
#define MAX_INTERVALS	100

static RanreadInterval series[MAX_INTERVALS];

/*
 * One-second intervals of a closed loop on a bucket of size reads, full at
 * 0 s: burst reads/s until it runs empty at size / (burst - baseline) s,
 * then baseline; noise_pct > 0 adds a deterministic +-noise_pct wobble.
 */
static void
build(int count, double burst, double baseline, double size, double noise_pct)
{
	double		empty_s = size / (burst - baseline);

	for (int i = 0; i < count; i++)
	{
		double		at_burst = fmin(fmax(empty_s - i, 0), 1);
		double		reads = at_burst * burst + (1 - at_burst) * baseline;
		double		wobble = noise_pct / 100.0 * ((i * 7919) % 13 - 6) / 6.0;

		series[i].start_s = i;
		series[i].seconds = 1.0;
		series[i].reads = (int64) llround(reads * (1 + wobble));
		series[i].mean_ms = 1.0;
		series[i].p50_ms = 1.0;
		series[i].p99_ms = 2.0;
		series[i].max_ms = 3.0;
		series[i].reading = PROCESSES;
	}
}

static bool
within(double measured, double truth, double pct)
{
	return fabs(measured - truth) <= fabs(truth) * pct / 100.0;
}

int
main(void)
{
	RanreadBucket b;
	RanreadBucketVerdict v;
	RanreadDrop drop;
	char		what[300];

	printf("1..17\n");

	/* a clean bucket: 3,000/s for 10.34 s (30,000 reads), then 100/s */
	build(30, 3000, 100, 30000, 0);
	v = ranread_series_find_bucket(series, 30, PROCESSES, &b);
	ok(v == RANREAD_BUCKET_FOUND, "a clean bucket, 3,000 falling to 100 reads/s, is found");
	snprintf(what, sizeof(what), "its burst %.1f and baseline %.1f are exact", b.burst_iops, b.baseline_iops);
	ok(b.burst_iops == 3000 && b.baseline_iops == 100, what);
	snprintf(what, sizeof(what), "its size, %.0f reads, is the 30,000 set, within 0.1 %%", b.bucket_reads);
	ok(within(b.bucket_reads, 30000, 0.1), what);
	snprintf(what, sizeof(what), "it ran empty at %.2f s (10.34 s) after %.0f reads (31,034)", b.shift_s, b.reads_to_shift);
	ok(within(b.shift_s, 30000.0 / 2900, 0.1) && within(b.reads_to_shift, 3000 * 30000.0 / 2900, 0.1), what);

	/* baseline above half the burst: 2,000 and 1,200/s, 10,000 reads: empty at 12.5 s */
	build(40, 2000, 1200, 10000, 0);
	v = ranread_series_find_bucket(series, 40, PROCESSES, &b);
	ok(v == RANREAD_BUCKET_FOUND, "a bucket whose baseline (1,200) is above half its burst (2,000) is found");
	snprintf(what, sizeof(what), "burst %.1f, baseline %.1f, size %.0f, empty at %.2f s", b.burst_iops,
			 b.baseline_iops, b.bucket_reads, b.shift_s);
	ok(b.burst_iops == 2000 && b.baseline_iops == 1200 && within(b.bucket_reads, 10000, 0.1) &&
	   within(b.shift_s, 12.5, 0.1), what);
	ok(!ranread_series_find_drop(series, 40, PROCESSES, &drop),
	   "the sharp-fall rule does not see that bucket: its baseline is above half the burst");

	/* the same with a +-3 % wobble: found, the truth within the bands' reach */
	build(40, 2000, 1200, 10000, 3);
	v = ranread_series_find_bucket(series, 40, PROCESSES, &b);
	snprintf(what, sizeof(what), "with +-3 %% noise: found, burst %.1f +- %.1f, baseline %.1f +- %.1f, size %.0f +- %.0f",
			 b.burst_iops, b.burst_band, b.baseline_iops, b.baseline_band, b.bucket_reads, b.bucket_band);
	ok(v == RANREAD_BUCKET_FOUND && within(b.burst_iops, 2000, 3) && within(b.baseline_iops, 1200, 3) &&
	   within(b.bucket_reads, 10000, 10), what);
	ok(b.burst_band > 0 && b.baseline_band > 0 && b.bucket_band > 0 &&
	   fabs(b.baseline_iops - 1200) <= 2 * b.baseline_band,
	   "and each figure has a noise band, the baseline's within twice its band of the truth");

	/* a kernel cap lowered from 3,000 to 1,000 at 6.15 s (test/t/220_lab_caps.pl's series) */
	{
		const double seen[] = {3296, 3000, 3000, 3000, 2999, 2999, 1401, 1000, 1100, 996, 1004, 964};

		build(12, 3000, 1000, 0, 0);
		for (int i = 0; i < 12; i++)
			series[i].reads = (int64) seen[i];
		v = ranread_series_find_bucket(series, 12, PROCESSES, &b);
		snprintf(what, sizeof(what), "a cap lowered from 3,000 to 1,000, a fast first second: found (%s), burst %.0f, baseline %.0f, empty at %.2f s",
				 b.reason, b.burst_iops, b.baseline_iops, b.shift_s);
		ok(v == RANREAD_BUCKET_FOUND && within(b.burst_iops, 3000, 3) && within(b.baseline_iops, 1000, 3) &&
		   within(b.shift_s, 6.15, 5), what);
	}

	/* no shift: a level series */
	build(40, 2000, 1500, 0, 0);
	for (int i = 0; i < 40; i++)
		series[i].reads = 1500 + (i % 3) * 10;
	v = ranread_series_find_bucket(series, 40, PROCESSES, &b);
	ok(v == RANREAD_BUCKET_NO_SHIFT, "a level series (1,500-1,520 reads/s) has no shift");
	snprintf(what, sizeof(what), "and says so: %s", b.reason);
	ok(b.reason != NULL && strstr(b.reason, "no level shift") != NULL, what);

	/* a shift up is no bucket */
	build(40, 2000, 1200, 10000, 0);
	for (int i = 0; i < 20; i++)
	{
		int64		t = series[i].reads;

		series[i].reads = series[39 - i].reads;
		series[39 - i].reads = t;
	}
	ok(ranread_series_find_bucket(series, 40, PROCESSES, &b) == RANREAD_BUCKET_NO_SHIFT,
	   "a shift up (1,200 rising to 2,000) is no bucket");

	/* noisy: a +-40 % wobble over a 15 % step */
	build(40, 2000, 1700, 8000, 40);
	v = ranread_series_find_bucket(series, 40, PROCESSES, &b);
	snprintf(what, sizeof(what), "a 15 %% step under +-40 %% noise is undecided, too noisy (noise %.0f %%): %s",
			 b.noise_pct, b.reason);
	ok(v == RANREAD_BUCKET_TOO_NOISY, what);

	/* too short: 7 full intervals, or a long series whose workers stopped early */
	build(7, 2000, 1200, 4000, 0);
	v = ranread_series_find_bucket(series, 7, PROCESSES, &b);
	snprintf(what, sizeof(what), "7 intervals are too short: %s", b.reason);
	ok(v == RANREAD_BUCKET_TOO_SHORT, what);
	build(40, 2000, 1200, 10000, 0);
	series[6].reading = PROCESSES - 1;
	ok(ranread_series_find_bucket(series, 40, PROCESSES, &b) == RANREAD_BUCKET_TOO_SHORT && b.full == 6,
	   "only the full intervals count: 6 before a worker stopped are too short");
	ok(ranread_series_find_bucket(series, 0, PROCESSES, &b) == RANREAD_BUCKET_TOO_SHORT,
	   "an empty series is too short");

	return failures > 0;
}
