"""Drop-in replacements for the reference tools, computing through the SQL layer.

Each one loads its inputs into a throw-away in-memory warehouse that holds only the relations
it reads (:func:`pyeval.storage.warehouse.scratch`), declared next to the command from the parts
:mod:`pyeval.storage.warehouse` declares (LOADED_TABLES, ADHOC_EVALUATION).
"""
