/*
 * depth1_roads.c: one O_DIRECT read at a time, two roads, the rest alike.
 *
 * Which is cheaper for a read at iodepth 1: pread() into an ordinary
 * buffer (what ranread's direct path does), or io_uring with the file, the
 * buffer and the ring's own descriptor registered (what t/io_uring -d 1
 * does), submitting the read and waiting for it in one io_uring_enter()?  Each road reads the same random
 * 8 kB blocks of FILE, timing each read with clock_gettime() as ranread
 * does, and prints its CPU time (user and system, getrusage) per read.
 * Run under callgrind, its user-space instructions per read are the road's
 * own (bench/depth1_roads.sh); under strace, its system calls.
 *
 *   depth1_roads pread|uring FILE READS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 8192

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* the same pseudo-random blocks for both roads */
static uint64_t
next_block(uint64_t *state, uint64_t blocks)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state % blocks;
}

static void
die(const char *what, int err)
{
	fprintf(stderr, "depth1_roads: %s: %s\n", what, strerror(err));
	exit(1);
}

/* the loop to count: never inlined, callgrind --toggle-collect=read_loop */
__attribute__((noinline)) static uint64_t
read_loop(int uring, int fd, struct io_uring *ring, char *buf, long reads, uint64_t blocks)
{
	uint64_t	state = 88172645463325252ULL;
	uint64_t	sum = 0;

	for (long i = 0; i < reads; i++)
	{
		off_t		offset = (off_t) next_block(&state, blocks) * BLOCK;
		uint64_t	start = now_ns();

		if (!uring)
		{
			ssize_t		got = pread(fd, buf, BLOCK, offset);

			if (got != BLOCK)
				die("pread", got < 0 ? errno : EIO);
		}
		else
		{
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
			struct io_uring_cqe *cqe;
			int			ret;

			io_uring_prep_read_fixed(sqe, 0, buf, BLOCK, offset, 0);
			sqe->flags |= IOSQE_FIXED_FILE;
			do
				ret = io_uring_submit_and_wait(ring, 1);
			while (ret == -EINTR);
			if (ret < 0)
				die("io_uring_submit_and_wait", -ret);
			if (io_uring_peek_cqe(ring, &cqe) != 0)
				die("io_uring_peek_cqe", EAGAIN);
			if (cqe->res != BLOCK)
				die("read", cqe->res < 0 ? -cqe->res : EIO);
			io_uring_cqe_seen(ring, cqe);
		}
		sum += now_ns() - start;
	}
	return sum;
}

int
main(int argc, char **argv)
{
	int			uring;
	int			fd;
	long		reads;
	struct stat st;
	char	   *buf;
	struct io_uring ring;
	struct rusage r0, r1;
	uint64_t	sum;
	double		cpu;

	if (argc != 4 || (strcmp(argv[1], "pread") != 0 && strcmp(argv[1], "uring") != 0))
	{
		fprintf(stderr, "usage: depth1_roads pread|uring FILE READS\n");
		return 2;
	}
	uring = strcmp(argv[1], "uring") == 0;
	reads = atol(argv[3]);
	fd = open(argv[2], O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st) != 0)
		die(argv[2], errno);
	if (posix_memalign((void **) &buf, 4096, BLOCK) != 0)
		die("posix_memalign", ENOMEM);
	if (uring)
	{
		struct io_uring_params p = {0};
		struct iovec iov = {.iov_base = buf,.iov_len = BLOCK};
		int			ret;

		p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
		ret = io_uring_queue_init_params(2, &ring, &p);
		if (ret < 0)
			die("io_uring_queue_init_params", -ret);
		if ((ret = io_uring_register_buffers(&ring, &iov, 1)) < 0)
			die("io_uring_register_buffers", -ret);
		if ((ret = io_uring_register_files(&ring, &fd, 1)) < 0)
			die("io_uring_register_files", -ret);
		if ((ret = io_uring_register_ring_fd(&ring)) < 0)
			die("io_uring_register_ring_fd", -ret);
	}
	getrusage(RUSAGE_SELF, &r0);
	sum = read_loop(uring, fd, &ring, buf, reads, (uint64_t) st.st_size / BLOCK);
	getrusage(RUSAGE_SELF, &r1);
	cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		((r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) / 1e6;
	printf("%s reads %ld mean_us %.3f cpu_us_per_read %.3f sys_us_per_read %.3f\n", argv[1], reads,
		   sum / 1e3 / reads, 1e6 * cpu / reads,
		   1e6 * ((r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6) / reads);
	return 0;
}
