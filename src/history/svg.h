/*-------------------------------------------------------------------------
 *
 * svg.h
 *		The drawing primitives of ranread's charts: escaped text, the
 *		document's start, value axes and the x axis, and the legend, each
 *		appended to a StringInfo as SVG (svg.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_SVG_H
#define RANREAD_SVG_H

#include "lib/stringinfo.h"

/* Layout, in pixels, that the charts share with the primitives. */
#define RANREAD_SVG_FONT_SIZE		12
#define RANREAD_SVG_AXIS_MARGIN		64	/* room for an axis's tick labels and title */
#define RANREAD_SVG_BOTTOM_MARGIN	48	/* room for the x axis's labels and title */

#define RANREAD_SVG_COLOUR_GRID		"#e4e4e4"

/* The plot area, in pixels. */
typedef struct Box
{
	double		left;
	double		top;
	double		right;
	double		bottom;
} Box;

/* A value axis: linear from min, ticked every step, or log10 (min > 0). */
typedef struct Axis
{
	double		min;
	double		max;
	double		step;
	bool		log;
} Axis;

/* How a legend item shows what it names. */
typedef enum Swatch
{
	SWATCH_BAR,
	SWATCH_HATCHED,				/* filled with the pattern the chart defines as "hatch" */
	SWATCH_LINE,
	SWATCH_DASHED
} Swatch;

/* The legend: its items from left to right, in rows as wide as the chart. */
typedef struct Legend
{
	StringInfoData svg;
	int			width;
	double		x;
	double		y;				/* the current row's middle */
} Legend;

extern bool ranread_svg_drawable(double value);
extern void ranread_svg_append_escaped(StringInfo out, const char *text);
extern char *ranread_svg_number_in_scale(double value, double largest);
extern char *ranread_svg_short_number(double value);
extern double ranread_svg_text_width(const char *text, double size);
extern void ranread_svg_text(StringInfo out, double x, double y, const char *attributes, const char *text);
extern double ranread_svg_begin(StringInfo out, int width, int height, const char *title,
								const char *subtitle);

extern Axis ranread_svg_linear_axis(double max, double length);
extern Axis ranread_svg_log_axis(double min, double max);
extern double ranread_svg_axis_pixel(const Axis *axis, double value, double from, double to);
extern void ranread_svg_draw_value_axis(StringInfo out, const Axis *axis, const Box *box, bool right,
										const char *title);
extern void ranread_svg_draw_x_ticks(StringInfo out, const Axis *axis, const Box *box);
extern void ranread_svg_draw_x_axis(StringInfo out, const Box *box, int height, const char *title);

extern void ranread_svg_legend_init(Legend *legend, int width, double top);
extern void ranread_svg_legend_add(Legend *legend, Swatch swatch, const char *colour, const char *label);
extern double ranread_svg_legend_end(StringInfo out, Legend *legend);

#endif							/* RANREAD_SVG_H */
