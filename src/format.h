/*-------------------------------------------------------------------------
 *
 * format.h
 *		Numbers as ranread's messages show them (format.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_FORMAT_H
#define RANREAD_FORMAT_H

extern char *ranread_format_ms(double ms);
extern char *ranread_format_rate(double rate);

#endif							/* RANREAD_FORMAT_H */
