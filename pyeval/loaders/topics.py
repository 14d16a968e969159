"""Loading topic titles (and descriptions) into ``topic_texts``, for dashboards (docs/bi.md).

Two formats: a TREC topics file (``<top>`` blocks with ``<num> Number: 301``, ``<title>`` and
``<desc> Description:``, as NIST distributes them; or the TREC Web track's XML, ``<topic
number="151">`` with ``<query>`` and ``<description>``), or a tab-separated file of
``topic_id<TAB>title[<TAB>description]``. Topic files hold tens to hundreds of topics, so they
are parsed with regular expressions over the whole text.
"""
from __future__ import annotations

import gzip
import hashlib
import html
import os
import re
from pathlib import Path

import duckdb

from pyeval.core.db import transaction
from ..errors import InputFormatError
from .staging import LoadReport, require_campaign

_SGML = re.compile(r"<top>(.*?)</top>", re.DOTALL | re.IGNORECASE)
_XML = re.compile(r"<topic\s+number=\"([^\"]+)\"[^>]*>(.*?)</topic>", re.DOTALL | re.IGNORECASE)


def _field(block: str, tag: str, label: str = "") -> str | None:
    found = re.search(rf"<{tag}>\s*(?:{label}:?)?(.*?)(?=<|\Z)", block, re.DOTALL | re.IGNORECASE)
    if found is None:
        return None
    text = " ".join(html.unescape(found.group(1)).split())
    return text or None


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def parse_topics(text: str, label: str) -> list[tuple[str, str | None, str | None, int]]:
    """``(topic_id, title, description, line)`` of every topic of ``text``."""
    if _XML.search(text):
        found = [(m.group(1).strip(), _field(m.group(2), "query"), _field(m.group(2), "description"),
                  _line(text, m.start())) for m in _XML.finditer(text)]
    elif _SGML.search(text):
        found = []
        for match in _SGML.finditer(text):
            number = re.search(r"<num>\s*(?:Number:)?\s*(\S+)", match.group(1), re.IGNORECASE)
            if number is None:
                raise InputFormatError(label, _line(text, match.start()), "a <top> without a <num>")
            found.append((number.group(1), _field(match.group(1), "title", "Topic"),
                          _field(match.group(1), "desc", "Description"), _line(text, match.start())))
    else:
        found = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) not in (2, 3) or not fields[0].strip():
                raise InputFormatError(label, number, "expected topic_id<TAB>title[<TAB>description] "
                                       "or a TREC topics file (<top>, <num>, <title>)")
            found.append((fields[0].strip(), fields[1].strip() or None,
                          (fields[2].strip() or None) if len(fields) == 3 else None, number))
    if not found:
        raise InputFormatError(label, None, "holds no topic")
    seen: dict[str, int] = {}
    for topic_id, _, _, line in found:
        if topic_id in seen:
            raise InputFormatError(label, line, f"topic {topic_id} again (first on line {seen[topic_id]})")
        seen[topic_id] = line
    return found


def load_topics(con: duckdb.DuckDBPyConnection, campaign_id: str, path: str | os.PathLike[str]) -> LoadReport:
    """Load a topics file's titles into ``topic_texts`` for an existing campaign, replacing the
    titles loaded for it before (one transaction).

    Raises
    ------
    InputFormatError
        No such file, no topic in it, a malformed line, or a topic twice (``FILE:LINE: ...``).
    UnknownCampaignError
        The campaign does not exist.
    """
    label = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputFormatError(label, None, "no such file") from None
    except OSError as exc:
        raise InputFormatError(label, None, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(label, None, f"cannot read the file as UTF-8 text: {exc}") from None
    topics = parse_topics(text, label)
    source = str(Path(path).resolve())
    with transaction(con):
        require_campaign(con, campaign_id, label)
        con.execute("delete from topic_texts where campaign_id = $c", {"c": campaign_id})
        con.executemany(
            "insert into topic_texts (campaign_id, topic_id, title, description, source_file) values (?, ?, ?, ?, ?)",
            [(campaign_id, topic_id, title, description, source) for topic_id, title, description, _ in topics],
        )
    return LoadReport("topics", campaign_id, source, hashlib.sha256(data).hexdigest(), len(topics), len(topics))
