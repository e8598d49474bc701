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

typedef struct RanreadPermutation
{
	uint64		units;			/* the permutation is of [0, units) */
	int			half_bits;		/* Feistel halves of the covering domain */
	uint64		half_mask;
	uint64		keys[RANREAD_PERMUTATION_ROUNDS];
} RanreadPermutation;

extern uint64 ranread_mix64(uint64 z);
extern void ranread_permutation_init(RanreadPermutation *perm, uint64 units, uint64 seed);
extern uint64 ranread_permutation_map(const RanreadPermutation *perm, uint64 position);

#endif							/* RANREAD_PERMUTATION_H */
