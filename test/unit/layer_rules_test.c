/*
 * layer_rules_test.c: the rules of a layers run's rounds
 * (src/rules/layer_rules.c) on constructed rounds: a round reads up the
 * layers and down again; Student's t matches its table and its expansion
 * beyond; a share's band is the 95 % interval of its per-round
 * differences, and says whether the layer adds time, is within the noise
 * or read faster; the run stops once every band is narrow enough, never
 * before three rounds.  Prints TAP.  Built and run by test/t/extension/unit.pl.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>

#include "rules/layer_rules.h"

/* plain libc: this program does not link PostgreSQL's port library */
#undef printf
#undef snprintf

#include "unit_tap.h"

int
main(void)
{
	int			order[8];
	bool		mirrored = true;
	RanreadLayerShare share;
	RanreadLayerShare shares[2];
	const double adds[] = {0.012, 0.010, 0.014, 0.011, 0.013};
	const double noise[] = {0.012, -0.015, 0.004, -0.006, 0.003};
	const double below[] = {-0.012, -0.010, -0.014, -0.011, -0.013};
	const double same[] = {0.005, 0.005, 0.005};

	printf("1..16\n");

	/* ABCDDCBA */
	for (int i = 0; i < 8; i++)
		order[i] = ranread_layers_round_layer(4, i);
	for (int i = 0; i < 4; i++)
		mirrored = mirrored && order[i] == i && order[7 - i] == i;
	ok(mirrored, "a round of 4 layers reads them in the order 0 1 2 3 3 2 1 0");
	ok(ranread_layers_round_layer(3, 3) == 2 && ranread_layers_round_layer(3, 5) == 0,
	   "a round of 3 layers: position 3 is layer 2, position 5 layer 0");

	ok(ranread_t95(1) == 12.706 && ranread_t95(4) == 2.776 && ranread_t95(30) == 2.042,
	   "t95: 12.706 at 1 degree of freedom, 2.776 at 4, 2.042 at 30 (the table)");
	ok(fabs(ranread_t95(40) - 2.021) < 0.005 && fabs(ranread_t95(99) - 1.984) < 0.005,
	   "t95 beyond the table: 2.021 at 40 and 1.984 at 99, within 0.005");

	ranread_layer_share(adds, 5, &share);
	ok(fabs(share.value - 0.012) < 1e-12, "a share is the mean of its per-round differences (0.012)");
	/* sd of {12,10,14,11,13} us = 1.5811 us; 2.776 * 1.5811 / sqrt(5) = 1.963 us */
	ok(fabs(share.band - 0.0019630) < 1e-6, "its band is t95(4) x sd / sqrt(5) = 1.963 us");
	ok(share.kind == RANREAD_SHARE_ADDS, "a band wholly above zero: the layer adds time");

	ranread_layer_share(noise, 5, &share);
	ok(share.kind == RANREAD_SHARE_WITHIN_NOISE && share.value - share.band < 0 && share.value + share.band > 0,
	   "differences of both signs: the band contains zero, not measurable");

	ranread_layer_share(below, 5, &share);
	ok(share.kind == RANREAD_SHARE_BELOW && share.value < 0,
	   "a band wholly below zero: the layer's path read faster than the one below");

	ranread_layer_share(adds, 1, &share);
	ok(share.band < 0 && share.kind == RANREAD_SHARE_WITHIN_NOISE,
	   "one round has no band: within the noise until a second round");

	ranread_layer_share(same, 3, &share);
	ok(share.band == 0 && share.kind == RANREAD_SHARE_ADDS,
	   "identical differences: a band of zero, and the layer adds time");

	/* settled: every band within band_pct of the top mean */
	ranread_layer_share(adds, 5, &shares[0]);
	ranread_layer_share(adds, 5, &shares[1]);
	ok(ranread_layers_settled(shares, 2, 5, 0.100, 2.0),
	   "bands of 1.963 us on a top mean of 100 us are within 2 %: settled");
	ok(!ranread_layers_settled(shares, 2, 5, 0.100, 1.0),
	   "but not within 1 %: not settled");
	ranread_layer_share(noise, 5, &shares[1]);
	ok(!ranread_layers_settled(shares, 2, 5, 0.100, 5.0),
	   "one wide band keeps the rounds going");
	ranread_layer_share(same, 2, &shares[0]);
	ranread_layer_share(same, 2, &shares[1]);
	ok(!ranread_layers_settled(shares, 2, 2, 0.100, 50.0),
	   "never settled before three rounds, however narrow the bands");
	ranread_layer_share(same, 3, &shares[0]);
	ranread_layer_share(same, 3, &shares[1]);
	ok(ranread_layers_settled(shares, 2, 3, 0.100, 1.0) && !ranread_layers_settled(shares, 2, 3, 0, 1.0),
	   "settled at three rounds; never on a top mean of zero");

	return failures > 0;
}
