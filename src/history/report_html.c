/*-------------------------------------------------------------------------
 *
 * report_html.c
 *		ranread_report_html(): one self-contained HTML page to share, of a
 *		sweep, a batch, a fleet run, a fleet sweep, a write sweep or two
 *		sweeps compared.  In this order: the verdict in words, the charts
 *		(chart.c's, drawn inline as SVG), the steps, the proofs and the
 *		warnings the recorded figures show, and the settings that shaped
 *		the run.  Inline CSS and SVG and a Content-Security-Policy that
 *		lets nothing load: the page needs no network and no script.
 *
 * The history is read through SPI as the caller, so that a role without
 * SELECT on a table gets PostgreSQL's own error.  Each kind of report is a
 * line of the table below: its queries, and its charts.  Every string from
 * the history is escaped and cut at REPORT_MAX_CHARS characters, every
 * table holds at most REPORT_MAX_ROWS rows (it says how many it left out),
 * a subject's batches are its first REPORT_MAX_BATCHES and a chart over
 * REPORT_MAX_CHART_BYTES is left out, so a page has a bound in size
 * (docs/reference.md states it).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "extension.h"
#include "history/chart.h"
#include "history/svg.h"
#include "rules/run_rules.h"
#include "spi_columns.h"

PG_FUNCTION_INFO_V1(ranread_report_html);

/* Bounds of what a page shows (the page's size follows from them). */
#define REPORT_MAX_ROWS			100
#define REPORT_MAX_CHARS		200
#define REPORT_MAX_BATCHES		1000
#define REPORT_MAX_CHART_BYTES	(1024 * 1024)

/* Every chart's size on the page (its SVG scales to the page's width). */
#define REPORT_CHART_WIDTH		960
#define REPORT_CHART_HEIGHT		480

/* The most batches a latency chart draws (chart_latency.c's MAX_CURVES). */
#define REPORT_LATENCY_CURVES	8

#define REPORT_STYLE \
	"body{font-family:system-ui,sans-serif;color:#222;max-width:64rem;margin:0 auto;padding:0 1rem;" \
	"line-height:1.45}\n" \
	"h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid #ccc;margin-top:2rem}\n" \
	"figure{margin:1rem 0}figure.chart svg{display:block;width:100%;height:auto;border:1px solid #ddd}\n" \
	"figcaption,.note{color:#555;font-size:.9rem}\n" \
	".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}\n" \
	"th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}\n" \
	"th{background:#f2f2f2}td{overflow-wrap:anywhere}\n" \
	"#verdict p{font-size:1.05rem;margin:.4rem 0}\n" \
	"@media print{body{max-width:none}.scroll{overflow:visible}figure,tr{break-inside:avoid}}\n"

/* One report being written: its subject, its page, and its charts so far. */
typedef struct Report
{
	StringInfoData html;
	const char *schema;			/* the extension's, quoted */
	int64		number;			/* $1 of every query */
	int64		other;			/* $2: compare_to (0: none) */
	const char *subject;		/* the subject's batches, a query (NULL: none here) */
	int			charts;
} Report;

/* A kind of report: its subject's queries and its charts ({s}: the schema). */
typedef struct ReportKind
{
	const char *noun;			/* "sweep", as the page's title names it */
	const char *argument;		/* the argument naming it */
	const char *exists;			/* a row if $1 exists */
	const char *subject;		/* its batches (NULL: its rows are fleets') */
	const char *verdict;		/* column sentence: the verdict, a sentence a row */
	const char *steps_caption;
	const char *steps;			/* its steps or rounds */
	const char *proofs;			/* NULL: the batches' proofs */
	const char *settings;		/* NULL: the batches' settings */
	bool		batch_rows;		/* its batches' rows after its steps */
	void		(*charts) (Report *report);
} ReportKind;

/* Text from the history, escaped, cut at REPORT_MAX_CHARS characters. */
static void
append_bounded(StringInfo out, const char *text)
{
	int			length = strlen(text);
	int			cut = pg_mbcharcliplen(text, length, REPORT_MAX_CHARS);

	if (cut < length)
	{
		ranread_svg_append_escaped(out, pnstrdup(text, cut));
		appendStringInfo(out, "&#x2026; (%d characters left out)", pg_mbstrlen_with_len(text + cut, length - cut));
	}
	else
		ranread_svg_append_escaped(out, text);
}

/* A query's text: the subject's batches first, as the CTE subject, and "{s}" replaced by the schema. */
static char *
query_text(const Report *report, const char *query)
{
	StringInfoData sql;
	char	   *whole = report->subject ? psprintf("WITH subject AS (%s) %s", report->subject, query) : pstrdup(query);
	const char *p = whole;
	const char *hole;

	initStringInfo(&sql);
	while ((hole = strstr(p, "{s}")) != NULL)
	{
		appendBinaryStringInfo(&sql, p, hole - p);
		appendStringInfoString(&sql, report->schema);
		p = hole + 3;
	}
	appendStringInfoString(&sql, p);
	return sql.data;
}

