/*-------------------------------------------------------------------------
 *
 * chart_latency.c
 *		The latency distribution of batches as a self-contained SVG chart,
 *		ranread_chart_latency(VARIADIC batches bigint[]): one percentile
 *		curve per batch, up to MAX_CURVES, from its stored histogram, the
 *		tail drawn out on a log scale.  The drawing primitives are svg.c's,
 *		the entry chart.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "history/chart.h"
#include "history/svg.h"
#include "spi_columns.h"
#include "stats/history_checks.h"
#include "sweep/sweep_verdict.h"

/* ranread_chart_latency()'s size, and the curves it draws at most. */
#define LATENCY_CHART_WIDTH		960
#define LATENCY_CHART_HEIGHT	540
#define MAX_CURVES				8

/* Points along each percentile curve. */
#define CURVE_POINTS		240

/* The percentile axis goes at least to 99.99 % (10^4 in 1/(1 - p)). */
#define MIN_PERCENTILE_DECADES	4

static const char *const curve_colours[MAX_CURVES] = {
	"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#9c755f", "#17becf"
};

/* One curve of ranread_chart_latency(): latency at 1/(1 - p) = 10^x. */
typedef struct Curve
{
	char	   *label;
	double		decades;		/* log10 of its reads: the x of its last point */
	double		ms[CURVE_POINTS];
} Curve;

/* The batch numbers of ranread_chart_latency()'s array, checked; *n gets how many. */
static int64 *
latency_batches(FunctionCallInfo fcinfo, int *n)
{
	ArrayType  *array;
	Datum	   *elements;
	bool	   *nulls;
	int64	   *batches;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("batches must not be null")));
	array = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batches must be a one-dimensional array")));
	deconstruct_array(array, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elements, &nulls, n);
	if (*n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no batch to chart"),
				 errhint("Name one or more batches: ranread_chart_latency(1, 2).")));
	if (*n > MAX_CURVES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at most %d batches fit in one latency chart", MAX_CURVES),
				 errdetail("%d were given.", *n)));
	batches = palloc(sizeof(int64) * *n);
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a batch number must not be null")));
		batches[i] = DatumGetInt64(elements[i]);
	}
	return batches;
}

/*
 * A curve's name in the legend, from the row read_curve() reads: the batch,
 * its processes and queue depth, its read path, and whether its latencies
 * are memory's rather than the device's: `evict => false`, or the device
 * answered less than a sweep counts (RANREAD_SWEEP_MIN_PHYSICAL_PCT).
 */
static char *
curve_label(int64 batch, HeapTuple row, TupleDesc desc)
{
	int			processes = (int) ranread_spi_int_named(row, desc, "processes", 0);
	int			iodepth = (int) ranread_spi_int_named(row, desc, "iodepth", 0);
	bool		evicted = ranread_spi_bool_named(row, desc, "evicted", true);
	double		physical_pct = ranread_spi_float_named(row, desc, "physical_pct", -1);
	StringInfoData label;

	initStringInfo(&label);
	appendStringInfo(&label, "batch " INT64_FORMAT ": %s, %s", batch,
					 ranread_chart_processes_text(processes, iodepth), ranread_spi_text_named(row, desc, "mode", ""));
	if (!evicted)
		appendStringInfoString(&label, ", evict => false");
	if (physical_pct >= 0 && physical_pct < RANREAD_SWEEP_MIN_PHYSICAL_PCT)
		appendStringInfo(&label, " (memory answered: device %.*f%%)",
						 physical_pct >= RANREAD_SWEEP_MIN_PHYSICAL_PCT - 0.05 ? 2 : 1, physical_pct);
	return label.data;
}

/*
 * Batch `batch`'s percentile curve, from its stored histogram through
 * ranread_histogram_percentile(), which checks the array: the latency at
 * CURVE_POINTS points evenly spaced in log10(1/(1 - p)), from the fastest
 * read to the slowest but one.
 */
