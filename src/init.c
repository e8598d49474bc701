/*-------------------------------------------------------------------------
 *
 * init.c
 *		_PG_init: what ranread sets up in every process that loads its
 *		library.
 *
 * The library is not preloaded: a backend loads it at its first call of a
 * ranread function (CREATE EXTENSION's CREATE FUNCTION statements load it
 * too, to check the symbols), and each background worker loads it to run
 * ranread_worker_main.  A value SET before that is a placeholder, which
 * defining the GUC takes over (and checks) here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "readpath/run_memory.h"
#include "run/worker.h"

extern PGDLLEXPORT void _PG_init(void);

void
_PG_init(void)
{
	ranread_define_run_memory_guc();
	MarkGUCPrefixReserved("ranread");
}
