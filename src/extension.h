/*-------------------------------------------------------------------------
 *
 * extension.h
 *		The ranread extension itself: its OID and the schema it lives in.
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_EXTENSION_H
#define RANREAD_EXTENSION_H

extern Oid	ranread_extension_oid(void);
extern const char *ranread_extension_schema(void);

#endif							/* RANREAD_EXTENSION_H */
