/*-------------------------------------------------------------------------
 *
 * series_rules.h
 *		Pure functions of a per-second series: IOPS of an interval, the
 *		steady-state rule and a sharp fall (series_rules.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SERIES_RULES_H
#define RANREAD_SERIES_RULES_H

#include "series.h"

extern double ranread_interval_iops(const RanreadInterval *interval);
extern bool ranread_series_is_steady(const RanreadInterval *intervals, int count,
									 int window, double band_pct, int processes);
extern bool ranread_series_find_drop(const RanreadInterval *intervals, int count,
									 int processes, RanreadDrop *drop);

#endif							/* RANREAD_SERIES_RULES_H */
