/*-------------------------------------------------------------------------
 *
 * osstats.h
 *		What ranread asks of the operating system: memory size, free space,
 *		page-cache eviction, per-thread I/O accounting, block-device
 *		statistics, the file system holding a file and the kernel's release.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_OSSTATS_H
#define RANREAD_OSSTATS_H

#include "storage/block.h"
#include "compat.h"

/* One line of /proc/diskstats: the counters ranread uses. */
typedef struct RanreadDiskStats
{
	uint64		reads_completed;
	uint64		sectors_read;	/* of 512 bytes, whatever the device's sector size */
	uint64		read_ms;		/* time spent on reads, summed over requests */
	uint64		io_ticks_ms;	/* time the device had I/O in flight */
	uint64		writes_completed;
} RanreadDiskStats;

/* The block device holding a file, as /proc/diskstats names it. */
typedef struct RanreadDevice
{
	bool		found;
	unsigned int major;
	unsigned int minor;
	char		name[32];
	char		file_system[32];	/* its type in the mount table; "" if not found */
} RanreadDevice;

/* Room for the kernel's release: struct utsname's field, with its terminator, on Linux. */
#define RANREAD_KERNEL_RELEASE_SIZE	65

/* Sizes and rates are reported in MB of 2^20 bytes. */
#define BYTES_PER_MB	(1024.0 * 1024.0)

/* O_DIRECT wants buffers, offsets and lengths aligned to the logical block size. */
#define RANREAD_IO_ALIGN	4096

extern char *ranread_alloc_io_buffer(Size size);
extern uint64 ranread_physical_memory_bytes(void);
extern uint64 ranread_free_bytes(const char *path);
extern void ranread_evict_from_page_cache(RanreadRelFile file, BlockNumber blocks);
extern bool ranread_thread_read_bytes(uint64 *bytes);
extern bool ranread_process_read_bytes(pid_t pid, uint64 *bytes);
extern int	ranread_device_read_ahead_kb(const char *name);
extern void ranread_device_of(const char *path, RanreadDevice *device);
extern bool ranread_device_stats(const RanreadDevice *device, RanreadDiskStats *stats);
extern void ranread_kernel_release(char *release, size_t size);

#endif							/* RANREAD_OSSTATS_H */
