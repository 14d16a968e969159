"""The folder ``pyeval report -o DIR`` writes, and the proof that it is pyeval's before anything
in it is replaced or removed.

A report folder holds ``pyeval-report.json`` (its manifest: the mark, the campaign, and the
sha256 of every file pyeval wrote there) and those files. A folder is written only when it is
new (created, its parent must exist), empty, or a report folder whose every entry is a file its
manifest lists with the content pyeval wrote (or a half-written copy of one, left by a killed
run, which is removed); anything else (a foreign file, a file edited since, a link, a folder)
makes pyeval leave the whole folder alone. Files are written beside their targets and renamed
over them; the manifest lists a file's old and new content while they are swapped, so a run
killed at any point leaves a folder the next run accepts; files of runs no longer reported are
removed last.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from ..errors import NotOwnedError, PyevalError
from ..storage.ownership import replace_file, special_kind

MANIFEST = "pyeval-report.json"
#: The mark of a report folder's manifest.
MARK = "pyeval run reports"
#: The names of the files a report folder holds (besides its manifest).
FILE_NAME = re.compile(r"(index|run-[A-Za-z0-9._-]+)\.(html|pdf)")
#: A half-written copy left by a killed write (pyeval.storage.ownership.replace_file's names).
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.\d+\.[0-9a-f]{8}\.tmp(\.\w+)?")


def page_name(run_id: str, taken: set[str]) -> str:
    """The file name stem of ``run_id``'s page (``run-NAME``): the name itself when it is made
    of letters, digits, ``.``, ``_`` and ``-``, else those kept and a hash of the name added, as
    it is when two runs would share a name on a case-insensitive file system. ``taken``: the
    stems given so far (lower case), updated."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", run_id)
    stem = f"run-{safe}"
    if safe != run_id or stem.lower() in taken:
        stem = f"run-{safe}-{hashlib.sha256(run_id.encode('utf-8')).hexdigest()[:10]}"
    taken.add(stem.lower())
    return stem


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _regular(path: Path) -> bool:
    """A regular file itself (not a link, device, FIFO or folder), told by its status alone."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


class ReportFolder:
    """The output folder of the reports, checked when made (:meth:`open`), written by
    :meth:`write`."""

    def __init__(self, path: Path, previous: dict[str, list[str]], leftovers: list[Path]):
        self.path = path
        self.previous = previous
        self.leftovers = leftovers

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> ReportFolder:
        """Check ``path`` (see the module) before any work; create it when it is missing.
        Raises NotOwnedError naming what makes it not pyeval's."""
        path = Path(path)
        if path.is_symlink():
            raise NotOwnedError(f"{path}: a symbolic link; pyeval leaves it alone (choose another folder for the reports)")
        if not path.exists():
            if not path.parent.is_dir():
                raise NotOwnedError(f"{path.parent}: no such directory (the reports' folder is created in it)")
            return cls(path, {}, [])
        if not path.is_dir():
            raise NotOwnedError(f"{path}: {special_kind(path) or 'a file'}, not a folder; pyeval leaves it alone "
                                "(choose a new or empty folder for the reports)")
        entries = sorted(os.listdir(path))
        if not entries:
            return cls(path, {}, [])
        previous = cls._manifest(path)
        leftovers = []
        for name in entries:
            if name == MANIFEST:
                continue
            entry = path / name
            temporary = _TEMPORARY.fullmatch(name)
            if temporary and _regular(entry) and (temporary["name"] in previous or temporary["name"] == MANIFEST
                                                  or FILE_NAME.fullmatch(temporary["name"])):
                leftovers.append(entry)
                continue
            if name not in previous or not _regular(entry) or _sha256(entry) not in previous[name]:
                raise NotOwnedError(f"{entry}: not a file pyeval wrote in this report folder (or changed since); "
                                    f"pyeval leaves {path} alone (choose a new or empty folder, or remove it)")
        return cls(path, previous, leftovers)

    @staticmethod
    def _manifest(path: Path) -> dict[str, list[str]]:
        """The files the manifest of ``path`` lists (name -> the sha256 each may have)."""
        manifest = path / MANIFEST
        refused = NotOwnedError(f"{path}: a folder that is not empty and is not a report folder pyeval wrote (no "
                                f"{MANIFEST} of its own); pyeval leaves it alone (choose a new or empty folder)")
        if not _regular(manifest) or manifest.stat().st_size > 2**22:
            raise refused
        try:
            content = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            raise refused from None
        files = content.get("files") if isinstance(content, dict) and content.get("format") == MARK else None
        if not isinstance(files, dict) or not all(
                isinstance(name, str) and FILE_NAME.fullmatch(name) and isinstance(hashes, list) for name, hashes in
                files.items()):
            raise refused
        return {name: [str(h) for h in hashes] for name, hashes in files.items()}

    def _write_manifest(self, files: dict[str, list[str]], about: dict) -> None:
        text = json.dumps({"format": MARK, **about, "files": files}, indent=1, sort_keys=True) + "\n"
        replace_file(self.path / MANIFEST, lambda temporary: temporary.write_text(text, encoding="utf-8"))

    def write(self, files: dict[str, Callable[[Path], None]], about: dict) -> list[Path]:
        """Write each file (name -> a function writing it to the path it is given), swap them in
        and remove the files of the previous report that are not written again; ``about``:
        what the manifest says of the reports (campaign, judgment set). Returns the paths."""
        self.path.mkdir(exist_ok=True)
        pending: list[tuple[Path, Path]] = []
        try:
            for name, write in files.items():
                if not FILE_NAME.fullmatch(name):
                    raise PyevalError(f"{name}: not a report file name")  # a bug, never a user's mistake
                replace_file(self.path / name, write, swap=lambda temporary, target: pending.append((temporary, target)))
            written = {target.name: _sha256(temporary) for temporary, target in pending}
            during = {name: sorted({*self.previous.get(name, ()), *([written[name]] if name in written else ())})
                      for name in {*self.previous, *written}}
            self._write_manifest(during, about)
        except BaseException:
            for temporary, _ in pending:
                temporary.unlink(missing_ok=True)
            raise
        for temporary, target in pending:
            os.replace(temporary, target)
        for name in sorted(set(self.previous) - set(written)):
            stale = self.path / name
            if _regular(stale) and _sha256(stale) in self.previous[name]:
                stale.unlink()
        for leftover in self.leftovers:
            leftover.unlink(missing_ok=True)
        self._write_manifest({name: [sha] for name, sha in written.items()}, about)
        return [target for _, target in pending]
