/* pg_topics--0.1--0.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_topics UPDATE TO '0.2'" to load this file. \quit

-- 0.2 changes no SQL object: it is the C library's release that builds and
-- runs on PostgreSQL 15, 17 and 18, and its packaging.  The library keeps
-- every C function 0.1's SQL names, so a database still at 0.1 works with
-- it until this update runs.  SQL changes of 0.2, if any, go here: once 0.2
-- is released, this file is frozen like pg_topics--0.1.sql
-- (sql-released.sha256, `make check-release-sql`).
