/*
 * deny_syscall.c: run a command under a seccomp filter that fails one system
 * call with a given errno:
 *
 *	deny_syscall io_uring_setup EPERM command ...	as a container's seccomp profile does
 *	deny_syscall cachestat ENOSYS command ...		as a kernel older than 6.5 does
 *
 * Test helper (RanreadTest.pm's restart_denying()) for test/t/run/iodepth.pl,
 * which sees ranread refuse iodepth > 1 with a clear error, and
 * test/t/lab/lab_fuse.pl, which sees it run without its residency proof.
 * Needs no privilege: PR_SET_NO_NEW_PRIVS lets any process confine itself and
 * its children.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

static const struct
{
	const char *name;
	int			number;
}			syscalls[] = {
	{"io_uring_setup", __NR_io_uring_setup},
	{"cachestat", __NR_cachestat},
};

static const struct
{
	const char *name;
	int			value;
}			errnos[] = {
	{"EPERM", EPERM},
	{"ENOSYS", ENOSYS},
};

int
main(int argc, char **argv)
{
	int			number = -1;
	int			error = -1;

	for (size_t i = 0; argc > 1 && i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (strcmp(argv[1], syscalls[i].name) == 0)
			number = syscalls[i].number;
	for (size_t i = 0; argc > 2 && i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (strcmp(argv[2], errnos[i].name) == 0)
			error = errnos[i].value;
	if (argc < 4 || number < 0 || error < 0)
	{
		fprintf(stderr, "usage: %s io_uring_setup|cachestat EPERM|ENOSYS command [argument ...]\n", argv[0]);
		return 2;
	}

	{
		struct sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int) number, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int) error & SECCOMP_RET_DATA)),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
			prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		{
			perror("deny_syscall: seccomp");
			return 1;
		}
	}
	execvp(argv[3], argv + 3);
	perror("deny_syscall: exec");
	return 1;
}
