/*-------------------------------------------------------------------------
 *
 * sweep_limit.c
 *		What limits the volume a sweep read, from its recorded steps and
 *		probes (the rule: rules/limit_rules.c): a sentence of the verdict and
 *		SELECT * FROM ranread_limit(sweep), the kind with its figures and
 *		its evidence.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "extension.h"
#include "format.h"
#include "ranread.h"
#include "sweep/sweep_verdict.h"

PG_FUNCTION_INFO_V1(ranread_limit);

/* The columns of ranread_limit(). */
#define LIMIT_COLUMNS	11

/* Judge the limit of a sweep as read by ranread_sweep_read(). */
void
ranread_sweep_limit(const RanreadSweepRecord *record, RanreadLimit *limit)
{
	ranread_limit_judge(record->steps, record->count, record->open_loop,
						record->drain_batch != 0 ? &record->drain : NULL,
						&record->size_probe, &record->refill_probe, limit);
}

/* A rate with its band: "1,000 reads/s ± 1.2 %" (no band that rounds to 0.0 %). */
static char *
rate_text(double iops, double band_pct)
{
	if (band_pct >= 0.05)
		return psprintf("%s reads/s ± %.1f %%", ranread_format_rate(iops), band_pct);
	return psprintf("%s reads/s", ranread_format_rate(iops));
}

/* MB/s (10^6 bytes) of iops reads of block_size bytes. */
static double
mb_per_s(double iops, int block_size)
{
	return iops * block_size / 1e6;
}

/* The plateau and the size probe, as evidence. */
static void
append_plateau(StringInfo out, const RanreadSweepRecord *record, const RanreadLimit *limit)
{
	const RanreadSweepStep *first = &record->steps[limit->plateau_first];
	const RanreadSweepStep *last = &record->steps[limit->plateau_last];

	appendStringInfo(out, " IOPS held flat within their noise from step %d to step %d (%d to %d reads in flight), and the mean latency was the reads in flight over that rate within %.1f %%",
					 limit->plateau_first + 1, limit->plateau_last + 1,
					 first->processes * Max(first->iodepth, 1) * (Max(first->prefetch, 0) + 1),
					 last->processes * Max(last->iodepth, 1) * (Max(last->prefetch, 0) + 1),
					 limit->little_pct);
	if (limit->probe_ratio >= 0)
		appendStringInfo(out, "; reads of %d kB (the size probe, batch " INT64_FORMAT ") gave %.2f × those IOPS, ± %.1f %%: an IOPS cap keeps 1, a bandwidth cap %.2f",
						 (int) lround(record->size_probe.size_ratio * record->block_size / 1024),
						 record->size_probe_batch, limit->probe_ratio, limit->probe_band_pct,
						 1 / record->size_probe.size_ratio);
}

/* The burst bucket's figures and its refill. */
static void
append_bucket(StringInfo out, const RanreadSweepRecord *record, const RanreadLimit *limit)
{
	appendStringInfo(out, " A burst bucket ran empty: %s for %.1f s from about %s ± %s reads, then the sustained level",
					 rate_text(limit->burst_iops, limit->burst_band_pct), limit->bucket_s,
					 ranread_format_rate(limit->bucket_reads), ranread_format_rate(limit->bucket_band));
	if (limit->refill_per_s >= 0)
		appendStringInfo(out, "; after %.1f s idle the refill probe (batch " INT64_FORMAT ") found %s ± %s credits: a refill of %s ± %s a second%s.",
						 record->refill_probe.idle_s, record->refill_probe_batch,
						 ranread_format_rate(record->refill_probe.step.bucket_reads),
						 ranread_format_rate(record->refill_probe.step.bucket_band),
						 ranread_format_rate(limit->refill_per_s), ranread_format_rate(limit->refill_band),
						 limit->refill_full ? " at least: the bucket had refilled to its size" : "");
	else if (record->refill_probe.present)
		appendStringInfo(out, "; the refill probe (batch " INT64_FORMAT ") after %.1f s idle saw no burst, so the refill is not measured.",
						 record->refill_probe_batch, record->refill_probe.idle_s);
	else
		appendStringInfoString(out, "; the refill is not measured (probe => an idle pause measures it).");
}

