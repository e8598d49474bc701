/*-------------------------------------------------------------------------
 *
 * chart_sweep.c
 *		A sweep as a self-contained SVG chart, ranread_chart(): drawn the
 *		way InterSystems RanRead's spreadsheet template does, IOPS as bars
 *		and mean latency as a line against processes, with p99, the SLO's
 *		bounds, the highest IOPS within them, the knee (named for what it
 *		is: the efficiency point, not capacity) and the steps that do not
 *		count.  Without a sweep, the latest completed one with a step that
 *		counts; without any sweep, every batch in order.
 *
 * This file reads the data and lays the chart out; the drawing primitives
 * (escaped text, the title, axes, the legend) are svg.c's, the entry
 * chart.c's.  A chart names nothing outside itself: no fonts, images or
 * scripts.  Every text taken from the tables goes through svg.c's escaping,
 * so that the document is valid XML whatever the server's encoding.  What
 * counts in a sweep and where its knee is come from sweep_rules.c, as
 * ranread_sweeps shows them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "format.h"
#include "history/chart.h"
#include "history/svg.h"
#include "spi_columns.h"
#include "sweep/sweep_verdict.h"

/* Room above the highest latency (and the SLO's bounds), as a share of it. */
#define LATENCY_HEADROOM	1.1

/* Layout, in pixels. */
#define CATEGORY_SPACING	36	/* at least this many pixels per category label */
#define BAR_SHARE			0.6 /* of a category's width */
#define SMALL_FONT_SIZE		11	/* value labels, the SLO's and the markers' */
#define MARKER_ROW			15	/* a row of marker labels above the plot */
#define SLO_LABEL_GAP		4	/* between the latency axis's title and an SLO label */
#define MIN_SLO_LABEL_PLOT	240 /* the plot keeps this width, or the SLO labels go */

/* Room above the highest IOPS for the bars' value labels, as a share of it. */
#define IOPS_HEADROOM		1.12

#define COLOUR_IOPS			"#4e79a7"
#define COLOUR_MEAN			"#e15759"
#define COLOUR_P99			"#f28e2b"
#define COLOUR_KNEE			"#59a14f"
#define COLOUR_SLO_BEST		"#1d3557"
#define COLOUR_MUTED		"#666666"

/* A white outline under a label drawn over bars and lines, to keep it legible. */
#define HALO				"stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\""

/* What ranread_chart() draws: a sweep's steps, or every batch. */
typedef struct BarChart
{
	const char *title;
	const char *subtitle;		/* NULL: none */
	bool		of_sweep;
	bool		open_loop;		/* the x axis is the rate asked */
	bool		by_iodepth;		/* the x axis is the queue depth */
	bool		by_prefetch;	/* the x axis is the prefetch depth */
	int			count;
	RanreadSweepStep *steps;
	int64	   *batches;
	double		slo_mean_ms;	/* <= 0: none */
	double		slo_p99_ms;
	int			knee_step;		/* -1: none */
	int			slo_step;		/* the highest within the SLO; -1: none, or no SLO */
} BarChart;

/* The sweeps `sql` selects (one bigint column), newest first; *n gets how many. */
static int64 *
sweeps_of(const char *sql, int *n)
{
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the sweeps");
	return ranread_spi_int_column("sweep", n);
}

/*
 * The sweep ranread_chart() draws without one, into *sweep: the latest
 * completed sweep with a step that counts (by ranread_sweep_step_valid(),
 * as the verdict counts them); failing that, the latest sweep with a
 * recorded step, stopped or not.  False if no sweep has a step.
 */
