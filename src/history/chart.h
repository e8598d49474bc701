/*-------------------------------------------------------------------------
 *
 * chart.h
 *		What ranread's charts share beyond svg.c's drawing primitives: the
 *		check of a chart's width and height arguments, how a chart names a
 *		batch's processes, and which batch or sweep is the latest (chart.c),
 *		for chart_intervals.c and chart_fleet.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_CHART_H
#define RANREAD_CHART_H

#include "fmgr.h"

extern int	ranread_chart_size_argument(FunctionCallInfo fcinfo, int arg, const char *name);
extern char *ranread_chart_processes_text(int processes, int iodepth);
extern bool ranread_chart_latest(const char *schema, const char *table, const char *column,
								 int64 *number);

#endif							/* RANREAD_CHART_H */
