/*
 * series_rules_test.c: the rules over a batch's per-interval series
 * (src/rules/series_rules.c) on constructed histories: a sharp fall in IOPS is
 * found, and when; a flat, a noisy or a rising history, or a fall that only
 * comes from workers finishing, is not a fall; the steady-state rule holds
 * within its band and not outside it.  Prints TAP.
 * Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/series_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

#define PROCESSES	4
#define MAX_INTERVALS	100

static RanreadInterval history[MAX_INTERVALS];

/* One-second intervals with these IOPS and mean latencies, every worker reading. */
static void
build(int count, const double *iops, const double *mean_ms)
{
	for (int i = 0; i < count; i++)
	{
		history[i].start_s = i;
		history[i].seconds = 1.0;
		history[i].reads = (int64) iops[i];
		history[i].mean_ms = mean_ms != NULL ? mean_ms[i] : 1.0;
		history[i].p50_ms = history[i].mean_ms;
		history[i].p99_ms = history[i].mean_ms * 2;
		history[i].max_ms = history[i].mean_ms * 3;
		history[i].reading = PROCESSES;
	}
}

int
main(void)
{
	double		iops[MAX_INTERVALS];
	double		latency[MAX_INTERVALS];
	RanreadDrop drop;
	bool		found;
	char		what[200];

	printf("1..14\n");

	/* a burst allowance: 16,000 IOPS for 34 s, then 3,000 */
	for (int i = 0; i < 60; i++)
		iops[i] = i < 34 ? 16000 : 3000;
	build(60, iops, NULL);
	found = ranread_series_find_drop(history, 60, PROCESSES, &drop);
	ok(found, "a burst of 34 s at 16,000 IOPS falling to 3,000 is a sharp fall");
	snprintf(what, sizeof(what), "it fell after 34 s (found %.0f s), from 16,000 (%.0f) to 3,000 (%.0f)",
			 drop.after_s, drop.from_iops, drop.to_iops);
	ok(found && drop.after_s == 34 && drop.from_iops == 16000 && drop.to_iops == 3000, what);

	/* flat, with 10 % noise */
	for (int i = 0; i < 60; i++)
		iops[i] = 10000 * (1.0 + 0.1 * sin(i * 1.7));
	build(60, iops, NULL);
	ok(!ranread_series_find_drop(history, 60, PROCESSES, &drop), "a flat history with 10 % noise is no fall");

	/* a slow decline to 60 % */
	for (int i = 0; i < 60; i++)
		iops[i] = 10000 - 4000.0 * i / 59;
	build(60, iops, NULL);
	ok(!ranread_series_find_drop(history, 60, PROCESSES, &drop), "a decline to 60 % is not a sharp fall");

	/* rising: a cold device warming up */
	for (int i = 0; i < 60; i++)
		iops[i] = i < 10 ? 2000 : 12000;
	build(60, iops, NULL);
	ok(!ranread_series_find_drop(history, 60, PROCESSES, &drop), "rising IOPS are no fall");

	/* workers finishing one by one at the end of an iteration-based run */
	for (int i = 0; i < 60; i++)
		iops[i] = i < 30 ? 10000 : 1000;
	build(60, iops, NULL);
	for (int i = 30; i < 60; i++)
		history[i].reading = 1;
	ok(!ranread_series_find_drop(history, 60, PROCESSES, &drop),
	   "a fall while workers finish (not every worker reading) is not counted");

	/* too short to judge */
	for (int i = 0; i < 5; i++)
		iops[i] = i < 2 ? 10000 : 100;
	build(5, iops, NULL);
	ok(!ranread_series_find_drop(history, 5, PROCESSES, &drop), "five intervals are too few to judge");

	/* a throttle after a noisy start: found at the first interval it holds from */
	for (int i = 0; i < 30; i++)
		iops[i] = i < 12 ? (i % 2 ? 9000 : 11000) : (i == 15 ? 9000 : 2000);
	build(30, iops, NULL);
	found = ranread_series_find_drop(history, 30, PROCESSES, &drop);
	snprintf(what, sizeof(what), "a throttle at 12 s with one good interval later: fell after 12 s (found %.0f s)",
			 drop.after_s);
	ok(found && drop.after_s == 12, what);

	/* steady state */
	for (int i = 0; i < 20; i++)
	{
		iops[i] = i < 8 ? 20000 - 1000 * i : 10000 * (1.0 + 0.04 * ((i % 3) - 1));
		latency[i] = i < 8 ? 0.2 + 0.05 * i : 0.6 * (1.0 + 0.03 * ((i % 2) * 2 - 1));
	}
	build(20, iops, latency);
	ok(!ranread_series_is_steady(history, 8, 5, 10, PROCESSES), "falling IOPS over the window are not steady");
	ok(ranread_series_is_steady(history, 14, 5, 10, PROCESSES),
	   "IOPS within 4 % and mean latency within 3 % over 5 intervals: steady within 10 %");
	ok(!ranread_series_is_steady(history, 14, 5, 2, PROCESSES), "the same is not steady within 2 %");
	ok(!ranread_series_is_steady(history, 4, 5, 10, PROCESSES), "fewer intervals than the window: not steady");
	history[12].mean_ms = 1.2;
	ok(!ranread_series_is_steady(history, 14, 5, 10, PROCESSES),
	   "one interval with twice the mean latency breaks the steady state");
	history[12].mean_ms = 0.6;
	history[13].reading = PROCESSES - 1;
	ok(!ranread_series_is_steady(history, 14, 5, 10, PROCESSES),
	   "an interval with a worker no longer reading is not steady");

	return failures > 0;
}
