/*-------------------------------------------------------------------------
 *
 * extension.h
 *		The ranread extension itself: its OID, its schema, and whether its
 *		SQL objects are the version this library was built for.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_EXTENSION_H
#define RANREAD_EXTENSION_H

extern Oid	ranread_extension_oid(void);
extern Oid	ranread_extension_owner(void);
extern const char *ranread_extension_schema(void);
extern const char *ranread_extension_schema_of(Oid ext_oid);
extern void ranread_check_sql_version(void);

#endif							/* RANREAD_EXTENSION_H */
