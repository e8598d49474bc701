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

#include "rules/sweep_rules.h"

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
	RanreadSweepStep *steps;
	int64	   *batches;		/* each step's batch */
	/* the drain before step 1 (the batch of sweep_step 0), when one was asked */
	double		drain_bound_s;	/* as asked; 0: none */
	int64		drain_batch;	/* 0: none ran */
	RanreadSweepStep drain;		/* its figures, with its bucket if one ran empty */
	double		drain_wall_s;	/* how long it read */
	double		drain_steady_at_s;	/* when it was steady after the shift; < 0: never */
} RanreadSweepRecord;

extern bool ranread_sweep_read(int64 sweep, bool fresh, RanreadSweepRecord *record);
extern const char *ranread_sweep_stop_rule_name(RanreadSweepStop stop, const RanreadSweepRecord *record);
extern char *ranread_sweep_stop_text(const RanreadSweepRecord *record, const char *stop_rule);
extern char *ranread_sweep_verdict_text(const RanreadSweepRecord *record, const char *stop_rule,
										const RanreadSweepVerdict *verdict);
extern char *ranread_sweep_drain_text(const RanreadSweepRecord *record);
extern char *ranread_sweep_step_text(const RanreadSweepRecord *record, int step);
extern char *ranread_sweep_step_detail(const RanreadSweepRecord *record, int step);
extern void ranread_sweep_repeat_text(const RanreadSweepRecord *record, int repeat,
									  char **message, char **detail);
extern char *ranread_sweep_records_text(const RanreadSweepRecord *records, int count);
extern char *ranread_sweep_repeats_text(const int64 *sweeps, int count);

#endif							/* RANREAD_SWEEP_VERDICT_H */
