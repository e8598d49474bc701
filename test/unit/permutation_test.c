/*
 * permutation_test.c: the read-unit permutation (src/rules/permutation.c) is a
 * bijection of [0, units) for sizes around every edge, differs between seeds,
 * and costs a few nanoseconds per draw.  Prints TAP.
 * Built and run by test/t/005_unit.pl.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rules/permutation.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

/* Every position maps to a distinct unit below units. */
static bool
is_bijection(uint64 units, uint64 seed)
{
	RanreadPermutation perm;
	unsigned char *seen = calloc(units, 1);
	bool		result = true;

	ranread_permutation_init(&perm, units, seed);
	for (uint64 position = 0; position < units; position++)
	{
		uint64		unit = ranread_permutation_map(&perm, position);

		if (unit >= units || seen[unit])
			result = false;
		else
			seen[unit] = 1;
	}
	free(seen);
	return result;
}

int
main(void)
{
	static const uint64 sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 1000, 1024, 1025, 65535, 65537, 1048583};
	char		what[128];
	RanreadPermutation a;
	RanreadPermutation b;
	int			same = 0;
	int			in_place = 0;
	uint64		sink = 0;
	struct timespec start;
	struct timespec end;
	double		ns;

	printf("1..%d\n", (int) lengthof(sizes) + 3);
	for (int i = 0; i < lengthof(sizes); i++)
	{
		snprintf(what, sizeof(what), "%llu units: every position maps to its own unit",
				 (unsigned long long) sizes[i]);
		ok(is_bijection(sizes[i], 42 + i), what);
	}

	/* two seeds give two orders; and the order is not the identity */
	ranread_permutation_init(&a, 100000, 1);
	ranread_permutation_init(&b, 100000, 2);
	for (uint64 p = 0; p < 100000; p++)
	{
		same += ranread_permutation_map(&a, p) == ranread_permutation_map(&b, p);
		in_place += ranread_permutation_map(&a, p) == p;
	}
	ok(same < 100, "two seeds put fewer than 0.1 % of positions on the same unit");
	ok(in_place < 100, "fewer than 0.1 % of positions map to themselves");

	/* cost per draw on an 8 GB target of 8 kB units */
	ranread_permutation_init(&a, 1048576, 7);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (uint64 p = 0; p < 1048576; p++)
		sink += ranread_permutation_map(&a, p);
	clock_gettime(CLOCK_MONOTONIC, &end);
	ns = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1048576.0;
	snprintf(what, sizeof(what), "a draw costs %.1f ns on an 8 GB target (under 1 us, checksum %llu)",
			 ns, (unsigned long long) (sink % 1000));
	ok(ns < 1000, what);
	return failures > 0;
}
