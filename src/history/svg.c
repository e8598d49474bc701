/*-------------------------------------------------------------------------
 *
 * svg.c
 *		The drawing primitives of ranread's charts (chart.c,
 *		chart_intervals.c): escaping text for XML, the document's start, its
 *		wrapped title and subtitle, linear and log value axes with round
 *		ticks labelled in one style, the x axis's line, ticks and title, and
 *		a legend that wraps its items into rows.  They know nothing of
 *		batches or sweeps.
 *
 * Everything is appended to a StringInfo as self-contained SVG: no fonts,
 * images or scripts.  Text is written as ASCII, other characters as
 * character references, so that the document is valid XML whatever the
 * server's encoding.  Text widths are estimates for the layout, from a
 * sans-serif font's widest characters.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"

#include "history/svg.h"

/* Log axes with more decades than this are ticked at powers of 10 only. */
#define MAX_DECADES_FOR_1_2_5	3

/* Layout, in pixels. */
#define TITLE_SIZE			16
#define MIN_TITLE_SIZE		10
#define LINE_SPACING		1.25	/* of the font size */
#define CHAR_WIDTH_EM		0.6 /* a sans-serif character is at most this wide */
#define BOLD_CHAR_WIDTH_EM	0.65
#define MARGIN				16
#define LEGEND_ROW			18
#define SWATCH_WIDTH		22
#define TICK_SPACING		50	/* about one value tick per this many pixels */

#define COLOUR_TEXT			"#222222"
#define COLOUR_AXIS			"#444444"

/* The round values of a decade: axes begin, end and are ticked at them. */
static const double round_values[] = {1, 2, 5};

/* A value a chart can draw: a number, finite and not negative. */
bool
ranread_svg_drawable(double value)
{
	return isfinite(value) && value >= 0;
}

/*
 * Append `text` escaped for XML, in ASCII: markup characters as entities,
 * other non-ASCII characters as character references, and those XML 1.0
 * does not allow (control characters, invalid UTF-8) as '?'.
 */
void
ranread_svg_append_escaped(StringInfo out, const char *text)
{
	const unsigned char *s;

	/* SQL_ASCII converts nothing, and its bytes need not be UTF-8: they are checked below */
	if (GetDatabaseEncoding() == PG_SQL_ASCII)
		s = (const unsigned char *) text;
	else
		s = (const unsigned char *) pg_server_to_any(text, strlen(text), PG_UTF8);

	while (*s)
	{
		int			length = pg_utf_mblen(s);
		pg_wchar	c;

		if (strnlen((const char *) s, length) < length || !pg_utf8_islegal(s, length))
		{
			appendStringInfoChar(out, '?');
			s++;
			continue;
		}
		c = utf8_to_unicode(s);
		s += length;
		if (c == '&')
			appendStringInfoString(out, "&amp;");
		else if (c == '<')
			appendStringInfoString(out, "&lt;");
		else if (c == '>')
			appendStringInfoString(out, "&gt;");
		else if (c == '"')
			appendStringInfoString(out, "&quot;");
		else if (c == '\'')
			appendStringInfoString(out, "&apos;");
		else if (c >= 0x20 && c < 0x7f)
			appendStringInfoChar(out, (char) c);
		else if (c == '\t' || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
				 (c >= 0x10000 && c <= 0x10ffff))
			appendStringInfo(out, "&#x%x;", (unsigned int) c);
		else
			appendStringInfoChar(out, '?');
	}
}

/* How wide `text` may be at font size `size`, for the layout. */
double
ranread_svg_text_width(const char *text, double size)
{
	return pg_mbstrlen(text) * size * CHAR_WIDTH_EM;
}

/* A number as short as it reads: 0.05, 2500, 20k, 1.5M. */
static char *
ranread_svg_compact_number(double value)
{
	if (fabs(value) >= 1e6)
		return psprintf("%gM", value / 1e6);
	if (fabs(value) >= 1e4)
		return psprintf("%gk", value / 1e3);
	return psprintf("%g", value);
}

/*
 * `value` in the unit that suits `largest`, the largest number shown beside
 * it, so that a scale of numbers reads in one style: 0, 5k, 10k ... 30k
 * (largest from 10,000), 0, 0.5M, 1M ... (from 1,000,000), else as is.
 */
