/* ranread--1.4.sql: the SQL surface of ranread 1.4, made by the Makefile from sql/src (edit those) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION ranread" to load this file. \quit

