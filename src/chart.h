/*-------------------------------------------------------------------------
 *
 * chart.h
 *		What ranread's charts share beyond svg.c's drawing primitives: the
 *		check of a chart's width and height arguments, and how a chart
 *		names a batch's processes (chart.c), for chart_intervals.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_CHART_H
#define RANREAD_CHART_H

#include "fmgr.h"

extern int	ranread_chart_size_argument(FunctionCallInfo fcinfo, int arg, const char *name);
extern char *ranread_chart_processes_text(int processes, int iodepth);

#endif							/* RANREAD_CHART_H */
