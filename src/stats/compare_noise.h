/*-------------------------------------------------------------------------
 *
 * compare_noise.h
 *		The noise of a batch's measures, as relative standard errors from
 *		its histogram, its workers and its sample intervals, and the noise
 *		band of a comparison (compare_noise.c).
 *
 * A batch's noise is an array indexed by the measures below: rse[m] is
 * measure m's relative standard error, < 0 while unknown.  Each source
 * raises it to its own estimate where that is larger.  results.c uses the
 * same sources on a batch still in memory (ranread_noise_from_spread()) to
 * store each batch's noise bands with it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_COMPARE_NOISE_H
#define RANREAD_COMPARE_NOISE_H

#include "utils/array.h"

/* The measures compared, in the order of ranread_compare()'s rows. */
enum
{
	RANREAD_MEASURE_IOPS,
	RANREAD_MEASURE_MEAN,
	RANREAD_MEASURE_P50,
	RANREAD_MEASURE_P99,
	RANREAD_MEASURE_P999,
	RANREAD_MEASURE_PHYSICAL,
	RANREAD_MEASURE_DEVICE_READS,
	RANREAD_N_MEASURES
};

/* A full sample interval lasts at least this share of the longest: the last one is shorter. */
#define RANREAD_NOISE_FULL_INTERVAL	0.9

extern void ranread_noise_from_histogram(ArrayType *histogram, double min_ms, double max_ms,
										 const bool *known, const double *value, double *rse);
extern void ranread_noise_from_workers(const char *schema, int64 batch, const char *const *columns,
									   double *rse);
extern void ranread_noise_from_intervals(const char *schema, int64 batch, const char *const *columns,
										 double *rse);
extern void ranread_noise_from_spread(int measure, const double *values, int n, bool over_time,
									  double *rse);
extern double ranread_noise_band_pct(double rse_a, double rse_b, bool percentile);
extern double ranread_noise_rse_of_band(double band_pct);

#endif							/* RANREAD_COMPARE_NOISE_H */
