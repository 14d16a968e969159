"""Every reference the documentation makes resolves inside the repository (issue 18).

Scanned: the Markdown files (README.md, docs/, the READMEs under tests/ and pyeval/), the
comments and docstrings of the Python files (pyeval/, tests/, bench/) and the comments of the SQL
files (sql/, schema/, migrations/). Checked:

- Markdown links ``[text](target#anchor)``: the target exists and has the anchor (GitHub's
  heading slugs, or an explicit ``<a id>``);
- mentions of ``x.md`` (and ``x.md#anchor``): the file exists, next to the citing file, at the
  repository root or (from a Markdown file) next to it;
- section citations after a page (``docs/meta-evaluation.md section 12.3``, ``adhoc-measures.md sections
  3.1, 3.2 and 4.1``, ``meta-evaluation.md 1-13``) and heading citations (``measures.md, "Conventions"``):
  the page has a heading so numbered or so named;
- paths under the repository's top folders (``sql/...``, ``schema/...``, ``pyeval/...``,
  ``docs/...``, ``tests/...``, ``bench/...``, ``migrations/...``) exist;
- no reference to material outside the repository ("seed 003", the folder of shared material beside it, its
  reference folder, a search tool's index);
- an author-year citation of an author listed in docs/references.md ("Sakai, AIRS 2005",
  "Buckley & Voorhees 2000") matches an entry of that author and year.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
import warnings
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_FOLDERS = ("sql", "schema", "pyeval", "docs", "tests", "bench", "migrations")
REFERENCES = ROOT / "docs" / "references.md"


# --------------------------------------------------------------------------- the texts scanned

def markdown_files() -> list[Path]:
    skip = {".git", ".pytest_cache", "node_modules"}
    return sorted(p for p in ROOT.rglob("*.md") if not skip & set(p.relative_to(ROOT).parts))


def python_files() -> list[Path]:
    return sorted(p for folder in ("pyeval", "tests", "bench") for p in (ROOT / folder).rglob("*.py"))


def sql_files() -> list[Path]:
    return sorted(p for folder in ("sql", "schema", "migrations") for p in (ROOT / folder).rglob("*.sql"))


def python_prose(text: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python source."""
    pieces = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
              if tok.type == tokenize.COMMENT]
    with warnings.catch_warnings():  # a source's own escape-sequence warnings are not ours
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                pieces.append((body[0].lineno, body[0].value.value))
    return pieces


def sql_prose(text: str) -> list[tuple[int, str]]:
    return [(number, line[line.index("--"):]) for number, line in enumerate(text.splitlines(), 1)
            if "--" in line]


