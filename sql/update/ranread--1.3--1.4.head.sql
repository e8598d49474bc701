/* ranread--1.3--1.4.sql: update ranread 1.3 to 1.4, made by the Makefile from sql/update and sql/src (edit those) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.4'" to load this file. \quit

