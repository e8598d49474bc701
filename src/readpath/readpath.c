/*-------------------------------------------------------------------------
 *
 * readpath.c
 *		The table of read paths, looked up by name (SQL) or index (DSM).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "compat.h"
#include "readpath/readpath.h"

/*
 * Every read path: a new one is its own file (readpath_<name>.c, which the
 * Makefile finds by itself), one declaration in readpath.h and one line in
 * the table below.
 */
static const RanreadReadPath *const read_paths[] = {
	&ranread_readpath_smgr,
	&ranread_readpath_direct,
	&ranread_readpath_buffer,
	&ranread_readpath_stream,
};

const RanreadReadPath *
ranread_readpath_by_name(const char *name)
{
	for (int i = 0; i < lengthof(read_paths); i++)
	{
		if (pg_strcasecmp(read_paths[i]->name, name) == 0)
			return read_paths[i];
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown ranread mode \"%s\"", name),
			 errhint("Use %s.", ranread_readpath_names(0))));
	return NULL;				/* keep compiler quiet */
}

/* Whether this server can run the path (one through asynchronous I/O needs 18). */
bool
ranread_readpath_runs_here(const RanreadReadPath *path)
{
	return !(path->flags & RANREAD_PATH_AIO) || RANREAD_HAVE_AIO;
}

/*
 * The modes this server runs whose flags include all of flags (0: every
 * mode), as a sentence lists them: 'smgr', 'direct' or 'buffer'.
 */
const char *
ranread_readpath_names(uint32 flags)
{
	StringInfoData names;
	int			matching = 0;
	int			listed = 0;

	for (int i = 0; i < lengthof(read_paths); i++)
		matching += (read_paths[i]->flags & flags) == flags && ranread_readpath_runs_here(read_paths[i]);
	initStringInfo(&names);
	for (int i = 0; i < lengthof(read_paths); i++)
	{
		if ((read_paths[i]->flags & flags) != flags || !ranread_readpath_runs_here(read_paths[i]))
			continue;
		appendStringInfo(&names, "%s'%s'",
						 listed == 0 ? "" : listed == matching - 1 ? " or " : ", ",
						 read_paths[i]->name);
		listed++;
	}
	return names.data;
}

int
ranread_readpath_count(void)
{
	return lengthof(read_paths);
}

const RanreadReadPath *
ranread_readpath_by_index(int index)
{
	/* the index comes from shared memory: check it even in production builds */
	if (index < 0 || index >= lengthof(read_paths))
		elog(ERROR, "invalid read path index %d", index);
	return read_paths[index];
}

int
ranread_readpath_index(const RanreadReadPath *path)
{
	for (int i = 0; i < lengthof(read_paths); i++)
	{
		if (read_paths[i] == path)
			return i;
	}
	elog(ERROR, "unregistered read path");
	return -1;					/* keep compiler quiet */
}

/*
 * Refuse a path this server cannot run, before anything starts: one through
 * asynchronous I/O before PostgreSQL 18.
 */
void
ranread_readpath_check_server(const RanreadReadPath *path)
{
	if (!ranread_readpath_runs_here(path))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("mode '%s' needs PostgreSQL %s or later", path->name, RANREAD_AIO_MAJOR),
				 errdetail("This server is PostgreSQL %s; mode '%s' reads through the asynchronous I/O (io_method) that PostgreSQL %s introduced.",
						   PG_VERSION, path->name, RANREAD_AIO_MAJOR),
				 errhint("Mode 'direct' with iodepth keeps reads in flight on any version.")));
}
