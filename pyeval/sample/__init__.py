"""The bundled sample campaign: TREC 2012 Web track diversity (NIST) with 20 runs, and a
generated-answer campaign over its first ten topics and simulated runs (``rag/``).

See README.md in this folder for the origin and licence of each file, and generate.py for
the synthetic parts. :func:`write_sample` writes them out as plain files (``pyeval sample``).
"""
from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

SAMPLE_DIR = Path(__file__).resolve().parent

#: What ``pyeval sample DIR`` writes: file in DIR -> bundled file it holds (decompressed).
#: DIR is a campaign folder (docs/loading.md): two qrels files, so `load campaign` is told
#: which one with --qrels. ntcir/ and ndeval/ hold qrels for the drop-ins (:data:`DERIVED_QRELS`).
SAMPLE_FILES = {
    "qrels.adhoc.txt": "qrels.adhoc.txt.gz",
    "qrels.diversity.txt": "qrels.diversity.txt.gz",
    "intents.DINprob": "intents.uniform.txt",
    "topics.xml": "full-topics.xml",
    "doclengths.txt": "doclengths.txt.gz",
    # the generated-answer campaign over the same topics and runs (generate.py, docs/rag.md)
    "rag/nuggets.jsonl": "rag/nuggets.jsonl",
    "rag/answers.jsonl": "rag/answers.jsonl.gz",
    "rag/assignments.manual.jsonl": "rag/assignments.manual.jsonl.gz",
    "rag/assignments.auto.jsonl": "rag/assignments.auto.jsonl.gz",
    "rag/support.tsv": "rag/support.tsv.gz",
}
#: Qrels for the drop-ins, in the layout each tool reads: file -> (bundled qrels, layout).
DERIVED_QRELS = {
    "ntcir/qrels.adhoc.ntcir": ("qrels.adhoc.txt.gz", "ntcir"),
    "ndeval/qrels-for-ndeval.txt": ("qrels.diversity.txt.gz", "ndeval"),
    "qrels.adhoc.stricter.txt": ("qrels.adhoc.txt.gz", "stricter"),
}

#: The second judgment set of the sample (docs/judgments.md section 6): a simulated stricter
#: judge, derived deterministically from NIST's ad hoc qrels by lowering every positive level by
#: one (4 -> 3, ..., 1 -> 0); 0 and the negative levels (-2: spam) stay as they are.
STRICTER_QRELS = "qrels.adhoc.stricter.txt"

WRITTEN_README = """\
# The pyeval sample campaign

TREC 2012 Web track (ClueWeb09 category A, topics 151-200), written by `pyeval sample`:

| file | what |
|---|---|
| `qrels.adhoc.txt` | NIST's ad hoc qrels (topic 0 docno level; -2 is spam) |
| `qrels.diversity.txt` | NIST's diversity qrels (topic subtopic docno level) |
| `intents.DINprob` | the 195 subtopics: topic, intent, uniform probability, inf/nav |
| `topics.xml` | NIST's topics with their subtopics |
| `doclengths.txt` | **synthetic** document lengths in characters (docno length) |
| `runs/indri-ql.txt`, `runs/indri-rm.txt` | real Indri baseline runs (query likelihood, relevance model); both have the run tag `indri` |
| `runs/sim01.txt` ... `runs/sim18.txt` | **simulated** runs |
| `ntcir/qrels.adhoc.ntcir` | the ad hoc qrels in NTCIR's layout for `pyeval ntcireval` (topic docno L<k>; levels <= 0 as L0) |
| `ndeval/qrels-for-ndeval.txt` | the diversity qrels for `pyeval ndeval`, which refuses negative levels (as 0) |
| `qrels.adhoc.stricter.txt` | a **simulated** second judge for judgment sets (`pyeval load qrels --judgments stricter`): NIST's ad hoc qrels with every positive level lowered by one |
| `rag/nuggets.jsonl` | a nugget bank of topics 151-160 in nuggetizer's create format: each topic's subtopics as its nuggets (`pyeval load nuggets`) |
| `rag/answers.jsonl` | **generated** answers of the simulated runs in the TREC RAG 2024 format, citing their runs' top documents (`pyeval load answers`) |
| `rag/assignments.manual.jsonl`, `rag/assignments.auto.jsonl` | **generated** nugget assignments in nuggetizer's assign format: a manual set and a noisier automatic one (`pyeval load assignments --judgments ...`) |
| `rag/support.tsv` | **generated** citation support judgments (`pyeval load support`) |

Origins and licences: pyeval/sample/README.md in pyeval's source.
"""


def path(name: str) -> Path:
    """A file of the sample, e.g. ``path('qrels.diversity.txt.gz')``."""
    return SAMPLE_DIR / name


