/*-------------------------------------------------------------------------
 *
 * segments.c
 *		The files of a relation's main fork: how many 1 GiB segments it has
 *		and what each is called.  Setup writes them, eviction and the direct
 *		read path open them, and messages name the first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/relpath.h"
#include "miscadmin.h"

#include "compat.h"
#include "os/segments.h"

BlockNumber
ranread_segment_count(BlockNumber blocks)
{
	return (blocks + RELSEG_SIZE - 1) / RELSEG_SIZE;
}

/* Path of one segment file of a main fork, relative to the data directory. */
char *
ranread_segment_path(RanreadRelFile file, BlockNumber segno)
{
	char	   *path = ranread_relpath(file);

	if (segno == 0)
		return path;
	return psprintf("%s.%u", path, segno);
}

/* The first segment's absolute path, as messages show it. */
char *
ranread_first_segment_absolute_path(RanreadRelFile file)
{
	return psprintf("%s/%s", DataDir, ranread_segment_path(file, 0));
}
