/*-------------------------------------------------------------------------
 *
 * writer.h
 *		A ranread background writer (writer.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_WRITER_H
#define RANREAD_WRITER_H

#include "fmgr.h"

extern PGDLLEXPORT void ranread_writer_main(Datum main_arg);

#endif							/* RANREAD_WRITER_H */