def run_paths() -> list[Path]:
    """The 20 runs: the two real Indri runs, then the 18 simulated ones."""
    return sorted((SAMPLE_DIR / "runs").glob("*.txt.gz"))


def run_name(run_path: Path) -> str:
    """The name a sample run is loaded under: its file name without ``.txt.gz``."""
    return run_path.name.removesuffix(".txt.gz")


#: The runs of the sample that a real system made; the others are simulated (generate.py).
REAL_RUNS = ("indri-ql", "indri-rm")


def is_real_run(name: str) -> bool:
    """Whether a sample run came from a real system (the Indri baselines) rather than generate.py."""
    return name in REAL_RUNS


def _targets() -> dict[str, Path | None]:
    """Relative path in the written folder -> bundled source (None: made by write_sample)."""
    targets: dict[str, Path | None] = {name: path(source) for name, source in SAMPLE_FILES.items()}
    targets.update({f"runs/{run_name(p)}.txt": p for p in run_paths()})
    targets.update({name: None for name in DERIVED_QRELS})
    targets["README.md"] = None
    return targets


def _copy(source: Path, target: Path) -> None:
    opener = gzip.open if source.name.endswith(".gz") else open
    with opener(source, "rb") as inp, open(target, "xb") as out:
        shutil.copyfileobj(inp, out, 1 << 20)


def stricter_levels(levels: pd.Series) -> pd.Series:
    """The simulated stricter judge's levels (:data:`STRICTER_QRELS`): every positive level
    lowered by one; 0 and negative levels unchanged."""
    return levels.where(levels <= 0, levels - 1)


def stricter_qrels() -> pd.DataFrame:
    """The sample's ad hoc qrels as the simulated stricter judge labels them (``query_id,
    doc_id, relevance``, as :func:`pyeval.load_qrels` takes a frame)."""
    import pandas as pd

    qrels = pd.read_csv(path("qrels.adhoc.txt.gz"), sep=r"\s+", header=None,
                        names=["query_id", "iteration", "doc_id", "relevance"],
                        dtype={"query_id": str, "iteration": str, "doc_id": str, "relevance": int})
    qrels["relevance"] = stricter_levels(qrels["relevance"])
    return qrels[["query_id", "doc_id", "relevance"]]


def _write_derived_qrels(source: Path, target: Path, layout: str) -> None:
    """TREC qrels 'topic iter docno level' in the layout a drop-in reads, levels <= 0 as 0:
    ``ntcir`` 'topic docno L<level>' (NTCIREVAL), ``ndeval`` the four fields (ndeval refuses
    negative judgments); ``stricter`` the simulated stricter judge (:func:`stricter_levels`)."""
    import pandas as pd

    qrels = pd.read_csv(source, sep=r"\s+", header=None, names=["topic", "iter", "docno", "level"],
                        dtype={"topic": str, "iter": str, "docno": str, "level": int})
    if layout == "stricter":
        qrels["level"] = stricter_levels(qrels["level"])
    else:
        qrels["level"] = qrels["level"].clip(lower=0)
    columns = ["topic", "iter", "docno", "level"]
    if layout == "ntcir":
        qrels["level"] = "L" + qrels["level"].astype(str)
        columns = ["topic", "docno", "level"]
    with open(target, "x", encoding="utf-8", newline="") as out:
        qrels[columns].to_csv(out, sep=" ", header=False, index=False, lineterminator="\n")


def write_sample(directory: str | os.PathLike[str]) -> list[Path]:
    """Write the sample campaign's files into ``directory`` (created if missing) as plain text:
    the folder layout of :data:`SAMPLE_FILES`, ``runs/`` and :data:`DERIVED_QRELS`. Refuses, before writing
    anything, when one of those files exists already (pyeval replaces no file it did not make).
    Returns the files written."""
    from ..errors import NotOwnedError

    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise NotOwnedError(f"{folder} exists and is not a folder; choose another DIR")
    targets = {folder / name: source for name, source in _targets().items()}
    linked = [str(folder / sub) for sub in ("runs", "ntcir", "ndeval", "rag") if (folder / sub).is_symlink()]
    if linked:  # writing through it would put files into another folder
        raise NotOwnedError(f"{linked[0]} is a link to another folder; pyeval writes no file through it "
                            "(choose an empty or new DIR)")
    taken = [str(target) for target in targets if target.exists() or target.is_symlink()]
    if taken:
        raise NotOwnedError(f"{taken[0]} exists; pyeval leaves it alone (choose an empty or new DIR)")
    for sub in ("", "runs", "ntcir", "ndeval", "rag"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for target, source in targets.items():
        if source is not None:
            _copy(source, target)
    with open(folder / "README.md", "x", encoding="utf-8") as out:
        out.write(WRITTEN_README)
    for name, (source, layout) in DERIVED_QRELS.items():
        _write_derived_qrels(path(source), folder / name, layout)
    return list(targets)

