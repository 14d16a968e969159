"""Resamples as data: bootstrap index matrices, sign flips and row permutations.

Conventions of docs/resampling.md and docs/meta-evaluation.md section 13: every draw comes from NumPy's
``Generator(PCG64)`` seeded with ``SeedSequence(seed, spawn_key=(purpose[, chunk]))`` (the
children ``SeedSequence(seed).spawn`` would give), one purpose per kind of draw, so that a
seed fixes every replicate on any machine and for any chunking of the computation. Indices
refer to the canonical topic order (topic ids sorted, byte order) and run order (run ids
sorted).

Bootstrap index matrices (B x n) and sign-flip matrices (B x n) are stored row by row in
``resample_replicates``; randomised Tukey HSD permutations (B x n x m, too large to keep) are
regenerated chunk by chunk from their recorded seed and chunk size and verified against the
stored sha256 (``resample_sets.data_sha256``).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np

from pyeval.core.db import first_row, transaction
from ..errors import DataIntegrityError

GENERATOR = "PCG64"
#: spawn_key[0] of each purpose: one independent stream per kind of draw.
PURPOSES = {"bootstrap": 0, "signflip": 1, "permutation": 2, "runs": 3, "subset": 4, "disjoint_pair": 5,
            "bootstrap_pair": 6}
KINDS = ("bootstrap", "signflip", "permutation")
#: Topic-subset draws of stage II (docs/resampling.md): T x c subsets without replacement
#: (stability), T x 2c disjoint subset pairs (swap rate) or T x 2c pairs of bootstrap samples.
SUBSET_KINDS = ("subset", "disjoint_pair", "bootstrap_pair")
#: Replicates per regenerated chunk of row permutations (part of a permutation set's identity).
PERMUTATION_CHUNK = 250


def generator(seed: int, purpose: str, chunk: int | None = None) -> np.random.Generator:
    """The Generator of one purpose (and chunk) of ``seed``: PCG64 from a spawned SeedSequence."""
    key = (PURPOSES[purpose],) if chunk is None else (PURPOSES[purpose], chunk)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def topic_set_sha256(topic_ids: Sequence[str]) -> str:
    """sha256 of the canonical topic list (ids joined by newlines), the key of a replicate set."""
    return hashlib.sha256("\n".join(topic_ids).encode("utf-8")).hexdigest()


def bootstrap_indices(seed: int, n: int, replicates: int) -> np.ndarray:
    """B x n topic positions drawn uniformly with replacement (Sakai 2006; JIP 2013 Fig. 2)."""
    return generator(seed, "bootstrap").integers(0, n, size=(replicates, n), dtype=np.int32)


def signflip_draws(seed: int, n: int, replicates: int) -> np.ndarray:
    """B x n flags, 1 = swap the two runs' scores on that topic (Fisher randomisation test)."""
    return generator(seed, "signflip").integers(0, 2, size=(replicates, n), dtype=np.int32)


def permutation_chunks(
    seed: int, n: int, m: int, replicates: int, chunk_size: int = PERMUTATION_CHUNK
) -> Iterator[np.ndarray]:
    """Row permutations for randomised Tukey HSD (Carterette 2012; JIP 2013 Fig. 4), in chunks
    of ``chunk_size`` replicates: arrays c x n x m whose [b, t] is a permutation of 0..m-1."""
    dtype = np.int16 if m <= np.iinfo(np.int16).max else np.int32
    base = np.arange(m, dtype=dtype)
    for chunk, first in enumerate(range(0, replicates, chunk_size)):
        size = min(chunk_size, replicates - first)
        draws = np.array(np.broadcast_to(base, (size, n, m)))
        generator(seed, "permutation", chunk).permuted(draws, axis=2, out=draws)
        yield draws


