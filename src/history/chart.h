/*-------------------------------------------------------------------------
 *
 * chart.h
 *		ranread's charts behind one table, as read paths are behind
 *		readpath.h's: a chart kind is one file (chart_<kind>.c) defining a
 *		RanreadChart, its extern here and its line in chart.c's table.
 *		chart.c's entry does what every chart's SQL function does (the SQL
 *		version, the width and height, the number or the latest, SPI) and
 *		calls the kind's draw(); the drawing primitives are svg.c's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_CHART_H
#define RANREAD_CHART_H

#include "fmgr.h"
#include "lib/stringinfo.h"

/* What a chart's draw() is given, connected to SPI. */
typedef struct RanreadChartCall
{
	FunctionCallInfo fcinfo;	/* for a chart that reads its own arguments */
	const char *schema;			/* the extension's, quoted */
	const int64 *number;		/* what to draw; NULL: none given and none recorded */
	int			width;
	int			height;
	/* a chart that reads its own arguments, called without them: its batches */
	const int64 *batches;
	int			batch_count;
} RanreadChartCall;

typedef struct RanreadChart
{
	const char *name;			/* its kind, as chart.c's SQL entries name it */

	/*
	 * A numbered chart's SQL function takes (number, width, height); one that
	 * is not reads its own arguments (number NULL, width and height 0).
	 */
	bool		numbered;
	const char *noun;			/* what the number numbers: "batch", "fleet sweep" */
	const char *listed_in;		/* the hint when that number does not exist */
	/* without a number, the latest: the highest latest_column of latest_table ... */
	const char *latest_table;
	const char *latest_column;
	/* ... or, if not NULL, what this finds; false if none */
	bool		(*latest) (const char *schema, int64 *number);
	/* without one: the error and its hint; NULL: draw() is called without a number */
	const char *nothing;
	const char *nothing_hint;
	/* the chart as SVG into out; false if call->number does not exist */
	bool		(*draw) (StringInfo out, const RanreadChartCall *call);
} RanreadChart;

/* the charts, one file each (chart_<kind>.c) */
extern const RanreadChart ranread_chart_kind_sweep;
extern const RanreadChart ranread_chart_kind_latency;
extern const RanreadChart ranread_chart_kind_intervals;
extern const RanreadChart ranread_chart_kind_fleet;

extern char *ranread_chart_processes_text(int processes, int iodepth);
extern bool ranread_chart_draw(StringInfo out, const char *name, const char *schema, const int64 *numbers,
							   int count, int width, int height);

#endif							/* RANREAD_CHART_H */