/* What limits the volume, in sentences: the kind, its figures, the evidence. */
char *
ranread_sweep_limit_text(const RanreadSweepRecord *record, const RanreadLimit *limit)
{
	StringInfoData out;

	initStringInfo(&out);
	switch (limit->kind)
	{
		case RANREAD_LIMIT_IOPS_CAP:
			appendStringInfo(&out, "Limit: a cap of %s.", rate_text(limit->rate_iops, limit->rate_band_pct));
			break;
		case RANREAD_LIMIT_BANDWIDTH_CAP:
			appendStringInfo(&out, "Limit: a cap of %.1f MB/s (%s of %d kB).",
							 mb_per_s(limit->rate_iops, record->block_size),
							 rate_text(limit->rate_iops, limit->rate_band_pct), record->block_size / 1024);
			break;
		case RANREAD_LIMIT_DEVICE:
			appendStringInfo(&out, "Limit: the device's own, at %s.", rate_text(limit->rate_iops, limit->rate_band_pct));
			break;
		case RANREAD_LIMIT_UNDECIDED:
			appendStringInfoString(&out, "Limit: undecided.");
			break;
	}
	appendStringInfo(&out, " Why: %s.", limit->reason);
	if (limit->plateau_first >= 0)
		append_plateau(&out, record, limit);
	if (limit->plateau_first >= 0)
		appendStringInfoChar(&out, '.');
	if (limit->bucket)
		append_bucket(&out, record, limit);
	return out.data;
}

/*
 * ranread_limit(sweep): what limits the volume the sweep read, as columns
 * (kind, rate, band, MB/s, the bucket's burst, size and seconds, the refill,
 * rounded as the views round) and the evidence in words; NULL for no such
 * sweep.
 */
Datum
ranread_limit(PG_FUNCTION_ARGS)
{
	int64		sweep = PG_GETARG_INT64(0);
	RanreadSweepRecord record;
	RanreadLimit limit;
	TupleDesc	desc;
	Datum		values[LIMIT_COLUMNS];
	bool		nulls[LIMIT_COLUMNS] = {0};

	desc = ranread_result_row_desc(fcinfo, LIMIT_COLUMNS);
	if (!ranread_sweep_read(sweep, false, &record))
		PG_RETURN_NULL();
	ranread_sweep_limit(&record, &limit);
	values[0] = CStringGetTextDatum(ranread_limit_kind_name(limit.kind));
	values[1] = Float8GetDatum(ranread_round(limit.rate_iops, 1));
	values[2] = Float8GetDatum(ranread_round(mb_per_s(limit.rate_iops, record.block_size), 3));
	values[3] = Float8GetDatum(ranread_round(limit.rate_band_pct, 1));
	nulls[1] = nulls[2] = !(limit.rate_iops > 0);
	nulls[3] = nulls[1] || !(limit.rate_band_pct > 0);
	values[4] = BoolGetDatum(limit.bucket);
	values[5] = Float8GetDatum(ranread_round(limit.burst_iops, 1));
	values[6] = Float8GetDatum(ranread_round(limit.bucket_reads, 0));
	values[7] = Float8GetDatum(ranread_round(limit.bucket_s, 1));
	nulls[5] = nulls[6] = nulls[7] = !limit.bucket;
	values[8] = Float8GetDatum(ranread_round(limit.refill_per_s, 1));
	nulls[8] = !(limit.refill_per_s >= 0);
	values[9] = Float8GetDatum(ranread_round(limit.probe_ratio, 3));
	nulls[9] = !(limit.probe_ratio >= 0);
	values[10] = CStringGetTextDatum(ranread_sweep_limit_text(&record, &limit));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
