/*-------------------------------------------------------------------------
 *
 * distribution.c
 *		The distribution argument of ranread_run(): parsed, named, and for
 *		a skewed distribution the rank each read draws.
 *
 * 'uniform' (the default) reads every unit once in a random order before
 * any unit again (permutation.c): what measures storage.  A skewed
 * distribution, like fio's random_distribution, re-reads hot units on
 * purpose, to show what a cache (shared buffers, the OS page cache) makes
 * of a workload with a hot set:
 *
 *	 'zipf:theta'		rank k (1 to units) with probability proportional to
 *						1 / k^theta, drawn by rejection-inversion (Hörmann
 *						and Derflinger 1996), in constant time and memory;
 *	 'hotset:P%/Q%'		P% of the reads to the hottest Q% of the units,
 *						uniformly within each part.
 *
 * A rank becomes a unit through the run's permutation, so the hot units are
 * scattered over the target, the same ones for every process.  A read's
 * rank depends only on the seed, the process and the read's number, so a
 * read ahead (prefetch) draws the same rank as the read itself.
 * 'sequential' gives each process its own stretch of consecutive units,
 * the way a sequential scan reads, with the kernel's readahead left on
 * (worker.c, readahead.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "rules/distribution.h"
#include "rules/permutation.h"

#define ZIPF_MAX_THETA	10.0

static void
refuse_distribution(const char *text)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown distribution \"%s\"", text),
			 errhint("Use 'uniform', 'zipf:theta' (theta above 0, at most %g), 'hotset:P%%/Q%%' (P%% of the reads to Q%% of the units, each above 0 and below 100) or 'sequential'.",
					 ZIPF_MAX_THETA)));
}

/* A percentage of 'hotset:P%/Q%', ending at `end` (the '/' or the string's end). */
static double
parse_percentage(const char *text, const char *from, char **end)
{
	double		value = strtod(from, end);

	if (*end == from || !(value > 0 && value < 100))
		refuse_distribution(text);
	if (**end == '%')
		(*end)++;
	return value;
}

/* Parse the distribution argument; errors out on anything else. */
void
ranread_distribution_parse(const char *text, RanreadDistribution *distribution)
{
	memset(distribution, 0, sizeof(RanreadDistribution));
	if (pg_strcasecmp(text, "uniform") == 0)
		distribution->kind = RANREAD_DISTRIBUTION_UNIFORM;
	else if (pg_strcasecmp(text, "sequential") == 0)
		distribution->kind = RANREAD_DISTRIBUTION_SEQUENTIAL;
	else if (pg_strncasecmp(text, "zipf:", 5) == 0)
	{
		char	   *end;

		distribution->kind = RANREAD_DISTRIBUTION_ZIPF;
		distribution->theta = strtod(text + 5, &end);
		if (end == text + 5 || *end != '\0' ||
			!(distribution->theta > 0 && distribution->theta <= ZIPF_MAX_THETA))
			refuse_distribution(text);
	}
	else if (pg_strncasecmp(text, "hotset:", 7) == 0)
	{
		char	   *end;

		distribution->kind = RANREAD_DISTRIBUTION_HOTSET;
		distribution->hot_reads_pct = parse_percentage(text, text + 7, &end);
		if (*end != '/')
			refuse_distribution(text);
		distribution->hot_units_pct = parse_percentage(text, end + 1, &end);
		if (*end != '\0')
			refuse_distribution(text);
	}
	else
		refuse_distribution(text);
}

/* The distribution as ranread_batches records it: 'zipf:1.2', 'hotset:90%/10%'. */
char *
ranread_distribution_text(const RanreadDistribution *distribution)
{
	switch (distribution->kind)
	{
		case RANREAD_DISTRIBUTION_ZIPF:
			return psprintf("zipf:%g", distribution->theta);
		case RANREAD_DISTRIBUTION_HOTSET:
			return psprintf("hotset:%g%%/%g%%", distribution->hot_reads_pct,
							distribution->hot_units_pct);
		case RANREAD_DISTRIBUTION_SEQUENTIAL:
			return pstrdup("sequential");
		case RANREAD_DISTRIBUTION_UNIFORM:
			break;
	}
	return pstrdup("uniform");
}

