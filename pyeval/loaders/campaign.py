"""Loading a whole campaign folder, as campaigns are distributed, in one transaction.

The layout it reads (docs/loading.md, "Loading a campaign folder"), names compared without case:

* qrels: the file whose name contains ``qrels`` (one; ``qrels=`` chooses among several);
* intents (optional): ``*.Iprob``, ``*.DINprob`` or ``intents*`` files; one is loaded as the
  campaign's intents, several only when ``intents=`` names the one to load;
* topics (optional): a file whose name contains ``topics`` (TREC topics XML or SGML): the
  titles (``topic_texts``, as ``load topics``); with diversity qrels, a topics XML also gives
  the types of the intents loaded, or, with no intents file, the intents themselves (uniform
  probabilities);
* document lengths (optional): the files whose names contain ``doclength`` or ``lengths``,
  loaded together (a collection's lengths may come in parts);
* runs: every run file in the ``runs/`` folder and the folders below it (not hidden ones), in
  name order; a Parquet file is a run, and so is a folder of Parquet files (one run). A file
  whose first line is not a run line (a ``NOTES.md``), a FIFO, a dangling link or an
  unreadable file is skipped and named in the report with the reason
  (``skipped``). With ``run_names="file"``, run files of one name in different folders
  (``ql/results.txt.gz``, ``rm/results.txt.gz``) take their folder's name.

Anything else is left alone and named in the report (``ignored``). Every file is read before
the transaction (a file DuckDB refuses then takes the general path, as in any load); the
judgments, intents, lengths and runs are then stored together, or nothing is.
"""
from __future__ import annotations

import os
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pyeval.core.db import first_row, transaction
from .. import progress as bars
from ..errors import InputFormatError, PyevalError, with_command_line
from . import columnar
from . import qrels as qrels_loader
from . import runs as runs_loader
from . import staging
from .doclengths import load_doclengths
from .intents import load_intents
from .runs import RunMetadata
from .source import dataset_files, run_name_of_file
from .topic_intents import load_intents_from_topics, set_intent_types
from .topics import load_topics


@dataclass(frozen=True)
class Skipped:
    """A file of a campaign folder that is not loaded, and why."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path} ({self.reason})"


@dataclass
class CampaignFolder:
    """The files of a campaign folder, sorted into what each one is (:func:`campaign_folder`).
    ``run_tags``: the run tag of each run file's first line."""

    qrels: Path
    runs: list[Path]
    intents: Path | None = None
    topics: Path | None = None
    doclengths: list[Path] = field(default_factory=list)
    ignored: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    run_tags: list[str] = field(default_factory=list)

    def run_names(self, run_names: str) -> list[str]:
        """The name each run file is stored under: its first line's tag (``tag``), or
        :func:`run_name_of_file` (``file``), where files of one name in different folders take
        their folder's name (:func:`_folder_names`)."""
        if run_names == "tag":
            return list(self.run_tags)
        return file_run_names(self.runs)

    def plan(self, campaign_id: str, run_names: str) -> str:
        """What a load would store, one line per input (``load campaign --dry-run``)."""
        lines = [f"{campaign_id}: would load qrels {self.qrels}"]
        lines += [f"{campaign_id}: would load intents {self.intents}"] * (self.intents is not None)
        lines += [f"{campaign_id}: would load topics {self.topics}"] * (self.topics is not None)
        lines += [f"{campaign_id}: would load document lengths {p}" for p in self.doclengths]
        lines += [f"{campaign_id}: would load run {name} from {p}"
                  for p, name in zip(self.runs, self.run_names(run_names))]
        lines += _left_alone(campaign_id, self.ignored, self.skipped)
        return "\n".join(lines)


def _left_alone(campaign_id: str, ignored: list[Path], skipped: list[Skipped]) -> list[str]:
    lines = []
    if ignored:
        lines.append(f"{campaign_id}: ignored (not a recognised campaign file): " + ", ".join(map(str, ignored)))
    lines += [f"{campaign_id}: skipped {entry}" for entry in skipped]
    return lines


def _is_intents(name: str) -> bool:
    return name.endswith((".iprob", ".dinprob")) or name.startswith("intents")


def _is_doclengths(name: str) -> bool:
    return "doclength" in name or "lengths" in name


def _is_topics(name: str) -> bool:
    return "topics" in name and "qrels" not in name


_SNIFFED_BYTES = 1 << 16
#: Suffixes of documents organisers put beside runs (notes, descriptions, forms).
_DOCUMENTS = frozenset((".md", ".pdf", ".html", ".htm", ".doc", ".docx", ".rtf", ".json", ".xml", ".csv",
                        ".tsv", ".yaml", ".yml", ".png", ".jpg", ".zip", ".tar", ".tgz"))


