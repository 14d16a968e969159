"""Named gain profiles: relevance level -> gain maps stored per campaign (table gain_profiles).

Built in (no rows needed; sql/views/gain_values.sql): ``linear`` (gain = level), ``exp``
(2^level - 1), and the seed-001 assignments ``flat`` (1:1:1), ``steep`` (10:5:1) and the
per-topic ``adjust`` (Sakai, AIRS 2005). Anything else is defined here and then named in a
measure (``nDCG(gain=mine)@10``) or with ``--gains``.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

import duckdb

from pyeval.core import archive
from pyeval.core.db import first_row, transaction, unknown_campaign
from pyeval.errors import MeasureParamError, already_stored
from pyeval.measures.common import BUILTIN_GAIN_PROFILES, PROFILE_GAIN, PROFILE_LEVEL, inline_profile, is_inline_profile, level_gain_pairs

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_gains(spec: str | Mapping[int, float]) -> dict[int, float]:
    """A gain map from a mapping, ``'1=3,2=9,4=4.5'`` (level=gain pairs, trec_eval's ndcg
    parameters) or ``'1:3:7'`` (the gains of levels 1, 2, 3, ...: NTCIREVAL's ``-g`` order,
    lowest level first; Sakai's "3:2:1" (S:A:B) is ``'1:2:3'`` here).

    Raises
    ------
    MeasureParamError
        The text is neither form, or a level or gain is outside its domain
        (pyeval.measures.common.PROFILE_LEVEL, PROFILE_GAIN).
    """
    try:
        if isinstance(spec, Mapping):
            gains = {int(level): float(gain) for level, gain in spec.items()}
        else:
            text = spec.replace(" ", "")
            if "=" in text:
                gains = level_gain_pairs(text)
            else:
                gains = {level: float(g) for level, g in enumerate(text.split(":"), start=1)}
    except (ValueError, OverflowError, TypeError):
        raise MeasureParamError(
            f"gains must be 'level=gain,...' or 'g1:g2:...', got {spec!r}"
        ) from None
    if not gains:
        raise MeasureParamError(f"gains need levels >= 0, got {spec!r}")
    for level, gain in gains.items():
        problem = PROFILE_LEVEL.problem(level) or PROFILE_GAIN.problem(gain)
        if problem is not None:
            what = "level" if PROFILE_LEVEL.problem(level) else f"the gain of level {level}"
            raise MeasureParamError(f"gains {spec!r}: {what} {problem}")
    return gains


def define_gain_profile(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    name: str,
    gains: str | Mapping[int, float],
    *,
    topic_id: str | None = None,
    replace: bool = False,
) -> dict[int, float]:
    """Store gain profile ``name`` for a campaign (for one topic when ``topic_id`` is given:
    per-topic gains, e.g. Sakai's "adjust" assignment). Levels the profile does not list keep
    gain = level. Returns the stored map.

    An inline profile (measures.common.inline_profile: ``'0=1,1=4'``, named by its gains) is
    accepted when its name is its gains' canonical text."""
    inline = is_inline_profile(name) and topic_id is None and inline_profile(parse_gains(name)) == name
    if not inline and (not _NAME.fullmatch(name) or name in BUILTIN_GAIN_PROFILES):
        raise MeasureParamError(
            f"a gain profile name must be an identifier other than {', '.join(BUILTIN_GAIN_PROFILES)}; "
            f"got {name!r}"
        )
    if first_row(con, "select count(*) from campaigns where campaign_id = $c", {"c": campaign_id})[0] == 0:
        raise unknown_campaign(con, campaign_id)
    parsed = parse_gains(gains)
    keys = {"campaign_id": campaign_id, "profile": name, "topic_id": topic_id or ""}
    with transaction(con):  # part of the command's transaction, if any (pyeval.core.db)
        exists = first_row(
            con,
            "select count(*) from gain_profiles where campaign_id = $campaign_id and profile = $profile "
            "and topic_id = $topic_id",
            keys,
        )[0]
        if exists and not replace:
            raise already_stored(f"gain profile '{name}' exists for campaign '{campaign_id}'",
                                 error=MeasureParamError)
        con.execute(
            "delete from gain_profiles where campaign_id = $campaign_id and profile = $profile "
            "and topic_id = $topic_id",
            keys,
        )
        # Scores computed with the old gains stay in the archive; the view scores hides them
        # (sql/views/stale_results.sql compares the profile's sha256 with the recorded one).
        con.execute(
            "insert into gain_profiles (campaign_id, profile, topic_id, level, gain) "
            "select $campaign_id, $profile, $topic_id, unnest($levels), unnest($gains)",
            {**keys, "levels": list(parsed), "gains": list(parsed.values())},
        )
        archive.refresh(con, campaign_id)
    return parsed