char *
ranread_svg_number_in_scale(double value, double largest)
{
	if (value == 0)
		return pstrdup("0");
	if (fabs(largest) >= 1e6)
		return psprintf("%gM", value / 1e6);
	if (fabs(largest) >= 1e4)
		return psprintf("%gk", value / 1e3);
	return psprintf("%g", value);
}

/* A measured value in three significant digits: 0.4, 950, 15.9k, 280k, 1.23M. */
char *
ranread_svg_short_number(double value)
{
	if (fabs(value) >= 999.5e3)
		return psprintf("%.3gM", value / 1e6);
	if (fabs(value) >= 999.5)
		return psprintf("%.3gk", value / 1e3);
	return psprintf("%.3g", value);
}

/* <text> at (x, y) with `attributes` (markup of our own), holding `text` escaped. */
void
ranread_svg_text(StringInfo out, double x, double y, const char *attributes, const char *text)
{
	appendStringInfo(out, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attributes);
	ranread_svg_append_escaped(out, text);
	appendStringInfoString(out, "</text>\n");
}

/*
 * The title across the top, smaller on a narrow chart and wrapped at spaces
 * if it still does not fit; returns the y below it.
 */
static double
svg_title(StringInfo out, int width, const char *title)
{
	double		room = width - 2 * MARGIN;
	double		size = Min(TITLE_SIZE, Max(MIN_TITLE_SIZE, room / (pg_mbstrlen(title) * BOLD_CHAR_WIDTH_EM)));
	int			per_line = Max(1, (int) (room / (size * BOLD_CHAR_WIDTH_EM)));
	char	   *attributes = psprintf("class=\"title\" text-anchor=\"middle\" font-size=\"%.1f\" font-weight=\"bold\"",
										  size);
	char	   *rest = pstrdup(title);
	char	   *word;
	double		y = MARGIN + size;
	StringInfoData line;

	initStringInfo(&line);
	while ((word = strsep(&rest, " ")) != NULL)
	{
		if (line.len > 0 && pg_mbstrlen(line.data) + 1 + pg_mbstrlen(word) > per_line)
		{
			ranread_svg_text(out, width / 2.0, y, attributes, line.data);
			resetStringInfo(&line);
			y += size * LINE_SPACING;
		}
		else if (line.len > 0)
			appendStringInfoChar(&line, ' ');
		appendStringInfoString(&line, word);
	}
	ranread_svg_text(out, width / 2.0, y, attributes, line.data);
	return y + size / 2;
}

/*
 * The document's start: the root, its title for tools (the title and the
 * subtitle), a white background, the title drawn and, unless NULL, the
 * subtitle on a line of its own under it; returns the y below them.  A
 * short title and a subtitle fit on one line each where a long title would
 * wrap: a browser's sans-serif may be wider than the layout's estimate.
 */
double
ranread_svg_begin(StringInfo out, int width, int height, const char *title, const char *subtitle)
{
	double		y;

	appendStringInfo(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
					 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
					 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"%d\" fill=\"%s\">\n<title>",
					 width, height, width, height, RANREAD_SVG_FONT_SIZE, COLOUR_TEXT);
	ranread_svg_append_escaped(out, title);
	if (subtitle)
	{
		appendStringInfoString(out, ", ");
		ranread_svg_append_escaped(out, subtitle);
	}
	appendStringInfo(out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
					 width, height);
	y = svg_title(out, width, title);
	if (subtitle)
	{
		y += RANREAD_SVG_FONT_SIZE;
		ranread_svg_text(out, width / 2.0, y, "class=\"subtitle\" text-anchor=\"middle\"", subtitle);
		y += RANREAD_SVG_FONT_SIZE / 2.0;
	}
	return y;
}

/* The 1, 2 or 5 times a power of ten that cuts `span` into about `ticks` steps. */
static double
nice_step(double span, int ticks)
{
	double		raw = span / Max(ticks, 1);
	double		magnitude = pow(10, floor(log10(raw)));
	double		fraction = raw / magnitude;

	if (fraction <= 1)
		return magnitude;
	if (fraction <= 2)
		return 2 * magnitude;
	if (fraction <= 5)
		return 5 * magnitude;
	return 10 * magnitude;
}

