"""Drop-in replacements for the reference tools, computing through the SQL layer.

Each one loads its inputs into a throw-away in-memory warehouse that holds only the relations
it reads (:func:`pyeval.warehouse.scratch`), declared next to the command from the parts below.
"""

#: Stored tables that loading qrels and a run (pyeval/loaders/) writes or checks: the campaign,
#: its input provenance and topics, the judgments, the intents judgments are checked against,
#: the run and its entries.
LOADED_TABLES = ("campaigns", "campaign_inputs", "qrels", "intents", "topics", "runs", "run_entries")

#: What computing ad hoc measures reads besides the loaded tables (sql/evaluation/ stagings,
#: sql/metrics/ families): stored gain profiles and the level, gain and ranking views.
ADHOC_EVALUATION = ("gain_profiles", "topic_levels", "ranked_entries", "gain_values", "gain_maxima")
