"""Generated answers (issue 41): loading (and scoring) nugget banks, answers and assignments
against DuckDB's read_json of the same files.

    python bench/bench_rag.py [--runs 100] [--topics 100] [--nuggets 30] [--repeat 5]
                              [--skip-score] [--out bench/results/rag.json]

1. Generates, reproducibly (``random.Random(seed)``), in a temporary folder: a nugget bank in
   nuggetizer's create format (``--topics`` x ``--nuggets``, importance vital or okay), the
   answers of ``--runs`` runs to every topic in the TREC RAG 2024 format (10 sentences of 20
   words, 20 references of MS MARCO v2.1 segment ids, 2 citations per sentence) and one
   assignment set in nuggetizer's assign format (one line per run and topic, every nugget of the
   topic labelled support, partial_support or not_support).
2. Times whole processes (interpreter start-up and imports included, pyeval from cached bytecode
   as an installed package), interleaved in each repetition, with the machine's 1-minute load:

   - ``pyeval load nuggets``, ``pyeval load answers``, ``pyeval load assignments`` into a
     warehouse copied (untimed) from a migrated empty one, and, unless ``--skip-score``,
     ``pyeval evaluate -m vital_score`` under the loaded set (issue 41's measures);
   - the floor of each file: a process that imports DuckDB, opens a new database file and
     ``create table ... as select * from read_json(FILE)``: reading the same JSON lines into a
     table, with no check and no provenance.

3. Prints the medians and the ratios (each load against its file's floor, and the loads
   together, and with scoring, against the three floors together) and writes them as JSON.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import common

WORDS = ("retrieval augmented generation answer nugget support citation document segment passage "
         "query topic assessor vital okay partial evaluation model system track judgment").split()


def generate(folder: Path, runs: int, topics: int, nuggets: int, seed: int) -> dict[str, Path]:
    """The three files (see the module's docstring); returns their paths."""
    rng = random.Random(seed)

    def words(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    topic_ids = [f"2024-{100000 + 7 * t}" for t in range(topics)]
    bank = {t: [(f"{words(9)} {t} {i}", "vital" if rng.random() < 0.4 else "okay") for i in range(nuggets)]
            for t in topic_ids}
    paths = {name: folder / f"{name}.jsonl" for name in ("nuggets", "answers", "assignments")}
    with open(paths["nuggets"], "w") as out:
        for t in topic_ids:
            out.write(json.dumps({"qid": t, "query": words(8), "nuggets": [
                {"text": text, "importance": importance} for text, importance in bank[t]]}) + "\n")
    labels = ("support", "partial_support", "not_support")
    with open(paths["answers"], "w") as answers, open(paths["assignments"], "w") as assignments:
        for r in range(runs):
            run_id = f"team{r // 4:02d}-run{r % 4}"
            for t in topic_ids:
                references = [f"msmarco_v2.1_doc_{rng.randrange(60):02d}_{rng.randrange(10**9)}#{rng.randrange(9)}_"
                              f"{rng.randrange(10**9)}" for _ in range(20)]
                sentences = [{"text": words(20) + ".", "citations": sorted(rng.sample(range(20), 2))}
                             for _ in range(10)]
                answers.write(json.dumps({"run_id": run_id, "topic_id": t, "topic": "q", "references": references,
                                          "response_length": 200, "answer": sentences}) + "\n")
                assignments.write(json.dumps({
                    "query": "q", "qid": t, "answer_text": " ".join(s["text"] for s in sentences),
                    "response_length": 200, "run_id": run_id,
                    "nuggets": [{"text": text, "importance": importance, "assignment": rng.choice(labels)}
                                for text, importance in bank[t]]}) + "\n")
    return paths


FLOOR = """
import sys, duckdb
con = duckdb.connect(sys.argv[2])
con.execute("create table data as select * from read_json(?, format = 'newline_delimited')", [sys.argv[1]])
con.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--nuggets", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--skip-score", action="store_true", help="time the loads only (no pyeval evaluate)")
    parser.add_argument("--out", type=Path, default=common.REPO / "bench" / "results" / "rag.json")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench_rag_"))
    try:
        setting = common.installed_bytecode(tmp)
        paths = generate(tmp, args.runs, args.topics, args.nuggets, args.seed)
        sizes = {name: path.stat().st_size for name, path in paths.items()}
        exe = common.pyeval_exe()
        empty = tmp / "empty.duckdb"  # a migrated, empty warehouse each repetition starts from (copied, untimed)
        done = common.measure(common.python_command("import sys, pyeval; pyeval.connect(sys.argv[1]).close()",
                                                    str(empty)))
        if done["returncode"]:
            raise SystemExit(done.get("error"))
        steps = [("nuggets", ["load", "nuggets", "-C", "bench", str(paths["nuggets"])]),
                 ("answers", ["load", "answers", "-C", "bench", str(paths["answers"])]),
                 ("assignments", ["load", "assignments", "-C", "bench", str(paths["assignments"])])]
        if not args.skip_score:
            steps.append(("score", ["evaluate", "-C", "bench", "-m", "vital_score"]))
        results: dict[str, list[dict]] = {}
        for _ in range(args.repeat):
            db = tmp / "w.duckdb"
            shutil.copy(empty, db)
            for name, command in steps:
                results.setdefault(f"pyeval_{name}", []).append(common.measure([exe, "--db", str(db), *command]))
            for name, path in paths.items():
                floor_db = tmp / f"floor_{name}.duckdb"
                floor_db.unlink(missing_ok=True)
                results.setdefault(f"floor_{name}", []).append(
                    common.measure(common.python_command(FLOOR, str(path), str(floor_db))))
        failed = {name: rows[0].get("error") for name, rows in results.items() if any(r["returncode"] for r in rows)}
        if failed:
            raise SystemExit(f"failed: {failed}")
        summary = {name: common.summary_row(rows) for name, rows in results.items()}
        wall = {name: row["wall_s"] for name, row in summary.items()}
        loads = sum(wall[f"pyeval_{name}"] for name in paths)
        floors = sum(wall[f"floor_{name}"] for name in paths)
        ratios = {name: round(wall[f"pyeval_{name}"] / wall[f"floor_{name}"], 2) for name in paths}
        ratios["loads"] = round(loads / floors, 2)
        if "pyeval_score" in wall:
            ratios["loads_and_score"] = round((loads + wall["pyeval_score"]) / floors, 2)
        report = {"machine": common.machine({}), "code": common.code_state(), "setting": setting,
                  "sizes_bytes": sizes, "runs": args.runs, "topics": args.topics, "nuggets": args.nuggets,
                  "repeat": args.repeat, "summary": summary, "ratios": ratios}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"files: nuggets {sizes['nuggets'] / 1e6:.2f} MB, answers {sizes['answers'] / 1e6:.1f} MB, "
              f"assignments {sizes['assignments'] / 1e6:.1f} MB")
        print("| step | pyeval (s) | read_json floor (s) | ratio |\n|---|---|---|---|")
        for name in paths:
            print(f"| {name} | {wall[f'pyeval_{name}']:.2f} | {wall[f'floor_{name}']:.2f} | {ratios[name]:.2f} |")
        print(f"| three loads | {loads:.2f} | {floors:.2f} | {ratios['loads']:.2f} |")
        if "pyeval_score" in wall:
            print(f"| score (vital_score) | {wall['pyeval_score']:.2f} | | |")
            print(f"| loads and score | {loads + wall['pyeval_score']:.2f} | {floors:.2f} | "
                  f"{ratios['loads_and_score']:.2f} |")
        print("load1:", statistics.median(r["load1"] for rows in results.values() for r in rows))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
