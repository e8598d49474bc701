/*-------------------------------------------------------------------------
 *
 * distribution.h
 *		Which units a run reads: every unit once in a random order (uniform,
 *		the default for measuring storage), a skewed access pattern (zipf,
 *		hotset) for a workload with a hot set, or each process its own
 *		stretch of consecutive units (sequential) as a sequential scan reads
 *		them.  distribution.c parses and names them and draws skewed ranks.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_DISTRIBUTION_H
#define RANREAD_DISTRIBUTION_H

typedef enum RanreadDistributionKind
{
	RANREAD_DISTRIBUTION_UNIFORM = 0,	/* every unit once, random order */
	RANREAD_DISTRIBUTION_ZIPF,	/* rank k with probability ~ 1 / k^theta */
	RANREAD_DISTRIBUTION_HOTSET,	/* hot_reads_pct of reads to hot_units_pct of units */
	RANREAD_DISTRIBUTION_SEQUENTIAL /* each process its own consecutive units */
} RanreadDistributionKind;

typedef struct RanreadDistribution
{
	RanreadDistributionKind kind;
	double		theta;			/* zipf */
	double		hot_reads_pct;	/* hotset */
	double		hot_units_pct;
} RanreadDistribution;

/* Draws the rank (0: hottest) of each read of a skewed distribution. */
typedef struct RanreadRankSampler
{
	RanreadDistribution distribution;
	uint64		units;
	uint64		seed;
	uint64		hot_units;		/* hotset: ranks [0, hot_units) are hot */
	double		h_integral_x1;	/* zipf: rejection-inversion constants */
	double		h_integral_n;
	double		s;
} RanreadRankSampler;

extern void ranread_distribution_parse(const char *text, RanreadDistribution *distribution);
extern char *ranread_distribution_text(const RanreadDistribution *distribution);
extern bool ranread_distribution_skewed(const RanreadDistribution *distribution);
extern void ranread_rank_sampler_init(RanreadRankSampler *sampler,
									  const RanreadDistribution *distribution,
									  uint64 units, uint64 seed);
extern uint64 ranread_rank_sample(const RanreadRankSampler *sampler, int worker, int64 read);

#endif							/* RANREAD_DISTRIBUTION_H */
