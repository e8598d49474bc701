/*-------------------------------------------------------------------------
 *
 * sweep_rules.h
 *		What a sweep's steps say: when to stop, which steps meet the latency
 *		SLO, where the knee is, and the verdict.  Pure (sweep_rules.c), so
 *		that test/unit/sweep_rules_test.c checks them on constructed
 *		histories; sweep.c runs the steps and sweep_verdict.c reads them back.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SWEEP_RULES_H
#define RANREAD_SWEEP_RULES_H

#include "rules/bucket_rules.h"

/* A step's physical-read proof holds when the device answered this share of reads. */
#define RANREAD_SWEEP_MIN_PHYSICAL_PCT	99.0

/* An open-loop step kept its rate when it achieved this share of it. */
#define RANREAD_SWEEP_RATE_KEPT_PCT		95.0

/*
 * The most times a sweep repeats a step whose stop decision lies within the
 * step's noise band, before it stops and says it could not decide.
 */
#define RANREAD_SWEEP_MAX_REPEATS		2

/*
 * The widest band with which a step near an SLO bound is run again: a wider
 * one (a step of a few hundred reads) says its runs are too short for two
 * more to settle it, and its point estimate decides.
 */
#define RANREAD_SWEEP_SLO_DOUBT_MAX_BAND	50.0

/* Standard errors in a noise band (about 95 %), as compare_noise.c's. */
#define RANREAD_SWEEP_BAND_ERRORS		2.0

/* One step of a sweep: a batch, or the batches of a repeated step combined. */
typedef struct RanreadSweepStep
{
	int			processes;
	int			iodepth;		/* reads in flight per process (0 counts as 1) */
	int			prefetch;		/* units advised ahead of each read */
	double		rate_iops;		/* open loop: the rate asked for; 0: closed loop */
	double		iops;
	double		mean_ms;
	double		p99_ms;
	double		p999_ms;
	double		max_ms;
	double		physical_pct;	/* < 0: not measured */
	bool		completed;		/* the batch read all it was asked to */
	char		status[16];		/* the batch's status: completed, stopped, ... */
	/* noise bands: 95 % half-widths in percent of iops, mean_ms, p99_ms; < 0: unknown */
	double		iops_band_pct;
	double		mean_band_pct;
	double		p99_band_pct;
	int			runs;			/* completed batches combined: 1, or more once repeated */
	bool		part_outside_slo;	/* a part of the step (a fleet's server) was
									 * outside the SLO, so the step is too */
	/*
	 * A burst bucket that ran empty within the step (bucket_rules.c, set by
	 * ranread_sweep_step_bucket()): iops and iops_band_pct are then the
	 * baseline after it, the volume's sustained rate, and these the rest.
	 */
	bool		bucket;
	double		average_iops;	/* the batch's own average, over both levels */
	double		burst_iops;		/* the rate while the bucket lasted, and its band */
	double		burst_band_pct;
	double		bucket_reads;	/* the reads the bucket held when counting began */
	double		bucket_band;
	double		shift_s;		/* when it ran empty, after counting began */
	bool		burst_era;		/* read before the step in which a bucket ran
								 * empty: its IOPS are the bucket's, not the
								 * volume's sustained rate (never counted) */
} RanreadSweepStep;

/* The sweep's rules, as its arguments set them; a bound <= 0 is not checked. */
typedef struct RanreadSweepRules
{
	int			max_processes;
	int			max_iodepth;	/* a sweep stepping iodepth: its last; 0: it does not */
	int			max_prefetch;	/* a sweep stepping prefetch: its last; 0: it does not */
	double		max_rate_iops;	/* open loop: 0 for none */
	double		stop_latency_ms;
	double		min_scaling_pct;
	double		slo_mean_ms;
	double		slo_p99_ms;
	double		slo_p999_ms;
	double		slo_max_ms;
} RanreadSweepRules;

/* Why a sweep stopped, or that it goes on. */
typedef enum RanreadSweepStop
{
	RANREAD_SWEEP_GO_ON = 0,
	RANREAD_SWEEP_STOP_LATENCY, /* mean over stop_latency_ms */
	RANREAD_SWEEP_STOP_SCALING, /* IOPS gained under min_scaling_pct of linear */
	RANREAD_SWEEP_STOP_RATE_MISSED, /* open loop: the rate was not kept */
	RANREAD_SWEEP_STOP_MAX, /* the last step reached max_processes, max_iodepth, max_prefetch or max_rate_iops */
	RANREAD_SWEEP_STOP_STEP_ENDED,	/* the step was stopped, cancelled or failed */
	RANREAD_SWEEP_REPEAT,		/* a stop decision lies within the step's noise: run it again */
	RANREAD_SWEEP_STOP_UNDECIDED	/* still within the noise after RANREAD_SWEEP_MAX_REPEATS */
} RanreadSweepStop;

