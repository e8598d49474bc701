/*-------------------------------------------------------------------------
 *
 * db_activity.h
 *		What the database did during a batch with writers: WAL, checkpoints,
 *		buffers written (db_activity.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_DB_ACTIVITY_H
#define RANREAD_DB_ACTIVITY_H

#include "ranread.h"
#include "record/row_builder.h"

extern void ranread_db_activity_take(RanreadDbActivity *activity, Oid write_target);
extern void ranread_db_activity_end(RanreadShared *shared);
extern void ranread_db_activity_columns(const RanreadShared *shared, RanreadRow *row);
extern void ranread_db_activity_log(const RanreadShared *shared);

#endif							/* RANREAD_DB_ACTIVITY_H */
