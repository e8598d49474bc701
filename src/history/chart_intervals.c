/*-------------------------------------------------------------------------
 *
 * chart_intervals.c
 *		A batch over time as a self-contained SVG chart:
 *		ranread_chart_intervals() draws the IOPS of each of its
 *		ranread_intervals rows on the left axis and their mean and p99
 *		latency on a right-hand ms axis, against the seconds since counting
 *		began, and marks where IOPS fell sharply when the throttle rule that
 *		raises the run's WARNING ("IOPS fell from ... after ... s") holds.
 *
 * A batch run with checkpoint => 'during' has its checkpoint's window shaded
 * behind the lines (from ranread_db_activity: from the request to its end,
 * or to the end of the reads if it outlasted them).  Any checkpoint, asked
 * for or not, is marked along the top of the plot from the intervals' own
 * columns (interval_activity.c): a strip over each interval one ran in,
 * darker where one began or ended; the intervals say which second, not
 * when in it.
 *
 * The rule is series_rules.c's ranread_series_find_drop(), applied to the
 * rows as recorded, so the chart and the WARNING cannot disagree; the IOPS
 * drawn are ranread_interval_iops(), as the rule sees them.  The drawing
 * primitives are svg.c's, the entry (the number or the latest, the size)
 * chart.c's.  Rows that are not numbers (NaN, infinities, negative values,
 * which only a hand-edited table holds) leave a gap in the lines rather
 * than break the chart.  A
 * long series is drawn in at most MAX_POINTS points, each the reads of
 * consecutive intervals together.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "history/chart.h"
#include "record/series.h"
#include "rules/series_rules.h"
#include "spi_columns.h"
#include "history/svg.h"

/* Most points drawn along each line; longer series are merged into this many. */
#define MAX_POINTS			1000

/* Room above the highest value of each axis, as a share of it. */
#define HEADROOM			1.1

/* Layout, in pixels. */
#define SMALL_FONT_SIZE		11
#define MARKER_ROW			15

#define COLOUR_IOPS			"#4e79a7"
#define COLOUR_MEAN			"#e15759"
#define COLOUR_P99			"#f28e2b"
#define COLOUR_DROP			"#b0413e"
#define COLOUR_CHECKPOINT	"#bab0ac"
#define COLOUR_CHECKPOINT_MARK	"#79706e"

/* Height of the strip of checkpoint marks, in pixels. */
#define CHECKPOINT_STRIP	6

/* What an interval's columns say of checkpoints. */
typedef enum CheckpointMark
{
	CHECKPOINT_NONE,			/* none ran, or unknown (NULL) */
	CHECKPOINT_RUNNING,			/* one ran through it */
	CHECKPOINT_BEGAN_OR_ENDED,
} CheckpointMark;

/* The batch and its series, as ranread_batches and ranread_intervals hold them. */
typedef struct IntervalChart
{
	int64		batch;
	char	   *title;
	char	   *subtitle;
	int			processes;
	double		wall_s;			/* the batch's span */
	int			count;
	RanreadInterval *intervals;
	CheckpointMark *marks;		/* one per interval */
	bool		marked;			/* some interval has a mark */
	bool		dropped;		/* the throttle rule holds */
	RanreadDrop drop;
	double		checkpoint_requested_s; /* checkpoint => 'during': its window; -1: none */
	double		checkpoint_ended_s; /* -1: it outlasted the reads */
} IntervalChart;

/* One point drawn: the middle of one interval, or of several merged. */
typedef struct Point
{
	double		x_s;
	double		iops;			/* < 0: none */
	double		mean_ms;		/* < 0: none */
	double		p99_ms;			/* < 0: none */
} Point;