/* A linear axis from 0 to a round value at least `max`, for `length` pixels. */
Axis
ranread_svg_linear_axis(double max, double length)
{
	Axis		axis = {0};

	if (!(max > 0))
		max = 1;
	axis.step = nice_step(max, (int) (length / TICK_SPACING));
	axis.max = ceil(max / axis.step - 1e-9) * axis.step;
	return axis;
}

/* The highest round value (1, 2 or 5 times a power of ten) at or below `value`. */
static double
round_below(double value)
{
	double		decade = pow(10, floor(log10(value)));
	double		below = decade;

	for (int i = 0; i < lengthof(round_values); i++)
	{
		if (decade * round_values[i] <= value * (1 + 1e-9))
			below = decade * round_values[i];
	}
	return below;
}

/* The lowest round value at or above `value`. */
static double
round_above(double value)
{
	double		decade = pow(10, floor(log10(value)));

	for (int i = 0; i < lengthof(round_values); i++)
	{
		if (decade * round_values[i] >= value * (1 - 1e-9))
			return decade * round_values[i];
	}
	return decade * 10;
}

/* A log axis from the round value at or below `min` to the one at or above `max`. */
Axis
ranread_svg_log_axis(double min, double max)
{
	Axis		axis = {0};

	axis.log = true;
	axis.min = round_below(min);
	axis.max = round_above(max);
	if (axis.max <= axis.min)
		axis.max = round_above(axis.min * 1.5);
	return axis;
}

/* The ticks of `axis`, at most `room` of them, into `ticks`; returns how many. */
static int
axis_ticks(const Axis *axis, double *ticks, int room)
{
	int			n = 0;
	int			per_decade;

	if (!axis->log)
	{
		for (int i = 0; n < room && axis->min + i * axis->step <= axis->max * (1 + 1e-9); i++)
			ticks[n++] = axis->min + i * axis->step;
		return n;
	}
	per_decade = log10(axis->max / axis->min) > MAX_DECADES_FOR_1_2_5 ? 1 : lengthof(round_values);
	for (int power = (int) floor(log10(axis->min)); power <= (int) ceil(log10(axis->max)); power++)
	{
		for (int i = 0; i < per_decade && n < room; i++)
		{
			double		tick = pow(10, power) * round_values[i];

			if (tick >= axis->min * (1 - 1e-9) && tick <= axis->max * (1 + 1e-9))
				ticks[n++] = tick;
		}
	}
	return n;
}

/* A tick's label: on a linear axis, every tick in the unit of its largest. */
static char *
tick_label(const Axis *axis, double tick)
{
	if (axis->log)
		return ranread_svg_compact_number(tick);
	return ranread_svg_number_in_scale(tick, axis->max);
}

/*
 * Where `value` lies between the pixels `from` (axis->min) and `to`
 * (axis->max), kept within them: an axis of extreme values (a forged row's
 * denormal or 1e308) gives no NaN or infinite coordinate, which viewers
 * reject.
 */
double
ranread_svg_axis_pixel(const Axis *axis, double value, double from, double to)
{
	double		share;

	if (axis->log)
		share = log10(Max(value, axis->min) / axis->min) / log10(axis->max / axis->min);
	else
		share = (value - axis->min) / (axis->max - axis->min);
	if (!isfinite(share))
		share = 0;
	share = Max(0.0, Min(1.0, share));
	return from + share * (to - from);
}

/*
 * A vertical value axis on the left or right of `box`: its line, ticks and
 * labels, its title along it, and, on the left, the grid.
 */