def _run_tag(path: Path) -> str | Skipped:
    """The run tag of a run file's first line, or why the file is not a run: not readable, not
    text, empty, or a first line that is not ``topic Q0 docno rank score tag``."""
    if path.suffix.lower() in _DOCUMENTS:
        return Skipped(path, f"not a run: a {path.suffix} document")
    parquet_tag = columnar.first_run_tag(path)  # a Parquet run (a file or a folder): its first row's tag
    if parquet_tag is not None:
        return parquet_tag
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFFED_BYTES)
    except OSError as exc:
        return Skipped(path, f"cannot be read: {exc.strerror or exc}")
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, _SNIFFED_BYTES)
        except zlib.error:
            return Skipped(path, "not a readable gzip file")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not a character cut at the end of the sniffed bytes
            return Skipped(path, "not UTF-8 text")
        text = head[:exc.start].decode("utf-8")
    lines = text.splitlines()[:-1] if len(head) >= _SNIFFED_BYTES else text.splitlines()
    first = next((line for line in lines if line.strip() and not line.lstrip().startswith("#")), None)
    if first is None:
        return Skipped(path, "empty" if not text.strip() else "no run line")
    fields = first.split()
    if len(fields) >= 3 and fields[1].upper() == "Q0":  # a run, maybe a bad one: the load names its line
        return fields[5] if len(fields) > 5 else ""
    if len(fields) == 6:
        try:
            float(fields[3]), float(fields[4])
        except ValueError:
            pass
        else:
            return fields[5]
    return Skipped(path, "not a run: its first line is not 'topic Q0 docno rank score tag'")


def _run_files(runs_folder: Path) -> tuple[list[Path], list[Skipped]]:
    """The regular files below ``runs_folder`` (hidden files and folders left out), in name
    order, and the entries that are neither files nor folders (FIFOs, dangling links)."""
    files: list[Path] = []
    skipped: list[Skipped] = []
    seen: set[Path] = set()

    def walk(folder: Path) -> None:
        real = folder.resolve()
        if real in seen:  # a link back up the tree
            skipped.append(Skipped(folder, "a link to a folder already read"))
            return
        seen.add(real)
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            if entry.name.startswith("."):
                continue
            if entry.is_dir() and dataset_files(entry) is not None:
                files.append(entry)  # a folder of Parquet files is one run
            elif entry.is_dir():
                walk(entry)
            elif entry.is_file():
                files.append(entry)
            elif entry.is_symlink() and not entry.exists():
                skipped.append(Skipped(entry, "a dangling link"))
            else:
                skipped.append(Skipped(entry, "not a regular file (a FIFO, socket or device)"))

    walk(runs_folder)
    files.sort(key=lambda p: p.relative_to(runs_folder).parts)
    return files, skipped


def _folder_names(paths: list[Path], names: list[str]) -> list[str]:
    """``names``, where a name two files share becomes the name of each file's folder (the
    folders' path below their common folder, joined with ``-``, where folder names clash too)."""
    counts = Counter(names)
    shared = [i for i, name in enumerate(names) if counts[name] > 1]
    if not shared:
        return names
    common = Path(os.path.commonpath([paths[i].parent for i in shared]))
    renamed = list(names)
    for i in shared:
        below = paths[i].parent.relative_to(common).parts
        if below:
            renamed[i] = below[-1]
    clashing = Counter(renamed)
    for i in shared:
        below = paths[i].parent.relative_to(common).parts
        if clashing[renamed[i]] > 1 and below:
            renamed[i] = "-".join(below)
    return renamed


