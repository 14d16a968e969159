"""Drop-in replacements for the reference tools, computing through the SQL layer."""
