/*-------------------------------------------------------------------------
 *
 * limit_rules.h
 *		What limits a volume, from a sweep's steps and its probes: a rate cap
 *		on IOPS or on bandwidth, the device's own limit, and whether a burst
 *		bucket ran empty, each with its figures and the evidence, or why the
 *		steps cannot tell (limit_rules.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_LIMIT_RULES_H
#define RANREAD_LIMIT_RULES_H

#include "rules/sweep_rules.h"

/* The least band with which two IOPS figures count as equal, in percent. */
#define RANREAD_LIMIT_FLAT_PCT		3.0

/* What the sustained level is. */
typedef enum RanreadLimitKind
{
	RANREAD_LIMIT_UNDECIDED = 0,	/* the steps cannot tell (reason says why) */
	RANREAD_LIMIT_IOPS_CAP,		/* a fixed rate of reads, whatever their size */
	RANREAD_LIMIT_BANDWIDTH_CAP,	/* a fixed rate of bytes */
	RANREAD_LIMIT_DEVICE		/* the device's own limit */
} RanreadLimitKind;

/*
 * A probe after a sweep's last step: a run at that step's load, either at
 * another block size (the size probe) or after an idle pause (the refill
 * probe); present is false when the sweep ran none.
 */
typedef struct RanreadLimitProbe
{
	bool		present;
	RanreadSweepStep step;		/* as read back, its bucket applied */
	double		size_ratio;		/* its block size over the steps' */
	double		idle_s;			/* the refill probe: seconds no read was issued before it */
} RanreadLimitProbe;

typedef struct RanreadLimit
{
	RanreadLimitKind kind;
	const char *reason;			/* a sentence: the evidence, or why undecided */
	double		rate_iops;		/* the sustained level: the plateau, or the last steps */
	double		rate_band_pct;
	int			plateau_first;	/* steps of the plateau, -1: none */
	int			plateau_last;
	double		little_pct;		/* the plateau's worst gap between mean latency and
								 * in flight / rate, % (Little's law) */
	double		probe_ratio;	/* size probe's IOPS over the rate; < 0: none */
	double		probe_band_pct;
	/* a burst bucket that ran empty in a step or the drain */
	bool		bucket;
	double		burst_iops;
	double		burst_band_pct;
	double		bucket_reads;
	double		bucket_band;
	double		bucket_s;		/* seconds the burst lasted */
	double		refill_per_s;	/* credits a second the idle pause gave back; < 0: not measured */
	double		refill_band;
	bool		refill_full;	/* the probe found the bucket full: a lower bound */
} RanreadLimit;

extern void ranread_limit_judge(const RanreadSweepStep *steps, int count, bool open_loop,
								const RanreadSweepStep *drain, const RanreadLimitProbe *size_probe,
								const RanreadLimitProbe *refill_probe, RanreadLimit *limit);
extern const char *ranread_limit_kind_name(RanreadLimitKind kind);

#endif							/* RANREAD_LIMIT_RULES_H */
