"""The bundled sample campaign: TREC 2012 Web track diversity (NIST) with 20 runs.

See README.md in this folder for the origin and licence of each file, and generate.py for
the synthetic parts.
"""
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """A file of the sample, e.g. ``path('qrels.diversity.txt.gz')``."""
    return SAMPLE_DIR / name


def run_paths() -> list[Path]:
    """The 20 runs: the two real Indri runs, then the 18 simulated ones."""
    return sorted((SAMPLE_DIR / "runs").glob("*.txt.gz"))


def run_name(run_path: Path) -> str:
    """The name a sample run is loaded under: its file name without ``.txt.gz``."""
    return run_path.name.removesuffix(".txt.gz")
