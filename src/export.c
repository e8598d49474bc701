/*-------------------------------------------------------------------------
 *
 * export.c
 *		ranread_export(): ranread_summary as a tab-separated file for
 *		spreadsheets, written by the server into a new file.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "executor/spi.h"
#include "fmgr.h"
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
 * every column of the view in its order (RanRead's seven first), a header,
 * tab-separated, values as the view gives them (the function runs with
 * DateStyle ISO: dates YYYY-MM-DD, times HH:MM:SS), fields quoted as COPY's
 * CSV format quotes them.  A file that cannot be written whole is removed.
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

	/* the text outlives SPI_finish(), so it lives in the caller's context */
	initStringInfo(&tsv);
	SPI_connect();
	/* whatever the view has, in its order; DateStyle is ISO for the call (SQL) */
	if (SPI_execute(psprintf("SELECT * FROM %s.ranread_summary ORDER BY batch",
							 quote_identifier(ranread_extension_schema())),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read ranread_summary");

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