/* Whether the distribution re-reads units on purpose (zipf, hotset). */
bool
ranread_distribution_skewed(const RanreadDistribution *distribution)
{
	return distribution->kind == RANREAD_DISTRIBUTION_ZIPF ||
		distribution->kind == RANREAD_DISTRIBUTION_HOTSET;
}

/*
 * Rejection-inversion's helpers: log1p(x) / x and expm1(x) / x, continued
 * smoothly through x = 0 (theta = 1).
 */
static double
log1p_over_x(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

static double
expm1_over_x(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

/* h(x) = 1 / x^theta, its integral H and H's inverse */
static double
zipf_h(double theta, double x)
{
	return exp(-theta * log(x));
}

static double
zipf_h_integral(double theta, double x)
{
	double		log_x = log(x);

	return expm1_over_x((1.0 - theta) * log_x) * log_x;
}

static double
zipf_h_integral_inverse(double theta, double x)
{
	double		t = Max(x * (1.0 - theta), -1.0);

	return exp(log1p_over_x(t) * x);
}

void
ranread_rank_sampler_init(RanreadRankSampler *sampler, const RanreadDistribution *distribution,
						  uint64 units, uint64 seed)
{
	double		theta = distribution->theta;

	memset(sampler, 0, sizeof(RanreadRankSampler));
	sampler->distribution = *distribution;
	sampler->units = units;
	sampler->seed = seed;
	if (distribution->kind == RANREAD_DISTRIBUTION_HOTSET)
	{
		double		hot = rint((double) units * distribution->hot_units_pct / 100.0);

		sampler->hot_units = (uint64) Max(1.0, Min(hot, (double) units - 1));
	}
	else if (distribution->kind == RANREAD_DISTRIBUTION_ZIPF)
	{
		sampler->h_integral_x1 = zipf_h_integral(theta, 1.5) - 1.0;
		sampler->h_integral_n = zipf_h_integral(theta, (double) units + 0.5);
		sampler->s = 2.0 - zipf_h_integral_inverse(theta, zipf_h_integral(theta, 2.5) - zipf_h(theta, 2.0));
	}
}

/* The draw-th uniform number in [0, 1) of a process's read. */
static double
uniform_draw(const RanreadRankSampler *sampler, int worker, int64 read, int draw)
{
	uint64		z = ranread_mix64(sampler->seed ^
								  ranread_mix64(((uint64) worker << 40) ^ (uint64) read) ^
								  ((uint64) draw * UINT64CONST(0x9E3779B97F4A7C15)));

	return (double) (z >> 11) * (1.0 / (double) (UINT64CONST(1) << 53));
}

/* Zipf's rank, 1 to units, by rejection-inversion: fewer than 1.1 tries on average. */
static uint64
zipf_rank(const RanreadRankSampler *sampler, int worker, int64 read)
{
	double		theta = sampler->distribution.theta;

	for (int draw = 0;; draw++)
	{
		double		u = sampler->h_integral_n +
			uniform_draw(sampler, worker, read, draw) * (sampler->h_integral_x1 - sampler->h_integral_n);
		double		x = zipf_h_integral_inverse(theta, u);
		double		k = Min(Max(floor(x + 0.5), 1.0), (double) sampler->units);

		if (k - x <= sampler->s || u >= zipf_h_integral(theta, k + 0.5) - zipf_h(theta, k))
			return (uint64) k;
	}
}

/*
 * The rank (0: the hottest) of a skewed distribution's read number `read`
 * of process `worker`.
 */
uint64
ranread_rank_sample(const RanreadRankSampler *sampler, int worker, int64 read)
{
	uint64		rank;

	if (sampler->distribution.kind == RANREAD_DISTRIBUTION_ZIPF)
		rank = zipf_rank(sampler, worker, read) - 1;
	else
	{
		bool		hot = uniform_draw(sampler, worker, read, 0) * 100.0 < sampler->distribution.hot_reads_pct;
		double		within = uniform_draw(sampler, worker, read, 1);

		Assert(sampler->distribution.kind == RANREAD_DISTRIBUTION_HOTSET);
		rank = hot ? (uint64) (within * (double) sampler->hot_units)
			: sampler->hot_units + (uint64) (within * (double) (sampler->units - sampler->hot_units));
	}
	return Min(rank, sampler->units - 1);
}
