/*-------------------------------------------------------------------------
 *
 * chart_fleet.c
 *		A fleet sweep as a self-contained SVG chart: ranread_chart_fleet()
 *		draws each step's IOPS as a bar stacked from its servers' IOPS, one
 *		colour a server, and the fleet's p99 and mean latency (of the merged
 *		histograms) as lines on a right-hand ms axis, against the processes
 *		per server; a step that did not complete is labelled with how it
 *		ended.
 *
 * The data are ranread_fleet_runs (a row per step) and ranread_fleet_servers
 * (a row per step and server), as ranread_fleet_sweep() recorded them; the
 * drawing primitives are svg.c's, the entry chart.c's.  Values that are
 * not numbers (a server that failed has no IOPS) are drawn as nothing.  The
 * rows are read as untrusted (roles that run fleets may write them): a
 * sweep of more steps, or a first step naming more servers, than a chart
 * draws is refused, so the chart's size never depends on their product.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "history/chart.h"
#include "format.h"
#include "spi_columns.h"
#include "history/svg.h"

/* What one chart draws at most: ranread_fleet_run()'s servers, a bar a pixel wide at the widest. */
#define MAX_SERVERS			64
#define MAX_STEPS			4096

/* Layout, in pixels and shares. */
#define SMALL_FONT_SIZE		11
#define BAR_SHARE			0.6 /* of a step's width */
#define CATEGORY_SPACING	36	/* at least this many pixels per category label */
#define IOPS_HEADROOM		1.12
#define LATENCY_HEADROOM	1.1

#define COLOUR_MEAN			"#f28e2b"
#define COLOUR_P99			"#e15759"
#define COLOUR_MUTED		"#666666"

/* Keeps a label readable where a line crosses it. */
#define HALO				"stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\""

/* One colour a server, in the order the sweep names them; more servers reuse them. */
static const char *const server_colours[] = {
	"#4e79a7", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
	"#9c755f", "#bab0ac", "#a0cbe8", "#8cd17d", "#d4a6c8"
};

/* A fleet sweep's steps and, for each, its servers' IOPS. */
typedef struct FleetChart
{
	int64		sweep;
	char	   *title;
	char	   *subtitle;
	int			steps;
	int			servers;
	char	  **server_names;	/* [servers] */
	int64	   *fleets;			/* [steps] */
	int		   *processes;		/* [steps] */
	char	  **status;			/* [steps] */
	double	   *iops;			/* [steps] the fleet's; < 0: none */
	double	   *mean_ms;		/* [steps] */
	double	   *p99_ms;			/* [steps] */
	double	   *server_iops;	/* [steps * servers], by cell(); < 0: none */
	char	  **server_status;	/* [steps * servers], by cell() */
} FleetChart;

/* The index of step `i`'s server `j` in the per-server arrays. */
static inline Size
cell(const FleetChart *chart, int i, int j)
{
	return (Size) i * chart->servers + j;
}

/*
 * The servers the first step names, into `chart`: a one-dimensional array
 * of at most MAX_SERVERS names, a NULL element named "?".
 */
static void
read_server_names(FleetChart *chart, ArrayType *servers, int64 fleet)
{
	Datum	   *names;
	bool	   *nulls;

	if (ARR_NDIM(servers) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fleet run " INT64_FORMAT " in ranread_fleet_runs has a %d-dimensional servers array",
						fleet, ARR_NDIM(servers)),
				 errdetail("A fleet run names its servers in a one-dimensional array.")));
	if (ArrayGetNItems(ARR_NDIM(servers), ARR_DIMS(servers)) > MAX_SERVERS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fleet run " INT64_FORMAT " in ranread_fleet_runs names %d servers", fleet,
						ArrayGetNItems(ARR_NDIM(servers), ARR_DIMS(servers))),
				 errdetail("A fleet chart draws at most %d servers, as many as ranread_fleet_run() runs.",
						   MAX_SERVERS)));
	deconstruct_array(servers, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR, &names, &nulls, &chart->servers);
	chart->server_names = palloc(sizeof(char *) * Max(1, chart->servers));
	for (int j = 0; j < chart->servers; j++)
		chart->server_names[j] = nulls[j] ? "?" : pstrdup(NameStr(*DatumGetName(names[j])));
}

