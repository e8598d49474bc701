/*-------------------------------------------------------------------------
 *
 * admin.c
 *		ranread_stop(), ranread_reset(), ranread_export(), ranread_drop() and
 *		ranread_help(): everything around a run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "postmaster/bgworker.h"
#include "pgtime.h"
#include "storage/fd.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "ranread.h"
#include "readpath.h"
#include "target.h"

/* How long ranread_stop() waits for the workers to record and exit. */
#define STOP_WAIT_MS	5000
#define STOP_POLL_MS	10

/* How many numbered names an export tries within one minute. */
#define EXPORT_MAX_NAMES	1000

PG_FUNCTION_INFO_V1(ranread_stop);
PG_FUNCTION_INFO_V1(ranread_reset);
PG_FUNCTION_INFO_V1(ranread_export);
PG_FUNCTION_INFO_V1(ranread_drop);
PG_FUNCTION_INFO_V1(ranread_help);

/* Run a query returning one bigint. */
static int64
query_int64(const char *sql, bool read_only)
{
	int64		result = 0;
	bool		isnull;

	SPI_connect();
	if (SPI_execute(sql, read_only, 0) < 0 || SPI_processed != 1)
		elog(ERROR, "could not run \"%s\"", sql);
	result = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return result;
}

/*
 * PIDs of every ranread worker in the cluster, whoever runs it (the process
 * array and the background worker registry, not pg_stat_activity, which
 * hides other roles' backend types).
 */
List *
ranread_worker_pids(void)
{
	List	   *pids = NIL;
	List	   *workers = NIL;
	ListCell   *lc;

	LWLockAcquire(ProcArrayLock, LW_SHARED);
	for (uint32 i = 0; i < ProcGlobal->allProcCount; i++)
	{
		if (ProcGlobal->allProcs[i].pid != 0)
			pids = lappend_int(pids, ProcGlobal->allProcs[i].pid);
	}
	LWLockRelease(ProcArrayLock);

	foreach(lc, pids)
	{
		const char *type = GetBackgroundWorkerTypeByPid(lfirst_int(lc));

		if (type != NULL && strcmp(type, RANREAD_WORKER_TYPE) == 0)
			workers = lappend_int(workers, lfirst_int(lc));
	}
	return workers;
}

/* Error out unless this role may signal worker pid, as pg_terminate_backend() decides. */
static void
check_may_stop(int pid)
{
	PGPROC	   *proc = BackendPidGetProc(pid);

	if (proc == NULL)
		return;
	if (superuser_arg(proc->roleId) && !superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to stop ranread worker %d", pid),
				 errdetail("Only superusers may stop a superuser's ranread workers.")));
	if (!has_privs_of_role(GetUserId(), proc->roleId) &&
		!has_privs_of_role(GetUserId(), ROLE_PG_SIGNAL_BACKEND))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to stop ranread worker %d", pid),
				 errdetail("Only roles with the privileges of the role running the benchmark, or of \"%s\", may stop it.",
						   "pg_signal_backend")));
}

/*
 * Stop every ranread worker of the cluster: signal each (SIGTERM; it records
 * what it measured with status "stopped" and exits).  While the batch that
 * was running when we were called is still going, keep looking, so that its
 * workers still starting are stopped too and the function returns once that
 * batch is over and recorded (at most STOP_WAIT_MS).  A batch started later
 * is left alone.  Permissions are checked for every worker before any is
 * signalled.
 */
Datum
ranread_stop(PG_FUNCTION_ARGS)
{
	int64		batch = ranread_running_batch(NULL);
	List	   *signalled = NIL;
	ListCell   *lc;

	for (int waited = 0; waited < STOP_WAIT_MS; waited += STOP_POLL_MS)
	{
		List	   *pids = ranread_worker_pids();

		if (batch != 0 && ranread_running_batch(NULL) != batch)
			break;
		foreach(lc, pids)
			check_may_stop(lfirst_int(lc));
		foreach(lc, pids)
		{
			int			pid = lfirst_int(lc);

			if (!list_member_int(signalled, pid) && kill(pid, SIGTERM) == 0)
				signalled = lappend_int(signalled, pid);
		}
		if (batch == 0 && pids == NIL)
			break;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(STOP_POLL_MS * 1000L);
	}
	PG_RETURN_INT32(list_length(signalled));
}

