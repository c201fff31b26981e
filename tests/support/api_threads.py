"""Run toolcat's public API on catalogs one call after another, then the same calls in a
thread pool, and say which results differ (tests/cli/test_api_threads.py runs this in a
process of its own: a call that deadlocks, or leaves the interpreter changed, cannot take
the test process with it).

    python tests/support/api_threads.py JOBS.json THREADS ROUNDS

JOBS.json is a list of jobs: ``["lint" | "project" | "measure", FILE]`` or
``["diff", OLD, NEW]``. Prints one JSON object: ``sequential`` (each job's result, in
order: the JSON the API gives, or ``error: `` and the error's one line), ``mismatches``
(``{"round", "job", "sequential", "threaded"}`` for every threaded result that is not the
sequential one) and ``limit`` (the interpreter's recursion limit before and after).
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor

import toolcat
from toolcat.errors import ToolcatError


def _dump(data: object) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def run_job(job: list[str]) -> str:
    kind, *files = job
    try:
        if kind == "diff":
            old, new = (toolcat.load(f) for f in files)
            return _dump(toolcat.diff(old, new).json())
        cat = toolcat.load(files[0])
        if kind == "lint":
            return _dump(toolcat.lint(cat).json())
        if kind == "project":
            proj = toolcat.project(cat)
            return _dump([proj.catalog(), proj.handbook(), proj.report()])
        if kind == "measure":
            return _dump(toolcat.measure(cat, per_tool=True).json())
        raise ValueError(kind)
    except ToolcatError as e:
        return "error: " + e.render()


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as fh:
        jobs = json.load(fh)
    threads, rounds = int(argv[1]), int(argv[2])
    before = sys.getrecursionlimit()
    sequential = [run_job(j) for j in jobs]
    mismatches = []
    for r in range(rounds):
        with ThreadPoolExecutor(threads) as pool:
            threaded = list(pool.map(run_job, jobs))
        mismatches += [{"round": r, "job": j, "sequential": a[:400], "threaded": b[:400]}
                       for j, a, b in zip(jobs, sequential, threaded) if a != b]
    print(_dump({"sequential": sequential, "mismatches": mismatches,
                 "limit": [before, sys.getrecursionlimit()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
