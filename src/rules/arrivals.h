/*-------------------------------------------------------------------------
 *
 * arrivals.h
 *		When each read of an open-loop run is due (arrivals.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_ARRIVALS_H
#define RANREAD_ARRIVALS_H

#include "common/pg_prng.h"

typedef struct RanreadArrivals
{
	uint64		start_ns;		/* the schedule's origin (monotonic clock) */
	double		next_ns;		/* when the next read is due, after start_ns */
	double		mean_gap_ns;	/* 1 / this worker's rate */
	bool		poisson;
	pg_prng_state prng;
} RanreadArrivals;

extern void ranread_arrivals_init(RanreadArrivals *arrivals, uint64 start_ns, double rate_iops,
								  int processes, int worker, bool poisson, uint64 seed);
extern uint64 ranread_arrivals_next(RanreadArrivals *arrivals);

#endif							/* RANREAD_ARRIVALS_H */
