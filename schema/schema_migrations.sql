-- schema_migrations: one row per applied file of migrations/ (version, name, sha256 of its text).
-- Created before the first migration runs; pyeval refuses a warehouse whose recorded checksums
-- differ from its migrations/ (a tampered migration) or that records a version it does not know.
create table if not exists schema_migrations (
    version integer primary key,
    name varchar not null,
    checksum varchar not null,
    applied_at timestamp not null default current_timestamp
);
