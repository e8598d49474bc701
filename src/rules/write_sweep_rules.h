/*-------------------------------------------------------------------------
 *
 * write_sweep_rules.h
 *		When a write sweep (ranread_write_sweep()) stops: the writers' rate
 *		missed, their commit latency or the readers' p99 outside the SLO,
 *		the last rate reached, or a step to measure again.  Pure
 *		(write_sweep_rules.c), checked by test/unit/write_sweep_rules_test.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_WRITE_SWEEP_RULES_H
#define RANREAD_WRITE_SWEEP_RULES_H

/* One step of a write sweep: its batches' writes (and reads) pooled. */
typedef struct RanreadWriteSweepStep
{
	double		write_rate_iops;	/* asked for, all writers together */
	double		write_iops;		/* achieved */
	double		write_mean_ms;	/* each write's transaction start to commit */
	double		write_p99_ms;
	bool		completed;		/* every batch of the step completed */
	bool		readers;		/* the step had readers */
	double		read_p99_ms;
	double		read_p99_band_pct;	/* its 95 % half-width in percent; < 0: unknown */
	int			runs;			/* batches pooled: 1, or more once repeated */
} RanreadWriteSweepStep;

/* A write sweep's bounds; a bound <= 0 is not checked. */
typedef struct RanreadWriteSweepRules
{
	double		max_write_rate_iops;
	double		slo_write_mean_ms;
	double		slo_write_p99_ms;
	double		slo_p99_ms;		/* the readers' */
} RanreadWriteSweepRules;

/* Why a write sweep stopped after a step, or that it goes on. */
typedef enum RanreadWriteSweepStop
{
	RANREAD_WRITE_SWEEP_GO_ON = 0,
	RANREAD_WRITE_SWEEP_STOP_STEP_ENDED,	/* a batch was stopped, cancelled or failed */
	RANREAD_WRITE_SWEEP_STOP_RATE_MISSED,	/* the writers did not keep their rate */
	RANREAD_WRITE_SWEEP_STOP_WRITE_MEAN,	/* their mean commit latency over its SLO */
	RANREAD_WRITE_SWEEP_STOP_WRITE_P99, /* their p99 over its SLO */
	RANREAD_WRITE_SWEEP_STOP_READ_P99,	/* the readers' p99 over slo_p99_ms */
	RANREAD_WRITE_SWEEP_STOP_MAX,	/* the step was at max_write_rate_iops */
	RANREAD_WRITE_SWEEP_REPEAT, /* the readers' p99 within its noise of the SLO */
	RANREAD_WRITE_SWEEP_STOP_UNDECIDED	/* still so after RANREAD_SWEEP_MAX_REPEATS */
} RanreadWriteSweepStop;

extern RanreadWriteSweepStop ranread_write_sweep_decide_step(const RanreadWriteSweepStep *step,
														const RanreadWriteSweepRules *rules);
extern bool ranread_write_sweep_within_slo(const RanreadWriteSweepStep *step,
										   const RanreadWriteSweepRules *rules);
extern const char *ranread_write_sweep_stop_name(RanreadWriteSweepStop stop);

#endif							/* RANREAD_WRITE_SWEEP_RULES_H */