def prose(path: Path) -> list[tuple[int, str]]:
    """(first line, text) pieces of ``path`` that are documentation."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return python_prose(text)
    if path.suffix == ".sql":
        return sql_prose(text)
    return [(1, text)]


def scanned() -> list[Path]:
    """The files scanned (this test's own docstring and examples excepted)."""
    return [p for p in markdown_files() + python_files() + sql_files() if p != Path(__file__).resolve()]


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def where(path: Path, first_line: int, text: str, offset: int) -> str:
    return f"{shown(path)}:{first_line + text.count(chr(10), 0, offset)}"


# --------------------------------------------------------------------------- headings and anchors

def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def headings(path: Path) -> tuple[list[str], set[str]]:
    """(heading texts, anchors) of a Markdown file."""
    texts, anchors, seen = [], set(), {}
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            text = match.group(1)
            texts.append(text.replace("`", ""))
            base = slug(text)
            count = seen.get(base, 0)
            seen[base] = count + 1
            anchors.add(base if count == 0 else f"{base}-{count}")
        anchors.update(re.findall(r'<a\s+(?:id|name)="([^"]+)"', line))
    return texts, anchors


def numbered(path: Path) -> set[str]:
    """Section numbers of a Markdown file's headings: '3', '3.2', '12.3' ..."""
    numbers = set()
    for text in headings(path)[0]:
        match = re.match(r"(\d+(?:\.\d+)*)\.?\s", text)
        if match:
            numbers.add(match.group(1))
    return numbers


# --------------------------------------------------------------------------- resolving

def resolve(target: str, source: Path) -> Path | None:
    """The file ``target`` names, from ``source``: next to it, at the root, or (Markdown) in docs/."""
    candidates = [source.parent / target, ROOT / target]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    return None


LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
MD_MENTION = re.compile(r"(?<![\w/.\-\]()])((?:[\w.\-]+/)*[\w.\-]+\.md)(#[\w\-]+)?")
SECTION_AFTER = re.compile(
    r"^(?:\]\([^)]*\))?`?\)?,?\s+(?:(?:sections?|§)\s+)?"
    r"(\d+(?:\.\d+)*(?:\s*(?:,|and|/|-|–|,\s*and)\s*\d+(?:\.\d+)*)*)(?![\w.]*\d)")
HEADING_AFTER = re.compile(r'^(?:\]\([^)]*\))?`?\)?,\s+"([^"\n]+)"')
PATH = re.compile(r"(?<![\w/.\-])((?:%s)/[\w./\-]*[\w/])" % "|".join(TOP_FOLDERS))


def path_resolves(target: str, text: str, start: int, end: int) -> bool:
    """Whether a path mention names something in the repository. Patterns (``metric_<family>.sql``,
    ``qrels_*.sql``, ``x.{json,md}``) and paths in git history (``a3d4ef7^:sql/...``) are not
    checked; a path without an extension may leave out ``.py``, ``.sql`` or ``.md``."""
    if text[end:end + 2].lstrip(".")[:1] in ("<", "*", "{") or re.search(r"[0-9a-f]{7,}\^?:$", text[:start]):
        return True
    target = target.rstrip(".")
    if "." not in target.rsplit("/", 1)[-1] and target.count("/") == 1 and not target.endswith("/"):
        return True  # "pyeval/DuckDB", a table label: only paths with a folder or an extension count
    return any((ROOT / (target + ext)).exists() for ext in ("", ".py", ".sql", ".md"))


def section_problems(page: Path, tail: str) -> list[str]:
    """Section numbers or a heading cited right after a mention of ``page``, not found in it."""
    problems = []
    match = SECTION_AFTER.match(tail)
    if match:
        have = numbered(page)
        for number in re.findall(r"\d+(?:\.\d+)*", match.group(1)):
            if number not in have:
                problems.append(f"section {number} of {shown(page)}")
    match = HEADING_AFTER.match(tail)
    if match:
        cited = match.group(1).lower()
        if not any(text.lower().startswith(cited) for text in headings(page)[0]):
            problems.append(f'heading "{match.group(1)}" of {shown(page)}')
    return problems


def reference_problems(path: Path) -> list[str]:
    problems = []
    for first_line, text in prose(path):
        for match in LINK.finditer(text):
            target = match.group(1)
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            page = path if not file_part else resolve(file_part, path)
            if page is None:
                problems.append(f"{where(path, first_line, text, match.start())}: link to missing {file_part}")
            elif anchor and page.suffix == ".md" and anchor not in headings(page)[1]:
                problems.append(f"{where(path, first_line, text, match.start())}: no anchor #{anchor} "
                                f"in {shown(page)}")
            elif page.suffix == ".md":
                problems += [f"{where(path, first_line, text, match.start())}: no {what}"
                             for what in section_problems(page, text[match.end():match.end() + 120])]
        for match in MD_MENTION.finditer(text):
            name, anchor = match.group(1), (match.group(2) or "")[1:]
            if re.fullmatch(r"[A-Z_]+\.md", name) and name != "README.md":
                continue  # a placeholder such as RESULT.md
            page = resolve(name, path)
            if page is None:
                problems.append(f"{where(path, first_line, text, match.start())}: {name} is not in the repository")
                continue
            if anchor and anchor not in headings(page)[1]:
                problems.append(f"{where(path, first_line, text, match.start())}: no anchor #{anchor} in {name}")
            problems += [f"{where(path, first_line, text, match.start())}: no {what}"
                         for what in section_problems(page, text[match.end():match.end() + 120])]
        for match in PATH.finditer(text):
            if path.parent.name == "migrations":
                break  # a migration's text is frozen (its sha256 is recorded by every warehouse that applied it)
            if not path_resolves(match.group(1), text, match.start(), match.end()):
                problems.append(f"{where(path, first_line, text, match.start())}: "
                                f"path {match.group(1).rstrip('.')} does not exist")
    return problems


# --------------------------------------------------------------------------- outside material

OUTSIDE = re.compile(
    r"\bseeds? ?0\d\d\b"                                          # "seed 003"
    r"|\bseed[ -]\d\b(?=\s*(?:Figs?\.|Tables?|section|'s\b))"      # "seed 1 Table 2", not an RNG seed
    r"|\.\./shared|\bshared/(?:reference|data|seeds)\b"
    r"|search tool|code index", re.IGNORECASE)


def outside_problems(path: Path) -> list[str]:
    return [f"{where(path, first_line, text, match.start())}: {match.group(0)!r} points outside the repository"
            for first_line, text in prose(path) for match in OUTSIDE.finditer(text)]


# --------------------------------------------------------------------------- citations

def plain(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)).lower()


