/*-------------------------------------------------------------------------
 *
 * run_rules.h
 *		The rules that judge whether a run's numbers are the device's: how
 *		many of its reads would re-read a unit, how many iterations fit in a
 *		target without any, whether other I/O shared the device, and whether
 *		an open-loop run was queueing.  Pure (run_rules.c), so that
 *		test/unit/run_rules_test.c checks them on constructed numbers;
 *		run.c, report.c, results.c and sweep.c apply them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_RUN_RULES_H
#define RANREAD_RUN_RULES_H

/*
 * Other I/O shared the device when more than this share of the bytes it
 * read over the run were not read for ranread's workers ...
 */
#define RANREAD_DEVICE_SHARED_PCT	20.0

/* ... and that was at least this many bytes (a few metadata reads are not interference). */
#define RANREAD_DEVICE_SHARED_MIN_BYTES	(4.0 * 1024 * 1024)

/* An open-loop run queued when its mean response time was more than this many times its mean service time ... */
#define RANREAD_QUEUEING_FACTOR		10.0

/*
 * ... and its reads waited (response less service) at least this long on
 * average: on a device that answers in microseconds, the worker's own wake-up
 * from its sleep until a read was due (0.05 to 0.17 ms on a busy 2-vCPU VM,
 * test/t/lab/lab_caps.pl) is ten times the service time with no queue at all,
 * while a rate the storage cannot serve builds a backlog of many ms within a
 * second.
 */
#define RANREAD_QUEUEING_MIN_WAIT_MS	1.0

extern int64 ranread_rereads(int processes, int64 iterations, int64 units);
extern int64 ranread_iterations_without_rereads(int processes, int64 iterations, int64 units);
extern double ranread_device_shared_pct(double device_bytes, double own_bytes);
extern bool ranread_device_was_shared(double device_bytes, double own_bytes);
extern bool ranread_open_loop_queued(double response_mean_ms, double service_mean_ms);

#endif							/* RANREAD_RUN_RULES_H */
