/*-------------------------------------------------------------------------
 *
 * format.h
 *		Numbers and sentences as ranread's messages show them (format.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_FORMAT_H
#define RANREAD_FORMAT_H

extern char *ranread_format_ms(double ms);
extern char *ranread_format_rate(double rate);
extern double ranread_round(double value, int decimals);
extern char *ranread_sentence_lines(const char *text, int width);

/* Result rows give latencies in ms to 0.1 us. */
#define RESULT_MS_DECIMALS	4

#endif							/* RANREAD_FORMAT_H */
