/*
 * calibrate_rules_test.c: the rules of a calibration (src/rules/
 * calibrate_rules.c) on constructed numbers: the least setting within 10 %
 * of the best (a plateau, a noisy dip after it, the best first, a tie);
 * the ratio's band and when it is steady (too few pairs, a steady volume,
 * the demo's unsteady one, exactly at the target); and random_page_cost
 * from a ratio (the documented 40 x 10 % = 4, the floor of 1, rounding),
 * and when a wide band still decides it (both ends give the same value).
 * Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/calibrate_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

int
main(void)
{
	double		plateau[] = {2000, 3900, 7000, 9500, 9900, 10000, 9800};
	double		dip[] = {2000, 9100, 7000, 10000};
	double		first[] = {5000, 4000, 3000};
	double		tie[] = {100, 100, 100};
	double		steady[] = {10.0, 10.5, 9.6, 10.2, 9.9, 10.8, 10.1, 9.8};
	double		demo[] = {18.7, 6.1, 20.5, 17.0, 9.0, 19.5};
	double		edge[] = {10, 8, 12, 10, 10, 10};
	double		kept[] = {3, 1, 2, 1, 1, 1};
	RanreadRatioBand band;

	printf("1..14\n");
	ok(ranread_least_within(plateau, 7, RANREAD_CALIBRATE_SHORT_PCT) == 3,
	   "on a plateau, the first setting within 10 % of the best (9,500 against 10,000)");
	ok(ranread_least_within(dip, 4, RANREAD_CALIBRATE_SHORT_PCT) == 1,
	   "a noisy dip after an early setting within 10 % does not push the pick past it");
	ok(ranread_least_within(first, 3, RANREAD_CALIBRATE_SHORT_PCT) == 0 &&
	   ranread_least_within(tie, 3, RANREAD_CALIBRATE_SHORT_PCT) == 0,
	   "the best first, or all alike: the least setting");

	ranread_ratio_band(steady, 5, 20, &band);
	ok(!band.banded && !band.steady && band.reached_pct == -1 && band.median == 10.0,
	   "5 pairs: a median (10.0) but no band, so not steady");
	ranread_ratio_band(steady, 8, 20, &band);
	ok(band.banded && band.low == 9.6 && band.high == 10.8 && band.steady,
	   "8 pairs of a steady volume: the band 9.6 to 10.8 lies within 20 %");
	ok(fabs(band.median - 10.05) < 1e-9 && fabs(band.reached_pct - 100 * 0.75 / 10.05) < 1e-9,
	   "its median 10.05, and the band reached is its wider side, 7.5 %");
	ok(steady[0] == 10.0 && steady[2] == 9.6, "the ratios are left in the order measured");
	ranread_ratio_band(demo, 6, 20, &band);
	ok(band.banded && !band.steady && band.low == 6.1 && band.high == 20.5,
	   "the demo's 6.1 to 20.5: banded, not steady (too unsteady to recommend)");
	ranread_ratio_band(edge, 6, 20, &band);
	ok(band.steady && fabs(band.reached_pct - 20) < 1e-9, "a band exactly at the target is steady");
	ranread_ratio_band(kept, 6, 20, &band);
	ok(band.banded && band.median == 1 && band.high == 3 && !band.steady,
	   "one wild pair among 6 keeps the band wide: 6 pairs are not yet steady");

	ok(ranread_page_cost(40, 90) == 4.0 && ranread_page_cost(18.7, 90) == 1.9,
	   "PostgreSQL's model: 40 x 10 % = 4; the demo's 18.7 gives 1.9");
	ok(ranread_page_cost(5, 90) == 1.0 && ranread_page_cost(3.2, 0) == 3.2,
	   "at least seq_page_cost (1); with nothing cached, the ratio");

	ranread_ratio_band(demo, 6, 20, &band);
	ok(!ranread_page_cost_decided(&band, 90),
	   "the demo's band 6.1 to 20.5 recommends 1.0 to 2.1 at 90 % cached: not decided");
	band.low = 4.7;
	band.high = 9.2;
	band.steady = false;
	ok(ranread_page_cost_decided(&band, 90) && !ranread_page_cost_decided(&band, 0),
	   "a wide band 4.7 to 9.2 gives 1.0 at either end at 90 % cached: decided; with nothing cached, not");
	return failures > 0;
}