/* Run a report's query with $1 and $2, at most `limit` rows (0: all); SPI_processed rows. */
static uint64
run_query(const Report *report, const char *query, long limit)
{
	Oid			types[2] = {INT8OID, INT8OID};
	Datum		values[2] = {Int64GetDatum(report->number), Int64GetDatum(report->other)};

	if (SPI_execute_with_args(query_text(report, query), 2, types, values, NULL, true, limit) != SPI_OK_SELECT)
		elog(ERROR, "could not read the history for a report");
	return SPI_processed;
}

/* How many rows a query has in all. */
static int64
count_rows(const Report *report, const char *query)
{
	run_query(report, psprintf("SELECT pg_catalog.count(*) AS n FROM (%s) q", query), 0);
	return ranread_spi_int_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "n", 0);
}

/* A query's rows as a table, at most REPORT_MAX_ROWS, every column in order. */
static void
append_table(Report *report, const char *caption, const char *query)
{
	StringInfo out = &report->html;
	uint64		n = run_query(report, query, REPORT_MAX_ROWS + 1);
	SPITupleTable *rows = SPI_tuptable;
	TupleDesc	desc = rows->tupdesc;

	if (n == 0)
	{
		appendStringInfoString(out, "<p class=\"note\">");
		ranread_svg_append_escaped(out, caption);
		appendStringInfoString(out, ": none recorded.</p>\n");
		return;
	}
	appendStringInfoString(out, "<div class=\"scroll\"><table>\n<caption>");
	ranread_svg_append_escaped(out, caption);
	appendStringInfoString(out, "</caption>\n<tr>");
	for (int c = 0; c < desc->natts; c++)
	{
		appendStringInfoString(out, "<th>");
		ranread_svg_append_escaped(out, NameStr(TupleDescAttr(desc, c)->attname));
		appendStringInfoString(out, "</th>");
	}
	appendStringInfoString(out, "</tr>\n");
	for (uint64 r = 0; r < Min(n, REPORT_MAX_ROWS); r++)
	{
		appendStringInfoString(out, "<tr>");
		for (int c = 0; c < desc->natts; c++)
		{
			char	   *value = ranread_spi_output_at(rows->vals[r], desc, c + 1);

			appendStringInfoString(out, "<td>");
			append_bounded(out, value ? value : "");
			appendStringInfoString(out, "</td>");
		}
		appendStringInfoString(out, "</tr>\n");
	}
	appendStringInfoString(out, "</table></div>\n");
	if (n > REPORT_MAX_ROWS)
		appendStringInfo(out, "<p class=\"note\">The first %d rows of " INT64_FORMAT ": the others are left out.</p>\n",
						 REPORT_MAX_ROWS, count_rows(report, query));
}

/* A query's column "sentence" as paragraphs, at most REPORT_MAX_ROWS; how many. */
static uint64
append_paragraphs(Report *report, const char *query, const char *tag)
{
	uint64		n = run_query(report, query, REPORT_MAX_ROWS + 1);
	SPITupleTable *rows = SPI_tuptable;

	for (uint64 r = 0; r < Min(n, REPORT_MAX_ROWS); r++)
	{
		char	   *sentence = ranread_spi_text_named(rows->vals[r], rows->tupdesc, "sentence", NULL);

		if (sentence == NULL)
			continue;
		appendStringInfo(&report->html, "<%s>", tag);
		append_bounded(&report->html, sentence);
		appendStringInfo(&report->html, "</%s>\n", tag);
	}
	if (n > REPORT_MAX_ROWS)
		appendStringInfo(&report->html, "<%s class=\"note\">And " INT64_FORMAT " more, left out.</%s>\n", tag,
						 count_rows(report, query) - REPORT_MAX_ROWS, tag);
	return Min(n, REPORT_MAX_ROWS);
}

/* The numbers a query returns in its column "n", in order, at most max; how many. */
static int
numbers_of(Report *report, const char *query, int64 *numbers, int max)
{
	uint64		n = run_query(report, query, max);

	for (uint64 r = 0; r < n; r++)
		numbers[r] = ranread_spi_int_named(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, "n", 0);
	return (int) n;
}

/* A chart of chart.c's, inline, with its caption; left out, saying so, if over the bound. */
static void
append_chart(Report *report, const char *kind, const int64 *numbers, int count, const char *caption)
{
	StringInfoData svg;
	const char *start;

	initStringInfo(&svg);
	if (count < 1 || !ranread_chart_draw(&svg, kind, report->schema, numbers, count, REPORT_CHART_WIDTH,
										 REPORT_CHART_HEIGHT))
		return;
	/* inline in HTML, the SVG has no XML declaration */
	start = strstr(svg.data, "<svg");
	if (start == NULL)
		return;
	report->charts++;
	if (svg.len > REPORT_MAX_CHART_BYTES)
	{
		appendStringInfo(&report->html, "<p class=\"note\">The chart of the %s is left out: %d bytes, over the bound of %d.</p>\n",
						 caption, svg.len, REPORT_MAX_CHART_BYTES);
		return;
	}
	appendStringInfo(&report->html, "<figure class=\"chart\" id=\"chart-%d\">\n%s<figcaption>", report->charts,
					 start);
	ranread_svg_append_escaped(&report->html, caption);
	appendStringInfoString(&report->html, "</figcaption></figure>\n");
	pfree(svg.data);
}

