/*-------------------------------------------------------------------------
 *
 * layer_rules.h
 *		What a layers run's rounds say: the order of a round's batches, each
 *		layer's share with its 95 % band from the per-round differences, and
 *		when the bands are narrow enough to stop.  Pure (layer_rules.c), so
 *		that test/unit/layer_rules_test.c checks them on constructed rounds;
 *		src/programs/layers.c runs the batches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_LAYER_RULES_H
#define RANREAD_LAYER_RULES_H

/* A band needs this many rounds (two degrees of freedom) before it can stop the run. */
#define RANREAD_LAYERS_MIN_ROUNDS	3
#define RANREAD_LAYERS_MAX_ROUNDS	100

/* What a share's band says. */
typedef enum RanreadShareKind
{
	RANREAD_SHARE_ADDS,			/* the whole band is above zero: the layer adds time */
	RANREAD_SHARE_WITHIN_NOISE, /* the band contains zero: not measurable here */
	RANREAD_SHARE_BELOW			/* the whole band is below zero: its path read faster */
} RanreadShareKind;

/* A layer's share: the mean of its per-round differences and their 95 % half-width. */
typedef struct RanreadLayerShare
{
	double		value;
	double		band;			/* < 0: unknown (fewer than two rounds) */
	RanreadShareKind kind;
} RanreadLayerShare;

extern int	ranread_layers_round_layer(int layers, int position);
extern double ranread_t95(int degrees_of_freedom);
extern void ranread_layer_share(const double *differences, int rounds, RanreadLayerShare *share);
extern bool ranread_layers_settled(const RanreadLayerShare *shares, int count, int rounds,
								   double top_mean, double band_pct);

#endif							/* RANREAD_LAYER_RULES_H */
