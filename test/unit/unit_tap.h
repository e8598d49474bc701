/*
 * unit_tap.h: the TAP output of the C unit tests in this directory (one
 * "ok N - what" line per check; main returns failures > 0).  Each test
 * includes it once, after postgres.h and stdio.h.
 */
#ifndef RANREAD_UNIT_TAP_H
#define RANREAD_UNIT_TAP_H

static int	test_number = 0;
static int	failures = 0;

static void
ok(bool pass, const char *what)
{
	printf("%sok %d - %s\n", pass ? "" : "not ", ++test_number, what);
	if (!pass)
		failures++;
}

#endif							/* RANREAD_UNIT_TAP_H */
