/*-------------------------------------------------------------------------
 *
 * export.c
 *		ranread_export(): ranread_summary written by the server into new
 *		files for spreadsheets: tab-separated with every column (RanRead's
 *		seven first), or RanRead's own seven-column file; optionally a CSV
 *		of every column and the SVG chart, for all batches or one sweep.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "extension.h"

/* How many numbered names an export tries within one minute. */
#define EXPORT_MAX_NAMES	1000

PG_FUNCTION_INFO_V1(ranread_export);

/* One file of an export: its name's parts, its content and, once created, its path. */
typedef struct ExportFile
{
	const char *prefix;			/* "ranread_" or RanRead's "PerfToolsRanRead_" */
	const char *extension;		/* ".tsv", ".txt", ".csv", ".svg", "-sweep3.svg" */
	StringInfoData content;
	char	   *path;
	int			fd;
} ExportFile;

static void
check_export_directory(const char *directory)
{
	struct stat st;

	if (!superuser() && !has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to export ranread results to a server file"),
				 errdetail("Only roles with privileges of the \"%s\" role may write server files.",
						   "pg_write_server_files"),
				 errhint("Use psql's \\copy to export to a client-side file instead.")));
	if (!is_absolute_path(directory))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("export directory must be an absolute path"),
				 errdetail("The directory given is \"%s\".", directory)));
	if (stat(directory, &st) != 0)
	{
		/* a path too long or looping is the caller's mistake, not an internal error */
		bool		bad_path = errno == ENAMETOOLONG || errno == ELOOP;

		ereport(ERROR,
				(bad_path ? errcode(ERRCODE_INVALID_PARAMETER_VALUE) : errcode_for_file_access(),
				 errmsg("could not access export directory \"%s\": %m", directory)));
	}
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a directory", directory)));
}

/* Close and remove the first `count` files, which this export created. */
static void
remove_export_files(ExportFile *files, int count)
{
	for (int i = 0; i < count; i++)
	{
		if (files[i].fd >= 0)
			CloseTransientFile(files[i].fd);
		files[i].fd = -1;
		(void) unlink(files[i].path);
	}
}

/*
 * Create the export's files in directory, named after the minute as RanRead
 * named its files: PREFIX_YYYYMMDD-HHMM.EXT, or PREFIX_YYYYMMDD-HHMM-N.EXT
 * with the first N under which every one of them is free, so that the files
 * of one export share a name.  Each is created exclusively and a symbolic
 * link in its place is not followed (O_CREAT | O_EXCL | O_NOFOLLOW), so an
 * export never overwrites or truncates anything; their mode is that of the
 * cluster's own files (0600, or 0640 with group access).
 */
static void
create_export_files(const char *directory, ExportFile *files, int count)
{
	char		stamp[32];
	pg_time_t	now = (pg_time_t) time(NULL);
	const char *separator = directory[strlen(directory) - 1] == '/' ? "" : "/";

	pg_strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M", pg_localtime(&now, session_timezone));
	for (int n = 1; n <= EXPORT_MAX_NAMES; n++)
	{
		const char *suffix = n == 1 ? "" : psprintf("-%d", n);
		int			created;

		for (created = 0; created < count; created++)
		{
			ExportFile *file = &files[created];

			file->path = psprintf("%s%s%s%s%s%s", directory, separator, file->prefix, stamp, suffix,
								  file->extension);
			file->fd = OpenTransientFile(file->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | PG_BINARY);
			if (file->fd >= 0)
				continue;
			if (errno != EEXIST)
			{
				int			save_errno = errno;

				remove_export_files(files, created);
				errno = save_errno;
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not create file \"%s\": %m", file->path)));
			}
			break;
		}
		if (created == count)
			return;
		remove_export_files(files, created);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DUPLICATE_FILE),
			 errmsg("could not find a free export file name in \"%s\"", directory),
			 errdetail("%s%s%s and its numbered variants up to %d exist.", files[0].prefix, stamp,
					   files[0].extension, EXPORT_MAX_NAMES),
			 errhint("Try again in a minute, or export to another directory.")));
}

/*
 * Append value as a field of COPY's CSV format with this delimiter: quoted
 * when it holds the delimiter, a quote or a line break, or is empty; a NULL
 * is an empty field.  For a comma, this is RFC 4180's quoting.
 */
static void
append_csv_field(StringInfo line, const char *value, char delimiter)
{
	if (value == NULL)
		return;
	if (value[0] != '\0' && strchr(value, delimiter) == NULL && strpbrk(value, "\"\r\n") == NULL)
	{
		appendStringInfoString(line, value);
		return;
	}
	appendStringInfoChar(line, '"');
	for (const char *c = value; *c != '\0'; c++)
	{
		if (*c == '"')
			appendStringInfoChar(line, '"');
		appendStringInfoChar(line, *c);
	}
	appendStringInfoChar(line, '"');
}

