-- derived_objects: One row per view or generated table: the sha256 of what it was last made from.
-- Internal bookkeeping: an open remakes what differs.
create table derived_objects (
    object_name varchar primary key,
    object_kind varchar not null,
    sha256 varchar not null,
    made_at timestamp not null default current_timestamp
);
