/*-------------------------------------------------------------------------
 *
 * export.c
 *		ranread_export(): ranread_summary written by the server into new
 *		files for spreadsheets: tab-separated with every column (RanRead's
 *		seven first), or RanRead's own seven-column files, one per set of
 *		batches that can be compared, without the batches that did not
 *		measure the storage; optionally a CSV of every column and the SVG
 *		charts, for all batches or one sweep.  ranread_export_files(): the
 *		same files as rows, for the client to save (no server file).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

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
#include "utils/tuplestore.h"

#include "extension.h"
#include "rules/sweep_rules.h"
#include "spi_columns.h"

/* How many numbered names an export tries within one minute. */
#define EXPORT_MAX_NAMES	1000

/* How many left-out batches the NOTICE names; the rest are counted. */
#define EXPORT_MAX_NAMED_LEFT_OUT	20

PG_FUNCTION_INFO_V1(ranread_export);
PG_FUNCTION_INFO_V1(ranread_export_files);

/* One file of an export: its name's parts, its content and, once created, its path. */
typedef struct ExportFile
{
	const char *prefix;			/* "ranread_" or RanRead's "PerfToolsRanRead_" */
	const char *extension;		/* ".tsv", ".txt", "_t_smgr_8k_qd1.txt", ".csv",
								 * ".svg", "-sweep3.svg" */
	StringInfoData content;
	char	   *path;
	int			fd;
} ExportFile;

/* The files of one export, allocated in the caller's memory context. */
typedef struct ExportFiles
{
	MemoryContext context;
	ExportFile *files;
	int			count;
	int			allocated;
} ExportFiles;

/* A new, empty file of the export, named prefix + time + extension. */
static ExportFile *
add_file(ExportFiles *set, const char *prefix, const char *extension)
{
	MemoryContext old = MemoryContextSwitchTo(set->context);
	ExportFile *file;

	if (set->count == set->allocated)
	{
		set->allocated = Max(4, set->allocated * 2);
		set->files = set->files == NULL ? palloc(sizeof(ExportFile) * set->allocated) :
			repalloc(set->files, sizeof(ExportFile) * set->allocated);
	}
	file = &set->files[set->count++];
	file->prefix = prefix;
	file->extension = pstrdup(extension);
	initStringInfo(&file->content);
	file->path = NULL;
	file->fd = -1;
	MemoryContextSwitchTo(old);
	return file;
}

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
 * Create path for writing, exclusively and without following a symbolic
 * link, with the mode COPY TO and lo_export() give the files they write:
 * 0644, the server's umask (0077, or 0027 with group access) lowered to
 * 022 for the call, so that the DBA's own OS account can read the export
 * wherever the directory lets it.  Returns the descriptor, or -1 with errno.
 */
static int
open_export_file(const char *path)
{
	mode_t		old_umask = umask(S_IWGRP | S_IWOTH);
	int			fd = -1;

	PG_TRY();
	{
		fd = OpenTransientFilePerm(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | PG_BINARY,
								   S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH);
	}
	PG_FINALLY();
	{
		/* umask() leaves errno alone, so open()'s reaches the caller */
		umask(old_umask);
	}
	PG_END_TRY();
	return fd;
}

/* The minute, as RanRead named its files by it: YYYYMMDD-HHMM, in the session's time zone. */
static char *
export_stamp(void)
{
	char		stamp[32];
	pg_time_t	now = (pg_time_t) time(NULL);

	pg_strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M", pg_localtime(&now, session_timezone));
	return pstrdup(stamp);
}

/*
 * Create the export's files in directory, named after the minute as RanRead
 * named its files: PREFIX_YYYYMMDD-HHMM.EXT, or PREFIX_YYYYMMDD-HHMM-N.EXT
 * with the first N under which every one of them is free, so that the files
 * of one export share a name.  Each is created exclusively and a symbolic
 * link in its place is not followed (O_CREAT | O_EXCL | O_NOFOLLOW), so an
 * export never overwrites or truncates anything.
 */
