/*-------------------------------------------------------------------------
 *
 * extension.c
 *		The ranread extension itself: its OID and the schema it lives in.
 *
 * Nothing is cached across calls: the extension may be dropped and created
 * again in another schema within one session.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "extension.h"

Oid
ranread_extension_oid(void)
{
	return get_extension_oid("ranread", false);
}

/* The schema ranread was created in. */
const char *
ranread_extension_schema(void)
{
	Oid			ext_oid = ranread_extension_oid();
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(ext_oid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		nsp = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	return get_namespace_name(nsp);
}