/* The batch's title and subtitle, and its processes; false if there is no such batch. */
static bool
read_batch(const char *schema, IntervalChart *chart)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(chart->batch)};
	HeapTuple	row;
	TupleDesc	desc;
	int			block_size;

	if (SPI_execute_with_args(psprintf("SELECT b.target::pg_catalog.text AS target, b.mode, b.block_size, b.processes, "
									   "b.iodepth, pg_catalog.to_char(b.started_at, 'YYYY-MM-DD HH24:MI') AS started, "
									   "b.sweep::pg_catalog.text AS sweep, b.sweep_step::pg_catalog.text AS sweep_step, "
									   "b.wall_s "
									   "FROM %s.ranread_batches b "
									   "WHERE b.batch OPERATOR(pg_catalog.=) $1", schema),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read batch " INT64_FORMAT, chart->batch);
	if (SPI_processed != 1)
		return false;
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	block_size = (int) ranread_spi_int_named(row, desc, "block_size", 0);
	chart->processes = (int) ranread_spi_int_named(row, desc, "processes", 0);
	chart->wall_s = ranread_spi_float_named(row, desc, "wall_s", 0);
	chart->title = psprintf("ranread batch " INT64_FORMAT " over time: target \"%s\", %s, %s blocks",
							chart->batch, ranread_spi_text_named(row, desc, "target", ""),
							ranread_spi_text_named(row, desc, "mode", ""),
							block_size % 1024 == 0 ? psprintf("%d kB", block_size / 1024) :
							psprintf("%d-byte", block_size));
	chart->subtitle = psprintf("%s, %s",
							   ranread_chart_processes_text(chart->processes,
															(int) ranread_spi_int_named(row, desc, "iodepth", 0)),
							   ranread_spi_text_named(row, desc, "started", ""));
	if (ranread_spi_text_named(row, desc, "sweep", NULL) != NULL)
		chart->subtitle = psprintf("%s, sweep %s step %s", chart->subtitle,
								   ranread_spi_text_named(row, desc, "sweep", ""),
								   ranread_spi_text_named(row, desc, "sweep_step", "?"));
	return true;
}

/* The batch's rows of ranread_intervals, in order, and what the throttle rule says of them. */
static void
read_intervals(const char *schema, IntervalChart *chart)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(chart->batch)};

	if (SPI_execute_with_args(psprintf("SELECT start_s, seconds, reads, mean_ms, p50_ms, p99_ms, max_ms, "
									   "workers_reading, checkpoint_began, checkpoint_ended, checkpoint_running "
									   "FROM %s.ranread_intervals "
									   "WHERE batch OPERATOR(pg_catalog.=) $1 ORDER BY interval_no", schema),
							  1, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the intervals of batch " INT64_FORMAT, chart->batch);
	chart->count = (int) SPI_processed;
	chart->intervals = palloc0(sizeof(RanreadInterval) * Max(1, chart->count));
	chart->marks = palloc0(sizeof(CheckpointMark) * Max(1, chart->count));
	for (int i = 0; i < chart->count; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		RanreadInterval *interval = &chart->intervals[i];

		interval->start_s = ranread_spi_float_named(row, desc, "start_s", 0);
		interval->seconds = ranread_spi_float_named(row, desc, "seconds", 0);
		interval->reads = ranread_spi_int_named(row, desc, "reads", 0);
		interval->mean_ms = ranread_spi_float_named(row, desc, "mean_ms", -1);
		interval->p50_ms = ranread_spi_float_named(row, desc, "p50_ms", -1);
		interval->p99_ms = ranread_spi_float_named(row, desc, "p99_ms", -1);
		interval->max_ms = ranread_spi_float_named(row, desc, "max_ms", -1);
		interval->reading = (int) ranread_spi_int_named(row, desc, "workers_reading", 0);
		if (ranread_spi_bool_named(row, desc, "checkpoint_began", false) ||
			ranread_spi_bool_named(row, desc, "checkpoint_ended", false))
			chart->marks[i] = CHECKPOINT_BEGAN_OR_ENDED;
		else if (ranread_spi_bool_named(row, desc, "checkpoint_running", false))
			chart->marks[i] = CHECKPOINT_RUNNING;
		chart->marked |= chart->marks[i] != CHECKPOINT_NONE;
	}
	chart->dropped = ranread_series_find_drop(chart->intervals, chart->count, chart->processes, &chart->drop);
}

/* The window of the checkpoint the batch asked for (from the request to its end), if it asked for one. */
static void
read_checkpoint_window(const char *schema, IntervalChart *chart)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(chart->batch)};

	chart->checkpoint_requested_s = chart->checkpoint_ended_s = -1;
	if (SPI_execute_with_args(psprintf("SELECT checkpoint_requested_s, checkpoint_ended_s FROM %s.ranread_db_activity "
									   "WHERE batch OPERATOR(pg_catalog.=) $1", schema),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the checkpoint of batch " INT64_FORMAT, chart->batch);
	if (SPI_processed != 1)
		return;
	chart->checkpoint_requested_s = ranread_spi_float_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
															"checkpoint_requested_s", -1);
	chart->checkpoint_ended_s = ranread_spi_float_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
														"checkpoint_ended_s", -1);
}

/*
 * The points to draw: one per interval, or per `per` consecutive intervals
 * when there are more than MAX_POINTS (their reads over their seconds, the
 * mean weighted by reads, the highest p99); *n gets how many.
 */
