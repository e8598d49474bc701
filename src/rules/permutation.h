/*-------------------------------------------------------------------------
 *
 * permutation.h
 *		A keyed pseudo-random permutation of the read units of a target, so
 *		that a run reads no unit twice until it has read every unit once.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_PERMUTATION_H
#define RANREAD_PERMUTATION_H

#define RANREAD_PERMUTATION_ROUNDS	4

/*
 * Feistel halves of up to this many bits (targets of up to 2^22 units: 32 GB
 * of 8 kB units) have their round functions tabulated, 16 kB in all.
 */
#define RANREAD_PERMUTATION_TABLE_BITS	11

typedef struct RanreadPermutation
{
	uint64		units;			/* the permutation is of [0, units) */
	int			half_bits;		/* Feistel halves of the covering domain */
	uint64		half_mask;
	uint64		keys[RANREAD_PERMUTATION_ROUNDS];
	bool		tabulated;		/* half_bits <= RANREAD_PERMUTATION_TABLE_BITS */
	/* each round's function of the right half, when tabulated */
	uint16		round_table[RANREAD_PERMUTATION_ROUNDS][1 << RANREAD_PERMUTATION_TABLE_BITS];
} RanreadPermutation;

/*
 * splitmix64's finaliser: a well-mixed 64-bit value from any other.  Inline:
 * an extern function of a shared library is called, never inlined, and the
 * call would cost more than the mixing.
 */
static inline uint64
ranread_mix64(uint64 z)
{
	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

extern void ranread_permutation_init(RanreadPermutation *perm, uint64 units, uint64 seed);
extern uint64 ranread_permutation_map_computed(const RanreadPermutation *perm, uint64 position);

/*
 * The unit read at position (0 <= position < units) of the permutation.
 * Positions the Feistel network maps past the last unit walk its cycle on.
 * Inline, as ranread_mix64(), for a worker's every read: the pass over the
 * 2^(2h) domain with each round's function looked up in the table init
 * filled; a domain too large for the table computes them
 * (permutation.c).
 */
static inline uint64
ranread_permutation_map(const RanreadPermutation *perm, uint64 position)
{
	uint64		value = position;

	Assert(position < perm->units);
	if (!perm->tabulated)
		return ranread_permutation_map_computed(perm, position);
	do
	{
		uint64		left = value >> perm->half_bits;
		uint64		right = value & perm->half_mask;

		for (int round = 0; round < RANREAD_PERMUTATION_ROUNDS; round++)
		{
			uint64		next = left ^ perm->round_table[round][right];

			left = right;
			right = next;
		}
		value = (left << perm->half_bits) | right;
	} while (value >= perm->units);
	return value;
}

#endif							/* RANREAD_PERMUTATION_H */
