"""``python -m pyeval.cli``: the ``pyeval`` command."""
from . import main

main()