/* The sweep's steps, in order, its servers and its title; false if it has no step. */
static bool
read_steps(const char *schema, FleetChart *chart)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(chart->sweep)};
	HeapTuple	first;
	TupleDesc	desc;
	bool		isnull;
	Datum		servers;

	if (SPI_execute_with_args(psprintf("SELECT fleet, processes, status, iops, mean_ms, p99_ms, servers, "
									   "target::pg_catalog.text AS target, mode, "
									   "pg_catalog.to_char(started_at, 'YYYY-MM-DD HH24:MI') AS started "
									   "FROM %s.ranread_fleet_runs WHERE fleet_sweep OPERATOR(pg_catalog.=) $1 "
									   "ORDER BY sweep_step", schema),
							  1, types, values, NULL, true, MAX_STEPS + 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read fleet sweep " INT64_FORMAT, chart->sweep);
	if (SPI_processed > MAX_STEPS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fleet sweep " INT64_FORMAT " in ranread_fleet_runs has more than %d steps",
						chart->sweep, MAX_STEPS),
				 errdetail("A fleet chart draws at most %d steps.", MAX_STEPS)));
	chart->steps = (int) SPI_processed;
	if (chart->steps == 0)
		return false;
	desc = SPI_tuptable->tupdesc;
	first = SPI_tuptable->vals[0];
	servers = ranread_spi_datum_named(first, desc, "servers", &isnull);
	read_server_names(chart, DatumGetArrayTypeP(servers), ranread_spi_int_named(first, desc, "fleet", 0));
	chart->title = psprintf("ranread fleet sweep " INT64_FORMAT ": %d server%s, target \"%s\", %s",
							chart->sweep, chart->servers, chart->servers == 1 ? "" : "s",
							ranread_spi_text_named(first, desc, "target", ""),
							ranread_spi_text_named(first, desc, "mode", ""));
	chart->subtitle = psprintf("IOPS stacked by server, the fleet's latency from the merged histograms, %s",
							   ranread_spi_text_named(first, desc, "started", ""));

	chart->fleets = palloc(sizeof(int64) * chart->steps);
	chart->processes = palloc(sizeof(int) * chart->steps);
	chart->status = palloc(sizeof(char *) * chart->steps);
	chart->iops = palloc(sizeof(double) * chart->steps);
	chart->mean_ms = palloc(sizeof(double) * chart->steps);
	chart->p99_ms = palloc(sizeof(double) * chart->steps);
	for (int i = 0; i < chart->steps; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];

		chart->fleets[i] = ranread_spi_int_named(row, desc, "fleet", 0);
		chart->processes[i] = (int) ranread_spi_int_named(row, desc, "processes", 0);
		chart->status[i] = ranread_spi_text_named(row, desc, "status", "");
		chart->iops[i] = ranread_spi_float_named(row, desc, "iops", -1);
		chart->mean_ms[i] = ranread_spi_float_named(row, desc, "mean_ms", -1);
		chart->p99_ms[i] = ranread_spi_float_named(row, desc, "p99_ms", -1);
	}
	return true;
}