static void
read_curve(const char *schema, int64 batch, Curve *curve)
{
	Oid			types[2] = {INT8OID, FLOAT8ARRAYOID};
	Datum		values[2] = {Int64GetDatum(batch)};
	Datum		fractions[CURVE_POINTS];
	HeapTuple	row;
	TupleDesc	desc;
	double		reads;
	bool		isnull;
	int			buckets;

	if (SPI_execute_with_args(psprintf("SELECT b.processes, b.mode, b.histogram IS NULL AS no_histogram, "
									   "(SELECT pg_catalog.sum(c) FROM pg_catalog.unnest(b.histogram) c)::pg_catalog.float8 AS reads, "
									   "b.iodepth, b.evicted, b.physical_pct, b.histogram "
									   "FROM %s.ranread_batches b WHERE b.batch OPERATOR(pg_catalog.=) $1", schema),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read batch " INT64_FORMAT, batch);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " does not exist", batch),
				 errhint("ranread_summary lists the batches recorded.")));
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	if (ranread_spi_bool_named(row, desc, "no_histogram", false))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " has no latency histogram", batch),
				 errdetail("Batches recorded by ranread 1.0 without their workers' rows keep none.")));
	(void) ranread_histogram_buckets(DatumGetArrayTypeP(ranread_spi_datum_named(row, desc, "histogram", &isnull)),
									 &buckets,
									 psprintf("batch " INT64_FORMAT " in ranread_batches", batch));
	reads = ranread_spi_float_named(row, desc, "reads", 0);
	if (!(reads >= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " has no read in its latency histogram", batch),
				 ranread_spi_int_named(row, desc, "processes", 0) == 0 ?
				 errdetail("It ran writers alone (processes 0); its writes are in ranread_write_summary.") : 0));
	curve->label = curve_label(batch, row, desc);
	curve->decades = log10(reads);

	for (int i = 0; i < CURVE_POINTS; i++)
	{
		double		p = -expm1(-curve->decades * i / (CURVE_POINTS - 1) * M_LN10);

		fractions[i] = Float8GetDatum(Min(Max(p, 1 / reads), 1.0));
	}
	values[1] = PointerGetDatum(construct_array(fractions, CURVE_POINTS, FLOAT8OID, sizeof(float8),
												FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	if (SPI_execute_with_args(psprintf("SELECT %s.ranread_histogram_percentile(b.histogram, f.p) AS ms "
									   "FROM %s.ranread_batches b, pg_catalog.unnest($2) WITH ORDINALITY f(p, n) "
									   "WHERE b.batch OPERATOR(pg_catalog.=) $1 ORDER BY f.n", schema, schema),
							  2, types, values, NULL, true, 0) != SPI_OK_SELECT || SPI_processed != CURVE_POINTS)
		elog(ERROR, "could not read the percentiles of batch " INT64_FORMAT, batch);
	for (int i = 0; i < CURVE_POINTS; i++)
		curve->ms[i] = ranread_spi_float_named(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, "ms", 0);
}

/* The targets of the batches, each once, in the order of the batches. */
static char *
latency_title(const char *schema, const int64 *batches, int n)
{
	Oid			types[1] = {INT8ARRAYOID};
	Datum		values[1];
	Datum	   *elements = palloc(sizeof(Datum) * n);

	for (int i = 0; i < n; i++)
		elements[i] = Int64GetDatum(batches[i]);
	values[0] = PointerGetDatum(construct_array(elements, n, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
												TYPALIGN_DOUBLE));
	if (SPI_execute_with_args(psprintf("SELECT pg_catalog.string_agg(t.target, ', ' ORDER BY t.first) AS targets "
									   "FROM (SELECT b.target::pg_catalog.text AS target, pg_catalog.min(a.n) AS first "
									   "FROM pg_catalog.unnest($1) WITH ORDINALITY a(batch, n) "
									   "JOIN %s.ranread_batches b ON b.batch OPERATOR(pg_catalog.=) a.batch "
									   "GROUP BY b.target) t", schema),
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the targets of the batches");
	return psprintf("ranread latency by percentile: %s",
					ranread_spi_text_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "targets", ""));
}

/* The x axis of percentiles: 0 %, 50 %, then 90 %, 99 %, 99.9 % ... up to `decades`. */
static void
draw_percentile_axis(StringInfo out, const Box *box, const Axis *x)
{
	double		ticks[16];
	int			n = 0;

	ticks[n++] = 0;
	ticks[n++] = log10(2);
	for (int k = 1; k <= (int) x->max && n < lengthof(ticks); k++)
		ticks[n++] = k;
	for (int i = 0; i < n; i++)
	{
		double		px = ranread_svg_axis_pixel(x, ticks[i], box->left, box->right);
		int			decimals = Max(0, (int) ticks[i] - 2);
		double		percent = 100 * -expm1(-ticks[i] * M_LN10);

		appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 px, box->top, px, box->bottom, RANREAD_SVG_COLOUR_GRID);
		ranread_svg_text(out, px, box->bottom + RANREAD_SVG_FONT_SIZE + 4, "text-anchor=\"middle\"",
						 psprintf("%.*f%%", decimals, percent));
	}
}

/* Draw the percentile curves into `out`: latency (log) against log10(1/(1 - p)). */
static void
render_latency_chart(StringInfo out, const char *title, const Curve *curves, int n)
{
	Legend		legend;
	Box			box;
	Axis		x = {0};
	Axis		y;
	double		min_ms = HUGE_VAL;
	double		max_ms = 0;

	ranread_svg_legend_init(&legend, LATENCY_CHART_WIDTH,
							ranread_svg_begin(out, LATENCY_CHART_WIDTH, LATENCY_CHART_HEIGHT, title, NULL));
	x.max = MIN_PERCENTILE_DECADES;
	for (int i = 0; i < n; i++)
	{
		ranread_svg_legend_add(&legend, SWATCH_LINE, curve_colours[i], curves[i].label);
		x.max = Max(x.max, ceil(curves[i].decades));
		for (int j = 0; j < CURVE_POINTS; j++)
		{
			if (curves[i].ms[j] > 0)
				min_ms = Min(min_ms, curves[i].ms[j]);
			max_ms = Max(max_ms, curves[i].ms[j]);
		}
	}
	if (!(max_ms > 0))
		min_ms = max_ms = 1;
	y = ranread_svg_log_axis(min_ms, max_ms);
	box.top = ranread_svg_legend_end(out, &legend);
	box.left = RANREAD_SVG_AXIS_MARGIN;
	box.right = LATENCY_CHART_WIDTH - RANREAD_SVG_AXIS_MARGIN;
	box.bottom = LATENCY_CHART_HEIGHT - RANREAD_SVG_BOTTOM_MARGIN;

	ranread_svg_draw_value_axis(out, &y, &box, false, "latency (ms)");
	draw_percentile_axis(out, &box, &x);
	ranread_svg_draw_x_axis(out, &box, LATENCY_CHART_HEIGHT, "percentile");
	for (int i = 0; i < n; i++)
	{
		appendStringInfoString(out, "<path class=\"curve\" d=\"");
		for (int j = 0; j < CURVE_POINTS; j++)
			appendStringInfo(out, "%s%.1f %.1f ", j == 0 ? "M" : "L",
							 ranread_svg_axis_pixel(&x, curves[i].decades * j / (CURVE_POINTS - 1),
													box.left, box.right),
							 ranread_svg_axis_pixel(&y, curves[i].ms[j], box.bottom, box.top));
		appendStringInfo(out, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"><title>", curve_colours[i]);
		ranread_svg_append_escaped(out, curves[i].label);
		appendStringInfoString(out, "</title></path>\n");
	}
	appendStringInfoString(out, "</svg>\n");
}

/* The batches of the call's array (or, called from C, its batches), a curve each. */
static bool
draw_latency(StringInfo out, const RanreadChartCall *call)
{
	int			n = Min(call->batch_count, MAX_CURVES);
	const int64 *batches = call->fcinfo ? latency_batches(call->fcinfo, &n) : call->batches;
	Curve	   *curves = palloc0(sizeof(Curve) * n);

	for (int i = 0; i < n; i++)
		read_curve(call->schema, batches[i], &curves[i]);
	render_latency_chart(out, latency_title(call->schema, batches, n), curves, n);
	return true;
}

const RanreadChart ranread_chart_kind_latency = {
	.name = "latency",
	.numbered = false,
	.draw = draw_latency,
};
