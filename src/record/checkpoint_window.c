/*-------------------------------------------------------------------------
 *
 * checkpoint_window.c
 *		checkpoint => 'during': a checkpoint asked for a third into a run
 *		with writers, and the reads inside its window against the reads
 *		outside.
 *
 * A third into the counted reads (the ramp excluded), the leader sums the
 * readers' histograms, notes the WAL insert position and asks the
 * checkpointer for a fast checkpoint, as CHECKPOINT does (its writes as fast
 * as the device takes them, not spread over checkpoint_completion_target):
 * by then the writers have committed about a third of their writes, and
 * their pages are the checkpoint's work.  That opens the window.  The leader
 * then looks every CHECKPOINT_LOOK_MS: it notes when the checkpointer has
 * begun (its redo pointer has reached the noted position), and closes the
 * window when pg_control records that checkpoint, summing the readers'
 * histograms again.  So the window holds the whole checkpoint, the moment
 * the checkpointer took to begin it, and at most one look after its end;
 * the difference of the two sums is the reads inside it, and the batch's
 * reads less those are the reads outside.  If the reads end first, the last
 * reader closes the window there (the checkpoint outlasted the reads).
 *
 * Each side's p99 comes with its 95 % band from order statistics
 * (histogram.c); reads close in time are not independent, so the band is
 * the least uncertainty there is, not all of it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "postmaster/bgwriter.h"

#include "compat.h"
#include "format.h"
#include "ranread.h"
#include "record/checkpoint_window.h"
#include "record/interval_activity.h"
#include "record/series.h"

/* How often the leader looks whether the checkpoint has begun or ended. */
#define CHECKPOINT_LOOK_MS	10

/* The readers' histograms summed at the window's end: too large for the stack. */
static RanreadHistogram readers_now;

/* Negative during the ramp: an instr_time difference would wrap there. */
static double
seconds_since_count_from(const RanreadShared *shared, instr_time now)
{
	return ranread_instr_time_s(now) - ranread_instr_time_s(shared->count_from);
}

void
ranread_checkpoint_window_init(RanreadShared *shared)
{
	RanreadCheckpointWindow *window = &shared->checkpoint;

	pg_atomic_init_flag(&window->busy);
	window->state = shared->params.checkpoint_during ? RANREAD_CHECKPOINT_DUE : RANREAD_CHECKPOINT_DONE;
	window->requested_s = window->started_s = window->ended_s = -1;
}

/* Whether pg_control records a checkpoint whose redo is at or after lsn. */
static bool
checkpoint_recorded(XLogRecPtr lsn)
{
	XLogRecPtr	redo = ranread_recorded_redo();

	return redo != InvalidXLogRecPtr && redo >= lsn;
}

/* The writes the writers have committed so far. */
static int64
writes_so_far(const RanreadShared *shared)
{
	int64		writes = 0;

	for (int i = 0; i < shared->params.writers; i++)
		writes += (int64) ranread_writer_slot(shared, i)->hist.count;
	return writes;
}

/*
 * Leader, while the readers read: ask for the checkpoint when it is due,
 * then open and close its window.  Returns how long it may sleep before it
 * must look again, or -1 when the window needs nothing more.
 */
long
ranread_checkpoint_follow(RanreadShared *shared, instr_time now)
{
	RanreadCheckpointWindow *window = &shared->checkpoint;
	double		at_s = seconds_since_count_from(shared, now);
	double		due_s = (double) (shared->params.duration_ns - shared->params.ramp_ns) / 1e9 / 3;
	long		look_ms = CHECKPOINT_LOOK_MS;
	bool		request = false;
	bool		open;
	bool		begun;
	bool		recorded;

	/*
	 * Only the leader moves the window from DUE to OPEN, and only the leader
	 * or the last reader closes it; what may fail is done without the flag.
	 */
	if (window->state == RANREAD_CHECKPOINT_DONE)
		return -1;
	open = window->state == RANREAD_CHECKPOINT_OPEN;
	begun = open && GetRedoRecPtr() >= window->requested_lsn;
	recorded = open && checkpoint_recorded(window->requested_lsn);
	if (!pg_atomic_test_set_flag(&window->busy))
		return look_ms;
	if (window->state == RANREAD_CHECKPOINT_DUE && at_s < due_s)
		look_ms = (long) ceil((due_s - at_s) * 1000);
	else if (window->state == RANREAD_CHECKPOINT_DUE)
	{
		ranread_readers_histogram(shared, &window->at_start);
		window->requested_lsn = GetXLogInsertRecPtr();
		window->requested_s = at_s;
		window->writes_before = writes_so_far(shared);
		window->state = RANREAD_CHECKPOINT_OPEN;
		request = true;
	}
	else if (window->state == RANREAD_CHECKPOINT_OPEN)
	{
		/* begun: first seen at this look (or it began and ended between two) */
		if ((begun || recorded) && window->started_s < 0)
			window->started_s = at_s;
		if (recorded)
		{
			ranread_readers_histogram(shared, &readers_now);
			ranread_hist_difference(&window->inside, &readers_now, &window->at_start);
			window->ended_s = at_s;
			window->state = RANREAD_CHECKPOINT_DONE;
		}
	}
	pg_atomic_clear_flag(&window->busy);
	if (request)
		RequestCheckpoint(RANREAD_CHECKPOINT_FAST | CHECKPOINT_FORCE);
	return look_ms;
}

/*
 * The last reader to stop reading: a window still open closes at the end of
 * the reads (the checkpoint outlasted them); one not yet open stays so.
 */