/* Over time: the batch of the subject with the most IOPS that has intervals. */
static void
append_over_time(Report *report)
{
	int64		batch;

	if (numbers_of(report, "SELECT b.batch AS n FROM {s}.ranread_batches b JOIN subject USING (batch) "
				   "WHERE EXISTS (SELECT FROM {s}.ranread_intervals i WHERE i.batch OPERATOR(pg_catalog.=) b.batch) "
				   "ORDER BY b.iops DESC NULLS LAST, b.batch", &batch, 1) == 1)
		append_chart(report, "intervals", &batch, 1,
					 psprintf("over time: batch " INT64_FORMAT ", IOPS and latency a sample interval, with any checkpoint marked",
							  batch));
}

/* The latency distributions of the subject's last batches with a histogram. */
static void
append_latency(Report *report)
{
	int64		batches[REPORT_LATENCY_CURVES];
	int			n = numbers_of(report, "SELECT n FROM (SELECT b.batch AS n FROM {s}.ranread_batches b JOIN subject USING (batch) "
							   "WHERE b.histogram IS NOT NULL AND b.reads OPERATOR(pg_catalog.>) 0 "
							   "ORDER BY b.batch DESC LIMIT 8) l ORDER BY n",
							   batches, REPORT_LATENCY_CURVES);

	append_chart(report, "latency", batches, n, "latency: each batch's reads by percentile, from its histogram");
}

/* A sweep's charts: its capacity curve, its steps' latency, its highest step over time. */
static void
sweep_charts(Report *report)
{
	if (count_rows(report, "SELECT FROM subject") > 0)
		append_chart(report, "sweep", &report->number, 1,
					 "capacity: IOPS a step (bars) against mean and p99 latency (lines), with the SLO and the knee");
	append_latency(report);
	append_over_time(report);
}

/* A batch's, or a write sweep's, charts: latency, and over time. */
static void
batch_charts(Report *report)
{
	append_latency(report);
	append_over_time(report);
}

/* A fleet sweep's chart: each step's IOPS stacked by server. */
static void
fleet_sweep_charts(Report *report)
{
	append_chart(report, "fleet", &report->number, 1, "the fleet: each step's IOPS stacked by server, and its latency");
}

/* A fleet run: no chart of its own (its batches are in its servers' histories). */
static void
fleet_charts(Report *report)
{
	appendStringInfoString(&report->html, "<p class=\"note\">A fleet run has no chart of its own: each server's batch is "
						   "in that server's history, and ranread_report_html(batch =&gt; &#x2026;) there draws it.</p>\n");
}

/* Two sweeps compared: each one's capacity curve. */
static void
compare_charts(Report *report)
{
	append_chart(report, "sweep", &report->number, 1, psprintf("sweep A (" INT64_FORMAT "): capacity", report->number));
	append_chart(report, "sweep", &report->other, 1, psprintf("sweep B (" INT64_FORMAT "): capacity", report->other));
}

/* A batch's key figures as words: "1,234 IOPS ± 2.1 %" (NULL bands: "unknown"). */
#define BAND(column) "coalesce(pg_catalog.round(" column "::numeric, 1)::text || ' %', 'unknown')"
#define MS(column) "coalesce({s}.ranread_round_ms(" column ", 3)::text, 'unknown')"

/* The subject's batches, a row each: their steps. */
#define BATCH_ROWS \
	"SELECT b.sweep, b.sweep_step AS step, b.batch, b.processes, b.iodepth, pg_catalog.round(b.iops::numeric) AS iops, " \
	"pg_catalog.round(b.iops_band_pct::numeric, 1) AS iops_band_pct, {s}.ranread_round_ms(b.response_time_ms, 3) AS mean_ms, " \
	"{s}.ranread_round_ms(b.p99_ms, 3) AS p99_ms, {s}.ranread_round_ms(b.p999_ms, 3) AS p999_ms, " \
	"pg_catalog.round(b.physical_pct::numeric, 1) AS physical_pct, b.status " \
	"FROM {s}.ranread_batches b JOIN subject USING (batch) ORDER BY b.sweep, b.sweep_step, b.batch"

