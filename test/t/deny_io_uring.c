/*
 * deny_io_uring.c: run a command under a seccomp filter that fails
 * io_uring_setup() with EPERM, as a container's seccomp profile does.
 *
 * Test helper for test/t/150_iodepth.pl, which starts a cluster under it to
 * see ranread refuse iodepth > 1 with a clear error.  Needs no privilege:
 * PR_SET_NO_NEW_PRIVS lets any process confine itself and its children.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int
main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

	if (argc < 2)
	{
		fprintf(stderr, "usage: %s command [argument ...]\n", argv[0]);
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
	{
		perror("deny_io_uring: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("deny_io_uring: exec");
	return 1;
}
