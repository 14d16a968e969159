-- 0018_internal_schema: what is not public API leaves schema main (issue 31; docs/bi.md), so that
-- every client of a warehouse lists only the public tables and views (docs/schema.md). Schema
-- pyeval_internal holds the bookkeeping tables (schema_migrations, derived_objects) and the
-- metric engine's views (sql/views/ but the public ones); pyeval's connections search it after
-- main (pyeval/storage/public.py), so pyeval's SQL names them as before. DuckDB cannot move a
-- table between schemas: each is copied, rows and all, and dropped from main. The engine views
-- are dropped from main here and made in pyeval_internal by the open that applies this
-- migration (it remakes every view after migrating). The marker comment on schema_migrations
-- (pyeval/storage/ownership.py) is put back by that open, which reads it first.
-- Forward-only: never edit this file once merged.

create schema if not exists pyeval_internal;

create table pyeval_internal.schema_migrations (
    version integer primary key,
    name varchar not null,
    checksum varchar not null,
    applied_at timestamp not null default current_timestamp
);
insert into pyeval_internal.schema_migrations select version, name, checksum, applied_at from main.schema_migrations;
drop table main.schema_migrations;

create table pyeval_internal.derived_objects (
    object_name varchar primary key,
    object_kind varchar not null,
    sha256 varchar not null,
    made_at timestamp not null default current_timestamp
);
insert into pyeval_internal.derived_objects select object_name, object_kind, sha256, made_at from main.derived_objects;
drop table main.derived_objects;

drop view if exists main.global_ideal_gains;
drop view if exists main.intent_ideal_gains;
drop view if exists main.global_gains;
drop view if exists main.din_rank_gains;
drop view if exists main.intent_gains;
drop view if exists main.gain_values;
drop view if exists main.intent_gain_values;
drop view if exists main.gain_maxima;
drop view if exists main.rank_gains;
drop view if exists main.profile_gains;
drop view if exists main.topic_levels;
drop view if exists main.ranked_entries;
drop view if exists main.intent_weights;
drop view if exists main.intent_levels;
drop view if exists main.ideal_gains;