/*
 * Append the result of the last SPI query to out: a header of its column
 * names, then one line per row, fields separated by `delimiter`, each line
 * ended by `newline`.
 */
static void
append_table(StringInfo out, char delimiter, const char *newline)
{
	TupleDesc	desc = SPI_tuptable->tupdesc;

	for (int col = 1; col <= desc->natts; col++)
	{
		if (col > 1)
			appendStringInfoChar(out, delimiter);
		append_csv_field(out, SPI_fname(desc, col), delimiter);
	}
	appendStringInfoString(out, newline);
	for (uint64 row = 0; row < SPI_processed; row++)
	{
		for (int col = 1; col <= desc->natts; col++)
		{
			if (col > 1)
				appendStringInfoChar(out, delimiter);
			append_csv_field(out, SPI_getvalue(SPI_tuptable->vals[row], desc, col), delimiter);
		}
		appendStringInfoString(out, newline);
	}
}

/*
 * Run `columns` over ranread_summary, in batch order and, with a sweep, over
 * that sweep's batches only; the rows are in SPI_tuptable.
 */
static void
select_summary(const char *columns, bool has_sweep, int64 sweep)
{
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(sweep)};

	if (SPI_execute_with_args(psprintf("SELECT %s FROM %s.ranread_summary %s ORDER BY batch", columns,
									   quote_identifier(ranread_extension_schema()),
									   has_sweep ? "WHERE sweep OPERATOR(pg_catalog.=) $1" : ""),
							  has_sweep ? 1 : 0, types, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_summary");
}

/* RanRead's Export(): its seven columns under its names, as ranread_summary rounds them. */
#define RANREAD_COLUMNS \
	"run_date AS \"RunDate\", run_time AS \"RunTime\", target AS \"Database\", " \
	"coalesce(iterations, pg_catalog.round(reads::pg_catalog.numeric OPERATOR(pg_catalog./) " \
	"NULLIF(processes, 0))::pg_catalog.int8) AS \"Iterations\", processes AS \"Processes\", " \
	"response_time_ms AS \"ResponseTime\", iops AS \"IOPS\""

static void
check_sweep_exists(int64 sweep)
{
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(sweep)};

	if (SPI_execute_with_args(psprintf("SELECT 1 FROM %s.ranread_sweep_runs WHERE sweep OPERATOR(pg_catalog.=) $1",
									   quote_identifier(ranread_extension_schema())),
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_sweep_runs");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sweep " INT64_FORMAT " does not exist", sweep),
				 errhint("The sweeps are listed in ranread_sweeps.")));
}

