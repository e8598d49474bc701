/*-------------------------------------------------------------------------
 *
 * layer_rules.c
 *		The rules of a layers run's rounds (src/programs/layers.c).
 *
 * A round reads each layer twice, in mirrored order (ABCCBA), so that a
 * drift of the storage's speed that is linear over the round costs every
 * layer the same; a layer's value in a round is the mean of its two
 * batches.  A layer's share is its value less the layer below's, round by
 * round; over the rounds, the mean of those differences and its 95 %
 * interval (Student's t on the rounds' spread) say what the layer adds
 * and how surely.  The rounds go on until every share's half-width is
 * within band_pct percent of the top layer's mean, or the caller's bound
 * on rounds is reached.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/layer_rules.h"

/* Student's t, two-sided 95 %, for 1 to 30 degrees of freedom. */
static const double t95[] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042
};

/* The normal distribution's two-sided 95 % quantile. */
#define Z95		1.959964

/*
 * The layer (0: the device) read at `position` (0 .. 2 layers - 1) of a
 * round: up the layers, then down again.
 */
int
ranread_layers_round_layer(int layers, int position)
{
	return position < layers ? position : 2 * layers - 1 - position;
}

/*
 * Student's t quantile for a two-sided 95 % interval; beyond the table,
 * its first-order expansion z + (z^3 + z) / (4 df), within 0.2 %.
 */
double
ranread_t95(int degrees_of_freedom)
{
	if (degrees_of_freedom <= (int) lengthof(t95))
		return t95[degrees_of_freedom - 1];
	return Z95 + (Z95 * Z95 * Z95 + Z95) / (4.0 * degrees_of_freedom);
}

/*
 * A share from its per-round differences (the layer's value less the
 * layer below's, each round): their mean, its 95 % half-width (unknown
 * from one round) and what the band says.
 */
void
ranread_layer_share(const double *differences, int rounds, RanreadLayerShare *share)
{
	double		sum = 0;
	double		squares = 0;

	for (int i = 0; i < rounds; i++)
		sum += differences[i];
	share->value = rounds > 0 ? sum / rounds : 0;
	share->band = -1;
	share->kind = RANREAD_SHARE_WITHIN_NOISE;
	if (rounds < 2)
		return;
	for (int i = 0; i < rounds; i++)
		squares += (differences[i] - share->value) * (differences[i] - share->value);
	share->band = ranread_t95(rounds - 1) * sqrt(squares / (rounds - 1)) / sqrt((double) rounds);
	if (share->value - share->band > 0)
		share->kind = RANREAD_SHARE_ADDS;
	else if (share->value + share->band < 0)
		share->kind = RANREAD_SHARE_BELOW;
}

/*
 * Are the bands narrow enough to stop: after at least
 * RANREAD_LAYERS_MIN_ROUNDS rounds, is every share's half-width within
 * band_pct percent of the top layer's mean?
 */
bool
ranread_layers_settled(const RanreadLayerShare *shares, int count, int rounds,
					   double top_mean, double band_pct)
{
	if (rounds < RANREAD_LAYERS_MIN_ROUNDS || top_mean <= 0)
		return false;
	for (int i = 0; i < count; i++)
		if (shares[i].band < 0 || shares[i].band > top_mean * band_pct / 100.0)
			return false;
	return true;
}
