/*-------------------------------------------------------------------------
 *
 * sweep_verdict.h
 *		What a sweep's recorded steps say (sweep_verdict.c), read by the
 *		sweep itself (sweep.c), its views, charts, comparisons and exports.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SWEEP_VERDICT_H
#define RANREAD_SWEEP_VERDICT_H

#include "rules/limit_rules.h"
#include "rules/sweep_rules.h"

/* The sweep_step of a sweep's probes after its last step (0 is its drain). */
#define RANREAD_SWEEP_SIZE_PROBE_STEP	(-1)
#define RANREAD_SWEEP_REFILL_PROBE_STEP	(-2)

/* A sweep as ranread_sweep_runs and ranread_batches recorded it. */
typedef struct RanreadSweepRecord
{
	int64		sweep;
	char	   *status;			/* as recorded: 'running', 'completed' or 'stopped' */
	char	   *stop_rule;		/* as recorded; NULL while running */
	char	   *max_processes_by;	/* 'argument' or 'worker slots' */
	bool		open_loop;
	bool		per_server;		/* a fleet sweep's: its processes are each server's */
	RanreadSweepRules rules;
	int			count;			/* steps recorded */
	int			block_size;		/* bytes per read of its steps; 0: none recorded */
	RanreadSweepStep *steps;
	int64	   *batches;		/* each step's batch */
	/* the drain before step 1 (the batch of sweep_step 0), when one was asked */
	double		drain_bound_s;	/* as asked; 0: none */
	int64		drain_batch;	/* 0: none ran */
	RanreadSweepStep drain;		/* its figures, with its bucket if one ran empty */
	double		drain_wall_s;	/* how long it read */
	double		drain_steady_at_s;	/* when it was steady after the shift; < 0: never */
	/* the probes after the last step (limit_rules.c), when asked */
	double		probe_bound_s;	/* the idle pause before the refill probe; < 0: no probes */
	int64		size_probe_batch;	/* 0: none ran */
	int64		refill_probe_batch;
	RanreadLimitProbe size_probe;
	RanreadLimitProbe refill_probe;
} RanreadSweepRecord;

extern bool ranread_sweep_read(int64 sweep, bool fresh, RanreadSweepRecord *record);
extern const char *ranread_sweep_stop_rule_name(RanreadSweepStop stop, const RanreadSweepRecord *record);
extern char *ranread_sweep_stop_text(const RanreadSweepRecord *record, const char *stop_rule);
extern char *ranread_sweep_verdict_text(const RanreadSweepRecord *record, const char *stop_rule,
										const RanreadSweepVerdict *verdict);
extern char *ranread_sweep_drain_text(const RanreadSweepRecord *record);
extern void ranread_sweep_limit(const RanreadSweepRecord *record, RanreadLimit *limit);
extern char *ranread_sweep_limit_text(const RanreadSweepRecord *record, const RanreadLimit *limit);
extern char *ranread_sweep_step_text(const RanreadSweepRecord *record, int step);
extern char *ranread_sweep_step_detail(const RanreadSweepRecord *record, int step);
extern void ranread_sweep_repeat_text(const RanreadSweepRecord *record, int repeat,
									  char **message, char **detail);
extern char *ranread_sweep_records_text(const RanreadSweepRecord *records, int count);
extern char *ranread_sweep_repeats_text(const int64 *sweeps, int count);

#endif							/* RANREAD_SWEEP_VERDICT_H */
