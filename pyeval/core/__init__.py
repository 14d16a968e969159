"""The engine core: one evaluation request (request.py), its plan from the SQL headers
(plan.py, sqlfiles.py), the DuckDB executor of a plan (stages.py), the orchestrator every
engine goes through (evaluation.py), gain profiles (gains.py) and connection helpers (db.py).
docs/architecture.md describes the flow."""