/* A sweep's verdict, a sentence a row, after a line naming it. */
#define SWEEP_VERDICT(number, label, order) \
	"SELECT pg_catalog.format('%sSweep %s (%s, %s on %s, %s steps).', " label ", r.sweep, v.status, r.mode, r.target, v.steps) " \
	"AS sentence, " order " AS n, 0::bigint AS k FROM {s}.ranread_sweep_runs r, {s}.ranread_sweep_verdict(r.sweep) v " \
	"WHERE r.sweep OPERATOR(pg_catalog.=) " number " " \
	"UNION ALL SELECT " label " || x.sentence, " order ", x.k FROM {s}.ranread_sweep_verdict(" number ") v, " \
	"pg_catalog.regexp_split_to_table(v.verdict, '(?<=[.!?])\\s+') WITH ORDINALITY AS x(sentence, k) "

/*
 * The proofs of the subject's batches: the device's share of the reads,
 * pg_stat_io's count of them (modes buffer and stream; 100 % agrees), the
 * device's own counters and the share of its reads that were not ranread's.
 */
static const char *const batch_proofs =
"SELECT b.batch, b.mode, b.reads, pg_catalog.round(b.physical_pct::numeric, 1) AS physical_pct, b.stat_io_reads, "
"pg_catalog.round((100 * b.stat_io_reads::float8 * 8192 / NULLIF(b.reads::float8 * b.block_size, 0))::numeric, 1) "
"AS stat_io_pct_of_reads, b.device, pg_catalog.round(b.iops::numeric) AS iops, "
"pg_catalog.round(b.device_reads_per_s::numeric) AS device_reads_per_s, "
"pg_catalog.round(b.device_shared_pct::numeric, 1) AS device_shared_pct "
"FROM {s}.ranread_batches b JOIN subject USING (batch) ORDER BY b.batch";

/*
 * The subject's warnings: a batch that did not complete, each WARNING its
 * run raised (ranread_batches.warnings, their messages), a writer that
 * failed; for a batch recorded before 1.4, whose WARNINGs were not kept,
 * what its recorded figures warn of as they did (a device that answered
 * under 95 % of the reads, units read again, other I/O on the device, an
 * open loop's rate not kept).
 */
static const char *const batch_warnings =
"SELECT w.sentence FROM ("
"SELECT b.batch, 1 AS k, 0::bigint AS n, pg_catalog.format('Batch %s ended %s: its figures are those of the reads it kept.', b.batch, b.status) AS sentence "
"FROM {s}.ranread_batches b JOIN subject USING (batch) WHERE b.status OPERATOR(pg_catalog.<>) 'completed' "
"UNION ALL SELECT b.batch, 2, m.n, pg_catalog.format('Batch %s: %s', b.batch, pg_catalog.split_part(m.t, E'\\n', 1)) "
"FROM {s}.ranread_batches b JOIN subject USING (batch), LATERAL pg_catalog.unnest(b.warnings) WITH ORDINALITY AS m(t, n) "
"UNION ALL SELECT b.batch, 3, 0, pg_catalog.format('Batch %s: the device answered %s %% of its reads (under 95 %%): a cache answered the others.', "
"b.batch, pg_catalog.round(b.physical_pct::numeric, 1)) FROM {s}.ranread_batches b JOIN subject USING (batch) "
"WHERE b.warnings IS NULL AND b.physical_pct OPERATOR(pg_catalog.<) 95 "
"UNION ALL SELECT b.batch, 4, 0, pg_catalog.format('Batch %s read %s units again after reading every unit once: the page cache can answer them.', "
"b.batch, b.wrapped_reads) FROM {s}.ranread_batches b JOIN subject USING (batch) WHERE b.warnings IS NULL AND b.wrapped_reads OPERATOR(pg_catalog.>) 0 "
"UNION ALL SELECT b.batch, 5, 0, pg_catalog.format('Batch %s: %s %% of the device''s reads were not ranread''s: other I/O shared the device.', "
"b.batch, pg_catalog.round(b.device_shared_pct::numeric, 1)) FROM {s}.ranread_batches b JOIN subject USING (batch) "
"WHERE b.warnings IS NULL AND b.device_shared_pct OPERATOR(pg_catalog.>=) " CppAsString2(RANREAD_DEVICE_SHARED_PCT) " "
"UNION ALL SELECT b.batch, 6, 0, pg_catalog.format('Batch %s did not keep its rate: %s reads/s asked, %s achieved.', b.batch, "
"pg_catalog.round(b.rate_iops::numeric), pg_catalog.round(b.iops::numeric)) FROM {s}.ranread_batches b JOIN subject USING (batch) "
"WHERE b.warnings IS NULL AND b.rate_iops OPERATOR(pg_catalog.>) 0 "
"AND b.iops OPERATOR(pg_catalog.<) (0.95::float8 OPERATOR(pg_catalog.*) b.rate_iops) "
"UNION ALL SELECT w.batch, 7, 0, pg_catalog.format('Batch %s, writer %s: %s%s.', w.batch, w.writer, w.status, ': ' OPERATOR(pg_catalog.||) w.error) "
"FROM {s}.ranread_write_results w JOIN subject USING (batch) "
"WHERE w.error IS NOT NULL OR w.status OPERATOR(pg_catalog.<>) 'completed') w ORDER BY w.batch, w.k, w.n";