static Point *
points_of(const IntervalChart *chart, int *n)
{
	int			per = (chart->count + MAX_POINTS - 1) / MAX_POINTS;
	Point	   *points = palloc(sizeof(Point) * Max(1, MAX_POINTS));

	*n = 0;
	for (int first = 0; first < chart->count; first += per)
	{
		int			last = Min(first + per, chart->count);
		double		reads = 0;
		double		seconds = 0;
		double		weighted_ms = 0;
		double		p99_ms = -1;
		bool		whole = true;
		Point	   *point = &points[(*n)++];
		const RanreadInterval *a = &chart->intervals[first];
		const RanreadInterval *z = &chart->intervals[last - 1];

		for (int i = first; i < last; i++)
		{
			const RanreadInterval *interval = &chart->intervals[i];

			if (!ranread_svg_drawable(interval->reads) || !ranread_svg_drawable(interval->seconds) ||
				interval->seconds == 0)
			{
				whole = false;
				continue;
			}
			reads += interval->reads;
			seconds += interval->seconds;
			if (ranread_svg_drawable(interval->mean_ms) && interval->reads > 0)
				weighted_ms += interval->mean_ms * interval->reads;
			else if (interval->reads > 0)
				whole = false;
			if (ranread_svg_drawable(interval->p99_ms))
				p99_ms = Max(p99_ms, interval->p99_ms);
		}
		point->x_s = (a->start_s + z->start_s + z->seconds) / 2;
		point->iops = seconds > 0 ? reads / seconds : -1;
		point->mean_ms = reads > 0 && whole ? weighted_ms / reads : -1;
		point->p99_ms = p99_ms;
		if (!ranread_svg_drawable(point->x_s))
			point->iops = point->mean_ms = point->p99_ms = -1;
	}
	return points;
}

/* The highest drawable value among the points' IOPS (or latencies). */
static double
highest(const Point *points, int n, bool latency)
{
	double		max = 0;

	for (int i = 0; i < n; i++)
	{
		if (!latency && ranread_svg_drawable(points[i].iops))
			max = Max(max, points[i].iops);
		if (latency && ranread_svg_drawable(points[i].mean_ms))
			max = Max(max, points[i].mean_ms);
		if (latency && ranread_svg_drawable(points[i].p99_ms))
			max = Max(max, points[i].p99_ms);
	}
	return max;
}

/* The seconds the x axis spans: to the end of the last interval that has one. */
static double
seconds_span(const IntervalChart *chart)
{
	double		end = 0;

	for (int i = 0; i < chart->count; i++)
	{
		double		stop = chart->intervals[i].start_s + chart->intervals[i].seconds;

		if (ranread_svg_drawable(stop))
			end = Max(end, stop);
	}
	return end;
}

/* A line through the points' IOPS (which 0), mean (1) or p99 (2), broken where one has none. */
static void
draw_line(StringInfo out, const Point *points, int n, const Box *box, const Axis *x, const Axis *y,
		  int which, const char *class, const char *colour)
{
	StringInfoData path;
	bool		joined = false;

	initStringInfo(&path);
	for (int i = 0; i < n; i++)
	{
		double		value = which == 0 ? points[i].iops : which == 1 ? points[i].mean_ms : points[i].p99_ms;

		if (!ranread_svg_drawable(value))
		{
			joined = false;
			continue;
		}
		appendStringInfo(&path, "%s%.1f %.1f ", joined ? "L" : "M",
						 ranread_svg_axis_pixel(x, points[i].x_s, box->left, box->right),
						 ranread_svg_axis_pixel(y, value, box->bottom, box->top));
		joined = true;
	}
	if (path.len > 0)
		appendStringInfo(out, "<path class=\"%s\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
						 class, path.data, colour, which == 0 ? "2" : "1.5");
}

/*
 * Where IOPS fell: a dashed line at the interval the rule names, the two
 * thirds' means as short lines, and above the plot what the WARNING says.
 */
