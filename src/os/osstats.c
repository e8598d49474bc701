/*-------------------------------------------------------------------------
 *
 * osstats.c
 *		Memory size, free space and page-cache eviction, from the OS.
 *
 * Eviction flushes any dirty pages of each segment (setup may have run with
 * fsync off) and then drops the clean ones with POSIX_FADV_DONTNEED, so the
 * next read of every block must go to the device.
 *
 * The proof that reads reached the device comes from the kernel: the
 * read_bytes counter of /proc/thread-self/io counts the bytes this thread
 * caused to be fetched from storage (buffered and direct), and the device's
 * own counters in /proc/diskstats say how busy it was over the run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "storage/fd.h"

#include "os/osstats.h"
#include "os/segments.h"

/* A buffer of size bytes aligned for O_DIRECT (PostgreSQL 15 has no aligned palloc). */
char *
ranread_alloc_io_buffer(Size size)
{
	char	   *raw = palloc(size + RANREAD_IO_ALIGN);

	return (char *) TYPEALIGN(RANREAD_IO_ALIGN, raw);
}

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
ranread_evict_from_page_cache(RanreadRelFile file, BlockNumber blocks)
{
	BlockNumber segno;

	for (segno = 0; segno < ranread_segment_count(blocks); segno++)
	{
		char	   *path = ranread_segment_path(file, segno);
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

/*
 * The read_bytes counter of a /proc io file: the bytes its task caused to be
 * read from storage, readahead included.  False (never an error) when the
 * kernel does not say or the file cannot be read.
 */
static bool
read_bytes_of(const char *path, uint64 *bytes)
{
	FILE	   *file = AllocateFile(path, "r");
	char		line[128];
	unsigned long long value = 0;
	bool		found = false;

	if (file == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), file) != NULL)
		found = sscanf(line, "read_bytes: %llu", &value) == 1;
	FreeFile(file);
	*bytes = (uint64) value;
	return found;
}

/*
 * Bytes this thread has caused to be read from storage since it started.
 * Returns false (never raises an error) when the kernel does not say, so that
 * a worker's error path can call it too.
 */
bool
ranread_thread_read_bytes(uint64 *bytes)
{
	return read_bytes_of("/proc/thread-self/io", bytes);
}

/*
 * Bytes process pid (another process of the server, the same user) has
 * caused to be read from storage since it started; false when unknown.
 */
bool
ranread_process_read_bytes(pid_t pid, uint64 *bytes)
{
	char		path[64];

	snprintf(path, sizeof(path), "/proc/%d/io", (int) pid);
	return read_bytes_of(path, bytes);
}

/*
 * The readahead of the block device `name` (read_ahead_kb of its queue, or
 * of its disk's for a partition) in kB; -1 when unknown.
 */
int
ranread_device_read_ahead_kb(const char *name)
{
	const char *const formats[] = {"/sys/class/block/%s/queue/read_ahead_kb",
	"/sys/class/block/%s/../queue/read_ahead_kb"};

	for (int i = 0; i < lengthof(formats); i++)
	{
		char		path[MAXPGPATH];
		FILE	   *file;
		int			kb;
		bool		found;

		snprintf(path, sizeof(path), formats[i], name);
		file = AllocateFile(path, "r");
		if (file == NULL)
			continue;
		found = fscanf(file, "%d", &kb) == 1;
		FreeFile(file);
		if (found)
			return kb;
	}
	return -1;
}

/*
 * Read the /proc/diskstats line of major:minor into stats (and its name into
 * name, if given).  False when the device has no line there.
 */
static bool
read_diskstats(unsigned int major, unsigned int minor, RanreadDiskStats *stats,
			   char *name, size_t name_size)
{
	FILE	   *file = AllocateFile("/proc/diskstats", "r");
	char		line[512];
	bool		found = false;

	if (file == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), file) != NULL)
	{
		unsigned int line_major;
		unsigned int line_minor;
		char		line_name[32];
		unsigned long long f[10];

		/* major minor name reads merged sectors read_ms writes merged sectors write_ms in_flight io_ticks */
		if (sscanf(line, "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
				   &line_major, &line_minor, line_name,
				   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]) != 13 ||
			line_major != major || line_minor != minor)
			continue;
		stats->reads_completed = f[0];
		stats->sectors_read = f[2];
		stats->read_ms = f[3];
		stats->io_ticks_ms = f[9];
		stats->writes_completed = f[4];
		if (name != NULL)
			strlcpy(name, line_name, name_size);
		found = true;
	}
	FreeFile(file);
	return found;
}

/*
 * The type of the file system mounted from device major:minor, as
 * /proc/self/mountinfo names it after its " - " ("ext4", "xfs",
 * "fuse.labfs"); "" if no line names that device.
 */
static void
read_file_system(unsigned int major, unsigned int minor, char *type, size_t type_size)
{
	FILE	   *file = AllocateFile("/proc/self/mountinfo", "r");
	char		line[8192];

	type[0] = '\0';
	if (file == NULL)
		return;
	while (fgets(line, sizeof(line), file) != NULL)
	{
		unsigned int line_major;
		unsigned int line_minor;
		char		line_type[32];
		const char *separator;

		/* mount-id parent-id major:minor root mount-point options [optional ...] - type source super-options */
		if (sscanf(line, "%*d %*d %u:%u", &line_major, &line_minor) != 2 ||
			line_major != major || line_minor != minor ||
			(separator = strstr(line, " - ")) == NULL ||
			sscanf(separator + 3, "%31s", line_type) != 1)
			continue;
		strlcpy(type, line_type, type_size);
		break;
	}
	FreeFile(file);
}

/* Find the block device of the file system holding path, and that file system's type. */
void
ranread_device_of(const char *path, RanreadDevice *device)
{
	struct stat st;
	RanreadDiskStats ignored;

	memset(device, 0, sizeof(RanreadDevice));
	if (stat(path, &st) != 0)
		return;
	device->major = major(st.st_dev);
	device->minor = minor(st.st_dev);
	device->found = read_diskstats(device->major, device->minor, &ignored,
								   device->name, sizeof(device->name));
	read_file_system(device->major, device->minor, device->file_system, sizeof(device->file_system));
}

/* The running kernel's release, as uname -r says it; "" if uname() fails. */
void
ranread_kernel_release(char *release, size_t size)
{
	struct utsname names;

	release[0] = '\0';
	if (uname(&names) == 0)
		strlcpy(release, names.release, size);
}

bool
ranread_device_stats(const RanreadDevice *device, RanreadDiskStats *stats)
{
	return device->found &&
		read_diskstats(device->major, device->minor, stats, NULL, 0);
}