/* The SVG of ranread_chart(sweep), or ranread_chart(NULL) without a sweep. */
static void
append_chart(StringInfo out, bool has_sweep, int64 sweep)
{
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(sweep)};
	char		nulls[1] = {has_sweep ? ' ' : 'n'};
	char	   *svg;

	if (SPI_execute_with_args(psprintf("SELECT %s.ranread_chart($1)", quote_identifier(ranread_extension_schema())),
							  1, types, args, nulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not draw the chart");
	svg = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (svg != NULL)
		appendStringInfoString(out, svg);
}

/* The sweeps with at least one step recorded, in order; *n gets how many. */
static int64 *
sweeps_with_steps(int *n)
{
	const char *schema = quote_identifier(ranread_extension_schema());
	int64	   *sweeps;

	if (SPI_execute(psprintf("SELECT r.sweep FROM %s.ranread_sweep_runs r WHERE EXISTS (SELECT FROM %s.ranread_batches b "
							 "WHERE b.sweep OPERATOR(pg_catalog.=) r.sweep) ORDER BY r.sweep", schema, schema),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_sweep_runs");
	*n = (int) SPI_processed;
	sweeps = palloc(sizeof(int64) * Max(1, *n));
	for (int i = 0; i < *n; i++)
	{
		bool		isnull;

		sweeps[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	return sweeps;
}

/* Argument n as a bool, its default if the declaration (1.0's) has fewer arguments. */
static bool
bool_argument(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_NARGS() <= n)
		return false;
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
	return PG_GETARG_BOOL(n);
}

/*
 * ranread_export(directory, format, sweep, csv, svg): write ranread_summary
 * to new files in directory (see create_export_files) and return their
 * paths, one row each.
 *
 * format 'tsv' (ranread_YYYYMMDD-HHMM.tsv): every column of the view in its
 * order (RanRead's seven first), a header, tab-separated.  format 'ranread'
 * (PerfToolsRanRead_YYYYMMDD-HHMM.txt): the seven columns of RanRead's
 * Export() under its names, Iterations filled in for time-based runs
 * (reads per process).  csv: also ranread_YYYYMMDD-HHMM.csv, every column,
 * comma-separated (RFC 4180).  svg: also ranread_YYYYMMDD-HHMM.svg, the
 * chart of ranread_chart().  sweep: only that sweep's batches, and its
 * chart.  Values are as the view gives them (the function runs with
 * DateStyle ISO: dates YYYY-MM-DD, times HH:MM:SS), fields quoted as COPY's
 * CSV format quotes them.  Every file is made in memory first; if one cannot
 * be written whole, none is kept.
 *
 * Called through 1.0's declaration, ranread_export(directory) RETURNS text,
 * before ALTER EXTENSION UPDATE, it writes the TSV and returns its path.
 */
Datum
ranread_export(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		returns_set = rsinfo != NULL && IsA(rsinfo, ReturnSetInfo);
	char	   *directory;
	const char *format = "tsv";
	bool		has_sweep = PG_NARGS() > 2 && !PG_ARGISNULL(2);
	int64		sweep = has_sweep ? PG_GETARG_INT64(2) : 0;
	bool		csv;
	bool		svg;
	ExportFile *files;
	int			count = 0;
	int64	   *charts = NULL;
	int			ncharts = 0;
	char	  **chart_names;
	MemoryContext caller_context = CurrentMemoryContext;
	MemoryContext spi_context;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("export directory must not be null")));
	directory = text_to_cstring(PG_GETARG_TEXT_PP(0));
	check_export_directory(directory);
	if (PG_NARGS() > 1)
	{
		if (PG_ARGISNULL(1))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("export format must not be null")));
		format = text_to_cstring(PG_GETARG_TEXT_PP(1));
	}
	if (strcmp(format, "tsv") != 0 && strcmp(format, "ranread") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown export format \"%s\"", format),
				 errhint("The formats are 'tsv' (every column of ranread_summary) and 'ranread' (RanRead's seven columns).")));
	csv = bool_argument(fcinfo, 3, "csv");
	svg = bool_argument(fcinfo, 4, "svg");
	if (returns_set)
		InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);

	SPI_connect();
	if (has_sweep)
		check_sweep_exists(sweep);
	else if (svg)
		charts = sweeps_with_steps(&ncharts);
	/* the files and their contents outlive SPI_finish(), so they live in the caller's context */
	spi_context = MemoryContextSwitchTo(caller_context);
	files = palloc0(sizeof(ExportFile) * (2 + Max(1, ncharts)));
	for (int i = 0; i < 2 + Max(1, ncharts); i++)
	{
		initStringInfo(&files[i].content);
		files[i].prefix = "ranread_";
		files[i].extension = ".svg";
		files[i].fd = -1;
	}
	chart_names = palloc(sizeof(char *) * Max(1, ncharts));
	for (int i = 0; i < ncharts; i++)
		chart_names[i] = psprintf("-sweep" INT64_FORMAT ".svg", charts[i]);
	MemoryContextSwitchTo(spi_context);
	if (strcmp(format, "ranread") == 0)
	{
		files[count].prefix = "PerfToolsRanRead_";
		files[count].extension = ".txt";
		select_summary(RANREAD_COLUMNS, has_sweep, sweep);
	}
	else
	{
		files[count].extension = ".tsv";
		/* whatever the view has, in its order */
		select_summary("*", has_sweep, sweep);
	}
	append_table(&files[count++].content, '\t', "\n");
	if (csv)
	{
		files[count].extension = ".csv";
		select_summary("*", has_sweep, sweep);
		append_table(&files[count++].content, ',', "\r\n");
	}
	/* the sweep's chart; without one, a chart per sweep, or ranread_chart()'s when none has a step */
	if (svg && ncharts == 0)
		append_chart(&files[count++].content, has_sweep, sweep);
	for (int i = 0; i < ncharts; i++)
	{
		files[count].extension = chart_names[i];
		append_chart(&files[count++].content, true, charts[i]);
	}
	SPI_finish();

	create_export_files(directory, files, count);
	for (int i = 0; i < count; i++)
	{
		ExportFile *file = &files[i];

		errno = 0;
		if (write(file->fd, file->content.data, file->content.len) != file->content.len ||
			pg_fsync(file->fd) != 0)
		{
			int			save_errno = errno ? errno : ENOSPC;
			char	   *path = file->path;

			remove_export_files(files, count);
			errno = save_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", path)));
		}
	}
	for (int i = 0; i < count; i++)
	{
		CloseTransientFile(files[i].fd);
		files[i].fd = -1;
	}

	if (!returns_set)
		PG_RETURN_TEXT_P(cstring_to_text(files[0].path));
	for (int i = 0; i < count; i++)
	{
		Datum		value = CStringGetTextDatum(files[i].path);
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	return (Datum) 0;
}
