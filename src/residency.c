/*-------------------------------------------------------------------------
 *
 * residency.c
 *		Whether the OS page cache holds a unit of the target before it is
 *		read: the count behind physical_pct.
 *
 * Each segment file is mapped (read only, never touched, so the mapping
 * itself reads nothing) and mincore() asks the kernel, before each read and
 * outside its timed window, whether every page of the unit is resident.  A
 * read of a resident unit is answered from memory; any other read reaches
 * the device.  Readahead cannot inflate this count as it inflated 1.0's
 * byte ratio: a unit that readahead brought in is counted as memory when it
 * is read.  The cost is one mincore() call per read (measured in
 * docs/reference.md, physical_pct).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "miscadmin.h"

#include "residency.h"
#include "segments.h"

/* Pages of the OS: mincore() reports one byte per page. */
#define OS_PAGE_SIZE	4096
#define PAGES_PER_BLOCK	(BLCKSZ / OS_PAGE_SIZE)

struct RanreadResidency
{
	int			nsegments;
	char	  **maps;			/* one mapping per segment file */
	Size	   *lengths;
	unsigned char *pages;		/* mincore()'s answer for one unit */
};

/* Map the target's segment files, to probe units of up to blocks_per_read blocks. */
RanreadResidency *
ranread_residency_open(RanreadRelFile file, BlockNumber blocks, int blocks_per_read)
{
	RanreadResidency *residency = palloc0(sizeof(RanreadResidency));

	residency->nsegments = ranread_segment_count(blocks);
	residency->maps = palloc0(sizeof(char *) * residency->nsegments);
	residency->lengths = palloc0(sizeof(Size) * residency->nsegments);
	residency->pages = palloc((Size) blocks_per_read * PAGES_PER_BLOCK);
	for (int segno = 0; segno < residency->nsegments; segno++)
	{
		char	   *path = ranread_segment_path(file, segno);
		Size		length = (Size) Min(blocks - (BlockNumber) segno * RELSEG_SIZE, RELSEG_SIZE) * BLCKSZ;
		int			fd = open(path, O_RDONLY | PG_BINARY);
		void	   *map;

		if (fd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", path)));
		map = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not map file \"%s\" to see what the page cache holds: %m", path)));
		residency->maps[segno] = map;
		residency->lengths[segno] = length;
	}
	return residency;
}

/* True if every page of blocks [first_block, first_block + nblocks) is in the page cache. */
bool
ranread_residency_cached(RanreadResidency *residency, BlockNumber first_block, int nblocks)
{
	BlockNumber block = first_block;
	BlockNumber end = first_block + nblocks;

	/* a unit may cross into the next segment file */
	while (block < end)
	{
		BlockNumber segno = block / RELSEG_SIZE;
		BlockNumber in_segment = Min(end, (segno + 1) * RELSEG_SIZE) - block;
		Size		pages = (Size) in_segment * PAGES_PER_BLOCK;

		if (mincore(residency->maps[segno] + (Size) (block % RELSEG_SIZE) * BLCKSZ,
					pages * OS_PAGE_SIZE, residency->pages) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not ask the kernel which pages of the target are cached: %m")));
		for (Size i = 0; i < pages; i++)
		{
			if ((residency->pages[i] & 1) == 0)
				return false;
		}
		block += in_segment;
	}
	return true;
}

void
ranread_residency_close(RanreadResidency *residency)
{
	for (int segno = 0; segno < residency->nsegments; segno++)
	{
		if (residency->maps[segno] != NULL)
			(void) munmap(residency->maps[segno], residency->lengths[segno]);
	}
}