/*
 * The settings that shaped the subject's last batch (a sweep's steps differ
 * only in what the steps table shows).  A batch recorded before 1.4 has no
 * ranread_version: what it lacks is "not recorded"; a later one's NULL is
 * "none" (io_method before 18, no device found).
 */
static const char *const batch_settings =
"SELECT s.setting, coalesce(s.value, CASE WHEN b.ranread_version IS NULL THEN 'not recorded' ELSE 'none' END) AS value "
"FROM (SELECT b.* FROM {s}.ranread_batches b JOIN subject USING (batch) ORDER BY b.batch DESC LIMIT 1) b "
"LEFT JOIN {s}.ranread_targets t ON t.target OPERATOR(pg_catalog.=) b.target, "
"LATERAL (VALUES (1, 'server version', b.server_version_num::text), (2, 'io_method', b.io_method), "
"(3, 'io_workers', b.io_workers::text), (4, 'effective_io_concurrency', b.effective_io_concurrency::text), "
"(5, 'mode', b.mode), (6, 'processes', b.processes::text), (7, 'iodepth', b.iodepth::text), "
"(8, 'block size (bytes)', b.block_size::text), (9, 'target', b.target::text), "
"(10, 'target size', pg_catalog.pg_size_pretty(t.bytes)), (11, 'tablespace', t.tablespace::text), "
"(12, 'device', b.device), (13, 'file system', b.file_system), (14, 'kernel', b.kernel), "
"(15, 'data checksums', b.data_checksums::text), (16, 'ranread version', b.ranread_version), "
"(17, 'run by', b.run_by::text), (18, 'batch', b.batch::text)) AS s(n, setting, value) ORDER BY s.n";

/* A fleet run's, or a fleet sweep's, runs (WHERE fleet_runs). */
#define FLEET_RUNS(where) \
	"SELECT f.fleet, f.sweep_step AS step, f.status, pg_catalog.cardinality(f.servers) AS servers, f.processes, " \
	"pg_catalog.round(f.iops::numeric) AS iops, pg_catalog.round(f.iops_band_pct::numeric, 1) AS iops_band_pct, " \
	"{s}.ranread_round_ms(f.mean_ms, 3) AS mean_ms, {s}.ranread_round_ms(f.p99_ms, 3) AS p99_ms, f.slowest_server, " \
	"pg_catalog.round(f.overlap_pct::numeric, 1) AS overlap_pct FROM {s}.ranread_fleet_runs f WHERE " where \
	" ORDER BY f.sweep_step, f.fleet"

/* Their servers' proofs: each one's batch, status, release and clock (WHERE fleet_runs). */
#define FLEET_SERVERS(where) \
	"SELECT s.fleet, s.server, s.batch, s.status, s.reads, pg_catalog.round(s.iops::numeric) AS iops, " \
	"{s}.ranread_round_ms(s.p99_ms, 3) AS p99_ms, pg_catalog.round(s.start_skew_ms::numeric, 2) AS start_skew_ms, " \
	"pg_catalog.round(s.clock_offset_ms::numeric, 2) AS clock_offset_ms, s.error " \
	"FROM {s}.ranread_fleet_servers s JOIN {s}.ranread_fleet_runs f USING (fleet) WHERE " where \
	" ORDER BY s.fleet, s.server"

/* What a fleet's runs were asked (its first run's, WHERE fleet_runs). */
#define FLEET_SETTINGS(where) \
	"SELECT s.setting, coalesce(s.value, 'none') AS value FROM (SELECT * FROM {s}.ranread_fleet_runs f WHERE " where \
	" ORDER BY f.fleet LIMIT 1) f, LATERAL (VALUES (1, 'servers', pg_catalog.array_to_string(f.servers, ', ')), " \
	"(2, 'processes a server', f.processes::text), (3, 'iterations', f.iterations::text), (4, 'duration (s)', f.duration_s::text), " \
	"(5, 'mode', f.mode), (6, 'target', f.target::text), (7, 'run by', coalesce(f.run_by::text, 'not recorded')), " \
	"(8, 'the servers'' own settings', 'in each server''s history, with its batch')) AS s(n, setting, value) ORDER BY s.n"

