#!/usr/bin/env bash
# readahead_probe.sh: how much of a random 8 kB read pattern the kernel's
# readahead answers, outside PostgreSQL.  A C program reads 90 % of the
# 8 kB units of a 1 GiB file once each, in random order, with buffered
# pread(), and asks mincore() before each read whether the unit is already
# in the page cache; once with the kernel's default readahead, once after
# posix_fadvise(POSIX_FADV_RANDOM).  This is what ranread's physical_pct
# counts in mode smgr (src/os/residency.c).  The file is on /var/tmp's disk.
set -euo pipefail
work=$(mktemp -d /var/tmp/ranread_readahead.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/probe.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t size = 1UL << 30, units = size / 8192, reads = units * 9 / 10, cached = 0;
	int fd = open(argv[1], O_RDONLY), advise = atoi(argv[2]);
	char *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0), *buf = malloc(8192);
	size_t *order = malloc(units * sizeof(size_t));
	unsigned char vec[2];
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (advise)
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (size_t i = 0; i < units; i++)
		order[i] = i;
	srandom(3);
	for (size_t i = units - 1; i > 0; i--)
	{
		size_t j = random() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < reads; i++)
	{
		mincore(map + order[i] * 8192, 8192, vec);
		cached += vec[0] & vec[1] & 1;
		if (pread(fd, buf, 8192, order[i] * 8192) != 8192)
			return 1;
	}
	printf("%-18s %zu reads of 8 kB units: %.1f%% found their unit cached before the read\n",
		   advise ? "POSIX_FADV_RANDOM:" : "default readahead:", reads, 100.0 * cached / reads);
	return 0;
}
C
cc -O2 -o "$work/probe" "$work/probe.c"
dd if=/dev/urandom of="$work/file" bs=1M count=1024 oflag=direct status=none
dev=$(df --output=source "$work" | tail -n 1)
echo "file system of $work: $dev; read_ahead_kb: $(cat /sys/class/block/"$(basename "$dev")"/queue/read_ahead_kb 2>/dev/null || echo unknown)"
"$work/probe" "$work/file" 0
"$work/probe" "$work/file" 1
