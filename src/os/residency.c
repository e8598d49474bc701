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
 * A file system that refuses mappings (FUSE with direct_io: ENODEV) is asked
 * through cachestat(2) instead (Linux 6.5 and later), which counts a range's
 * cached pages through the file descriptor.  Where neither works the proof
 * is unavailable: ranread_residency_open() returns NULL and says why, and
 * the run goes on with physical_pct unknown (NULL), never failing for it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "miscadmin.h"

#include "os/residency.h"
#include "os/segments.h"

/* Pages of the OS: mincore() reports one byte per page. */
#define OS_PAGE_SIZE	4096
#define PAGES_PER_BLOCK	(BLCKSZ / OS_PAGE_SIZE)

/* cachestat(2): Linux 6.5; glibc 2.36 (Debian 12) has neither wrapper nor number. */
#ifndef SYS_cachestat
#define SYS_cachestat	451		/* the same on every architecture */
#endif

typedef struct CachestatRange
{
	uint64		off;
	uint64		len;
} CachestatRange;

typedef struct Cachestat
{
	uint64		nr_cache;
	uint64		nr_dirty;
	uint64		nr_writeback;
	uint64		nr_evicted;
	uint64		nr_recently_evicted;
} Cachestat;

struct RanreadResidency
{
	int			nsegments;
	char	  **maps;			/* mincore(): one mapping per segment file */
	int		   *fds;			/* cachestat(): one descriptor per segment file */
	Size	   *lengths;
	unsigned char *pages;		/* mincore()'s answer for one unit */
};

/* Cached pages of bytes [offset, offset + length) of fd; -1 with errno if the kernel will not say. */
static int64
cachestat_pages(int fd, uint64 offset, uint64 length)
{
	CachestatRange range = {offset, length};
	Cachestat	stat;

	if (syscall(SYS_cachestat, fd, &range, &stat, 0) != 0)
		return -1;
	return (int64) stat.nr_cache;
}

/*
 * Map the target's segment files (or, where mappings are refused, keep them
 * open for cachestat()), to probe units of up to blocks_per_read blocks.
 * NULL when neither works, with *unavailable saying why.
 */
RanreadResidency *
ranread_residency_open(RanreadRelFile file, BlockNumber blocks, int blocks_per_read,
					   char **unavailable)
{
	RanreadResidency *residency = palloc0(sizeof(RanreadResidency));

	*unavailable = NULL;
	residency->nsegments = ranread_segment_count(blocks);
	residency->maps = palloc0(sizeof(char *) * residency->nsegments);
	residency->fds = palloc(sizeof(int) * residency->nsegments);
	residency->lengths = palloc0(sizeof(Size) * residency->nsegments);
	residency->pages = palloc((Size) blocks_per_read * PAGES_PER_BLOCK);
	for (int segno = 0; segno < residency->nsegments; segno++)
		residency->fds[segno] = -1;
	for (int segno = 0; segno < residency->nsegments; segno++)
	{
		char	   *path = ranread_segment_path(file, segno);
		Size		length = (Size) Min(blocks - (BlockNumber) segno * RELSEG_SIZE, RELSEG_SIZE) * BLCKSZ;
		int			fd = open(path, O_RDONLY | PG_BINARY);
		void	   *map;
		int			map_errno;

		if (fd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", path)));
		residency->lengths[segno] = length;
		map = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
		map_errno = errno;
		if (map != MAP_FAILED)
		{
			close(fd);
			residency->maps[segno] = map;
			continue;
		}
		residency->fds[segno] = fd;
		if (cachestat_pages(fd, 0, BLCKSZ) < 0)
		{
			*unavailable = psprintf("the file system refused to map \"%s\" (%s), and the kernel did not answer cachestat() for it (%s)",
									path, strerror(map_errno), strerror(errno));
			ranread_residency_close(residency);
			return NULL;
		}
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
		Size		offset = (Size) (block % RELSEG_SIZE) * BLCKSZ;

		if (residency->maps[segno] == NULL)
		{
			int64		cached = cachestat_pages(residency->fds[segno], offset, pages * OS_PAGE_SIZE);

			if (cached < 0)
				ereport(ERROR,
						(errcode(ERRCODE_SYSTEM_ERROR),
						 errmsg("could not ask the kernel which pages of the target are cached: %m")));
			if ((Size) cached < pages)
				return false;
			block += in_segment;
			continue;
		}
		if (mincore(residency->maps[segno] + offset, pages * OS_PAGE_SIZE, residency->pages) != 0)
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
		if (residency->fds[segno] >= 0)
			close(residency->fds[segno]);
	}
}
