/*-------------------------------------------------------------------------
 *
 * order_statistics.c
 *		The median of measured values and its 95 % band by order statistics.
 *
 * Of n independent values, the number below the true median is
 * binomial(n, 1/2) whatever their distribution, so the interval from the
 * k-th smallest to the k-th largest value misses the median with
 * probability 2 P(X <= k - 1).  The band takes the largest k for which
 * that is at most 1 - RANREAD_MEDIAN_BAND_CONFIDENCE: it needs no normal
 * law, which a drifting volume's figures do not follow, and one wild value
 * moves it by one rank only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "rules/order_statistics.h"

/*
 * Sort values[0..n-1] ascending (by insertion: n is a few dozen, and this
 * file stays free of the server's qsort).
 */
void
ranread_sort_values(double *values, int n)
{
	for (int i = 1; i < n; i++)
	{
		double		value = values[i];
		int			j = i;

		for (; j > 0 && values[j - 1] > value; j--)
			values[j] = values[j - 1];
		values[j] = value;
	}
}

/* The median of values[0..n-1], n > 0, which it sorts. */
double
ranread_median(double *values, int n)
{
	ranread_sort_values(values, n);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/*
 * The rank k (1-based) of the band's ends among n sorted values: the band
 * is the k-th smallest to the k-th largest; 0 when n values are too few
 * for a band of RANREAD_MEDIAN_BAND_CONFIDENCE.
 */
int
ranread_median_band_rank(int n)
{
	double		tail = (1.0 - RANREAD_MEDIAN_BAND_CONFIDENCE) / 2.0;
	double		p = 1.0;		/* P(X = k) for binomial(n, 1/2) */
	double		below = 0.0;	/* P(X <= k - 1) */
	int			k = 0;

	for (int i = 0; i < n; i++)
		p /= 2.0;
	while (k < n / 2 && below + p <= tail)
	{
		below += p;
		p = p * (n - k) / (k + 1);
		k++;
	}
	return k;
}

/*
 * The median's band of values[0..n-1], which it sorts: false, with low and
 * high untouched, when the values are too few for one.
 */
bool
ranread_median_band(double *values, int n, double *low, double *high)
{
	int			k = ranread_median_band_rank(n);

	if (k == 0)
		return false;
	ranread_sort_values(values, n);
	*low = values[k - 1];
	*high = values[n - k];
	return true;
}