void
ranread_svg_draw_value_axis(StringInfo out, const Axis *axis, const Box *box, bool right, const char *title)
{
	double		ticks[64];
	int			n = axis_ticks(axis, ticks, lengthof(ticks));
	double		x = right ? box->right : box->left;
	double		outward = right ? 1 : -1;
	double		title_x = x + outward * (RANREAD_SVG_AXIS_MARGIN - RANREAD_SVG_FONT_SIZE);
	double		middle = (box->top + box->bottom) / 2;

	for (int i = 0; i < n; i++)
	{
		double		y = ranread_svg_axis_pixel(axis, ticks[i], box->bottom, box->top);

		if (!right)
			appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
							 box->left, y, box->right, y, RANREAD_SVG_COLOUR_GRID);
		appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 x, y, x + outward * 4, y, COLOUR_AXIS);
		ranread_svg_text(out, x + outward * 6, y + RANREAD_SVG_FONT_SIZE / 3.0,
						 right ? "class=\"tick\" text-anchor=\"start\"" : "class=\"tick\" text-anchor=\"end\"",
						 tick_label(axis, ticks[i]));
	}
	appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
					 x, box->top, x, box->bottom, COLOUR_AXIS);
	ranread_svg_text(out, title_x, middle,
					 psprintf("text-anchor=\"middle\" transform=\"rotate(%d %.1f %.1f)\"", right ? 90 : -90,
							  title_x, middle),
					 title);
}

/* Ticks, labels and grid lines of a linear x axis along the bottom of `box`. */
void
ranread_svg_draw_x_ticks(StringInfo out, const Axis *axis, const Box *box)
{
	double		ticks[64];
	int			n = axis_ticks(axis, ticks, lengthof(ticks));

	for (int i = 0; i < n; i++)
	{
		double		x = ranread_svg_axis_pixel(axis, ticks[i], box->left, box->right);

		appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 x, box->top, x, box->bottom, RANREAD_SVG_COLOUR_GRID);
		appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 x, box->bottom, x, box->bottom + 4, COLOUR_AXIS);
		ranread_svg_text(out, x, box->bottom + RANREAD_SVG_FONT_SIZE + 4, "class=\"tick\" text-anchor=\"middle\"",
						 tick_label(axis, ticks[i]));
	}
}

/* The x axis's line along the bottom of `box`, and its title under it. */
void
ranread_svg_draw_x_axis(StringInfo out, const Box *box, int height, const char *title)
{
	appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
					 box->left, box->bottom, box->right, box->bottom, COLOUR_AXIS);
	ranread_svg_text(out, (box->left + box->right) / 2, height - MARGIN + 4, "text-anchor=\"middle\"", title);
}

/* An empty legend, its first row under `top`. */
void
ranread_svg_legend_init(Legend *legend, int width, double top)
{
	initStringInfo(&legend->svg);
	legend->width = width;
	legend->x = MARGIN;
	legend->y = top + LEGEND_ROW;
}

/* Add an item to the legend, on a new row if it does not fit on this one. */
void
ranread_svg_legend_add(Legend *legend, Swatch swatch, const char *colour, const char *label)
{
	double		width = SWATCH_WIDTH + 6 + ranread_svg_text_width(label, RANREAD_SVG_FONT_SIZE) + MARGIN;
	double		x;
	double		y;

	if (legend->x > MARGIN && legend->x + width > legend->width - MARGIN)
	{
		legend->x = MARGIN;
		legend->y += LEGEND_ROW;
	}
	x = legend->x;
	y = legend->y;
	if (swatch == SWATCH_BAR || swatch == SWATCH_HATCHED)
		appendStringInfo(&legend->svg, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"10\" fill=\"%s\"/>\n",
						 x, y - 5, SWATCH_WIDTH, swatch == SWATCH_HATCHED ? "url(#hatch)" : colour);
	else
		appendStringInfo(&legend->svg, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
						 "stroke-width=\"2\"%s/>\n", x, y, x + SWATCH_WIDTH, y, colour,
						 swatch == SWATCH_DASHED ? " stroke-dasharray=\"6 4\"" : "");
	ranread_svg_text(&legend->svg, x + SWATCH_WIDTH + 6, y + RANREAD_SVG_FONT_SIZE / 3.0, "text-anchor=\"start\"",
					 label);
	legend->x += width;
}

/* Put the legend in the chart; returns the y where the plot may begin. */
double
ranread_svg_legend_end(StringInfo out, Legend *legend)
{
	appendStringInfoString(out, "<g class=\"legend\">\n");
	appendBinaryStringInfo(out, legend->svg.data, legend->svg.len);
	appendStringInfoString(out, "</g>\n");
	return legend->y + LEGEND_ROW;
}
