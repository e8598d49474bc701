/*
 * run_rules_test.c: the rules of src/rules/run_rules.c on constructed numbers:
 * how many reads re-read a unit and how many iterations fit in a target;
 * the share of the device's bytes that were not the run's, and when that
 * counts as other I/O sharing the device (a 64 kB smgr run's bytes are
 * compared as bytes, not as reads); and when an open-loop run was queueing.
 * Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/run_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

#define MB	(1024.0 * 1024.0)

static bool
near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

int
main(void)
{
	printf("1..22\n");

	/* re-reads: processes x iterations against the units */
	ok(ranread_rereads(2, 4096, 8192) == 0, "2 x 4096 reads of 8192 units re-read nothing");
	ok(ranread_rereads(2, 5000, 8192) == 1808, "2 x 5000 reads of 8192 units re-read 1808");
	ok(ranread_rereads(40, 10000, 262144) == 137856, "40 x 10000 reads of a 2 GB target (262144 units) re-read 137856 (34%)");
	ok(ranread_rereads(1, 8193, 8192) == 1, "one read too many is one re-read");
	ok(ranread_iterations_without_rereads(2, 5000, 8192) == 4096, "2 processes fit 4096 iterations in 8192 units");
	ok(ranread_iterations_without_rereads(2, 300, 8192) == 300, "iterations that fit are kept");
	ok(ranread_iterations_without_rereads(3, 10000, 8192) == 2730, "3 processes: 2730 iterations, rounded down");
	ok(ranread_iterations_without_rereads(10, 100, 8) == 0, "more processes than units: not even one iteration fits");
	ok(ranread_iterations_without_rereads(0, 100, 8) == 0, "no process: nothing");

	/*
	 * Interference, in bytes.  8 kB reads at 7,202 IOPS are 56.3 MB/s; a
	 * device reading 26,650 8 kB reads/s (208 MB/s) had 73% others' reads.
	 */
	ok(fabs(ranread_device_shared_pct(26650.0 * 8192, 7202.0 * 8192) - 72.975609756) < 1e-6,
	   "the review's batch: 26,650 device reads/s against 7,202 IOPS is 73% others'");
	ok(ranread_device_was_shared(26650.0 * 8192 * 10, 7202.0 * 8192 * 10),
	   "and that is other I/O sharing the device");
	ok(near(ranread_device_shared_pct(100 * MB, 100 * MB), 0), "the device read what the run read: 0%");
	ok(near(ranread_device_shared_pct(100 * MB, 120 * MB), 0),
	   "the run's count a little above the device's (window edges): 0%, never negative");
	ok(ranread_device_shared_pct(0, 0) < 0, "a device that read nothing: unknown (-1)");

	/*
	 * A 64 kB smgr read is eight 8 kB preads; readahead may fetch more: the
	 * run's own bytes (kb_per_read 96 here) are what the device read for it,
	 * however many requests that was, so 1000 reads/s of 64 kB with the
	 * device at 94 MB/s is not interference.
	 */
	ok(!ranread_device_was_shared(1000.0 * 96 * 1024 * 10, 1000.0 * 96 * 1024 * 10 * 0.98),
	   "a 64 kB smgr run whose readahead the device read too: not shared");
	ok(ranread_device_was_shared(1000.0 * 64 * 1024 * 10 * 1.5, 1000.0 * 64 * 1024 * 10),
	   "a 64 kB run with the device reading 1.5 times its bytes: shared (33%)");
	ok(!ranread_device_was_shared(1.2 * 1.0 * MB, 1.0 * MB),
	   "17% over a 1 MB run is under the 20% margin");
	ok(!ranread_device_was_shared(3 * MB, 0.5 * MB),
	   "2.5 MB of others' reads in a short run is under the 4 MB floor, whatever the share");

	/* open-loop queueing: response over 10 x service */
	ok(ranread_open_loop_queued(100.68, 0.598),
	   "the review's open loop: 100.68 ms response against 0.598 ms service is queueing");
	ok(!ranread_open_loop_queued(0.65, 0.6) && !ranread_open_loop_queued(5.0, 0.5) &&
	   !ranread_open_loop_queued(1.0, -1),
	   "a response near its service time, exactly 10 times, or with no service time measured is not");
	ok(!ranread_open_loop_queued(0.142, 0.0103) && !ranread_open_loop_queued(0.752, 0.009),
	   "the lab's 2,000 reads/s below a cap of 2,200: 14 and 84 times a 10 us service, but a wait under 1 ms, is not");
	ok(ranread_open_loop_queued(75.17, 1.41) && ranread_open_loop_queued(1.5, 0.01),
	   "the lab's 2,400 reads/s above the cap (75 ms against 1.4 ms), or a 1.5 ms wait on a 10 us device, is");
	return failures > 0;
}
