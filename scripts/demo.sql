-- demo.sql: RanRead's methodology in one call, on a small target (see demo.sh).
CREATE EXTENSION ranread;
SELECT ranread_setup('4 GB');
-- 10, 20, 40 ... processes of 10,000 reads each, one committed batch per step,
-- until the mean passes 10 ms, IOPS stops scaling, or the worker slots run out
CALL ranread_sweep();
\echo ranread_verdict(): the verdict, a sentence a line
SELECT * FROM ranread_verdict();
\echo ranread_report: one row per step
SELECT * FROM ranread_report WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs) ORDER BY batch;
\echo ranread_layers(): what each layer of the read path adds, the same units through each
SELECT * FROM ranread_layers(4, 20000);
\echo ranread_calibrate(): random_page_cost and effective_io_concurrency measured, nothing applied
\x on
SELECT * FROM ranread_calibrate();
\x off