/* Delete all history; returns the number of rows deleted from both tables. */
Datum
ranread_reset(PG_FUNCTION_ARGS)
{
	const char *schema = quote_identifier(ranread_extension_schema());

	PG_RETURN_INT64(query_int64(psprintf("WITH r AS (DELETE FROM %s.ranread_results RETURNING 1), "
										 "b AS (DELETE FROM %s.ranread_batches RETURNING 1) "
										 "SELECT (SELECT pg_catalog.count(*) FROM r) OPERATOR(pg_catalog.+) "
										 "(SELECT pg_catalog.count(*) FROM b)",
										 schema, schema),
								false));
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
	/* a path too long or looping is the caller's mistake, not an internal error */
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

/*
 * Create a new export file in directory, named after the minute as RanRead
 * named its files: ranread_YYYYMMDD-HHMM.tsv, or ranread_YYYYMMDD-HHMM-N.tsv
 * when that name is taken.  The file is created exclusively and a symbolic
 * link in its place is not followed (O_CREAT | O_EXCL | O_NOFOLLOW), so an
 * export never overwrites or truncates anything; its mode is that of the
 * cluster's own files (0600, or 0640 with group access).
 */
static int
create_export_file(const char *directory, char **path)
{
	char		stamp[32];
	pg_time_t	now = (pg_time_t) time(NULL);
	const char *separator = directory[strlen(directory) - 1] == '/' ? "" : "/";

	pg_strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M", pg_localtime(&now, session_timezone));
	for (int n = 1; n <= EXPORT_MAX_NAMES; n++)
	{
		int			fd;

		*path = n == 1 ? psprintf("%s%sranread_%s.tsv", directory, separator, stamp) :
			psprintf("%s%sranread_%s-%d.tsv", directory, separator, stamp, n);
		fd = OpenTransientFile(*path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | PG_BINARY);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create file \"%s\": %m", *path)));
	}
	ereport(ERROR,
			(errcode(ERRCODE_DUPLICATE_FILE),
			 errmsg("could not find a free export file name in \"%s\"", directory),
			 errdetail("ranread_%s.tsv and its numbered variants up to %d exist.", stamp, EXPORT_MAX_NAMES),
			 errhint("Try again in a minute, or export to another directory.")));
	return -1;					/* keep compiler quiet */
}

/* Append value as a field of COPY's CSV format (NULL is an empty field). */
static void
append_csv_field(StringInfo line, const char *value)
{
	if (value == NULL)
		return;
	if (value[0] != '\0' && strpbrk(value, "\t\"\r\n") == NULL)
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
 * Write ranread_summary to a new file in directory (see create_export_file):
 * tab-separated with a header, RanRead's seven columns first, dates
 * YYYY-MM-DD and times HH:MM:SS, fields quoted as COPY's CSV format quotes
 * them.  A file that cannot be written whole is removed.
 */
Datum
ranread_export(PG_FUNCTION_ARGS)
{
	char	   *directory;
	char	   *path;
	int			fd;
	StringInfoData tsv;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("export directory must not be null")));
	directory = text_to_cstring(PG_GETARG_TEXT_PP(0));
	check_export_directory(directory);

	SPI_connect();
	if (SPI_execute(psprintf("SELECT pg_catalog.to_char(run_date, 'YYYY-MM-DD') AS run_date, "
							 "pg_catalog.to_char(run_time, 'HH24:MI:SS') AS run_time, target, iterations, processes, "
							 "response_time_ms, iops, batch, mode, block_size, p50_ms, p95_ms, p99_ms, p999_ms, "
							 "min_ms, max_ms, pct_over_2ms, pct_over_5ms, pct_over_10ms, mb_per_s, physical_pct, "
							 "buffer_hits, buffer_misses, device, device_reads_per_s, device_read_wait_ms, "
							 "device_util_pct, reads, wall_s, duration_s, evicted, status "
							 "FROM %s.ranread_summary ORDER BY batch",
							 quote_identifier(ranread_extension_schema())),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_summary");

	initStringInfo(&tsv);
	for (int col = 1; col <= SPI_tuptable->tupdesc->natts; col++)
	{
		if (col > 1)
			appendStringInfoChar(&tsv, '\t');
		append_csv_field(&tsv, SPI_fname(SPI_tuptable->tupdesc, col));
	}
	appendStringInfoChar(&tsv, '\n');
	for (uint64 row = 0; row < SPI_processed; row++)
	{
		for (int col = 1; col <= SPI_tuptable->tupdesc->natts; col++)
		{
			if (col > 1)
				appendStringInfoChar(&tsv, '\t');
			append_csv_field(&tsv, SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col));
		}
		appendStringInfoChar(&tsv, '\n');
	}
	SPI_finish();

	fd = create_export_file(directory, &path);
	errno = 0;
	if (write(fd, tsv.data, tsv.len) != tsv.len || pg_fsync(fd) != 0)
	{
		int			save_errno = errno ? errno : ENOSPC;

		(void) unlink(path);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	}
	CloseTransientFile(fd);
	PG_RETURN_TEXT_P(cstring_to_text(path));
}