void
ranread_checkpoint_window_close(RanreadShared *shared)
{
	RanreadCheckpointWindow *window = &shared->checkpoint;

	while (!pg_atomic_test_set_flag(&window->busy))
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000L);
	}
	if (window->state == RANREAD_CHECKPOINT_OPEN)
	{
		ranread_readers_histogram(shared, &readers_now);
		ranread_hist_difference(&window->inside, &readers_now, &window->at_start);
	}
	window->state = RANREAD_CHECKPOINT_DONE;
	pg_atomic_clear_flag(&window->busy);
}

static void
side_figures(const RanreadHistogram *hist, RanreadWindowSide *side)
{
	side->reads = (int64) hist->count;
	side->p99_ms = ranread_hist_percentile_ms(hist, 0.99);
	ranread_hist_percentile_band_ms(hist, 0.99, &side->p99_low_ms, &side->p99_high_ms);
}

/* Once the reads have ended: the reads inside the window and outside it. */
void
ranread_checkpoint_sides(const RanreadShared *shared, RanreadWindowSide *inside,
						 RanreadWindowSide *outside)
{
	static RanreadHistogram outside_hist;

	ranread_readers_histogram(shared, &readers_now);
	ranread_hist_difference(&outside_hist, &readers_now, &shared->checkpoint.inside);
	side_figures(&shared->checkpoint.inside, inside);
	side_figures(&outside_hist, outside);
}

static void
add_seconds(RanreadRow *row, const char *name, double seconds, bool known)
{
	ranread_row_add(row, name, FLOAT8OID, Float8GetDatum(seconds), !known || seconds < 0);
}

/* A side's columns; a band's open side is NULL. */
static void
add_side(RanreadRow *row, const char *prefix, const RanreadWindowSide *side, bool known)
{
	bool		empty = !known || side->reads == 0;

	ranread_row_add(row, psprintf("reads_%s", prefix), INT8OID, Int64GetDatum(side->reads), !known);
	ranread_row_add(row, psprintf("p99_%s_ms", prefix), FLOAT8OID, Float8GetDatum(side->p99_ms), empty);
	ranread_row_add(row, psprintf("p99_%s_low_ms", prefix), FLOAT8OID, Float8GetDatum(side->p99_low_ms),
					empty || side->p99_low_ms < 0);
	ranread_row_add(row, psprintf("p99_%s_high_ms", prefix), FLOAT8OID, Float8GetDatum(side->p99_high_ms),
					empty || side->p99_high_ms < 0);
}

/* The window's columns of the batch's ranread_db_activity row: NULL without checkpoint => 'during'. */
void
ranread_checkpoint_columns(const RanreadShared *shared, RanreadRow *row)
{
	const RanreadCheckpointWindow *window = &shared->checkpoint;
	bool		asked = shared->params.checkpoint_during && window->requested_s >= 0;
	RanreadWindowSide inside = {0};
	RanreadWindowSide outside = {0};

	if (asked)
		ranread_checkpoint_sides(shared, &inside, &outside);
	add_seconds(row, "checkpoint_requested_s", window->requested_s, asked);
	add_seconds(row, "checkpoint_began_s", window->started_s, asked);
	add_seconds(row, "checkpoint_ended_s", window->ended_s, asked);
	ranread_row_add(row, "writes_before_checkpoint", INT8OID, Int64GetDatum(window->writes_before), !asked);
	add_side(row, "inside", &inside, asked);
	add_side(row, "outside", &outside, asked);
}

/*
 * "1.23 ms (95 % band 1.10 to 1.40 ms, 1,234 reads)", or with too few reads
 * to bound the band above, "(95 % band 1.10 ms and up: 54 reads ...)".
 */
static char *
side_text(const RanreadWindowSide *side)
{
	if (side->reads == 0)
		return pstrdup("none (no reads)");
	if (side->p99_high_ms < 0)
		return psprintf("%s ms (95 %% band %s and up: %s reads are too few to bound it above)",
						ranread_format_ms(side->p99_ms),
						side->p99_low_ms < 0 ? "0 ms" : psprintf("%s ms", ranread_format_ms(side->p99_low_ms)),
						ranread_format_rate((double) side->reads));
	return psprintf("%s ms (95 %% band %s to %s ms, %s reads)",
					ranread_format_ms(side->p99_ms), ranread_format_ms(side->p99_low_ms),
					ranread_format_ms(side->p99_high_ms), ranread_format_rate((double) side->reads));
}

/* The leader, after the run: where the checkpoint fell and what it did to the reads. */
void
ranread_checkpoint_report(const RanreadShared *shared, int level)
{
	const RanreadCheckpointWindow *window = &shared->checkpoint;
	RanreadWindowSide inside;
	RanreadWindowSide outside;
	char	   *span;

	if (!shared->params.checkpoint_during)
		return;
	if (window->requested_s < 0)
	{
		ereport(level,
				(errmsg("batch " INT64_FORMAT " asked for no checkpoint: its reads ended before a third of its duration",
						shared->batch)));
		return;
	}
	ranread_checkpoint_sides(shared, &inside, &outside);
	if (window->ended_s >= 0)
		span = psprintf("it began by %.2f s and was recorded by %.2f s", window->started_s, window->ended_s);
	else if (window->started_s >= 0)
		span = psprintf("it began by %.2f s and was still running when the reads ended", window->started_s);
	else
		span = pstrdup("it had not begun when the reads ended");
	ereport(level,
			(errmsg("batch " INT64_FORMAT ": checkpoint asked for at %.2f s, after %s writes; %s",
					shared->batch, window->requested_s, ranread_format_rate((double) window->writes_before), span),
			 errdetail("Read p99 in its window: %s; outside it: %s.", side_text(&inside), side_text(&outside))));
}