/* The report kinds, in the order of ranread_report_html()'s arguments; compare last. */
static const ReportKind kinds[] = {
	{
		.noun = "sweep",
		.argument = "sweep",
		.exists = "SELECT FROM {s}.ranread_sweep_runs WHERE sweep OPERATOR(pg_catalog.=) $1",
		.subject = "SELECT b.batch FROM {s}.ranread_batches b WHERE b.sweep OPERATOR(pg_catalog.=) $1 ORDER BY b.batch LIMIT "
		CppAsString2(REPORT_MAX_BATCHES),
		.verdict = SWEEP_VERDICT("$1", "''", "1") "ORDER BY n, k",
		.steps_caption = "Steps",
		.steps = BATCH_ROWS,
		.charts = sweep_charts,
	},
	{
		.noun = "batch",
		.argument = "batch",
		.exists = "SELECT FROM {s}.ranread_batches WHERE batch OPERATOR(pg_catalog.=) $1",
		.subject = "SELECT $1 AS batch",
		.verdict = "SELECT pg_catalog.format('Batch %s (%s, %s on %s, %s processes at queue depth %s): %s IOPS ± %s, mean %s ms ± %s, "
		"p99 %s ms ± %s, p99.9 %s ms, over %s reads in %s s.', b.batch, b.status, b.mode, b.target, b.processes, b.iodepth, "
		"pg_catalog.round(b.iops::numeric), " BAND("b.iops_band_pct") ", " MS("b.response_time_ms") ", " BAND("b.mean_band_pct") ", "
		MS("b.p99_ms") ", " BAND("b.p99_band_pct") ", " MS("b.p999_ms") ", b.reads, pg_catalog.round(b.wall_s::numeric, 2)) AS sentence "
		"FROM {s}.ranread_batches b WHERE b.batch OPERATOR(pg_catalog.=) $1",
		.steps_caption = "Workers",
		.steps = "SELECT r.worker, r.status, r.reads, pg_catalog.round(r.iops::numeric) AS iops, "
		"{s}.ranread_round_ms(r.response_time_ms, 3) AS mean_ms, {s}.ranread_round_ms(r.p99_ms, 3) AS p99_ms, "
		"pg_catalog.round(r.physical_pct::numeric, 1) AS physical_pct FROM {s}.ranread_results r "
		"WHERE r.batch OPERATOR(pg_catalog.=) $1 ORDER BY r.worker",
		.charts = batch_charts,
	},
	{
		.noun = "fleet run",
		.argument = "fleet",
		.exists = "SELECT FROM {s}.ranread_fleet_runs WHERE fleet OPERATOR(pg_catalog.=) $1",
		.verdict = "SELECT pg_catalog.format('Fleet run %s (%s, %s servers, %s processes each, %s on %s): %s IOPS together ± %s, "
		"mean %s ms ± %s, p99 %s ms ± %s of the merged reads; slowest %s; their windows overlapped by %s %%.', f.fleet, f.status, "
		"pg_catalog.cardinality(f.servers), f.processes, f.mode, f.target, pg_catalog.round(f.iops::numeric), " BAND("f.iops_band_pct")
		", " MS("f.mean_ms") ", " BAND("f.mean_band_pct") ", " MS("f.p99_ms") ", " BAND("f.p99_band_pct") ", "
		"coalesce(f.slowest_server::text, 'unknown'), pg_catalog.round(f.overlap_pct::numeric, 1)) AS sentence "
		"FROM {s}.ranread_fleet_runs f WHERE f.fleet OPERATOR(pg_catalog.=) $1",
		.steps_caption = "Servers",
		.steps = FLEET_SERVERS("f.fleet OPERATOR(pg_catalog.=) $1"),
		.proofs = FLEET_RUNS("f.fleet OPERATOR(pg_catalog.=) $1"),
		.settings = FLEET_SETTINGS("f.fleet OPERATOR(pg_catalog.=) $1"),
		.charts = fleet_charts,
	},
	{
		.noun = "fleet sweep",
		.argument = "fleet_sweep",
		.exists = "SELECT FROM {s}.ranread_fleet_runs WHERE fleet_sweep OPERATOR(pg_catalog.=) $1 LIMIT 1",
		.verdict = "(SELECT pg_catalog.format('Fleet sweep %s: %s runs.', $1, pg_catalog.count(*)) AS sentence, 0 AS n "
		"FROM {s}.ranread_fleet_runs f WHERE f.fleet_sweep OPERATOR(pg_catalog.=) $1) UNION ALL "
		"(SELECT pg_catalog.format('Highest IOPS: %s IOPS ± %s (mean %s ms, p99 %s ms) at step %s, %s processes a server on %s servers "
		"(fleet run %s).', pg_catalog.round(f.iops::numeric), " BAND("f.iops_band_pct") ", " MS("f.mean_ms") ", " MS("f.p99_ms") ", "
		"f.sweep_step, f.processes, pg_catalog.cardinality(f.servers), f.fleet), 1 FROM {s}.ranread_fleet_runs f "
		"WHERE f.fleet_sweep OPERATOR(pg_catalog.=) $1 AND f.status OPERATOR(pg_catalog.=) 'completed' "
		"ORDER BY f.iops DESC NULLS LAST LIMIT 1) ORDER BY n",
		.steps_caption = "Steps (fleet runs)",
		.steps = FLEET_RUNS("f.fleet_sweep OPERATOR(pg_catalog.=) $1"),
		.proofs = FLEET_SERVERS("f.fleet_sweep OPERATOR(pg_catalog.=) $1"),
		.settings = FLEET_SETTINGS("f.fleet_sweep OPERATOR(pg_catalog.=) $1"),
		.charts = fleet_sweep_charts,
	},
	{
		.noun = "write sweep",
		.argument = "write_sweep",
		.exists = "SELECT FROM {s}.ranread_write_sweeps WHERE write_sweep OPERATOR(pg_catalog.=) $1",
		.subject = "SELECT DISTINCT x.batch FROM {s}.ranread_write_sweep_steps st, pg_catalog.unnest(st.batches) AS x(batch) "
		"WHERE st.write_sweep OPERATOR(pg_catalog.=) $1 ORDER BY x.batch LIMIT " CppAsString2(REPORT_MAX_BATCHES),
		.verdict = "SELECT pg_catalog.format('Write sweep %s (%s, %s writers beside %s readers, %s steps, %s on %s).', w.write_sweep, "
		"w.status, w.writers, w.processes, w.steps, w.mode, w.target) AS sentence, 0::bigint AS k FROM {s}.ranread_write_sweeps w "
		"WHERE w.write_sweep OPERATOR(pg_catalog.=) $1 UNION ALL SELECT x.sentence, x.k FROM {s}.ranread_write_sweeps w, "
		"pg_catalog.regexp_split_to_table(w.verdict, '(?<=[.!?])\\s+') WITH ORDINALITY AS x(sentence, k) "
		"WHERE w.write_sweep OPERATOR(pg_catalog.=) $1 ORDER BY k",
		.steps_caption = "Steps",
		.steps = "SELECT st.step, pg_catalog.round(st.write_rate_iops::numeric) AS write_rate_iops, "
		"pg_catalog.round(st.write_iops::numeric) AS write_iops, {s}.ranread_round_ms(st.write_mean_ms, 3) AS write_mean_ms, "
		"{s}.ranread_round_ms(st.write_p99_ms, 3) AS write_p99_ms, {s}.ranread_round_ms(st.read_p99_ms, 3) AS read_p99_ms, "
		"st.completed, st.within_slo, st.decision, pg_catalog.array_to_string(st.batches, ', ') AS batches "
		"FROM {s}.ranread_write_sweep_steps st WHERE st.write_sweep OPERATOR(pg_catalog.=) $1 ORDER BY st.step",
		.batch_rows = true,
		.charts = batch_charts,
	},
	{
		.noun = "comparison",
		.argument = "compare_to",
		.exists = "SELECT FROM {s}.ranread_sweep_runs a, {s}.ranread_sweep_runs b "
		"WHERE a.sweep OPERATOR(pg_catalog.=) $1 AND b.sweep OPERATOR(pg_catalog.=) $2",
		.subject = "SELECT b.batch FROM {s}.ranread_batches b WHERE b.sweep OPERATOR(pg_catalog.=) ANY (ARRAY[$1, $2]) "
		"ORDER BY b.batch LIMIT " CppAsString2(REPORT_MAX_BATCHES),
		.verdict = "SELECT pg_catalog.format('Sweep %s (A) against sweep %s (B): %s', $1, $2, "
		"pg_catalog.string_agg(c.verdict, ' ' ORDER BY c.o)) AS sentence, 0 AS n, 0::bigint AS k "
		"FROM {s}.ranread_compare_sweeps($1, $2) WITH ORDINALITY AS c(measure, a, b, ratio, noise_pct, verdict, o) "
		"WHERE c.measure OPERATOR(pg_catalog.=) 'verdict' UNION ALL "
		SWEEP_VERDICT("$1", "'A: '", "1") "UNION ALL "
		SWEEP_VERDICT("$2", "'B: '", "2") "ORDER BY n, k",
		.steps_caption = "The two sweeps, measure by measure (B against A)",
		.steps = "SELECT c.measure, c.a, c.b, c.ratio, c.noise_pct, c.verdict FROM {s}.ranread_compare_sweeps($1, $2) c "
		"WHERE c.measure OPERATOR(pg_catalog.<>) 'verdict'",
		.batch_rows = true,
		.charts = compare_charts,
	},
};