static void
draw_drop(StringInfo out, const IntervalChart *chart, const Box *box, const Axis *x, const Axis *iops,
		  int width)
{
	double		px = ranread_svg_axis_pixel(x, chart->drop.after_s, box->left, box->right);
	char	   *text = psprintf("IOPS fell from %s to %s after %.0f s",
								ranread_svg_short_number(chart->drop.from_iops),
								ranread_svg_short_number(chart->drop.to_iops), chart->drop.after_s);
	char	   *question = psprintf("%s: a burst allowance or a throttle?", text);
	double		start;

	/* the WARNING's words, its question too where the plot is wide enough */
	if (ranread_svg_text_width(question, SMALL_FONT_SIZE) <= box->right - box->left)
		text = question;
	start = px + 4;
	if (start + ranread_svg_text_width(text, SMALL_FONT_SIZE) > width - 4)
		start = px - 4 - ranread_svg_text_width(text, SMALL_FONT_SIZE);
	if (start < 4)
		start = 4;
	if (!isfinite(px) || !ranread_svg_drawable(chart->drop.from_iops) || !ranread_svg_drawable(chart->drop.to_iops))
		return;
	appendStringInfo(out, "<g id=\"drop\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
					 "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
					 px, box->top - MARKER_ROW, px, box->bottom, COLOUR_DROP);
	appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\" "
					 "stroke-dasharray=\"2 2\"/>\n",
					 box->left, ranread_svg_axis_pixel(iops, chart->drop.from_iops, box->bottom, box->top),
					 px, ranread_svg_axis_pixel(iops, chart->drop.from_iops, box->bottom, box->top), COLOUR_DROP);
	appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\" "
					 "stroke-dasharray=\"2 2\"/>\n",
					 px, ranread_svg_axis_pixel(iops, chart->drop.to_iops, box->bottom, box->top),
					 box->right, ranread_svg_axis_pixel(iops, chart->drop.to_iops, box->bottom, box->top), COLOUR_DROP);
	ranread_svg_text(out, start, box->top - 4,
					 psprintf("class=\"drop-label\" text-anchor=\"start\" font-size=\"%d\" fill=\"%s\"",
							  SMALL_FONT_SIZE, COLOUR_DROP),
					 text);
	appendStringInfoString(out, "</g>\n");
}

/*
 * Whether the chart has a checkpoint window to shade: one that began within
 * the axis (a hand-edited row may hold anything).
 */
static bool
has_checkpoint_window(const IntervalChart *chart, double span_s)
{
	return ranread_svg_drawable(chart->checkpoint_requested_s) && chart->checkpoint_requested_s <= span_s;
}

/* The checkpoint's window, shaded from its request to its end (or to the end of the reads). */
static void
draw_checkpoint_window(StringInfo out, const IntervalChart *chart, const Box *box, const Axis *x, double span_s)
{
	double		ended_s = ranread_svg_drawable(chart->checkpoint_ended_s) ?
		Min(Max(chart->checkpoint_ended_s, chart->checkpoint_requested_s), span_s) : span_s;
	double		from = ranread_svg_axis_pixel(x, chart->checkpoint_requested_s, box->left, box->right);
	double		to = ranread_svg_axis_pixel(x, ended_s, box->left, box->right);

	/* at least a pixel wide: a fast checkpoint lasts a fraction of an interval */
	appendStringInfo(out, "<rect id=\"checkpoint\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
					 "fill=\"%s\" fill-opacity=\"0.4\"/>\n",
					 from, box->top, Max(1.0, to - from), box->bottom - box->top, COLOUR_CHECKPOINT);
}

/* Along the top of the plot, over each interval a checkpoint ran in: darker where one began or ended. */
static void
draw_checkpoint_marks(StringInfo out, const IntervalChart *chart, const Box *box, const Axis *x)
{
	appendStringInfoString(out, "<g id=\"checkpoints\">\n");
	for (int i = 0; i < chart->count; i++)
	{
		const RanreadInterval *interval = &chart->intervals[i];
		double		from;
		double		to;

		if (chart->marks[i] == CHECKPOINT_NONE || !ranread_svg_drawable(interval->start_s) ||
			!ranread_svg_drawable(interval->seconds))
			continue;
		from = ranread_svg_axis_pixel(x, interval->start_s, box->left, box->right);
		to = ranread_svg_axis_pixel(x, interval->start_s + interval->seconds, box->left, box->right);
		appendStringInfo(out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
						 chart->marks[i] == CHECKPOINT_RUNNING ? "checkpoint-running" : "checkpoint-began-or-ended",
						 from, box->top, Max(1.0, to - from), CHECKPOINT_STRIP,
						 chart->marks[i] == CHECKPOINT_RUNNING ? COLOUR_CHECKPOINT : COLOUR_CHECKPOINT_MARK);
	}
	appendStringInfoString(out, "</g>\n");
}

/* Seconds as a chart's note says them; "unknown" for a forged figure no batch has. */
static char *
seconds_text(double seconds)
{
	return isfinite(seconds) && fabs(seconds) < 1e9 ? psprintf("%.2f", seconds) : pstrdup("unknown");
}