static bool
latest_sweep(const char *schema, int64 *sweep)
{
	int			n;
	int64	   *completed = sweeps_of(psprintf("SELECT r.sweep FROM %s.ranread_sweep_runs r "
											   "WHERE r.status OPERATOR(pg_catalog.=) 'completed' ORDER BY r.sweep DESC",
											   schema), &n);
	int64	   *any;

	for (int i = 0; i < n; i++)
	{
		RanreadSweepRecord record;

		if (!ranread_sweep_read(completed[i], false, &record))
			continue;
		for (int step = 0; step < record.count; step++)
		{
			if (ranread_sweep_step_valid(&record.steps[step]))
			{
				*sweep = completed[i];
				return true;
			}
		}
	}
	any = sweeps_of(psprintf("SELECT r.sweep FROM %s.ranread_sweep_runs r WHERE EXISTS "
							 "(SELECT FROM %s.ranread_batches b WHERE b.sweep OPERATOR(pg_catalog.=) r.sweep) "
							 "ORDER BY r.sweep DESC LIMIT 1", schema, schema), &n);
	if (n == 0)
		return false;
	*sweep = any[0];
	return true;
}

/*
 * The sweep's title (its number, target, read path and block size) into
 * chart->title, and the subtitle (its devices and start) into
 * chart->subtitle.
 */
