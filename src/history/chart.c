/*-------------------------------------------------------------------------
 *
 * chart.c
 *		The results as charts, in self-contained SVG for a report or a
 *		browser: the SQL functions ranread_chart() (a sweep,
 *		chart_sweep.c), ranread_chart_latency() (batches' latency by
 *		percentile, chart_latency.c), ranread_chart_intervals() (a batch
 *		over time, chart_intervals.c) and ranread_chart_fleet() (a fleet
 *		sweep, chart_fleet.c), each one line into the table of chart kinds
 *		and the one entry that does what they share: the check of the SQL
 *		version, of the width and height, the number given or the latest,
 *		and SPI.
 *
 * Everything is read and drawn while connected to SPI, so that the
 * temporaries go with SPI_finish(); only the SVG, started before, outlives
 * it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "extension.h"
#include "history/chart.h"
#include "spi_columns.h"

PG_FUNCTION_INFO_V1(ranread_chart);
PG_FUNCTION_INFO_V1(ranread_chart_latency);
PG_FUNCTION_INFO_V1(ranread_chart_intervals);
PG_FUNCTION_INFO_V1(ranread_chart_fleet);

/* Bounds of a chart's width and height, in pixels. */
#define CHART_MIN_SIZE		320
#define CHART_MAX_SIZE		4096

/* "1 process", "4 processes", "1 process at queue depth 16". */
char *
ranread_chart_processes_text(int processes, int iodepth)
{
	char	   *text = psprintf("%d %s", processes, processes == 1 ? "process" : "processes");

	if (iodepth > 1)
		return psprintf("%s at queue depth %d", text, iodepth);
	return text;
}

/*
 * The highest `column` of `table` (the latest batch, or sweep, it has a row
 * of), into *number; false if it has none.
 */
static bool
latest_of(const char *schema, const char *table, const char *column, int64 *number)
{
	bool		isnull = true;

	if (SPI_execute(psprintf("SELECT pg_catalog.max(%s) AS latest FROM %s.%s", column, schema, table),
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read %s", table);
	if (SPI_processed == 1)
	{
		Datum		latest = ranread_spi_datum_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "latest",
													 &isnull);

		if (!isnull)
			*number = DatumGetInt64(latest);
	}
	return !isnull;
}

/* A width or height argument: not null, and within the bounds. */
static int
size_argument(FunctionCallInfo fcinfo, int arg, const char *name)
{
	int			value;

	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
	value = PG_GETARG_INT32(arg);
	if (value < CHART_MIN_SIZE || value > CHART_MAX_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between %d and %d pixels", name, CHART_MIN_SIZE, CHART_MAX_SIZE),
				 errdetail("The value given is %d.", value)));
	return value;
}

/* The chart kinds, one file each: a new kind is a file, its extern in chart.h and a line here. */
static const RanreadChart *const charts[] = {
	&ranread_chart_kind_sweep,
	&ranread_chart_kind_latency,
	&ranread_chart_kind_intervals,
	&ranread_chart_kind_fleet,
};

/*
 * A chart's SQL function: its kind's chart of the number given (argument 0)
 * or the latest, at the width and height given (arguments 1 and 2), or, for
 * a kind that is not numbered, of its own arguments.
 */
static Datum
draw_chart(FunctionCallInfo fcinfo, const char *name)
{
	const RanreadChart *kind = NULL;
	RanreadChartCall call = {fcinfo};
	int64		number = 0;
	StringInfoData svg;

	for (int i = 0; i < lengthof(charts) && kind == NULL; i++)
		if (strcmp(charts[i]->name, name) == 0)
			kind = charts[i];
	if (kind == NULL)
		elog(ERROR, "unknown chart kind \"%s\"", name);
	ranread_check_sql_version();
	if (kind->numbered)
	{
		call.width = size_argument(fcinfo, 1, "width");
		call.height = size_argument(fcinfo, 2, "height");
	}
	call.schema = quote_identifier(ranread_extension_schema());
	initStringInfo(&svg);

	SPI_connect();
	if (kind->numbered && !PG_ARGISNULL(0))
	{
		number = PG_GETARG_INT64(0);
		call.number = &number;
	}
	else if (kind->numbered &&
			 (kind->latest ? kind->latest(call.schema, &number) :
			  latest_of(call.schema, kind->latest_table, kind->latest_column, &number)))
		call.number = &number;
	else if (kind->numbered && kind->nothing != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s", kind->nothing),
				 errhint("%s", kind->nothing_hint)));
	if (!kind->draw(&svg, &call))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s " INT64_FORMAT " does not exist", kind->noun, number),
				 errhint("%s", kind->listed_in)));
	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(svg.data, svg.len));
}

/*
 * The chart of kind `name` into out, for a caller connected to SPI that
 * draws several (the report, report_html.c): a numbered kind's chart of
 * numbers[0], or the latency chart of the count batches of numbers (at
 * most as many as it draws); false if that number does not exist.  Its
 * width and height are the caller's, within the bounds of a chart's.
 */
bool
ranread_chart_draw(StringInfo out, const char *name, const char *schema, const int64 *numbers, int count,
				   int width, int height)
{
	RanreadChartCall call = {NULL};

	Assert(count >= 1 && width >= CHART_MIN_SIZE && width <= CHART_MAX_SIZE &&
		   height >= CHART_MIN_SIZE && height <= CHART_MAX_SIZE);
	call.schema = schema;
	call.width = width;
	call.height = height;
	for (int i = 0; i < lengthof(charts); i++)
		if (strcmp(charts[i]->name, name) == 0)
		{
			if (charts[i]->numbered)
				call.number = numbers;
			else
			{
				call.batches = numbers;
				call.batch_count = count;
			}
			return charts[i]->draw(out, &call);
		}
	elog(ERROR, "unknown chart kind \"%s\"", name);
	return false;
}

/*
 * ranread_chart(sweep bigint DEFAULT NULL, width int DEFAULT 960,
 * height int DEFAULT 540): chart_sweep.c.
 */
Datum
ranread_chart(PG_FUNCTION_ARGS)
{
	return draw_chart(fcinfo, "sweep");
}

/* ranread_chart_latency(VARIADIC batches bigint[]): chart_latency.c. */
Datum
ranread_chart_latency(PG_FUNCTION_ARGS)
{
	return draw_chart(fcinfo, "latency");
}

/*
 * ranread_chart_intervals(batch bigint DEFAULT NULL, width int DEFAULT 960,
 * height int DEFAULT 540): chart_intervals.c.
 */
Datum
ranread_chart_intervals(PG_FUNCTION_ARGS)
{
	return draw_chart(fcinfo, "intervals");
}

/*
 * ranread_chart_fleet(fleet_sweep bigint DEFAULT NULL, width int DEFAULT 960,
 * height int DEFAULT 540): chart_fleet.c.
 */
Datum
ranread_chart_fleet(PG_FUNCTION_ARGS)
{
	return draw_chart(fcinfo, "fleet");
}
