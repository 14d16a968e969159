"""Loading a whole campaign folder, as campaigns are distributed, in one transaction.

The layout it reads (docs/loading.md, "Loading a campaign folder"), names compared without case:

* qrels: the file whose name contains ``qrels`` (one; ``qrels=`` chooses among several);
* intents (optional): ``*.Iprob``, ``*.DINprob`` or ``intents*`` files; one is loaded as the
  campaign's intents, several only when ``intents=`` names the one to load;
* topics (optional): a ``*topics*.xml`` file (TREC topics with subtopics): the types of the
  intents loaded, or, with diversity qrels and no intents file, the intents themselves
  (uniform probabilities);
* document lengths (optional): the files whose names contain ``doclength`` or ``lengths``,
  loaded together (a collection's lengths may come in parts);
* runs: every file (not hidden) in the ``runs/`` folder and the folders below it, in name order.

Anything else is left alone and named in the report (``ignored``). Every file is read before
the transaction (a file DuckDB refuses then takes the general path, as in any load); the
judgments, intents, lengths and runs are then stored together, or nothing is.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..db import first_row, transaction
from ..errors import DataIntegrityError, InputFormatError, PyevalError
from . import qrels as qrels_loader
from . import runs as runs_loader
from . import staging
from .doclengths import load_doclengths
from .intents import load_intents
from .runs import RunMetadata
from .topic_intents import load_intents_from_topics, set_intent_types


@dataclass
class CampaignFolder:
    """The files of a campaign folder, sorted into what each one is (:func:`campaign_folder`)."""

    qrels: Path
    runs: list[Path]
    intents: Path | None = None
    topics: Path | None = None
    doclengths: list[Path] = field(default_factory=list)
    ignored: list[Path] = field(default_factory=list)


def _is_intents(name: str) -> bool:
    return name.endswith((".iprob", ".dinprob")) or name.startswith("intents")


def _is_doclengths(name: str) -> bool:
    return "doclength" in name or "lengths" in name


def _is_topics(name: str) -> bool:
    return "topics" in name and name.endswith(".xml")


def _one(found: list[Path], chosen: str | None, what: str, option: str, folder: Path) -> Path | None:
    """The one file of ``found``, or the one named ``chosen``."""
    if chosen is not None:
        named = [path for path in found if path.name == chosen]
        if not named:
            raise InputFormatError(str(folder), None, f"no {what} file named '{chosen}' "
                                   f"(found: {', '.join(p.name for p in found) or 'none'})")
        return named[0]
    if len(found) > 1:
        raise InputFormatError(str(folder), None, f"{len(found)} {what} files "
                               f"({', '.join(p.name for p in found)}); choose one with {option}")
    return found[0] if found else None


def campaign_folder(
    path: str | os.PathLike[str], *, qrels: str | None = None, intents: str | None = None
) -> CampaignFolder:
    """Sort the files of a campaign folder (the layout of this module's docstring).

    Raises
    ------
    InputFormatError
        No such folder, no qrels, no runs, or several candidates for one role and none chosen.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise InputFormatError(str(folder), None, "no such folder")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    runs_folder = next((p for p in sorted(folder.iterdir()) if p.is_dir() and p.name.lower() == "runs"), None)
    qrels_files = [p for p in files if "qrels" in p.name.lower()]
    intents_files = [p for p in files if _is_intents(p.name.lower())]
    topics_files = [p for p in files if _is_topics(p.name.lower())]
    length_files = [p for p in files if _is_doclengths(p.name.lower())]
    qrels_file = _one(qrels_files, qrels, "qrels", "--qrels", folder)
    if qrels_file is None:
        raise InputFormatError(str(folder), None, "no qrels file (a file whose name contains 'qrels')")
    if runs_folder is None:
        raise InputFormatError(str(folder), None, "no runs/ folder")
    runs = sorted((p for p in runs_folder.rglob("*") if p.is_file() and not p.name.startswith(".")),
                  key=lambda p: p.relative_to(runs_folder).parts)
    if not runs:
        raise InputFormatError(str(runs_folder), None, "no run file in the runs/ folder")
    layout = CampaignFolder(
        qrels=qrels_file,
        runs=runs,
        intents=_one(intents_files, intents, "intents", "--intents", folder),
        topics=_one(topics_files, None, "topics", "a folder with one topics file", folder),
        doclengths=length_files,
    )
    recognised = {layout.qrels, layout.intents, layout.topics, *layout.doclengths}
    candidates = set(qrels_files) | set(intents_files)
    layout.ignored = [p for p in files if p not in recognised and p not in candidates]
    layout.ignored += [p for p in qrels_files + intents_files if p not in recognised]
    return layout


@dataclass
class CampaignReport:
    """What :func:`load_campaign` stored: one report per input, and the files it left alone."""

    campaign_id: str
    reports: list[staging.LoadReport]
    ignored: list[Path]

    def summary(self) -> str:
        lines = [report.summary() for report in self.reports if report.kind != "run"]
        runs = [report for report in self.reports if report.kind == "run"]
        entries = sum(report.rows for report in runs)
        lines.append(f"{self.campaign_id}: loaded {len(runs)} runs, {entries} entries")
        if self.ignored:
            lines.append(f"{self.campaign_id}: ignored (not a recognised campaign file): "
                         + ", ".join(str(p) for p in self.ignored))
        return "\n".join(lines)


def load_campaign(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str],
    *,
    campaign_id: str | None = None,
    qrels: str | None = None,
    intents: str | None = None,
    replace: bool = False,
    description: str | None = None,
    metadata: RunMetadata | None = None,
    run_names: str = "tag",
    progress: bool = False,
) -> CampaignReport:
    """Load a campaign folder (qrels, optional intents, topics and document lengths, and its
    ``runs/``) into ``campaign_id`` (default: the folder's name), all in one transaction.

    ``replace`` replaces the campaign's qrels, intents, lengths and runs of the same names;
    without it, a campaign that has qrels already is refused. ``run_names``: ``tag`` names each
    run by the run tag of its first line, ``file`` by its file name (:func:`run_name_of_file`;
    for runs that share a tag, as baselines often do). ``progress`` shows one progress bar (on a
    terminal) over the steps.

    Raises
    ------
    InputFormatError
        A bad line in any file (named with its line), or a folder that does not fit the layout.
    DataIntegrityError
        The campaign exists already (without ``replace``), or two runs have one name.
    """
    if run_names not in ("tag", "file"):
        raise ValueError(f"run_names must be 'tag' or 'file'; got {run_names!r}")
    layout = campaign_folder(path, qrels=qrels, intents=intents)
    names = [run_name_of_file(p) if run_names == "file" else None for p in layout.runs]
    campaign_id = campaign_id if campaign_id is not None else Path(path).resolve().name
    if not campaign_id:
        raise PyevalError("a campaign name cannot be empty")
    steps = ["read qrels", "read runs", "store qrels"]
    steps += ["store intents"] * (layout.intents is not None) + ["store topics"] * (layout.topics is not None)
    steps += ["store lengths"] * bool(layout.doclengths) + ["store runs"]
    with _progress(len(steps), progress) as bar, staging.TemporaryRelations(con) as relations:
        def step() -> None:
            bar.set_description(steps[bar.n] if bar.n < len(steps) else "")
            bar.update()

        qrels_lines = qrels_loader.read([str(layout.qrels)], "auto", relations)[0]
        step()
        run_inputs = runs_loader.read([str(p) for p in layout.runs], relations)
        problems = runs_loader.check(con, relations, run_inputs)
        step()
        reports = []
        with transaction(con):
            qrels_format = qrels_loader.check(con, relations, campaign_id, [qrels_lines], "auto")
            reports.append(qrels_loader.store(con, campaign_id, [qrels_lines], qrels_format, replace, description))
            step()
            intents_loaded = layout.intents is not None
            if intents_loaded:
                reports.append(load_intents(con, campaign_id, str(layout.intents), replace=replace))
                step()
            if layout.topics is not None:
                _load_topics(con, campaign_id, layout.topics, intents_loaded, replace)
                step()
            if layout.doclengths:
                reports.append(load_doclengths(con, campaign_id, [str(p) for p in layout.doclengths],
                                               replace=replace))
                step()
            reports += runs_loader.store(con, campaign_id, run_inputs, names, problems, replace, metadata)
            step()
    return CampaignReport(campaign_id, reports, layout.ignored)


def run_name_of_file(path: Path) -> str:
    """A run's name from its file: the name without ``.gz`` and one more suffix (``.txt``,
    ``.run``), and without TREC's ``input.`` prefix: ``input.uogTrA1.gz`` is ``uogTrA1``,
    ``indri-ql.txt.gz`` is ``indri-ql``."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    name = name.removeprefix("input.")
    stem, dot, suffix = name.rpartition(".")
    return stem if dot and stem and suffix.lower() in ("txt", "run", "res", "trec") else name


def _load_topics(con, campaign_id: str, topics: Path, intents_loaded: bool, replace: bool) -> None:
    """A topics XML: the types of the intents loaded, or the intents of diversity qrels."""
    if intents_loaded:
        set_intent_types(con, campaign_id, topics)
        return
    kind = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})[0]
    if kind != "diversity":
        raise DataIntegrityError(f"{topics}: a topics file gives intents, and the qrels are not diversity "
                                 "qrels; remove it from the folder or load the files one by one")
    load_intents_from_topics(con, campaign_id, topics, replace=replace)


def _progress(total: int, shown: bool):
    from tqdm import tqdm

    return tqdm(total=total, disable=None if shown else True, unit="step", leave=False)