/* Which threshold a step's noise band straddles, for the words (RANREAD_SWEEP_REPEAT). */
typedef enum RanreadSweepDoubt
{
	RANREAD_SWEEP_DOUBT_NONE = 0,
	RANREAD_SWEEP_DOUBT_LATENCY,	/* the mean, near stop_latency_ms */
	RANREAD_SWEEP_DOUBT_SCALING,	/* the share of linear scaling, near min_scaling_pct */
	RANREAD_SWEEP_DOUBT_SLO		/* the mean or p99, near an SLO bound */
} RanreadSweepDoubt;

/* What the steps add up to; each index is -1 when no step qualifies. */
typedef struct RanreadSweepVerdict
{
	int			max_step;		/* highest IOPS among the valid steps */
	int			slo_step;		/* highest IOPS among the valid steps within the SLO */
	int			knee_step;		/* highest IOPS per ms of mean latency (Kleinrock's power) */
	int			memory_steps;	/* steps whose physical-read proof failed */
	int			partial_steps;	/* steps that did not complete */
	int			bucket_step;	/* the first step in which a burst bucket ran empty */
	int			burst_steps;	/* steps before it, read on the bucket (not counted) */
} RanreadSweepVerdict;

/*
 * How one figure (the highest within the SLO, say) spread over several
 * sweeps, against the noise each sweep's step had of its own.
 */
typedef struct RanreadSweepSpread
{
	double		median;
	double		low;
	double		high;
	double		between_band_pct;	/* one sweep's band from the sweeps' spread;
									 * -1 below 2 sweeps */
	double		within_band_pct;	/* the median of the steps' own bands; -1
									 * when none is known */
	double		drift_band_pct; /* the part of the between-sweep band the
								 * steps' own noise does not explain, 0 when
								 * the sweeps cannot tell it from that noise;
								 * -1 when either band is unknown */
} RanreadSweepSpread;

extern bool ranread_sweep_step_valid(const RanreadSweepStep *step);
extern int	ranread_sweep_valid_before(const RanreadSweepStep *steps, int last);
extern bool ranread_sweep_meets_slo(const RanreadSweepStep *step, const RanreadSweepRules *rules);
extern bool ranread_sweep_near_slo(const RanreadSweepStep *step, const RanreadSweepRules *rules);
extern double ranread_sweep_scaling_pct(const RanreadSweepStep *before, const RanreadSweepStep *after);
extern void ranread_sweep_scaling_range(const RanreadSweepStep *before, const RanreadSweepStep *after,
										double *low, double *high);
extern bool ranread_sweep_rises(const RanreadSweepStep *before, const RanreadSweepStep *after);
extern RanreadSweepDoubt ranread_sweep_doubt(const RanreadSweepStep *steps, int count,
											 const RanreadSweepRules *rules);
extern RanreadSweepStop ranread_sweep_stop_after(const RanreadSweepStep *steps, int count,
												 const RanreadSweepRules *rules);
extern void ranread_sweep_combine(const RanreadSweepStep *runs, int count, RanreadSweepStep *step);
extern int	ranread_sweep_group_runs(const RanreadSweepStep *runs, const int *step_of, int n,
									 RanreadSweepStep *steps, int *first);
extern int	ranread_sweep_next_processes(int processes, int step_processes, int max_processes);
extern double ranread_sweep_next_rate(double rate, double rate_step, double max_rate);
extern void ranread_sweep_judge(const RanreadSweepStep *steps, int count,
								const RanreadSweepRules *rules, RanreadSweepVerdict *verdict);
extern void ranread_sweep_step_bucket(RanreadSweepStep *step, const RanreadBucket *bucket);
extern int	ranread_sweep_mark_burst(RanreadSweepStep *steps, int count);
extern void ranread_sweep_spread(double *values, double *bands, int n, RanreadSweepSpread *spread);

#endif							/* RANREAD_SWEEP_RULES_H */