def subset_draws(kind: str, seed: int, n: int, size: int, trials: int) -> np.ndarray:
    """T x c (``subset``) or T x 2c (pairs) topic positions, one trial per row.

    ``subset``: c distinct topics; ``disjoint_pair``: 2c distinct topics, the first c are Q_t and
    the last c Q'_t (Voorhees & Buckley 2002); ``bootstrap_pair``: 2c positions drawn with
    replacement (Soboroff; subsets may overlap and c may equal n). Distinct topics come from one
    row-wise permutation of 0..n-1 per trial (``Generator.permuted``), truncated.
    """
    rng = generator(seed, kind)
    if kind == "bootstrap_pair":
        return rng.integers(0, n, size=(trials, 2 * size), dtype=np.int32)
    width = size if kind == "subset" else 2 * size
    if width > n:
        raise ValueError(f"{width} distinct topics requested from {n}")
    draws = np.array(np.broadcast_to(np.arange(n, dtype=np.int32), (trials, n)))
    rng.permuted(draws, axis=1, out=draws)
    return np.ascontiguousarray(draws[:, :width])


def data_sha256(chunks: Sequence[np.ndarray] | Iterator[np.ndarray]) -> str:
    """sha256 of replicate data as little-endian int32, C order, chunk after chunk."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(np.ascontiguousarray(chunk, dtype="<i4").tobytes())
    return digest.hexdigest()


@dataclass
class ReplicateSet:
    """One set of resamples: what it is for, how it was drawn, and (bootstrap, sign flips) the
    draws themselves. ``replicate_set_id`` is None when it is not stored."""

    kind: str
    campaign_id: str
    topic_ids: tuple[str, ...]
    replicates: int
    seed: int
    run_count: int | None = None
    chunk_size: int | None = None
    draws: np.ndarray | None = field(default=None, repr=False)
    sha256: str = ""
    replicate_set_id: int | None = None
    subset_size: int | None = None

    @property
    def spawn_key(self) -> str:
        return f"({PURPOSES[self.kind]},)" if self.kind != "permutation" else f"({PURPOSES[self.kind]}, chunk)"

    def chunks(self) -> Iterator[np.ndarray]:
        """Permutations of this set, regenerated (kind 'permutation' only)."""
        return permutation_chunks(self.seed, len(self.topic_ids), self.run_count, self.replicates,
                                  self.chunk_size)


def draw(kind: str, campaign_id: str, topic_ids: Sequence[str], replicates: int, seed: int,
         run_count: int | None = None, subset_size: int | None = None) -> ReplicateSet:
    """Generate a replicate set in memory (not stored)."""
    n = len(topic_ids)
    if kind in SUBSET_KINDS:
        draws = subset_draws(kind, seed, n, subset_size, replicates)
        return ReplicateSet(kind, campaign_id, tuple(topic_ids), replicates, seed, None, None, draws,
                            data_sha256([draws]), subset_size=subset_size)
    if kind == "bootstrap":
        draws = bootstrap_indices(seed, n, replicates)
    elif kind == "signflip":
        draws = signflip_draws(seed, n, replicates)
    elif kind == "permutation":
        result = ReplicateSet(kind, campaign_id, tuple(topic_ids), replicates, seed, run_count,
                              PERMUTATION_CHUNK)
        result.sha256 = data_sha256(result.chunks())
        return result
    else:
        raise ValueError(f"replicate kind must be one of {', '.join(KINDS)}; got {kind!r}")
    return ReplicateSet(kind, campaign_id, tuple(topic_ids), replicates, seed, None, None, draws,
                        data_sha256([draws]))


_FIND = """
select replicate_set_id, data_sha256, chunk_size
from resample_sets
where kind = $kind and campaign_id = $campaign_id and topic_set_sha256 = $topics
  and replicates = $replicates and seed = $seed and coalesce(run_count, 0) = $run_count
  and generator = $generator and coalesce(subset_size, 0) = $subset_size
