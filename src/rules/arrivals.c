/*-------------------------------------------------------------------------
 *
 * arrivals.c
 *		The schedule of an open-loop run: when each read is due.
 *
 * rate_iops is split evenly across the workers.  With uniform arrivals a
 * worker's reads are due every processes / rate_iops seconds, the workers
 * staggered across one gap so that the reads of all of them arrive evenly;
 * with Poisson arrivals the gaps are exponential with the same mean, drawn
 * from a generator seeded per worker, and the workers' reads together
 * arrive as one Poisson stream at rate_iops.  A read that is late (its
 * worker still busy with the previous one) is issued at once; its latency
 * counts from when it was due (see worker.c), which is how an open loop
 * avoids coordinated omission.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/arrivals.h"

void
ranread_arrivals_init(RanreadArrivals *arrivals, uint64 start_ns, double rate_iops,
					  int processes, int worker, bool poisson, uint64 seed)
{
	arrivals->mean_gap_ns = 1e9 * processes / rate_iops;
	arrivals->poisson = poisson;
	pg_prng_seed(&arrivals->prng, seed ^ ((uint64) worker * UINT64CONST(0x9E3779B97F4A7C15)));
	arrivals->start_ns = start_ns;
	arrivals->next_ns = 0;
	if (poisson)
		arrivals->next_ns = -log(1.0 - pg_prng_double(&arrivals->prng)) * arrivals->mean_gap_ns;
	else
		arrivals->next_ns = arrivals->mean_gap_ns * worker / processes;
}

/* When the next read is due; advances the schedule. */
uint64
ranread_arrivals_next(RanreadArrivals *arrivals)
{
	uint64		due = arrivals->start_ns + (uint64) arrivals->next_ns;

	if (arrivals->poisson)
		arrivals->next_ns += -log(1.0 - pg_prng_double(&arrivals->prng)) * arrivals->mean_gap_ns;
	else
		arrivals->next_ns += arrivals->mean_gap_ns;
	return due;
}