/* The page, section by section, in the order the issue of the report gives. */
static void
write_page(Report *report, const ReportKind *kind)
{
	StringInfo	out = &report->html;
	char	   *title = strcmp(kind->noun, "comparison") == 0 ?
		psprintf("sweeps " INT64_FORMAT " and " INT64_FORMAT " compared", report->number, report->other) :
		psprintf("%s " INT64_FORMAT, kind->noun, report->number);

	appendStringInfo(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
					 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
					 "style-src 'unsafe-inline'; img-src data:\">\n"
					 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
					 "<title>ranread report: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n"
					 "<header><h1>ranread report: %s</h1>\n", title, REPORT_STYLE, title);
	run_query(report, "SELECT pg_catalog.format('Made by ranread_report_html() at %s, in database %s, for role %s.', "
			  "pg_catalog.to_char(pg_catalog.now(), 'YYYY-MM-DD HH24:MI:SS TZ'), pg_catalog.current_database(), "
			  "CURRENT_USER) AS sentence", 1);
	appendStringInfoString(out, "<p class=\"note\">");
	append_bounded(out, ranread_spi_text_named(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, "sentence", ""));
	appendStringInfoString(out, "</p></header>\n<section id=\"verdict\">\n<h2>Verdict</h2>\n");
	if (append_paragraphs(report, kind->verdict, "p") == 0)
		appendStringInfoString(out, "<p>No verdict: nothing was recorded.</p>\n");
	appendStringInfoString(out, "</section>\n<section id=\"charts\">\n<h2>Charts</h2>\n");
	kind->charts(report);
	if (report->charts == 0 && kind->charts != fleet_charts)
		appendStringInfoString(out, "<p class=\"note\">No chart: none of its batches recorded reads to draw.</p>\n");
	appendStringInfoString(out, "</section>\n<section id=\"steps\">\n<h2>Steps</h2>\n");
	append_table(report, kind->steps_caption, kind->steps);
	if (kind->batch_rows)
		append_table(report, "Batches", BATCH_ROWS);
	appendStringInfoString(out, "</section>\n<section id=\"proofs\">\n<h2>Proofs</h2>\n");
	append_table(report, kind->proofs ? "Each run and its servers" : "Each batch: who answered its reads",
				 kind->proofs ? kind->proofs : batch_proofs);
	appendStringInfoString(out, "<h3>Warnings</h3>\n<ul id=\"warnings\">\n");
	if (append_paragraphs(report, kind->subject ? batch_warnings :
						  "SELECT pg_catalog.format('Fleet run %s, server %s: %s%s.', s.fleet, s.server, s.status, ': ' || s.error) "
						  "AS sentence FROM {s}.ranread_fleet_servers s JOIN {s}.ranread_fleet_runs f USING (fleet) "
						  "WHERE (f.fleet OPERATOR(pg_catalog.=) $1 OR f.fleet_sweep OPERATOR(pg_catalog.=) $1) "
						  "AND s.status OPERATOR(pg_catalog.<>) 'completed' ORDER BY s.fleet, s.server", "li") == 0)
		appendStringInfoString(out, "<li>None: its runs raised no WARNING, and its recorded figures show nothing to warn of.</li>\n");
	appendStringInfoString(out, "</ul>\n</section>\n<section id=\"settings\">\n<h2>Settings</h2>\n");
	append_table(report, "What shaped it", kind->settings ? kind->settings : batch_settings);
	appendStringInfoString(out, "</section>\n</body>\n</html>\n");
}

