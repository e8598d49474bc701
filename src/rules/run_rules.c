/*-------------------------------------------------------------------------
 *
 * run_rules.c
 *		Whether a run's numbers are the device's: re-reads, interference and
 *		open-loop queueing, as pure functions of the run's numbers.
 *
 * A run reads every unit of its target once, in a random order, before it
 * reads any unit again (worker.c): the workers take turns along one
 * permutation, so processes x iterations reads re-read a unit exactly when
 * they are more than the target's units, and the surplus are re-reads.
 *
 * Interference compares bytes, not requests: the kernel merges adjacent
 * requests and readahead fetches more than was asked, so one read of
 * block_size bytes can be one device read (direct), several (a 64 kB smgr
 * read is eight 8 kB reads) or part of a larger one.  What the workers'
 * reads made the device read is the kernel's own count for their threads
 * (read_bytes of /proc/thread-self/io, kb_per_read per read); what the
 * device read is its sectors in /proc/diskstats over the same window.  The
 * difference is other I/O on the device.
 *
 * An open-loop run measures response time from when each read was due and
 * service time from when it was issued: when the mean response is many
 * times the mean service, reads waited for their turn, so the rate was more
 * than the storage serves at that concurrency, even if the run kept it on
 * average.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "rules/run_rules.h"

/* How many of processes x iterations reads re-read a unit of a target of `units`; 0 if none. */
int64
ranread_rereads(int processes, int64 iterations, int64 units)
{
	int64		reads = (int64) processes * iterations;

	return reads > units ? reads - units : 0;
}

/*
 * The iterations per process, at most `iterations`, that `processes`
 * processes can read without re-reading a unit of `units`; 0 if not even one.
 */
int64
ranread_iterations_without_rereads(int processes, int64 iterations, int64 units)
{
	if (processes < 1 || units < 1)
		return 0;
	return Min(iterations, units / processes);
}

/*
 * The share, in percent, of the bytes the device read that the run's
 * workers did not cause; -1 if the device read nothing or the workers'
 * own bytes are unknown (their reads ran in I/O workers).
 */
double
ranread_device_shared_pct(double device_bytes, double own_bytes)
{
	if (device_bytes <= 0 || own_bytes < 0)
		return -1;
	if (own_bytes >= device_bytes)
		return 0;
	return 100.0 * (device_bytes - Max(own_bytes, 0.0)) / device_bytes;
}

/* Whether other reads shared the device: above the share and the floor (run_rules.h). */
bool
ranread_device_was_shared(double device_bytes, double own_bytes)
{
	return own_bytes >= 0 &&
		ranread_device_shared_pct(device_bytes, own_bytes) > RANREAD_DEVICE_SHARED_PCT &&
		device_bytes - own_bytes >= RANREAD_DEVICE_SHARED_MIN_BYTES;
}

/*
 * Whether an open-loop run's reads queued: response over
 * RANREAD_QUEUEING_FACTOR x service, by a wait of at least
 * RANREAD_QUEUEING_MIN_WAIT_MS (less is the worker's wake-up).
 */
bool
ranread_open_loop_queued(double response_mean_ms, double service_mean_ms)
{
	return service_mean_ms > 0 && response_mean_ms > RANREAD_QUEUEING_FACTOR * service_mean_ms &&
		response_mean_ms - service_mean_ms >= RANREAD_QUEUEING_MIN_WAIT_MS;
}