static void
sweep_title(const char *schema, int64 sweep, BarChart *chart)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(sweep)};
	HeapTuple	row;
	TupleDesc	desc;
	char	   *devices;
	int			block_size;

	if (SPI_execute_with_args(psprintf("SELECT r.target::pg_catalog.text AS target, r.mode, r.block_size, "
									   "pg_catalog.to_char(r.started_at, 'YYYY-MM-DD HH24:MI') AS started, "
									   "(SELECT pg_catalog.string_agg(DISTINCT b.device, ', ' ORDER BY b.device) "
									   "FROM %s.ranread_batches b WHERE b.sweep OPERATOR(pg_catalog.=) r.sweep) AS devices, "
									   "(SELECT pg_catalog.count(DISTINCT b.device) "
									   "FROM %s.ranread_batches b WHERE b.sweep OPERATOR(pg_catalog.=) r.sweep) AS ndevices "
									   "FROM %s.ranread_sweep_runs r WHERE r.sweep OPERATOR(pg_catalog.=) $1",
									   schema, schema, schema),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read sweep " INT64_FORMAT, sweep);
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	block_size = (int) ranread_spi_int_named(row, desc, "block_size", 0);
	devices = ranread_spi_text_named(row, desc, "devices", NULL);
	chart->title = psprintf("ranread sweep " INT64_FORMAT ": target \"%s\", %s, %s blocks",
							sweep, ranread_spi_text_named(row, desc, "target", ""),
							ranread_spi_text_named(row, desc, "mode", ""),
							block_size % 1024 == 0 ? psprintf("%d kB", block_size / 1024) :
							psprintf("%d-byte", block_size));
	chart->subtitle = psprintf("%s %s, %s",
							   ranread_spi_int_named(row, desc, "ndevices", 0) > 1 ? "devices" : "device",
							   devices ? devices : "unknown", ranread_spi_text_named(row, desc, "started", ""));
}

/* Sweep `sweep`'s steps, rules and verdict, into `chart`; false if there is no such sweep. */
static bool
read_sweep(const char *schema, int64 sweep, BarChart *chart)
{
	RanreadSweepRecord record;
	RanreadSweepVerdict verdict;

	if (!ranread_sweep_read(sweep, false, &record))
		return false;
	ranread_sweep_judge(record.steps, record.count, &record.rules, &verdict);
	sweep_title(schema, sweep, chart);
	chart->of_sweep = true;
	chart->open_loop = record.open_loop;
	chart->by_iodepth = record.rules.max_iodepth > 0;
	chart->by_prefetch = record.rules.max_prefetch > 0;
	chart->count = record.count;
	chart->steps = record.steps;
	chart->batches = record.batches;
	chart->slo_mean_ms = record.rules.slo_mean_ms;
	chart->slo_p99_ms = record.rules.slo_p99_ms;
	chart->knee_step = verdict.knee_step;
	chart->slo_step = -1;
	if (record.rules.slo_mean_ms > 0 || record.rules.slo_p99_ms > 0 || record.rules.slo_p999_ms > 0 ||
		record.rules.slo_max_ms > 0)
		chart->slo_step = verdict.slo_step;
	return true;
}

/*
 * Every batch, in order of load (processes, then batch: the x axis is the
 * processes, and batches in the order they ran would draw latency falling
 * as load grows whenever a larger batch ran first), into `chart`; false if
 * there is none.
 */
static bool
read_all_batches(const char *schema, BarChart *chart)
{
	if (SPI_execute(psprintf("SELECT batch, processes, iops, response_time_ms, p99_ms, physical_pct, status "
							 "FROM %s.ranread_batches ORDER BY processes, batch", schema),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_batches");
	chart->title = "ranread: all batches, by processes";
	chart->knee_step = -1;
	chart->slo_step = -1;
	chart->count = (int) SPI_processed;
	chart->steps = palloc0(sizeof(RanreadSweepStep) * Max(chart->count, 1));
	chart->batches = palloc0(sizeof(int64) * Max(chart->count, 1));
	for (int i = 0; i < chart->count; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		RanreadSweepStep *step = &chart->steps[i];
		char	   *status = ranread_spi_text_named(row, desc, "status", "");

		chart->batches[i] = ranread_spi_int_named(row, desc, "batch", 0);
		step->processes = (int) ranread_spi_int_named(row, desc, "processes", 0);
		step->iops = ranread_spi_float_named(row, desc, "iops", 0);
		step->mean_ms = ranread_spi_float_named(row, desc, "response_time_ms", 0);
		step->p99_ms = ranread_spi_float_named(row, desc, "p99_ms", 0);
		step->physical_pct = ranread_spi_float_named(row, desc, "physical_pct", -1);
		step->completed = strcmp(status, "completed") == 0;
		strlcpy(step->status, status, sizeof(step->status));
	}
	return chart->count > 0;
}

/*
 * A bar's place on the x axis: its processes, its queue depth, or the rate
 * asked, in the unit of the highest rate.
 */
static char *
category_label(const BarChart *chart, int i)
{
	if (chart->open_loop)
	{
		double		highest = 0;

		for (int j = 0; j < chart->count; j++)
			highest = Max(highest, chart->steps[j].rate_iops);
		return ranread_svg_number_in_scale(chart->steps[i].rate_iops, highest);
	}
	if (chart->by_iodepth)
		return psprintf("%d", chart->steps[i].iodepth);
	if (chart->by_prefetch)
		return psprintf("%d", chart->steps[i].prefetch);
	return psprintf("%d", chart->steps[i].processes);
}

/* A bar's tooltip: the step's numbers, and why it does not count if it does not. */
static char *
bar_tooltip(const BarChart *chart, int i)
{
	const RanreadSweepStep *step = &chart->steps[i];
	StringInfoData out;

	initStringInfo(&out);
	if (chart->of_sweep)
		appendStringInfo(&out, "step %d, ", i + 1);
	appendStringInfo(&out, "batch " INT64_FORMAT ": %s, ", chart->batches[i],
					 ranread_chart_processes_text(step->processes, step->iodepth));
	if (chart->by_prefetch)
		appendStringInfo(&out, "prefetch %d, ", step->prefetch);
	if (chart->open_loop)
		appendStringInfo(&out, "%s reads/s asked, ", ranread_format_rate(step->rate_iops));
	appendStringInfo(&out, "%s IOPS, mean %s ms, p99 %s ms", ranread_format_rate(step->iops),
					 ranread_format_ms(step->mean_ms), ranread_format_ms(step->p99_ms));
	if (step->physical_pct >= 0)
		appendStringInfo(&out, ", device answered %.1f%%", step->physical_pct);
	if (!step->completed)
		appendStringInfo(&out, "; %s, not counted", step->status);
	else if (!ranread_sweep_step_valid(step))
		appendStringInfoString(&out, "; memory answered, not counted");
	return out.data;
}

/* The x of bar `i`'s middle. */
static double
bar_middle(const BarChart *chart, const Box *box, int i)
{
	return box->left + (box->right - box->left) * (i + 0.5) / chart->count;
}

/*
 * The bars (IOPS, hatched grey and labelled "not counted" when the step
 * does not count; the highest within the SLO outlined), each with its IOPS
 * above it where the label fits the bar's band, and their labels on the x
 * axis, as many as fit.
 */
static void
draw_bars(StringInfo out, const BarChart *chart, const Box *box, const Axis *iops)
{
	double		band = (box->right - box->left) / chart->count;
	int			label_every = (int) ceil(CATEGORY_SPACING / band);

	for (int i = 0; i < chart->count; i++)
	{
		const RanreadSweepStep *step = &chart->steps[i];
		bool		counted = ranread_sweep_step_valid(step);
		bool		slo_best = i == chart->slo_step;
		double		middle = bar_middle(chart, box, i);
		double		top = ranread_svg_axis_pixel(iops, step->iops, box->bottom, box->top);
		char	   *value = ranread_svg_short_number(step->iops);

		appendStringInfo(out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
						 "fill=\"%s\"%s><title>",
						 counted ? (slo_best ? "bar slo-best" : "bar") : "bar not-counted",
						 middle - band * BAR_SHARE / 2, top, band * BAR_SHARE, box->bottom - top,
						 counted ? COLOUR_IOPS : "url(#hatch)",
						 !counted ? " stroke=\"#999999\"" :
						 slo_best ? " stroke=\"" COLOUR_SLO_BEST "\" stroke-width=\"2.5\"" : "");
		ranread_svg_append_escaped(out, bar_tooltip(chart, i));
		appendStringInfoString(out, "</title></rect>\n");
		if (ranread_svg_text_width(value, SMALL_FONT_SIZE) <= band - 2)
			ranread_svg_text(out, middle, top - 4,
							 psprintf("class=\"value\" text-anchor=\"middle\" font-size=\"%d\" fill=\"%s\"",
									  SMALL_FONT_SIZE, counted ? COLOUR_IOPS : COLOUR_MUTED),
							 value);
		if (!counted)
			ranread_svg_text(out, middle + RANREAD_SVG_FONT_SIZE / 3.0, box->bottom - 4,
							 psprintf("class=\"not-counted\" text-anchor=\"start\" font-size=\"11\" %s "
									  "transform=\"rotate(-90 %.1f %.1f)\"", HALO,
									  middle + RANREAD_SVG_FONT_SIZE / 3.0, box->bottom - 4),
							 "not counted");
		if (i % label_every == 0)
			ranread_svg_text(out, middle, box->bottom + RANREAD_SVG_FONT_SIZE + 4,
							 "class=\"category\" text-anchor=\"middle\"", category_label(chart, i));
	}
}

/*
 * A latency line (mean or p99) through the steps that count, broken where
 * a step does not; a dot at each step, hollow where it does not count.
 */
static void
draw_latency_line(StringInfo out, const BarChart *chart, const Box *box, const Axis *latency,
				  bool p99, const char *colour)
{
	StringInfoData path;
	bool		joined = false;

	initStringInfo(&path);
	for (int i = 0; i < chart->count; i++)
	{
		const RanreadSweepStep *step = &chart->steps[i];
		bool		counted = ranread_sweep_step_valid(step);
		double		x = bar_middle(chart, box, i);
		double		y = ranread_svg_axis_pixel(latency, p99 ? step->p99_ms : step->mean_ms,
											   box->bottom, box->top);

		if (counted)
			appendStringInfo(&path, "%s%.1f %.1f ", joined ? "L" : "M", x, y);
		joined = counted;
		appendStringInfo(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
						 x, y, counted ? colour : "#ffffff", colour);
	}
	if (path.len > 0)
		appendStringInfo(out, "<path class=\"%s\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
						 p99 ? "p99" : "mean", path.data, colour);
}

/* An SLO bound's label, and the width it needs in the chart's right margin. */
static char *
slo_label(const char *name, double bound_ms)
{
	return psprintf("SLO %s %g ms", name, bound_ms);
}

/*
 * The width the SLO labels need right of the latency axis's title, or 0
 * when the chart has no SLO, or is too narrow to give it and keep
 * MIN_SLO_LABEL_PLOT for the plot (the legend names the bounds either way).
 */
static double
slo_label_room(const BarChart *chart, int width)
{
	double		room = 0;

	if (chart->slo_mean_ms > 0)
		room = Max(room, ranread_svg_text_width(slo_label("mean", chart->slo_mean_ms), SMALL_FONT_SIZE));
	if (chart->slo_p99_ms > 0)
		room = Max(room, ranread_svg_text_width(slo_label("p99", chart->slo_p99_ms), SMALL_FONT_SIZE));
	if (room == 0)
		return 0;
	room += SLO_LABEL_GAP + 4;
	if (width - 2 * RANREAD_SVG_AXIS_MARGIN - room < MIN_SLO_LABEL_PLOT)
		return 0;
	return room;
}

/*
 * A dashed line across the plot at an SLO bound, named at `label_y` in the
 * right margin, past the latency axis's ticks and title (when `labelled`),
 * so that the name never covers a bar.
 */
static void
draw_slo(StringInfo out, const Box *box, double y, double label_y, bool labelled, double bound_ms,
		 const char *name, const char *colour)
{
	appendStringInfo(out, "<g class=\"slo\" id=\"slo-%s\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					 "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
					 name, box->left, y, box->right, y, colour);
	if (labelled)
		ranread_svg_text(out, box->right + RANREAD_SVG_AXIS_MARGIN + SLO_LABEL_GAP, label_y + SMALL_FONT_SIZE / 3.0,
						 psprintf("class=\"slo-label\" text-anchor=\"start\" font-size=\"%d\" fill=\"%s\"",
								  SMALL_FONT_SIZE, colour),
						 slo_label(name, bound_ms));
	appendStringInfoString(out, "</g>\n");
}

/* Both SLO lines, their labels kept a row apart when the bounds lie close. */
static void
draw_slos(StringInfo out, const BarChart *chart, const Box *box, const Axis *latency, bool labelled)
{
	double		mean_y = ranread_svg_axis_pixel(latency, chart->slo_mean_ms, box->bottom, box->top);
	double		p99_y = ranread_svg_axis_pixel(latency, chart->slo_p99_ms, box->bottom, box->top);
	double		mean_label_y = mean_y;
	double		p99_label_y = p99_y;

	if (chart->slo_mean_ms > 0 && chart->slo_p99_ms > 0 && fabs(mean_y - p99_y) < SMALL_FONT_SIZE + 2)
	{
		double		middle = (mean_y + p99_y) / 2;
		double		half = (SMALL_FONT_SIZE + 2) / 2.0;

		/* the p99 bound is the higher one, drawn above */
		p99_label_y = middle - half;
		mean_label_y = middle + half;
	}
	if (chart->slo_mean_ms > 0)
		draw_slo(out, box, mean_y, mean_label_y, labelled, chart->slo_mean_ms, "mean", COLOUR_MEAN);
	if (chart->slo_p99_ms > 0)
		draw_slo(out, box, p99_y, p99_label_y, labelled, chart->slo_p99_ms, "p99", COLOUR_P99);
}

/*
 * A marker's label in a row of the strip above the plot (row 0 just above
 * it), beginning at `x`; or ending there if it would pass the plot's right
 * edge (and the latency axis's labels); or, on a chart too narrow for
 * either, as far left as it fits.
 */
static void
marker_label(StringInfo out, const Box *box, double x, int row, const char *attributes, const char *text)
{
	double		y = box->top - 4 - row * MARKER_ROW;
	double		text_width = ranread_svg_text_width(text, SMALL_FONT_SIZE);
	double		start = x + 4;

	if (start + text_width > box->right)
		start = x - 4 - text_width;
	if (start < 4)
		start = Max(4, box->right - text_width);
	ranread_svg_text(out, start, y,
					 psprintf("%s text-anchor=\"start\" font-size=\"%d\"", attributes, SMALL_FONT_SIZE), text);
}

/*
 * A dotted line up through the knee step, and above the plot what the knee
 * is: the efficiency point, not the most the storage can do.
 */
static void
draw_knee(StringInfo out, const BarChart *chart, const Box *box)
{
	double		x = bar_middle(chart, box, chart->knee_step);
	double		top = box->top - (chart->slo_step >= 0 ? 2 : 1) * MARKER_ROW;

	appendStringInfo(out, "<g id=\"knee\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
					 "stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n",
					 x, top, x, box->bottom, COLOUR_KNEE);
	marker_label(out, box, x, chart->slo_step >= 0 ? 1 : 0,
				 psprintf("class=\"knee-label\" fill=\"%s\"", COLOUR_KNEE),
				 "knee: most IOPS per ms of mean latency");
	appendStringInfoString(out, "</g>\n");
}

/*
 * Above the bar of the highest IOPS within the SLO, the verdict's headline
 * figure: a triangle pointing at it, and what it is.
 */
static void
draw_slo_best(StringInfo out, const BarChart *chart, const Box *box)
{
	double		x = bar_middle(chart, box, chart->slo_step);
	double		y = box->top - 2;

	appendStringInfo(out, "<g id=\"slo-best\">\n<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>\n",
					 x - 5, y - 8, x + 5, y - 8, x, y, COLOUR_SLO_BEST);
	marker_label(out, box, x + 3, 0, psprintf("class=\"slo-best-label\" fill=\"%s\" font-weight=\"bold\"",
													 COLOUR_SLO_BEST),
				 psprintf("highest within SLO: %s IOPS", ranread_svg_short_number(chart->steps[chart->slo_step].iops)));
	appendStringInfoString(out, "</g>\n");
}

/* The highest latency the latency axis must show: every step's, and the SLO's bounds. */
static double
latency_axis_max(const BarChart *chart)
{
	double		max = Max(chart->slo_mean_ms, chart->slo_p99_ms);

	for (int i = 0; i < chart->count; i++)
		max = Max(max, Max(chart->steps[i].mean_ms, chart->steps[i].p99_ms));
	return max;
}

/* The legend of a bar chart, under `top`: only what it shows.  Returns the y below it. */
static double
bar_chart_legend(StringInfo out, const BarChart *chart, int width, double top)
{
	Legend		legend;
	bool		any_not_counted = false;

	for (int i = 0; i < chart->count; i++)
		any_not_counted |= !ranread_sweep_step_valid(&chart->steps[i]);
	ranread_svg_legend_init(&legend, width, top);
	ranread_svg_legend_add(&legend, SWATCH_BAR, COLOUR_IOPS, "IOPS");
	if (any_not_counted)
		ranread_svg_legend_add(&legend, SWATCH_HATCHED, NULL, "not counted");
	ranread_svg_legend_add(&legend, SWATCH_LINE, COLOUR_MEAN, "mean latency");
	ranread_svg_legend_add(&legend, SWATCH_LINE, COLOUR_P99, "p99 latency");
	if (chart->slo_mean_ms > 0)
		ranread_svg_legend_add(&legend, SWATCH_DASHED, COLOUR_MEAN,
							   psprintf("SLO mean <= %g ms", chart->slo_mean_ms));
	if (chart->slo_p99_ms > 0)
		ranread_svg_legend_add(&legend, SWATCH_DASHED, COLOUR_P99,
							   psprintf("SLO p99 <= %g ms", chart->slo_p99_ms));
	if (chart->knee_step >= 0)
		ranread_svg_legend_add(&legend, SWATCH_DASHED, COLOUR_KNEE, "knee");
	return ranread_svg_legend_end(out, &legend);
}

/*
 * Draw `chart` into `out`: IOPS bars on the left axis, latencies on the
 * right, the SLO's labels in the margin right of the latency axis, and the
 * markers' labels (the highest within the SLO, the knee) in rows between
 * the legend and the plot.
 */
static void
render_bar_chart(StringInfo out, const BarChart *chart, int width, int height)
{
	Box			box;
	Axis		iops;
	Axis		latency;
	double		max_iops = 0;
	double		slo_room = slo_label_room(chart, width);
	int			marker_rows = (chart->knee_step >= 0) + (chart->slo_step >= 0);
	double		top = ranread_svg_begin(out, width, height, chart->title, chart->subtitle);

	appendStringInfoString(out, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
						   "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#dddddd\"/>"
						   "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" stroke-width=\"2\"/>"
						   "</pattern></defs>\n");
	box.top = bar_chart_legend(out, chart, width, top) + marker_rows * MARKER_ROW;
	box.left = RANREAD_SVG_AXIS_MARGIN;
	box.right = width - RANREAD_SVG_AXIS_MARGIN - slo_room;
	box.bottom = height - RANREAD_SVG_BOTTOM_MARGIN;

	for (int i = 0; i < chart->count; i++)
		max_iops = Max(max_iops, chart->steps[i].iops);
	iops = ranread_svg_linear_axis(max_iops * IOPS_HEADROOM, box.bottom - box.top);
	latency = ranread_svg_linear_axis(latency_axis_max(chart) * LATENCY_HEADROOM, box.bottom - box.top);
	ranread_svg_draw_value_axis(out, &iops, &box, false, "IOPS");
	draw_bars(out, chart, &box, &iops);
	ranread_svg_draw_value_axis(out, &latency, &box, true, "latency (ms)");
	ranread_svg_draw_x_axis(out, &box, height, chart->open_loop ? "rate asked (reads/s)" :
							chart->by_iodepth ? "queue depth (reads in flight per process)" :
							chart->by_prefetch ? "prefetch (units advised ahead of each read)" : "processes");
	draw_slos(out, chart, &box, &latency, slo_room > 0);
	draw_latency_line(out, chart, &box, &latency, false, COLOUR_MEAN);
	draw_latency_line(out, chart, &box, &latency, true, COLOUR_P99);
	if (chart->slo_step >= 0)
		draw_slo_best(out, chart, &box);
	if (chart->knee_step >= 0)
		draw_knee(out, chart, &box);
	appendStringInfoString(out, "</svg>\n");
}

/*
 * The sweep call->number (the latest with a step that counts, latest_sweep(),
 * when none is given), or without any sweep every batch in order.
 */
static bool
draw_sweep(StringInfo out, const RanreadChartCall *call)
{
	BarChart	chart = {0};

	if (call->number == NULL)
	{
		if (!read_all_batches(call->schema, &chart))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("no ranread batch to chart"),
					 errhint("Run ranread_run() or CALL ranread_sweep() first.")));
	}
	else
	{
		if (!read_sweep(call->schema, *call->number, &chart))
			return false;
		if (chart.count == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sweep " INT64_FORMAT " has no step to chart", *call->number),
					 errdetail("A sweep records each step when the step ends.")));
	}
	render_bar_chart(out, &chart, call->width, call->height);
	return true;
}

const RanreadChart ranread_chart_kind_sweep = {
	.name = "sweep",
	.numbered = true,
	.noun = "sweep",
	.listed_in = "The view ranread_sweeps lists the sweeps recorded.",
	.latest = latest_sweep,
	.draw = draw_sweep,
};
