/*-------------------------------------------------------------------------
 *
 * readpath.c
 *		The table of read paths, looked up by name (SQL) or index (DSM).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "readpath.h"

/*
 * Every read path: a new one is its own file (readpath_<name>.c, which the
 * Makefile finds by itself) and one line here and in the table below.
 */
extern const RanreadReadPath ranread_readpath_smgr;
extern const RanreadReadPath ranread_readpath_direct;
extern const RanreadReadPath ranread_readpath_buffer;

static const RanreadReadPath *const read_paths[] = {
	&ranread_readpath_smgr,
	&ranread_readpath_direct,
	&ranread_readpath_buffer,
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

/*
 * The modes whose flags include all of flags (0: every mode), as a sentence
 * lists them: 'smgr', 'direct' or 'buffer'.
 */
const char *
ranread_readpath_names(uint32 flags)
{
	StringInfoData names;
	int			matching = 0;
	int			listed = 0;

	for (int i = 0; i < lengthof(read_paths); i++)
		matching += (read_paths[i]->flags & flags) == flags;
	initStringInfo(&names);
	for (int i = 0; i < lengthof(read_paths); i++)
	{
		if ((read_paths[i]->flags & flags) != flags)
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