static void
create_export_files(const char *directory, ExportFile *files, int count)
{
	const char *stamp = export_stamp();
	const char *separator = directory[strlen(directory) - 1] == '/' ? "" : "/";

	for (int n = 1; n <= EXPORT_MAX_NAMES; n++)
	{
		const char *suffix = n == 1 ? "" : psprintf("-%d", n);
		int			created;

		for (created = 0; created < count; created++)
		{
			ExportFile *file = &files[created];

			file->path = psprintf("%s%s%s%s%s%s", directory, separator, file->prefix, stamp, suffix,
								  file->extension);
			file->fd = open_export_file(file->path);
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
 * Would a spreadsheet take value for a formula?  Text that begins with = + -
 * or @, a tab or a carriage return (OWASP's "CSV injection"), unless it is a
 * number as a whole (-5, +1e3, -Infinity).
 */
static bool
looks_like_formula(const char *value)
{
	char	   *end;

	if (value[0] == '\0' || strchr("=+-@\t\r", value[0]) == NULL)
		return false;
	if (value[0] != '+' && value[0] != '-')
		return true;
	/* a signed number; strtod() would also skip a tab or CR, which are never numbers here */
	(void) strtod(value, &end);
	return end == value || *end != '\0';
}

/*
 * Append value as a field of COPY's CSV format with this delimiter: quoted
 * when it holds the delimiter, a quote or a line break, or is empty; a NULL
 * is an empty field.  For a comma, this is RFC 4180's quoting.  Text a
 * spreadsheet would run as a formula (a forged target or mode, say) gets a
 * leading ', which spreadsheets read as "this is text", as OWASP advises.
 */
static void
append_csv_field(StringInfo line, const char *value, char delimiter)
{
	if (value == NULL)
		return;
	if (looks_like_formula(value))
		value = psprintf("'%s", value);
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
 * Append one line to out: the names of the first ncols columns of the last
 * SPI query's result (row < 0), or their values in that row; fields
 * separated by `delimiter`, the line ended by `newline`.
 */
static void
append_line(StringInfo out, int64 row, int ncols, char delimiter, const char *newline)
{
	TupleDesc	desc = SPI_tuptable->tupdesc;

	for (int col = 1; col <= ncols; col++)
	{
		if (col > 1)
			appendStringInfoChar(out, delimiter);
		append_csv_field(out, row < 0 ? SPI_fname(desc, col) :
						 ranread_spi_output_at(SPI_tuptable->vals[row], desc, col), delimiter);
	}
	appendStringInfoString(out, newline);
}

/* Append the result of the last SPI query to out: a header, then every row. */
static void
append_table(StringInfo out, char delimiter, const char *newline)
{
	for (int64 row = -1; row < (int64) SPI_processed; row++)
		append_line(out, row, SPI_tuptable->tupdesc->natts, delimiter, newline);
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

/*
 * RanRead's Export(): its seven columns under its names, as ranread_summary
 * rounds them, first, for the file; then, read by name, what groups and
 * filters the rows (group_columns).  Rows come group by group, the groups in
 * the order of their first batch.
 */
#define RANREAD_COLUMNS \
	"run_date AS \"RunDate\", run_time AS \"RunTime\", target AS \"Database\", " \
	"coalesce(iterations, pg_catalog.round(reads::pg_catalog.numeric OPERATOR(pg_catalog./) " \
	"NULLIF(processes, 0))::pg_catalog.int8) AS \"Iterations\", processes AS \"Processes\", " \
	"response_time_ms AS \"ResponseTime\", iops AS \"IOPS\", " \
	"target::pg_catalog.text AS group_target, mode AS group_mode, block_size AS group_block_size, " \
	"iodepth AS group_iodepth, rate_iops IS NOT NULL AS group_open_loop, status, " \
	"physical_pct::pg_catalog.float8 AS physical_pct, batch"
#define RANREAD_ORDER \
	"pg_catalog.min(batch) OVER (PARTITION BY target, mode, block_size, iodepth, rate_iops IS NOT NULL), batch"
#define RANREAD_NCOLUMNS	7

/* The columns of RANREAD_COLUMNS that make a group of batches that can be compared. */
static const char *const group_columns[] = {
	"group_target", "group_mode", "group_block_size", "group_iodepth", "group_open_loop"
};

/*
 * s for a file name: ASCII letters, digits and '-' kept, anything else '_',
 * and at most a name's length (a forged row's mode can be longer than a
 * file name may be; group_file_extension() numbers names cut alike).
 */
static char *
file_name_part(const char *s)
{
	char	   *part = pnstrdup(s, NAMEDATALEN - 1);

	for (char *c = part; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-'))
			*c = '_';
	return part;
}

/*
 * The end of the name of the RanRead file for row's group:
 * _TARGET_MODE_8k_qd1.txt (_open before .txt for an open loop), with _2,
 * _3 ... when a target's name made file-safe is already another group's.
 */
static char *
group_file_extension(int64 row, ExportFiles *set, int first_file)
{
	HeapTuple	tuple = SPI_tuptable->vals[row];
	TupleDesc	desc = SPI_tuptable->tupdesc;
	int			block_size = (int) ranread_spi_int_named(tuple, desc, "group_block_size", 0);
	bool		open_loop = ranread_spi_bool_named(tuple, desc, "group_open_loop", false);
	char	   *base = psprintf("_%s_%s_%s_qd%s%s",
								file_name_part(ranread_spi_output_named(tuple, desc, "group_target")),
								file_name_part(ranread_spi_output_named(tuple, desc, "group_mode")),
								block_size % 1024 == 0 ? psprintf("%dk", block_size / 1024) :
								psprintf("%db", block_size),
								ranread_spi_output_named(tuple, desc, "group_iodepth"),
								open_loop ? "_open" : "");

	for (int n = 1;; n++)
	{
		char	   *extension = n == 1 ? psprintf("%s.txt", base) : psprintf("%s_%d.txt", base, n);
		bool		taken = false;

		for (int i = first_file; i < set->count && !taken; i++)
			taken = strcmp(set->files[i].extension, extension) == 0;
		if (!taken)
			return extension;
	}
}

/* True if row's group differs from the previous row's. */
static bool
new_group(int64 row)
{
	TupleDesc	desc = SPI_tuptable->tupdesc;

	if (row == 0)
		return true;
	for (int i = 0; i < lengthof(group_columns); i++)
	{
		char	   *a = ranread_spi_output_named(SPI_tuptable->vals[row - 1], desc, group_columns[i]);
		char	   *b = ranread_spi_output_named(SPI_tuptable->vals[row], desc, group_columns[i]);

		if (strcmp(a ? a : "", b ? b : "") != 0)
			return true;
	}
	return false;
}

/*
 * Why row's batch cannot be compared with others in RanRead's format, or
 * NULL: it ran writers alone (no reads), it did not complete, or memory
 * answered part of its reads (its physical_pct under what a sweep counts).
 */
static char *
left_out_reason(int64 row)
{
	HeapTuple	tuple = SPI_tuptable->vals[row];
	TupleDesc	desc = SPI_tuptable->tupdesc;
	char	   *status = ranread_spi_output_named(tuple, desc, "status");
	bool		isnull;
	double		physical;

	if (DatumGetInt32(ranread_spi_datum_named(tuple, desc, "Processes", &isnull)) == 0)
		return "writers alone";
	if (strcmp(status, "completed") != 0)
		return status;
	physical = DatumGetFloat8(ranread_spi_datum_named(tuple, desc, "physical_pct", &isnull));
	if (!isnull && physical < RANREAD_SWEEP_MIN_PHYSICAL_PCT)
		return psprintf("physical_pct %.1f", physical);
	return NULL;
}

/* A batch left out of RanRead's format, and why. */
typedef struct LeftOut
{
	int64		batch;
	char	   *reason;
} LeftOut;

static int
left_out_cmp(const void *a, const void *b)
{
	int64		x = ((const LeftOut *) a)->batch;
	int64		y = ((const LeftOut *) b)->batch;

	return (x > y) - (x < y);
}

/*
 * Add RanRead's files for the batches of ranread_summary (with a sweep, that
 * sweep's): one file per group of batches that can be compared (same target,
 * mode, block size, iodepth, closed or open loop), or with a sweep one file,
 * PerfToolsRanRead_YYYYMMDD-HHMM.txt.  Batches that did not complete or that
 * memory answered in part are left out and listed in *left_out, a string in
 * the caller's memory context (*nleft_out of them, in batch order); if no
 * batch is left, the export fails.
 */
static void
add_ranread_files(ExportFiles *set, bool has_sweep, int64 sweep, StringInfo left_out, int *nleft_out)
{
	Oid			types[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(sweep)};
	int			first_file = set->count;
	ExportFile *file = NULL;
	bool		group_has_file = false;
	LeftOut    *left;

	if (SPI_execute_with_args(psprintf("SELECT %s FROM %s.ranread_summary %s ORDER BY %s", RANREAD_COLUMNS,
									   quote_identifier(ranread_extension_schema()),
									   has_sweep ? "WHERE sweep OPERATOR(pg_catalog.=) $1" : "", RANREAD_ORDER),
							  has_sweep ? 1 : 0, types, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_summary");

	left = palloc(sizeof(LeftOut) * Max(1, SPI_processed));
	for (int64 row = 0; row < (int64) SPI_processed; row++)
	{
		char	   *reason = left_out_reason(row);

		if (!has_sweep && new_group(row))
			group_has_file = false;
		if (reason != NULL)
		{
			left[*nleft_out].batch = ranread_spi_int_named(SPI_tuptable->vals[row], SPI_tuptable->tupdesc,
														   "batch", 0);
			left[(*nleft_out)++].reason = reason;
			continue;
		}
		if (has_sweep ? file == NULL : !group_has_file)
		{
			file = add_file(set, "PerfToolsRanRead_", has_sweep ? ".txt" : group_file_extension(row, set, first_file));
			append_line(&file->content, -1, RANREAD_NCOLUMNS, '\t', "\n");
			group_has_file = true;
		}
		append_line(&file->content, row, RANREAD_NCOLUMNS, '\t', "\n");
	}
	qsort(left, *nleft_out, sizeof(LeftOut), left_out_cmp);
	for (int i = 0; i < Min(*nleft_out, EXPORT_MAX_NAMED_LEFT_OUT); i++)
		appendStringInfo(left_out, "%sbatch " INT64_FORMAT " (%s)", i > 0 ? ", " : "", left[i].batch, left[i].reason);
	if (*nleft_out > EXPORT_MAX_NAMED_LEFT_OUT)
		appendStringInfo(left_out, " and %d more", *nleft_out - EXPORT_MAX_NAMED_LEFT_OUT);

	if (file == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no batch to export in RanRead's format"),
				 SPI_processed == 0 ?
				 (has_sweep ? errdetail("Sweep " INT64_FORMAT " has no batch.", sweep) :
				  errdetail("ranread_summary has no batch.")) :
				 errdetail("No batch %scompleted with the device answering its reads (physical_pct at least %.0f); left out: %s.",
						   has_sweep ? psprintf("of sweep " INT64_FORMAT " ", sweep) : "",
						   RANREAD_SWEEP_MIN_PHYSICAL_PCT, left_out->data),
				 SPI_processed == 0 ?
				 errhint("Run ranread_run() or CALL ranread_sweep() first.") :
				 errhint("format 'tsv' exports every batch, with its status and physical_pct.")));
}

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

	if (SPI_execute_with_args(psprintf("SELECT %s.ranread_chart(sweep => $1) AS svg", quote_identifier(ranread_extension_schema())),
							  1, types, args, nulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not draw the chart");
	svg = ranread_spi_text_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "svg", NULL);
	if (svg != NULL)
		appendStringInfoString(out, svg);
}

/* The sweeps with at least one step recorded, in order; *n gets how many. */
static int64 *
sweeps_with_steps(int *n)
{
	const char *schema = quote_identifier(ranread_extension_schema());

	if (SPI_execute(psprintf("SELECT r.sweep FROM %s.ranread_sweep_runs r WHERE EXISTS (SELECT FROM %s.ranread_batches b "
							 "WHERE b.sweep OPERATOR(pg_catalog.=) r.sweep) ORDER BY r.sweep", schema, schema),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_sweep_runs");
	return ranread_spi_int_column("sweep", n);
}

/*
 * Are there fleet tables this role may read (a role may run benchmarks
 * without them), and do they hold a fleet run?
 */
static bool
fleet_runs_to_export(void)
{
	const char *schema = quote_identifier(ranread_extension_schema());

	/*
	 * Two queries: a query's tables are checked for SELECT before any row is
	 * read.  Called through 1.0's or 1.1's declaration, there are no fleet
	 * tables.
	 */
	if (SPI_execute(psprintf("SELECT COALESCE("
							 "pg_catalog.has_table_privilege(pg_catalog.to_regclass(%s), 'SELECT') "
							 "AND pg_catalog.has_table_privilege(pg_catalog.to_regclass(%s), 'SELECT'), false) AS readable",
							 quote_literal_cstr(psprintf("%s.ranread_fleet_summary", schema)),
							 quote_literal_cstr(psprintf("%s.ranread_fleet_servers", schema))),
					true, 1) != SPI_OK_SELECT ||
		!ranread_spi_bool_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "readable", false))
		return false;
	if (SPI_execute(psprintf("SELECT FROM %s.ranread_fleet_summary LIMIT 1", schema), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_fleet_summary");
	return SPI_processed == 1;
}

/*
 * The fleet runs (ranread_fleet_summary) and their servers' rows
 * (ranread_fleet_servers, without the histograms), tab-separated.
 */
static void
add_fleet_files(ExportFiles *set)
{
	const char *schema = quote_identifier(ranread_extension_schema());

	if (SPI_execute(psprintf("SELECT * FROM %s.ranread_fleet_summary ORDER BY fleet", schema),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_fleet_summary");
	append_table(&add_file(set, "ranread_", "-fleet.tsv")->content, '\t', "\n");
	if (SPI_execute(psprintf("SELECT fleet, server, batch, status, error, iops, mean_ms, p99_ms, max_ms, reads, "
							 "started_at, wall_s, start_skew_ms, clock_offset_ms FROM %s.ranread_fleet_servers "
							 "ORDER BY fleet, server", schema),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_fleet_servers");
	append_table(&add_file(set, "ranread_", "-fleet-servers.tsv")->content, '\t', "\n");
}

/* The chart of every fleet sweep (ranread_chart_fleet()), a file each. */
static void
add_fleet_charts(ExportFiles *set)
{
	const char *schema = quote_identifier(ranread_extension_schema());
	int64	   *sweeps;
	int			n;

	if (SPI_execute(psprintf("SELECT DISTINCT fleet_sweep FROM %s.ranread_fleet_summary "
							 "WHERE fleet_sweep IS NOT NULL ORDER BY fleet_sweep", schema),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_fleet_summary");
	sweeps = ranread_spi_int_column("fleet_sweep", &n);
	for (int i = 0; i < n; i++)
	{
		Oid			types[1] = {INT8OID};
		Datum		args[1] = {Int64GetDatum(sweeps[i])};
		char	   *svg;

		if (SPI_execute_with_args(psprintf("SELECT %s.ranread_chart_fleet(fleet_sweep => $1) AS svg", schema),
								  1, types, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not draw the chart of fleet sweep " INT64_FORMAT, sweeps[i]);
		svg = ranread_spi_text_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "svg", NULL);
		appendStringInfoString(&add_file(set, "ranread_", psprintf("-fleet-sweep" INT64_FORMAT ".svg",
																   sweeps[i]))->content,
							   svg != NULL ? svg : "");
	}
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

/* What to export: the arguments both export functions take, checked. */
typedef struct ExportRequest
{
	const char *format;			/* "tsv" or "ranread" */
	bool		has_sweep;
	int64		sweep;
	bool		csv;
	bool		svg;
} ExportRequest;

/*
 * The request from arguments format, sweep, csv and svg, from argument
 * first on (a declaration with fewer arguments, 1.0's, takes the defaults).
 */
static ExportRequest
export_request(FunctionCallInfo fcinfo, int first)
{
	ExportRequest request = {"tsv", false, 0, false, false};

	if (PG_NARGS() > first)
	{
		if (PG_ARGISNULL(first))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("export format must not be null")));
		request.format = text_to_cstring(PG_GETARG_TEXT_PP(first));
	}
	if (strcmp(request.format, "tsv") != 0 && strcmp(request.format, "ranread") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown export format \"%s\"", request.format),
				 errhint("The formats are 'tsv' (every column of ranread_summary) and 'ranread' (RanRead's seven columns); for a CSV file as well, pass csv => true.")));
	request.has_sweep = PG_NARGS() > first + 1 && !PG_ARGISNULL(first + 1);
	request.sweep = request.has_sweep ? PG_GETARG_INT64(first + 1) : 0;
	request.csv = bool_argument(fcinfo, first + 2, "csv");
	request.svg = bool_argument(fcinfo, first + 3, "svg");
	return request;
}

/*
 * The files of an export, made in memory (their names' ends and contents):
 * ranread_summary as request says, and the fleet's files where they belong.
 * Batches left out of RanRead's format are reported in a NOTICE.
 */
static ExportFiles
build_export_files(const ExportRequest *request)
{
	ExportFiles set = {CurrentMemoryContext, NULL, 0, 0};
	int64	   *charts = NULL;
	int			ncharts = 0;
	StringInfoData left_out;
	int			nleft_out = 0;

	/* the files, their contents and the list of left-out batches outlive SPI_finish() */
	initStringInfo(&left_out);

	SPI_connect();
	if (request->has_sweep)
		check_sweep_exists(request->sweep);
	else if (request->svg)
		charts = sweeps_with_steps(&ncharts);
	if (strcmp(request->format, "ranread") == 0)
		add_ranread_files(&set, request->has_sweep, request->sweep, &left_out, &nleft_out);
	else
	{
		/* whatever the view has, in its order */
		select_summary("*", request->has_sweep, request->sweep);
		append_table(&add_file(&set, "ranread_", ".tsv")->content, '\t', "\n");
	}
	if (request->csv)
	{
		select_summary("*", request->has_sweep, request->sweep);
		append_table(&add_file(&set, "ranread_", ".csv")->content, ',', "\r\n");
	}
	/* the sweep's chart; without one, a chart per sweep, or ranread_chart()'s when none has a step */
	if (request->svg && ncharts == 0)
		append_chart(&add_file(&set, "ranread_", ".svg")->content, request->has_sweep, request->sweep);
	for (int i = 0; i < ncharts; i++)
		append_chart(&add_file(&set, "ranread_", psprintf("-sweep" INT64_FORMAT ".svg", charts[i]))->content,
					 true, charts[i]);
	/* all of it: the fleet runs too, where this role sees them */
	if (!request->has_sweep && strcmp(request->format, "tsv") == 0 && fleet_runs_to_export())
	{
		add_fleet_files(&set);
		if (request->svg)
			add_fleet_charts(&set);
	}
	SPI_finish();

	if (nleft_out > 0)
		ereport(NOTICE,
				(errmsg_plural("%d batch was left out of RanRead's format",
							   "%d batches were left out of RanRead's format", nleft_out, nleft_out),
				 errdetail("Left out: %s. RanRead's format has only the batches that completed with the device answering their reads (physical_pct at least %.0f, as a sweep counts its steps).",
						   left_out.data, RANREAD_SWEEP_MIN_PHYSICAL_PCT),
				 errhint("format 'tsv' exports every batch, with its status and physical_pct.")));
	return set;
}

/*
 * ranread_export(directory, format, sweep, csv, svg): write ranread_summary
 * to new files in directory (see create_export_files) and return their
 * paths, one row each.
 *
 * format 'tsv' (ranread_YYYYMMDD-HHMM.tsv): every column of the view in its
 * order (RanRead's seven first), a header, tab-separated.  format 'ranread':
 * the seven columns of RanRead's Export() under its names, Iterations filled
 * in for time-based runs (reads per process), one file per group of batches
 * that can be compared, PerfToolsRanRead_YYYYMMDD-HHMM_TARGET_MODE_8k_qd1.txt
 * (see add_ranread_files), without the batches that did not measure the
 * storage (a NOTICE lists them).  csv: also ranread_YYYYMMDD-HHMM.csv, every
 * column, comma-separated (RFC 4180).  svg: also the charts of
 * ranread_chart().  Format 'tsv' without a sweep also writes the fleet runs
 * this coordinator recorded, if any and if the role may read them:
 * ranread_YYYYMMDD-HHMM-fleet.tsv (ranread_fleet_summary) and
 * -fleet-servers.tsv (ranread_fleet_servers), and with svg each fleet
 * sweep's ranread_chart_fleet() (-fleet-sweepN.svg).  sweep: only that
 * sweep's batches (RanRead's format: in one file,
 * PerfToolsRanRead_YYYYMMDD-HHMM.txt), and its chart.  Values are
 * as the view gives them (the function runs with DateStyle ISO: dates
 * YYYY-MM-DD, times HH:MM:SS), fields quoted as COPY's CSV format quotes
 * them, text that a spreadsheet would take for a formula made text (see
 * append_csv_field).  Every file is made in memory first; if one cannot be
 * written whole, none is kept.
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
	ExportRequest request;
	ExportFiles set;
	ExportFile *files;
	int			count;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("export directory must not be null")));
	directory = text_to_cstring(PG_GETARG_TEXT_PP(0));
	check_export_directory(directory);
	request = export_request(fcinfo, 1);
	if (returns_set)
	{
		InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
		ranread_check_result_columns(rsinfo->setDesc, 1);
	}
	set = build_export_files(&request);

	files = set.files;
	count = set.count;
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

/*
 * ranread_export_files(format, sweep, csv, svg): the files ranread_export()
 * would write, as rows of (file, content), for the client to save: no
 * server file is written, so it needs no privilege beyond reading the
 * history.  file is the name ranread_export() would give it (without the
 * numbering it adds when the name is taken); content is the file's text less
 * its final newline, which psql's unaligned output adds back, so that
 *   \g (format=unaligned tuples_only=on) ranread.tsv
 * after SELECT content FROM ranread_export_files() WHERE file LIKE '%.tsv'
 * writes the file byte for byte.
 */
Datum
ranread_export_files(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ExportRequest request = export_request(fcinfo, 0);
	ExportFiles set;
	const char *stamp;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ranread_check_result_columns(rsinfo->setDesc, 2);
	set = build_export_files(&request);
	/* one minute for all the files, as ranread_export() names them */
	stamp = export_stamp();
	for (int i = 0; i < set.count; i++)
	{
		ExportFile *file = &set.files[i];
		Datum		values[2];
		bool		isnull[2] = {false, false};

		if (file->content.len > 0 && file->content.data[file->content.len - 1] == '\n')
			file->content.data[--file->content.len] = '\0';
		values[0] = CStringGetTextDatum(psprintf("%s%s%s", file->prefix, stamp, file->extension));
		values[1] = PointerGetDatum(cstring_to_text_with_len(file->content.data, file->content.len));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, isnull);
	}
	return (Datum) 0;
}