order by replicate_set_id
limit 1
"""


def obtain(con: duckdb.DuckDBPyConnection | None, kind: str, campaign_id: str, topic_ids: Sequence[str],
           replicates: int, seed: int, run_count: int | None = None, *, store: bool = True,
           subset_size: int | None = None) -> ReplicateSet:
    """The replicate set for (kind, campaign, topic set, B, seed[, m]): the stored one if there is
    one (verified against its sha256), else a new one, stored when ``store``.

    Every measure and run pair of one campaign and topic set thus shares the same replicates.
    """
    topic_ids = tuple(topic_ids)
    key = {"kind": kind, "campaign_id": campaign_id, "topics": topic_set_sha256(topic_ids),
           "replicates": replicates, "seed": seed, "run_count": run_count or 0, "generator": GENERATOR,
           "subset_size": subset_size or 0}
    row = first_row(con, _FIND, key) if con is not None else None
    if row is not None:
        set_id, sha256, chunk_size = row
        result = ReplicateSet(kind, campaign_id, topic_ids, replicates, seed, run_count, chunk_size,
                              sha256=sha256, replicate_set_id=set_id, subset_size=subset_size)
        if kind == "permutation":
            return result  # verified while regenerated (tukey_hsd checks the hash)
        table = con.sql(
            "select draw from resample_replicates where replicate_set_id = $id order by replicate",
            params={"id": set_id},
        ).to_arrow_table()
        import pyarrow.compute as pc

        flat = pc.list_flatten(table.column(0)).to_numpy()
        result.draws = flat.astype(np.int32).reshape(replicates, -1)
        if data_sha256([result.draws]) != sha256:
            raise DataIntegrityError(
                f"stored replicate set {set_id} does not match its sha256; it was changed after it was stored"
            )
        return result
    result = draw(kind, campaign_id, topic_ids, replicates, seed, run_count, subset_size)
    if store and con is not None:
        _store(con, result, key["topics"])
    return result


def _store(con: duckdb.DuckDBPyConnection, result: ReplicateSet, topics_sha256: str) -> None:
    import pyarrow as pa

    with transaction(con):  # part of the command's transaction, if any (pyeval.core.db)
        set_id = first_row(con, "select coalesce(max(replicate_set_id), 0) + 1 from resample_sets")[0]
        con.execute(
            "insert into resample_sets (replicate_set_id, kind, campaign_id, topic_ids, topic_set_sha256, "
            "topic_count, run_count, replicates, seed, spawn_key, generator, numpy_version, chunk_size, "
            "draws_stored, data_sha256, subset_size) values ($id, $kind, $campaign_id, $topic_ids, $topics, $n, $m, "
            "$b, $seed, $spawn_key, $generator, $numpy, $chunk, $stored, $sha, $subset_size)",
            {"id": set_id, "kind": result.kind, "campaign_id": result.campaign_id,
             "topic_ids": list(result.topic_ids), "topics": topics_sha256, "n": len(result.topic_ids),
             "m": result.run_count, "b": result.replicates, "seed": result.seed,
             "spawn_key": result.spawn_key, "generator": GENERATOR, "numpy": np.__version__,
             "chunk": result.chunk_size, "stored": result.draws is not None, "sha": result.sha256,
             "subset_size": result.subset_size},
        )
        if result.draws is not None:
            width = result.draws.shape[1]
            frame = pa.table({
                "replicate": np.arange(1, result.replicates + 1, dtype=np.int32),
                "draw": pa.FixedSizeListArray.from_arrays(pa.array(result.draws.ravel()), width),
            })
            con.register("new_replicates", frame)
            try:
                con.execute(
                    "insert into resample_replicates (replicate_set_id, replicate, draw) "
                    "select $id, replicate, draw::integer[] from new_replicates",
                    {"id": set_id},
                )
            finally:
                con.unregister("new_replicates")
    result.replicate_set_id = set_id


def sample_runs(run_ids: Sequence[str], k: int, seed: int) -> list[str]:
    """k runs drawn without replacement from the sorted ``run_ids`` (Sakai & Song, SIGIR 2011: 20 runs sampled at
    random per collection), returned sorted."""
    ordered = sorted(run_ids)
    chosen = generator(seed, "runs").choice(len(ordered), size=k, replace=False)
    return sorted(ordered[i] for i in chosen)