@cache
def bibliography() -> tuple[set[str], set[tuple[str, str]]]:
    """(every author surname, {(surname, year)}) of docs/references.md's entries."""
    surnames, pairs = set(), set()
    for entry in re.findall(r"^\*\*(.+?)\*\*(.*)$", REFERENCES.read_text(encoding="utf-8"), re.MULTILINE):
        keys = " ".join(entry)
        years = set(re.findall(r"\b(?:19|20)\d\d\b", entry[0]))
        names = re.findall(r"[A-Z][\w\-]+", re.sub(r"\b(?:19|20)\d\d\b.*", "", entry[0]))
        # surnames of every author in the cite key and the full author list
        names += re.findall(r"(?:[A-Z]\.[ -]?)+\s*([A-Z][\w\-]+)", keys)
        for name in names:
            surnames.add(plain(name))
            pairs.update((plain(name), year) for year in years)
    return surnames, pairs


CITATION = re.compile(
    r"\b([A-Z][\w\-]+)"                                         # first author
    r"((?:,? (?:&|and) [A-Z][\w\-]+|, [A-Z][\w\-]+| et al\.?)*)"  # co-authors
    r"[,(]? ?(?:(?:[A-Z][\w/]*|\(?[A-Z]{2,}[\w/]*) ){0,3}"       # venue
    r"((?:19|20)\d\d)\b")


def citation_problems(path: Path) -> list[str]:
    surnames, pairs = bibliography()
    problems = []
    for first_line, text in prose(path):
        for match in CITATION.finditer(text):
            authors = [match.group(1)] + re.findall(r"[A-Z][\w\-]+", match.group(2))
            known = [plain(a) for a in authors if plain(a) in surnames]
            if known and not any((a, match.group(3)) in pairs for a in known):
                problems.append(f"{where(path, first_line, text, match.start())}: {match.group(0)!r} "
                                f"has no entry in docs/references.md")
    return problems


# --------------------------------------------------------------------------- tests

def test_the_scan_sees_the_citing_files():
    names = {p.relative_to(ROOT).as_posix() for p in scanned()}
    assert {"README.md", "docs/references.md", "pyeval/core/evaluation.py", "sql/views/ranked_entries.sql"} <= names


@pytest.mark.parametrize("check", [reference_problems, outside_problems, citation_problems],
                         ids=["references", "outside", "citations"])
def test_every_reference_resolves(check):
    problems = [problem for path in scanned() for problem in check(path)]
    assert not problems, "\n".join(problems)


#: The folder beside the repository that nothing here may cite (spelled in two parts, so that a
#: search for it finds the checks, not a reference).
SHARED_FOLDER = "../" + "shared"


def test_the_checks_catch_what_they_should(tmp_path):
    """A broken link, a missing anchor, section and path, an outside reference and a citation
    without an entry are each reported."""
    probe = tmp_path / "probe.md"
    probe.write_text(
        "See [nowhere](nowhere.md), docs/adhoc-measures.md section 99.9, sql/views/no_such.sql,\n"
        "[adhoc-measures.md](docs/adhoc-measures.md#no-such-anchor), docs/input-files.md, \"No such\",\n"
        f"the seed 003 paper, {SHARED_FOLDER}/reference and Sakai, AIRS 1999.\n", encoding="utf-8")
    found = "\n".join(reference_problems(probe) + outside_problems(probe) + citation_problems(probe))
    for expected in ("nowhere.md", "section 99.9", "sql/views/no_such.sql", "#no-such-anchor",
                     '"No such"', "seed 003", SHARED_FOLDER, "Sakai, AIRS 1999"):
        assert expected in found
    good = tmp_path / "good.md"
    good.write_text("docs/adhoc-measures.md sections 3.1, 3.2 and 4.1; [formats](docs/input-files.md#4-ordering-and-ties);\n"
                    "docs/measures.md, \"Conventions\"; sql/views/ranked_entries.sql; Sakai, AIRS 2005;\n"
                    "--seed 0 (B = 1000, seed 0).\n", encoding="utf-8")
    assert reference_problems(good) + outside_problems(good) + citation_problems(good) == []