/* Each step's servers' IOPS and status, in the order the sweep names the servers. */
static void
read_servers(const char *schema, FleetChart *chart)
{
	Size		cells = (Size) chart->steps * Max(1, chart->servers);

	chart->server_iops = palloc(sizeof(double) * cells);
	chart->server_status = palloc(sizeof(char *) * cells);
	for (Size c = 0; c < cells; c++)
	{
		chart->server_iops[c] = -1;
		chart->server_status[c] = "missing";
	}
	for (int i = 0; i < chart->steps; i++)
	{
		Oid			types[1] = {INT8OID};
		Datum		values[1] = {Int64GetDatum(chart->fleets[i])};

		if (SPI_execute_with_args(psprintf("SELECT server::pg_catalog.text AS server, iops, status FROM %s.ranread_fleet_servers "
										   "WHERE fleet OPERATOR(pg_catalog.=) $1", schema),
								  1, types, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not read the servers of fleet run " INT64_FORMAT, chart->fleets[i]);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	row = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			char	   *server = ranread_spi_text_named(row, desc, "server", "");

			for (int j = 0; j < chart->servers; j++)
			{
				if (strcmp(server, chart->server_names[j]) != 0)
					continue;
				chart->server_iops[cell(chart, i, j)] = ranread_spi_float_named(row, desc, "iops", -1);
				chart->server_status[cell(chart, i, j)] = ranread_spi_text_named(row, desc, "status", "");
			}
		}
	}
}

/* The x of step `i`'s middle. */
static double
step_middle(const FleetChart *chart, const Box *box, int i)
{
	return box->left + (box->right - box->left) * (i + 0.5) / chart->steps;
}

/* The top of step `i`'s bar: its servers' IOPS summed. */
static double
stacked_iops(const FleetChart *chart, int i)
{
	double		sum = 0;

	for (int j = 0; j < chart->servers; j++)
	{
		if (ranread_svg_drawable(chart->server_iops[cell(chart, i, j)]))
			sum += chart->server_iops[cell(chart, i, j)];
	}
	return sum;
}

/* The height the bars reach, or the fleet's IOPS if higher. */
static double
highest_iops(const FleetChart *chart)
{
	double		max = 0;

	for (int i = 0; i < chart->steps; i++)
	{
		max = Max(max, stacked_iops(chart, i));
		if (ranread_svg_drawable(chart->iops[i]))
			max = Max(max, chart->iops[i]);
	}
	return max;
}

static double
highest_latency(const FleetChart *chart)
{
	double		max = 0;

	for (int i = 0; i < chart->steps; i++)
	{
		if (ranread_svg_drawable(chart->mean_ms[i]))
			max = Max(max, chart->mean_ms[i]);
		if (ranread_svg_drawable(chart->p99_ms[i]))
			max = Max(max, chart->p99_ms[i]);
	}
	return max;
}

/*
 * Each step's bar, its servers' IOPS stacked in the sweep's order (each
 * part's tooltip says whose and how it ended), how the step ended inside it
 * when it did not complete, and the processes per server under it, as many
 * as fit.
 */
static void
draw_stacked_bars(StringInfo out, const FleetChart *chart, const Box *box, const Axis *iops)
{
	double		band = (box->right - box->left) / chart->steps;
	int			label_every = (int) ceil(CATEGORY_SPACING / band);

	for (int i = 0; i < chart->steps; i++)
	{
		double		middle = step_middle(chart, box, i);
		double		stacked = 0;

		for (int j = 0; j < chart->servers; j++)
		{
			double		server_iops = chart->server_iops[cell(chart, i, j)];
			double		low;
			double		high;

			if (!ranread_svg_drawable(server_iops))
				continue;
			low = ranread_svg_axis_pixel(iops, stacked, box->bottom, box->top);
			stacked += server_iops;
			high = ranread_svg_axis_pixel(iops, stacked, box->bottom, box->top);
			appendStringInfo(out, "<rect class=\"server-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
							 "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>",
							 middle - band * BAR_SHARE / 2, high, band * BAR_SHARE, low - high,
							 server_colours[j % lengthof(server_colours)]);
			ranread_svg_append_escaped(out, psprintf("step %d, fleet run " INT64_FORMAT ", %s: %s IOPS, %s",
													 i + 1, chart->fleets[i], chart->server_names[j],
													 ranread_format_rate(server_iops),
													 chart->server_status[cell(chart, i, j)]));
			appendStringInfoString(out, "</title></rect>\n");
		}
		if (strcmp(chart->status[i], "completed") != 0)
			ranread_svg_text(out, middle + RANREAD_SVG_FONT_SIZE / 3.0, box->bottom - 4,
							 psprintf("class=\"status\" text-anchor=\"start\" font-size=\"%d\" "
									  "transform=\"rotate(-90 %.1f %.1f)\"", SMALL_FONT_SIZE,
									  middle + RANREAD_SVG_FONT_SIZE / 3.0, box->bottom - 4),
							 chart->status[i]);
		if (i % label_every == 0)
			ranread_svg_text(out, middle, box->bottom + RANREAD_SVG_FONT_SIZE + 4,
							 "class=\"category\" text-anchor=\"middle\"", psprintf("%d", chart->processes[i]));
	}
}

/*
 * Each step's fleet IOPS over its bar where the label fits the step's width,
 * haloed: drawn last, over the latency lines.
 */
static void
draw_totals(StringInfo out, const FleetChart *chart, const Box *box, const Axis *iops)
{
	double		band = (box->right - box->left) / chart->steps;

	for (int i = 0; i < chart->steps; i++)
	{
		char	   *value;

		if (!ranread_svg_drawable(chart->iops[i]))
			continue;
		value = ranread_svg_short_number(chart->iops[i]);
		if (ranread_svg_text_width(value, SMALL_FONT_SIZE) <= band - 2)
			ranread_svg_text(out, step_middle(chart, box, i),
							 ranread_svg_axis_pixel(iops, stacked_iops(chart, i), box->bottom, box->top) - 4,
							 psprintf("class=\"value\" text-anchor=\"middle\" font-size=\"%d\" fill=\"%s\" %s",
									  SMALL_FONT_SIZE, COLOUR_MUTED, HALO),
							 value);
	}
}

/* The fleet's p99 (or mean) through the steps that have one, a dot at each. */
static void
draw_latency_line(StringInfo out, const FleetChart *chart, const Box *box, const Axis *latency, bool p99)
{
	const char *colour = p99 ? COLOUR_P99 : COLOUR_MEAN;
	StringInfoData path;
	bool		joined = false;

	initStringInfo(&path);
	for (int i = 0; i < chart->steps; i++)
	{
		double		value = p99 ? chart->p99_ms[i] : chart->mean_ms[i];
		double		x = step_middle(chart, box, i);
		double		y;

		if (!ranread_svg_drawable(value))
		{
			joined = false;
			continue;
		}
		y = ranread_svg_axis_pixel(latency, value, box->bottom, box->top);
		appendStringInfo(&path, "%s%.1f %.1f ", joined ? "L" : "M", x, y);
		joined = true;
		appendStringInfo(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", x, y, colour);
		ranread_svg_append_escaped(out, psprintf("step %d, fleet run " INT64_FORMAT ": %s %s ms", i + 1,
												 chart->fleets[i], p99 ? "p99" : "mean",
												 ranread_format_ms(value)));
		appendStringInfoString(out, "</title></circle>\n");
	}
	if (path.len > 0)
		appendStringInfo(out, "<path class=\"%s\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
						 p99 ? "p99" : "mean", path.data, colour, p99 ? "" : " stroke-dasharray=\"6 3\"");
}

/* Draw `chart` into `out`: stacked IOPS on the left axis, the fleet's latency on the right. */
static void
render(StringInfo out, const FleetChart *chart, int width, int height)
{
	Legend		legend;
	Box			box;
	Axis		iops;
	Axis		latency;

	ranread_svg_legend_init(&legend, width, ranread_svg_begin(out, width, height, chart->title, chart->subtitle));
	for (int j = 0; j < chart->servers; j++)
		ranread_svg_legend_add(&legend, SWATCH_BAR, server_colours[j % lengthof(server_colours)],
							   chart->server_names[j]);
	ranread_svg_legend_add(&legend, SWATCH_LINE, COLOUR_P99, "fleet p99 latency");
	ranread_svg_legend_add(&legend, SWATCH_DASHED, COLOUR_MEAN, "fleet mean latency");
	box.top = ranread_svg_legend_end(out, &legend) + RANREAD_SVG_FONT_SIZE;
	box.left = RANREAD_SVG_AXIS_MARGIN;
	box.right = width - RANREAD_SVG_AXIS_MARGIN;
	box.bottom = height - RANREAD_SVG_BOTTOM_MARGIN;

	iops = ranread_svg_linear_axis(highest_iops(chart) * IOPS_HEADROOM, box.bottom - box.top);
	latency = ranread_svg_linear_axis(highest_latency(chart) * LATENCY_HEADROOM, box.bottom - box.top);
	ranread_svg_draw_value_axis(out, &iops, &box, false, "IOPS");
	draw_stacked_bars(out, chart, &box, &iops);
	ranread_svg_draw_value_axis(out, &latency, &box, true, "latency (ms)");
	ranread_svg_draw_x_axis(out, &box, height, "processes per server");
	draw_latency_line(out, chart, &box, &latency, false);
	draw_latency_line(out, chart, &box, &latency, true);
	draw_totals(out, chart, &box, &iops);
	appendStringInfoString(out, "</svg>\n");
}

/*
 * The fleet sweep call->number (without a number, the latest); false if it
 * has no step.
 */
static bool
draw_fleet(StringInfo out, const RanreadChartCall *call)
{
	FleetChart	chart = {0};

	chart.sweep = *call->number;
	if (!read_steps(call->schema, &chart))
		return false;
	read_servers(call->schema, &chart);
	render(out, &chart, call->width, call->height);
	return true;
}

const RanreadChart ranread_chart_kind_fleet = {
	.name = "fleet",
	.numbered = true,
	.noun = "fleet sweep",
	.listed_in = "The view ranread_fleet_summary lists the fleet sweeps recorded.",
	.latest_table = "ranread_fleet_runs",
	.latest_column = "fleet_sweep",
	.nothing = "no fleet sweep to chart",
	.nothing_hint = "Run CALL ranread_fleet_sweep() first.",
	.draw = draw_fleet,
};
