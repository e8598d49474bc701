/*
 * order_statistics_test.c: the median and its 95 % band by order statistics
 * (src/rules/order_statistics.c) on constructed values: the ranks of the
 * band against the binomial table (none below 6 values; the extremes at 6
 * to 8; the 2nd at 9 to 11; the 6th at 25; the 15th at 50), that the band
 * holds the median, and that one wild value moves it by one rank only.
 * Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/order_statistics.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

int
main(void)
{
	double		odd[] = {3, 1, 2};
	double		even[] = {4, 1, 3, 2};
	double		six[] = {1.2, 0.9, 1.0, 1.1, 5.0, 1.05};
	double		five[] = {1, 2, 3, 4, 5};
	double		wild[12];
	double		low = -1,
				high = -1;

	printf("1..11\n");
	ok(ranread_median(odd, 3) == 2 && odd[0] == 1 && odd[2] == 3, "the median of 3 values, which it sorts");
	ok(ranread_median(even, 4) == 2.5, "the median of 4 values is the mean of the middle two");
	ok(ranread_median_band_rank(1) == 0 && ranread_median_band_rank(5) == 0,
	   "1 to 5 values have no 95 % band (5: the extremes miss the median 6.25 % of the time)");
	ok(ranread_median_band_rank(6) == 1 && ranread_median_band_rank(8) == 1,
	   "6 to 8 values: the band runs from the smallest to the largest");
	ok(ranread_median_band_rank(9) == 2 && ranread_median_band_rank(11) == 2,
	   "9 to 11 values: from the 2nd smallest to the 2nd largest");
	ok(ranread_median_band_rank(25) == 8 && ranread_median_band_rank(50) == 18,
	   "25 values: the 8th (binomial P(X <= 7) = 2.2 %); 50: the 18th (P(X <= 17) = 1.6 %)");
	ok(!ranread_median_band(five, 5, &low, &high) && low == -1 && high == -1,
	   "too few values: no band, and the ends are left untouched");
	ok(ranread_median_band(six, 6, &low, &high) && low == 0.9 && high == 5.0,
	   "6 values: the band is their range, the wild one included");
	for (int i = 0; i < 12; i++)
		wild[i] = 10 + i;
	wild[5] = 1000;
	ok(ranread_median_band(wild, 12, &low, &high) && low == 12 && high == 20,
	   "12 values with one wild: the band (3rd to 10th) is 12 to 20, the wild value moves it one rank");
	ok(low <= ranread_median(wild, 12) && ranread_median(wild, 12) <= high, "and it holds the median");
	ok(ranread_median_band_rank(1000) > 400 && ranread_median_band_rank(1000) < 500,
	   "1,000 values: a band of ranks near the middle, the binomial computed without overflow");
	return failures > 0;
}
