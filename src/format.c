/*-------------------------------------------------------------------------
 *
 * format.c
 *		Numbers, and sentences, as ranread's NOTICEs, verdicts and charts show
 *		them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"

#include "format.h"

/*
 * A latency in ms as the NOTICEs show it: two decimals, or as many as keep
 * three significant digits below 1 ms (0.0599, 0.500, 1.50, 12.35), so that
 * flash does not print as 0.00; "unknown" for a figure that is not finite.
 */
char *
ranread_format_ms(double ms)
{
	int			decimals = 2;

	if (!isfinite(ms))
		return pstrdup("unknown");
	if (fabs(ms) >= 1e9)
		return psprintf("%.3g", ms);	/* no storage takes that long: forged history, kept short */

	if (ms > 0 && ms < 1)
		decimals = Min(6, 2 - (int) floor(log10(ms)));
	return psprintf("%.*f", decimals, ms);
}

/*
 * A rate as the NOTICEs show it: whole reads per second, thousands grouped
 * (16,000); "unknown" for a figure that is not finite (forged history).
 */
char *
ranread_format_rate(double rate)
{
	char		digits[32];
	StringInfoData out;
	int			n;

	if (!isfinite(rate))
		return pstrdup("unknown");
	if (fabs(rate) >= 1e15)
		return psprintf("%.3g", rate);	/* beyond any device: forged history, kept short */
	snprintf(digits, sizeof(digits), "%.0f", rate);
	n = strlen(digits);
	initStringInfo(&out);
	for (int i = 0; i < n; i++)
	{
		if (i > 0 && (n - i) % 3 == 0)
			appendStringInfoChar(&out, ',');
		appendStringInfoChar(&out, digits[i]);
	}
	return out.data;
}

/* A figure rounded to `decimals` decimals, as a result row shows it. */
double
ranread_round(double value, int decimals)
{
	double		scale = pow(10, decimals);

	return rint(value * scale) / scale;
}

/*
 * text with each sentence on a line of its own, and lines longer than width
 * broken at spaces: the verdict's paragraph breaks, so that it reads in a
 * terminal (the sweep's verdict NOTICE, ranread_compare()'s verdict rows).
 */
char *
ranread_sentence_lines(const char *text, int width)
{
	StringInfoData out;
	int			line_start = 0;
	int			last_space = -1;

	initStringInfo(&out);
	for (const char *c = text; *c != '\0'; c++)
	{
		if (*c == ' ' && out.len > 0 && out.data[out.len - 1] == '.')
		{
			appendStringInfoChar(&out, '\n');
			line_start = out.len;
			last_space = -1;
			continue;
		}
		if (*c != ' ' && out.len - line_start >= width && last_space > line_start)
		{
			out.data[last_space] = '\n';
			line_start = last_space + 1;
			last_space = -1;
		}
		if (*c == ' ')
			last_space = out.len;
		appendStringInfoChar(&out, *c);
	}
	return out.data;
}
