/*
 * permutation_test.c: the read-unit permutation (src/rules/permutation.c) is a
 * bijection of [0, units) for sizes around every edge, differs between seeds,
 * keeps the order it gave each seed in 1.2 (users compare runs by seed), with
 * its round functions tabulated or computed, and costs a few nanoseconds per
 * draw.  Prints TAP.
 * Built and run by test/t/extension/unit.pl.
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

/*
 * The order of 1.2's permutation for seed 42: a digest (FNV-1a over the
 * units) of its first 1000 positions and the unit at position 0, for sizes
 * whose round functions are tabulated (halves of up to 11 bits) and computed.
 */
static const struct
{
	uint64		units;
	uint64		digest;
	uint64		first;
}			recorded[] = {
	{1000, UINT64CONST(0xd9f45e07e52e0936), 38},
	{131072, UINT64CONST(0x9c4f47c6c3ff4722), 69018},
	{4194304, UINT64CONST(0x53fc0c149c6bc690), 2519663},
	{4194305, UINT64CONST(0xb9ce9d6e318d0412), 2622039},
	{16777217, UINT64CONST(0x5897db5c0a07b150), 2891561},
};

/* The digest of the first 1000 positions (all, if fewer) of the order. */
static uint64
order_digest(const RanreadPermutation *perm)
{
	uint64		digest = 0;

	for (uint64 position = 0; position < Min(perm->units, 1000); position++)
		digest = (digest ^ ranread_permutation_map(perm, position)) * UINT64CONST(0x100000001B3);
	return digest;
}

/* Nanoseconds per draw over the first 2^20 positions of a permutation of units. */
static double
draw_ns(uint64 units, uint64 *sink)
{
	static RanreadPermutation perm;
	struct timespec start;
	struct timespec end;

	ranread_permutation_init(&perm, units, 7);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (uint64 p = 0; p < 1048576; p++)
		*sink += ranread_permutation_map(&perm, p);
	clock_gettime(CLOCK_MONOTONIC, &end);
	return ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1048576.0;
}

int
main(void)
{
	static const uint64 sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 1000, 1024, 1025, 65535, 65537, 1048583};
	char		what[128];
	static RanreadPermutation a;
	static RanreadPermutation b;
	int			same = 0;
	int			in_place = 0;
	uint64		sink = 0;
	double		ns;

	printf("1..%d\n", (int) lengthof(sizes) + (int) lengthof(recorded) + 4);
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

	for (int i = 0; i < lengthof(recorded); i++)
	{
		ranread_permutation_init(&a, recorded[i].units, 42);
		snprintf(what, sizeof(what), "%llu units, seed 42: the order of 1.2 (round functions %s)",
				 (unsigned long long) recorded[i].units, a.tabulated ? "tabulated" : "computed");
		ok(order_digest(&a) == recorded[i].digest &&
		   ranread_permutation_map(&a, 0) == recorded[i].first, what);
	}

	/* cost per draw on an 8 GB and a 128 GB target of 8 kB units */
	ns = draw_ns(1048576, &sink);
	snprintf(what, sizeof(what), "a draw costs %.1f ns on an 8 GB target (under 1 us, checksum %llu)",
			 ns, (unsigned long long) (sink % 1000));
	ok(ns < 1000, what);
	ns = draw_ns(16777216, &sink);
	snprintf(what, sizeof(what), "a draw costs %.1f ns on a 128 GB target (under 1 us, checksum %llu)",
			 ns, (unsigned long long) (sink % 1000));
	ok(ns < 1000, what);
	return failures > 0;
}
