-- numbers.sql: rounding for the views, and the latency histograms'
-- arithmetic (src/history/histogram_sql.c): ranread_histogram_merge() adds
-- batches' histograms, ranread_histogram_percentile() reads one.

CREATE OR REPLACE FUNCTION ranread_round_ms(ms float8, decimals int DEFAULT 3)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.round(ms::numeric,
						CASE WHEN ms OPERATOR(pg_catalog.>) 0::float8 AND ms OPERATOR(pg_catalog.<) 1::float8
							 THEN GREATEST(decimals, LEAST(6, 2 OPERATOR(pg_catalog.-)
														   pg_catalog.floor(pg_catalog.log(ms::numeric))::int))
							 ELSE decimals END);
COMMENT ON FUNCTION ranread_round_ms(double precision,integer) IS 'a latency rounded as the views show it (any role)
ms: a latency, in ms
decimals: decimals at least (more below 1 ms: three significant digits)';

-- Latency histograms as stored (bigint[]): merge them, read a percentile.
-- Pure computations on the arrays given, so left executable by PUBLIC.
CREATE OR REPLACE FUNCTION ranread_histogram_add(bigint[], bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ranread_histogram_add'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ranread_histogram_add(bigint[],bigint[]) IS 'two histograms, bucket by bucket (any role)';

-- The histogram itself, or an error saying why it is not one.
CREATE OR REPLACE FUNCTION ranread_histogram_check(bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ranread_histogram_check'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ranread_histogram_check(bigint[]) IS 'the histogram, or an error saying why it is not one (any role)';

-- The final function checks a single row, which the aggregate takes as its state unchecked.
CREATE OR REPLACE AGGREGATE ranread_histogram_merge(bigint[]) (
	SFUNC = ranread_histogram_add,
	STYPE = bigint[],
	FINALFUNC = ranread_histogram_check,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE ranread_histogram_merge(bigint[]) IS 'the aggregate of ranread_histogram_add (any role)';

CREATE OR REPLACE FUNCTION ranread_histogram_percentile(histogram bigint[], fraction float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'ranread_histogram_percentile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ranread_histogram_percentile(bigint[],double precision) IS 'a percentile of a histogram, in ms (any role)
histogram: a latency histogram (a batch''s histogram column)
fraction: the percentile as a fraction: 0.99 for p99';