/* Drop a target and forget it. */
Datum
ranread_drop(PG_FUNCTION_ARGS)
{
	RanreadTarget target;
	const char *name;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("target name must not be null")));
	name = NameStr(*PG_GETARG_NAME(0));
	ranread_target_lookup(name, AccessExclusiveLock, false, &target);
	if (!target.registered && !target.relation_exists)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", name)));
	ranread_target_forget(&target);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("dropped ranread target \"%s\"", name)));
}

/* ranread_help(): these lines, with one line per read path after the marker. */
#define HELP_MODES	NULL

static const char *const help_lines[] = {
	"ranread: random-read storage benchmark for PostgreSQL",
	"ranread_setup(size text DEFAULT NULL, tablespace name DEFAULT NULL, target name DEFAULT 'ranread_target', log_level int DEFAULT 1)",
	"    - Creates an unlogged target table and writes every block with incompressible data; size NULL means twice the server's memory; log_level 0 (silent) to 3 (verbose).",
	"ranread_run(processes int, iterations bigint, target name DEFAULT 'ranread_target', mode text DEFAULT 'smgr', block_size int DEFAULT 8192, duration interval DEFAULT NULL, evict boolean DEFAULT true)",
	"    - Starts processes background workers that each time iterations (or, with duration, as many as fit) random reads of block_size bytes; records one row per worker in ranread_results and one per batch in ranread_batches.",
	HELP_MODES,
	"ranread_stop()",
	"    - Stops every running ranread worker; the interrupted batch is recorded with status 'stopped'. Returns the number of workers stopped.",
	"ranread_reset()",
	"    - Deletes all history from ranread_results and ranread_batches. Returns the number of rows deleted.",
	"ranread_export(directory text)",
	"    - Writes ranread_summary to a new file directory/ranread_YYYYMMDD-HHMM.tsv (-2, -3 ... if taken; never overwrites; tab-separated, for spreadsheets). Returns the file's path.",
	"ranread_drop(target name DEFAULT 'ranread_target')",
	"    - Drops a target made by ranread_setup() and forgets it.",
	"ranread_help()",
	"    - Shows this text.",
	"SELECT * FROM ranread_summary ORDER BY batch;",
	"    - One row per batch: run_date, run_time, target, iterations, processes, response_time_ms, iops, then percentiles, share of reads over 2/5/10 ms, physical_pct (bytes fetched from storage / bytes read), device statistics and status.",
};

static void
put_help_line(ReturnSetInfo *rsinfo, const char *line)
{
	Datum		value = CStringGetTextDatum(line);
	bool		isnull = false;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
}

Datum
ranread_help(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int i = 0; i < lengthof(help_lines); i++)
	{
		if (help_lines[i] != HELP_MODES)
		{
			put_help_line(rsinfo, help_lines[i]);
			continue;
		}
		for (int j = 0; j < ranread_readpath_count(); j++)
		{
			const RanreadReadPath *path = ranread_readpath_by_index(j);

			put_help_line(rsinfo, psprintf("    - mode '%s': %s.", path->name, path->description));
		}
	}
	return (Datum) 0;
}
