/*-------------------------------------------------------------------------
 *
 * calibrate_rules.h
 *		What a calibration's measurements recommend: the least setting that
 *		reached within a share of the best (look-ahead, I/O workers), when the
 *		random/sequential ratio's band is narrow enough, random_page_cost from
 *		a ratio, and when that is decided.  Pure
 *		(calibrate_rules.c), so that test/unit/calibrate_rules_test.c checks
 *		them on constructed numbers; calibrate.c measures and applies them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_CALIBRATE_RULES_H
#define RANREAD_CALIBRATE_RULES_H

/*
 * A setting pays up to the least one within this share of the most IOPS
 * any setting reached: past it, more look-ahead pins more buffers and more
 * I/O workers are more processes, for little.
 */
#define RANREAD_CALIBRATE_SHORT_PCT		10.0

/* What a calibration's random/sequential ratio says, by its band. */
typedef struct RanreadRatioBand
{
	double		median;
	bool		banded;			/* enough pairs for a 95 % band */
	double		low;			/* the band (when banded) */
	double		high;
	double		reached_pct;	/* its widest side, in % of the median; -1 unknown */
	bool		steady;			/* the band lies within the target */
} RanreadRatioBand;

extern int	ranread_least_within(const double *iops, int count, double short_pct);
extern void ranread_ratio_band(double *ratios, int pairs, double band_pct, RanreadRatioBand *band);
extern double ranread_page_cost(double ratio, double cached_pct);
extern bool ranread_page_cost_decided(const RanreadRatioBand *band, double cached_pct);

#endif							/* RANREAD_CALIBRATE_RULES_H */
