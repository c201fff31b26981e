"""In-process micro-benchmark of the schema walker (run by ``bench/run.py`` in a fresh process).

``python bench/walk_bench.py CATALOG.json [--rounds N]`` loads an MCP ``tools/list`` file and
times, over every ``inputSchema`` and ``outputSchema`` of its tools:

* ``iter_schemas``: ``toolcat.schema.walker.iter_schemas`` visiting every schema node;
* ``transform``: ``toolcat.schema.walker.transform`` with an identity hook (the rebuild that
  ``project`` does);
* ``floor``: a bare iterative walk over every JSON value (no keyword logic at all): the cost
  floor of visiting the data in Python.

Each figure is the best of N rounds, divided by the number of JSON values in those schemas
(objects, arrays and scalars, keys not counted), in nanoseconds. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time


def _floor_walk(value) -> int:  # noqa: ANN001
    n = 0
    stack = [value]
    pop = stack.pop
    push = stack.extend
    while stack:
        v = pop()
        n += 1
        if isinstance(v, dict):
            push(v.values())
        elif isinstance(v, list):
            push(v)
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("catalog")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)

    from toolcat.schema.walker import count_values, iter_schemas, transform

    with open(a.catalog, "rb") as f:
        data = f.read()
    try:
        import orjson

        doc = orjson.loads(data)
    except ImportError:  # pragma: no cover
        doc = json.loads(data)
    tools = doc["tools"] if isinstance(doc, dict) else doc
    schemas = [s for t in tools for s in (t.get("inputSchema"), t.get("outputSchema"))
               if isinstance(s, (dict, bool))]
    values = sum(count_values(s) for s in schemas)

    def run_iter() -> int:
        n = 0
        for s in schemas:
            for _ in iter_schemas(s):
                n += 1
        return n

    def run_transform() -> int:
        def hook(node, path, dialect):  # noqa: ANN001, ANN202, ARG001
            return node

        for s in schemas:
            transform(s, hook)
        return 0

    def run_floor() -> int:
        return sum(_floor_walk(s) for s in schemas)

    out: dict = {"catalog": a.catalog, "tools": len(tools), "schemas": len(schemas),
                 "values": values, "rounds": a.rounds}
    gc.freeze()  # the loaded catalog is permanent: keep collector passes over it out of the figure
    gc.disable()
    for name, fn in (("floor", run_floor), ("iter_schemas", run_iter),
                     ("transform", run_transform)):
        best = float("inf")
        result = 0
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            result = fn()
            best = min(best, time.perf_counter() - t0)
        out[name] = {"seconds": best, "ns_per_value": best * 1e9 / max(values, 1)}
        if name == "iter_schemas":
            out["schema_nodes"] = result
    gc.enable()
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
