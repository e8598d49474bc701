/*-------------------------------------------------------------------------
 *
 * registry.h
 *		The run lock, the registry of running batches and of programs of
 *		batches (sweeps, layers runs, calibrations), and the workers and
 *		slots of the cluster (registry.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef RANREAD_REGISTRY_H
#define RANREAD_REGISTRY_H

#include "nodes/pg_list.h"
#include "storage/dsm.h"

/* A fleet run's coordinator waiting for its servers (ranread_waiting_fleets()). */
typedef struct RanreadFleetWait
{
	int64		fleet;
	int			coordinator_pid;
	Oid			database;
} RanreadFleetWait;

extern void ranread_lock_out_other_runs(void);
extern int64 ranread_start_batch(dsm_handle segment);
extern void ranread_release_run_locks(int64 batch, dsm_handle segment);
extern void ranread_release_run_lock(void);
extern int64 ranread_running_batch(bool any_database, int *leader_pid, dsm_handle *segment,
								  Oid *database);
extern List *ranread_worker_pids(void);
extern int	ranread_free_worker_slots(void);
extern int	ranread_wait_for_worker_slots(int needed);
extern void ranread_advertise_program(uint16 kind, int64 number, bool advertise);
extern int64 ranread_running_sweep(int64 sweep, bool any_database, int *leader_pid,
								  Oid *database);
extern int64 ranread_running_program(int *leader_pid, Oid *database, const char **name);
extern void ranread_advertise_fleet(int64 fleet, bool advertise);
extern List *ranread_waiting_fleets(void);
extern bool ranread_fleet_waits(int64 fleet, Oid database);
extern void ranread_request_fleet_stop(int64 fleet, Oid database);
extern bool ranread_fleet_stop_requested_in(int64 fleet, Oid database);
extern bool ranread_fleet_stop_requested(int64 fleet);

#endif							/* RANREAD_REGISTRY_H */
