"""Storage: the warehouse file (warehouse.py: connect, migrations, views), what pyeval owns and
may overwrite (ownership.py), the descriptions of stored tables and views (descriptions.py)
and the stored current values behind the views scores and run_means (archive.py)."""
