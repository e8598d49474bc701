/*-------------------------------------------------------------------------
 *
 * permutation.c
 *		A keyed pseudo-random permutation of the read units of a target, so
 *		that a run reads no unit twice until it has read every unit once
 *		(what fio's random map gives it), with no memory proportional to the
 *		target.
 *
 * A balanced Feistel network of RANREAD_PERMUTATION_ROUNDS rounds is a
 * bijection of the smallest domain of 2^(2h) values that holds every unit;
 * positions it maps past the last unit walk the cycle on (map again) until
 * they land on a unit, which keeps it a bijection of [0, units).  The domain
 * is less than four times the units, so a position takes fewer than four
 * Feistel evaluations on average.  The keys come from the run's seed: each
 * run, and each pass over the target, reads in its own order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/pg_bitutils.h"

#include "rules/permutation.h"

void
ranread_permutation_init(RanreadPermutation *perm, uint64 units, uint64 seed)
{
	int			bits = units <= 4 ? 2 : pg_leftmost_one_pos64(units - 1) + 1;

	Assert(units > 0);
	perm->units = units;
	perm->half_bits = (bits + 1) / 2;
	perm->half_mask = (UINT64CONST(1) << perm->half_bits) - 1;
	for (int round = 0; round < RANREAD_PERMUTATION_ROUNDS; round++)
		perm->keys[round] = ranread_mix64(seed + (uint64) (round + 1) * UINT64CONST(0x9E3779B97F4A7C15));
	perm->tabulated = perm->half_bits <= RANREAD_PERMUTATION_TABLE_BITS;
	if (!perm->tabulated)
		return;
	for (int round = 0; round < RANREAD_PERMUTATION_ROUNDS; round++)
		for (uint64 right = 0; right <= perm->half_mask; right++)
			perm->round_table[round][right] =
				(uint16) (ranread_mix64(right ^ perm->keys[round]) & perm->half_mask);
}

/*
 * One bijective pass of the Feistel network over the 2^(2h) domain: each
 * round's function of the right half (h bits) computed.
 */
static inline uint64
feistel_computed(const RanreadPermutation *perm, uint64 value)
{
	uint64		left = value >> perm->half_bits;
	uint64		right = value & perm->half_mask;

	for (int round = 0; round < RANREAD_PERMUTATION_ROUNDS; round++)
	{
		uint64		next = left ^ (ranread_mix64(right ^ perm->keys[round]) & perm->half_mask);

		left = right;
		right = next;
	}
	return (left << perm->half_bits) | right;
}

/*
 * ranread_permutation_map() where the round functions are computed (halves
 * of more than RANREAD_PERMUTATION_TABLE_BITS bits).
 */
uint64
ranread_permutation_map_computed(const RanreadPermutation *perm, uint64 position)
{
	uint64		value = position;

	Assert(position < perm->units && !perm->tabulated);
	do
		value = feistel_computed(perm, value);
	while (value >= perm->units);
	return value;
}
