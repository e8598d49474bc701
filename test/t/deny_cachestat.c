/*
 * deny_cachestat.c: run a command under a seccomp filter that fails
 * cachestat(2) with ENOSYS, as a kernel older than 6.5 does.
 *
 * Test helper for test/t/225_lab_fuse.pl, which starts a cluster under it to
 * see ranread run without its residency proof on a file system that refuses
 * mappings.  Needs no privilege: PR_SET_NO_NEW_PRIVS lets any process
 * confine itself and its children.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

int
main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_cachestat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
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
		perror("deny_cachestat: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("deny_cachestat: exec");
	return 1;
}