def _one(found: list[Path], chosen: str | None, what: str, option: str, folder: Path) -> Path | None:
    """The one file of ``found``, or the one named ``chosen``."""
    if chosen is not None:
        named = [path for path in found if path.name == chosen]
        if not named:
            raise InputFormatError(str(folder), None, f"no {what} file named '{chosen}' "
                                   f"(found: {', '.join(p.name for p in found) or 'none'})")
        return named[0]
    if len(found) > 1:
        files = f"{len(found)} {what} files ({', '.join(p.name for p in found)}); choose one with"
        raise with_command_line(InputFormatError(str(folder), None, f"{files} {what}=NAME"),
                                f"{folder}: {files} {option}")
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
    entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    files = [p for p in entries if p.is_file()]
    odd = [Skipped(p, "a dangling link" if p.is_symlink() and not p.exists()
                   else "not a regular file (a FIFO, socket or device)")
           for p in entries if not p.is_file() and not p.is_dir()]
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
    candidates_found, skipped = _run_files(runs_folder)
    runs, tags = [], []
    for candidate in candidates_found:
        tag = _run_tag(candidate)
        if isinstance(tag, Skipped):
            skipped.append(tag)
        else:
            runs.append(candidate)
            tags.append(tag)
    if not runs:
        raise InputFormatError(str(runs_folder), None, "no run file in the runs/ folder"
                               + "".join(f"; skipped {entry}" for entry in skipped[:3]))
    layout = CampaignFolder(
        qrels=qrels_file,
        runs=runs,
        intents=_one(intents_files, intents, "intents", "--intents", folder),
        topics=_one(topics_files, None, "topics", "a folder with one topics file", folder),
        doclengths=length_files,
        skipped=odd + skipped,
        run_tags=tags,
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
    skipped: list[Skipped] = field(default_factory=list)

    def summary(self) -> str:
        lines = [report.summary() for report in self.reports if report.kind != "run"]
        runs = [report for report in self.reports if report.kind == "run"]
        entries = sum(report.rows for report in runs)
        lines.append(f"{self.campaign_id}: loaded {len(runs)} {'run' if len(runs) == 1 else 'runs'}, "
                     f"{entries} entries")
        lines += _left_alone(self.campaign_id, self.ignored, self.skipped)
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
    progress: bool | None = None,
    on_stored: runs_loader.StoredHook | None = None,
) -> CampaignReport:
    """Load a campaign folder (qrels, optional intents, topics and document lengths, and its
    ``runs/``) into ``campaign_id`` (default: the folder's name), all in one transaction.

    ``replace`` replaces the campaign's qrels, intents, lengths and runs of the same names;
    without it, a campaign that has qrels already is refused. ``run_names``: ``tag`` names each
    run by the run tag of its first line, ``file`` by its file name (:func:`run_name_of_file`;
    for runs that share a tag, as baselines often do). ``progress`` shows one progress bar over the
    steps (default: where a human watches, :func:`pyeval.progress.shown`). ``on_stored`` is called with the connection, the campaign and the
    names of the runs stored, inside the transaction (``pyeval load campaign --evaluate``).

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
    names = layout.run_names("file") if run_names == "file" else [None] * len(layout.runs)
    campaign_id = campaign_id if campaign_id is not None else Path(path).resolve().name
    if not campaign_id:
        raise PyevalError("a campaign name cannot be empty")
    steps = ["read qrels", "read runs", "store qrels"]
    steps += ["store intents"] * (layout.intents is not None) + ["store topics"] * (layout.topics is not None)
    steps += ["store lengths"] * bool(layout.doclengths) + ["store runs"]
    with bars.bar(progress=progress, total=len(steps), unit="step") as bar, staging.TemporaryRelations(con) as relations:
        def step() -> None:
            bar.set_description(steps[bar.n] if bar.n < len(steps) else "")
            bar.update()

        qrels_lines = qrels_loader.read_one(str(layout.qrels), "auto", relations)
        step()
        run_inputs = runs_loader.read([str(p) for p in layout.runs], relations)
        problems = runs_loader.check(con, relations, run_inputs)
        step()
        reports = []
        with transaction(con):
            chosen = qrels_loader.check(con, relations, campaign_id, [qrels_lines], "auto")
            reports.append(qrels_loader.store(con, campaign_id, [qrels_lines], chosen, replace, description))
            step()
            intents_loaded = layout.intents is not None
            if intents_loaded:
                reports.append(load_intents(con, campaign_id, str(layout.intents), replace=replace))
                step()
            if layout.topics is not None:
                reports += _load_topics(con, campaign_id, layout.topics, intents_loaded, replace)
                step()
            if layout.doclengths:
                reports.append(load_doclengths(con, campaign_id, [str(p) for p in layout.doclengths],
                                               replace=replace))
                step()
            run_reports = runs_loader.store(con, campaign_id, run_inputs, names, problems, replace, metadata)
            reports += run_reports
            step()
            if on_stored is not None:
                on_stored(con, campaign_id, [report.name for report in run_reports])
    return CampaignReport(campaign_id, reports, layout.ignored, layout.skipped)


def file_run_names(paths: list[Path]) -> list[str]:
    """The name each run file is stored under by its file (``--run-names file``):
    :func:`run_name_of_file`, where files of one name in different folders take their folder's
    name (:func:`_folder_names`)."""
    return _folder_names([Path(p) for p in paths], [run_name_of_file(Path(p)) for p in paths])


def _load_topics(con, campaign_id: str, topics: Path, intents_loaded: bool, replace: bool) -> list[staging.LoadReport]:
    """A topics file: its titles (``topic_texts``); with diversity qrels, also the types of the
    intents loaded or, with no intents file, the intents themselves."""
    reports = [load_topics(con, campaign_id, topics)]
    kind = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})[0]
    if kind != "diversity":
        return reports
    if intents_loaded:
        set_intent_types(con, campaign_id, topics)
    else:
        reports.append(load_intents_from_topics(con, campaign_id, topics, replace=replace))
    return reports

