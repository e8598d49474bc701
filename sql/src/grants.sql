-- grants.sql: every routine that reads, writes or runs anything is the
-- superuser's until granted; docs/reference.md, "Privileges", lists the
-- GRANTs for a benchmark role.  Each names its routine with its argument
-- types, so that a look-alike of the same name cannot make it ambiguous.

REVOKE ALL ON FUNCTION ranread_setup(text, name, name, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_stop() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_reset() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_export(text, text, bigint, boolean, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_drop(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_help() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_running() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_setup_running() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_sweep_verdict(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_limit(bigint) FROM PUBLIC;
REVOKE ALL ON PROCEDURE ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int, int, int, int, interval, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_chart(bigint, int, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_chart_latency(bigint[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_chart_intervals(bigint, int, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_compare(bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_compare_sweeps(bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_verdict(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_report_html(bigint, bigint, bigint, bigint, bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_fleet_run(name[], int, bigint, text, name, interval, float8, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_chart_fleet(bigint, int, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_fleet_connect(text, name) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_fleet_check(int, bigint, name, text, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_fleet_wait(bigint, text[], name[], name[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_fleet_open(name[], int, bigint, text, name, interval, float8, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_fleet_gather(bigint, name, text, name, timestamptz, float8) FROM PUBLIC;
REVOKE ALL ON PROCEDURE ranread_fleet_sweep(name[], int, int, bigint, interval, text, name, float8, float8, float8, float8, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_calibrate(name, bigint, int, int, float8, float8, interval, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_setup_writes(text, name, name) FROM PUBLIC;
REVOKE ALL ON PROCEDURE ranread_write_sweep(int, float8, float8, float8, interval, int, float8, float8, float8, float8, text, name, name) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_write_sweep_check(int, float8, float8, float8, interval, int, float8, float8, float8, float8, text, name, name) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_write_sweep_pool(bigint[], int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_export_files(text, bigint, boolean, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_history_insert(text, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_history_update(text, jsonb, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz, int, float8, name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_layers(int, bigint, name, interval, int, float8) FROM PUBLIC;