/* Draw `chart` into `out`: IOPS on the left axis, latencies on the right, against seconds. */
static void
render(StringInfo out, const IntervalChart *chart, int width, int height)
{
	Legend		legend;
	Box			box;
	Axis		x;
	Axis		iops;
	Axis		latency;
	int			n;
	Point	   *points = points_of(chart, &n);
	bool		dropped = chart->dropped && ranread_svg_drawable(chart->drop.after_s);
	double		span_s = seconds_span(chart);
	bool		checkpoint = has_checkpoint_window(chart, span_s);

	ranread_svg_legend_init(&legend, width, ranread_svg_begin(out, width, height, chart->title, chart->subtitle));
	ranread_svg_legend_add(&legend, SWATCH_LINE, COLOUR_IOPS, "IOPS");
	ranread_svg_legend_add(&legend, SWATCH_LINE, COLOUR_MEAN, "mean latency");
	ranread_svg_legend_add(&legend, SWATCH_LINE, COLOUR_P99, "p99 latency");
	if (dropped)
		ranread_svg_legend_add(&legend, SWATCH_DASHED, COLOUR_DROP, "IOPS fell sharply (the throttle rule)");
	if (checkpoint)
		ranread_svg_legend_add(&legend, SWATCH_BAR, COLOUR_CHECKPOINT, "checkpoint (checkpoint => 'during')");
	if (chart->marked)
		ranread_svg_legend_add(&legend, SWATCH_BAR, COLOUR_CHECKPOINT_MARK, "a checkpoint began or ended (any)");
	box.top = ranread_svg_legend_end(out, &legend) + (dropped ? MARKER_ROW : 0);
	box.left = RANREAD_SVG_AXIS_MARGIN;
	box.right = width - RANREAD_SVG_AXIS_MARGIN;
	box.bottom = height - RANREAD_SVG_BOTTOM_MARGIN;

	x = ranread_svg_linear_axis(span_s, box.right - box.left);
	iops = ranread_svg_linear_axis(highest(points, n, false) * HEADROOM, box.bottom - box.top);
	latency = ranread_svg_linear_axis(highest(points, n, true) * HEADROOM, box.bottom - box.top);
	ranread_svg_draw_value_axis(out, &iops, &box, false, "IOPS");
	ranread_svg_draw_x_ticks(out, &x, &box);
	ranread_svg_draw_value_axis(out, &latency, &box, true, "latency (ms)");
	ranread_svg_draw_x_axis(out, &box, height, "seconds since counting began");
	if (checkpoint)
		draw_checkpoint_window(out, chart, &box, &x, span_s);
	if (chart->marked)
		draw_checkpoint_marks(out, chart, &box, &x);
	if (n < 2)
		/* a line needs two points: say why there is none */
		ranread_svg_text(out, (box.left + box.right) / 2.0, (box.top + box.bottom) / 2.0,
						 "class=\"note\" text-anchor=\"middle\"",
						 psprintf("one interval of %s s: too short to draw over time (its figures are in ranread_summary)",
								  seconds_text(chart->wall_s)));
	draw_line(out, points, n, &box, &x, &latency, 2, "p99", COLOUR_P99);
	draw_line(out, points, n, &box, &x, &latency, 1, "mean", COLOUR_MEAN);
	draw_line(out, points, n, &box, &x, &iops, 0, "iops", COLOUR_IOPS);
	if (dropped)
		draw_drop(out, chart, &box, &x, &iops, width);
	appendStringInfoString(out, "</svg>\n");
}

/*
 * The batch call->number over time, from its rows of ranread_intervals
 * (without a number, the latest batch that has any); false if there is no
 * such batch.
 */
static bool
draw_intervals(StringInfo out, const RanreadChartCall *call)
{
	IntervalChart chart = {0};

	chart.batch = *call->number;
	if (!read_batch(call->schema, &chart))
		return false;
	read_intervals(call->schema, &chart);
	read_checkpoint_window(call->schema, &chart);
	if (chart.count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("batch " INT64_FORMAT " has no interval to chart", chart.batch),
				 chart.processes == 0 ?
				 errdetail("It ran writers alone (processes 0): ranread_intervals holds reads, and it had none.") :
				 errdetail("Batches recorded by ranread 1.0 keep no rows in ranread_intervals.")));
	render(out, &chart, call->width, call->height);
	return true;
}

const RanreadChart ranread_chart_kind_intervals = {
	.name = "intervals",
	.numbered = true,
	.noun = "batch",
	.listed_in = "ranread_summary lists the batches recorded.",
	.latest_table = "ranread_intervals",
	.latest_column = "batch",
	.nothing = "no ranread batch has intervals to chart",
	.nothing_hint = "Run ranread_run() or CALL ranread_sweep() first.",
	.draw = draw_intervals,
};
