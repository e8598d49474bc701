/*-------------------------------------------------------------------------
 *
 * extension.h
 *		The ranread extension itself: its OID, its schema, and whether its
 *		SQL objects are the version this library was built for, and whether
 *		the row a caller declared has the columns a function fills.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_EXTENSION_H
#define RANREAD_EXTENSION_H

#include "access/tupdesc.h"
#include "fmgr.h"

extern Oid	ranread_extension_oid(void);
extern Oid	ranread_extension_owner(void);
extern const char *ranread_extension_schema(void);
extern const char *ranread_extension_schema_of(Oid ext_oid);
extern void ranread_check_sql_version(void);
extern void ranread_check_result_columns(TupleDesc desc, int filled);
extern TupleDesc ranread_result_row_desc(FunctionCallInfo fcinfo, int filled);

#endif							/* RANREAD_EXTENSION_H */
