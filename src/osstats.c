/*-------------------------------------------------------------------------
 *
 * osstats.c
 *		Memory size, free space and page-cache eviction, from the OS.
 *
 * Eviction flushes any dirty pages of each segment (setup may have run with
 * fsync off) and then drops the clean ones with POSIX_FADV_DONTNEED, so the
 * next read of every block must go to the device.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "storage/fd.h"

#include "osstats.h"
#include "target.h"

uint64
ranread_physical_memory_bytes(void)
{
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		page_size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page_size <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not determine the size of physical memory: %m")));
	return (uint64) pages * (uint64) page_size;
}

/* Bytes an unprivileged writer may still use on the file system of path. */
uint64
ranread_free_bytes(const char *path)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not determine free space of \"%s\": %m", path)));
	return (uint64) fs.f_bavail * (uint64) fs.f_frsize;
}

void
ranread_evict_from_page_cache(RelFileNode node, BlockNumber blocks)
{
	BlockNumber segno;

	for (segno = 0; segno < ranread_segment_count(blocks); segno++)
	{
		char	   *path = ranread_segment_path(node, segno);
		int			fd;
		int			rc;

		fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
		if (fd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", path)));
		if (fdatasync(fd) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not flush file \"%s\": %m", path)));
		rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (rc != 0)
		{
			errno = rc;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not evict file \"%s\" from the page cache: %m", path)));
		}
		CloseTransientFile(fd);
		pfree(path);
	}
}