/*
 * ranread_report_html(sweep bigint DEFAULT NULL, batch bigint DEFAULT NULL,
 * fleet bigint DEFAULT NULL, fleet_sweep bigint DEFAULT NULL,
 * write_sweep bigint DEFAULT NULL, compare_to bigint DEFAULT NULL): the
 * report of the one subject given (none: the latest sweep; compare_to with
 * a sweep: the two compared), as one HTML document.
 */
Datum
ranread_report_html(PG_FUNCTION_ARGS)
{
	Report		report = {{0}};
	const ReportKind *kind = NULL;
	int			given = 0;

	ranread_check_sql_version();
	for (int i = 0; i < lengthof(kinds) - 1; i++)
		if (!PG_ARGISNULL(i))
		{
			given++;
			kind = &kinds[i];
			report.number = PG_GETARG_INT64(i);
		}
	if (given > 1 || (!PG_ARGISNULL(5) && kind != NULL && kind != &kinds[0]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a report has one subject"),
				 errhint("Give one of sweep, batch, fleet, fleet_sweep or write_sweep; compare_to goes with a sweep.")));
	report.schema = quote_identifier(ranread_extension_schema());
	initStringInfo(&report.html);

	SPI_connect();
	if (kind == NULL)
	{
		int64		latest;

		if (numbers_of(&report, "SELECT pg_catalog.max(sweep) AS n FROM {s}.ranread_sweep_runs HAVING pg_catalog.count(*) > 0",
					   &latest, 1) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("no sweep to report"),
					 errhint("Run CALL ranread_sweep(), or name a batch, a fleet run, a fleet sweep or a write sweep.")));
		kind = &kinds[0];
		report.number = latest;
	}
	if (!PG_ARGISNULL(5))
	{
		kind = &kinds[lengthof(kinds) - 1];
		report.other = PG_GETARG_INT64(5);
	}
	if (run_query(&report, kind->exists, 1) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 kind == &kinds[lengthof(kinds) - 1] ?
				 errmsg("sweep " INT64_FORMAT " or sweep " INT64_FORMAT " does not exist", report.number, report.other) :
				 errmsg("%s " INT64_FORMAT " does not exist", kind->noun, report.number),
				 errhint("The views ranread_sweeps, ranread_summary and ranread_fleet_summary and the table "
						 "ranread_write_sweeps list what was recorded.")));
	report.subject = kind->subject;
	write_page(&report, kind);
	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(report.html.data, report.html.len));
}
