/*-------------------------------------------------------------------------
 *
 * order_statistics.h
 *		The median of a few measured values and its confidence band by order
 *		statistics, which assume nothing of the values' distribution.  Pure
 *		(order_statistics.c), so that test/unit/order_statistics_test.c checks
 *		them on constructed values; sweep_rules.c and calibrate_rules.c use
 *		them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_ORDER_STATISTICS_H
#define RANREAD_ORDER_STATISTICS_H

/* The median's band holds the true median this often (or more). */
#define RANREAD_MEDIAN_BAND_CONFIDENCE	0.95

/*
 * The fewest values with such a band: with 6, the lowest and the highest
 * hold the median with probability 1 - 2 / 2^6 = 96.9 %; with 5, 93.8 %.
 */
#define RANREAD_MEDIAN_BAND_MIN_VALUES	6

extern void ranread_sort_values(double *values, int n);
extern double ranread_median(double *values, int n);
extern int	ranread_median_band_rank(int n);
extern bool ranread_median_band(double *values, int n, double *low, double *high);

#endif							/* RANREAD_ORDER_STATISTICS_H */
