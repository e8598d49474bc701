#!/usr/bin/env bash
# mincore_cost.sh: what the physical-read probe costs per read.  ranread's
# smgr and buffer workers call mincore() on a read unit's pages before each
# read (src/os/residency.c); this times that call alone on a 1 GiB file mapped
# as a worker maps a segment, half of it in the page cache, for 8 kB units
# at random offsets.  Prints ns per call.
set -euo pipefail
work=$(mktemp -d /var/tmp/ranread_mincore.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/probe.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t size = 1UL << 30, calls = 2000000, resident = 0;
	int fd = open(argv[1], O_RDONLY);
	char *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	unsigned char vec[2];
	struct timespec a, b;
	srandom(1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (size_t i = 0; i < calls; i++)
	{
		size_t block = (size_t) random() % (size / 8192);
		mincore(map + block * 8192, 8192, vec);
		resident += vec[0] & vec[1] & 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("mincore() of one 8 kB unit: %.0f ns per call (%zu calls, %.0f%% of units resident)\n",
		   ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / calls, calls, 100.0 * resident / calls);
	return 0;
}
C
cc -O2 -o "$work/probe" "$work/probe.c"
dd if=/dev/urandom of="$work/file" bs=1M count=1024 oflag=direct status=none   # not cached
dd if="$work/file" of=/dev/null bs=1M count=512 status=none   # first half in the page cache
"$work/probe" "$work/file"
