#!/usr/bin/env python3
"""Run README.md's example console blocks and compare (or refresh) the output they show.

An example block is a ```console fence right after an HTML comment ``<!-- example -->``
(``<!-- example exit=N -->`` when its last command exits N; the others must exit 0). In
the block, lines starting with ``$ `` are commands; the lines after a command, up to the next
``$ ``, are its output (stdout and stderr as they interleave, as on a terminal).

How the blocks run (README.md, section "How the README is tested", says the same):

* from the repository root, each block in one ``bash`` process (a variable set by one
  command is seen by the next), with ``NO_COLOR=1``, ``COLUMNS=100``, stderr joined to
  stdout, and the folder of the running Python first on ``PATH`` (the ``toolcat`` under test);
* the folder ``/tmp/toolcat-demo`` in a command is replaced by a fresh temporary folder, and
  that folder by ``/tmp/toolcat-demo`` in the output;
* compared after removing trailing spaces on each line and trailing blank lines. Nothing else
  is normalised.

The rule table between ``<!-- rules:begin -->`` and ``<!-- rules:end -->`` is
``toolcat.features.lint.registry.rules_markdown()``; the provider and client tables between
``<!-- providers:begin -->`` and ``<!-- providers:end -->`` are
``toolcat.features.lint.profiles.providers_markdown()``.

    python scripts/readme_examples.py           # exit 1 and show the differences
    python scripts/readme_examples.py --update  # rewrite README.md with the real output
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DEMO = "/tmp/toolcat-demo"
BLOCK_RE = re.compile(r"<!-- example(?: exit=(\d+))? -->\n```console\n(.*?)```\n", re.S)
RULES_RE = re.compile(r"(<!-- rules:begin[^\n]*-->\n)(.*?)(<!-- rules:end -->)", re.S)
PROVIDERS_RE = re.compile(r"(<!-- providers:begin[^\n]*-->\n)(.*?)(<!-- providers:end -->)",
                          re.S)
MARK = "@@toolcat-readme-example@@"


@dataclass
class Step:
    command: str
    expected: str


@dataclass
class Block:
    start: int          # offset of the block body in README.md
    end: int
    exit: int
    steps: list[Step]
    line: int           # line number of the fence


def normalize(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def blocks(text: str) -> list[Block]:
    out = []
    for m in BLOCK_RE.finditer(text):
        steps: list[Step] = []
        for line in m.group(2).splitlines():
            if line.startswith("$ "):
                steps.append(Step(line[2:], ""))
            elif steps:
                steps[-1].expected += line + "\n"
            else:
                raise ValueError(f"README.md:{text.count(chr(10), 0, m.start()) + 2}: an example "
                                 "block must start with a `$ ` command")
        out.append(Block(m.start(2), m.end(2), int(m.group(1) or 0), steps,
                         text.count("\n", 0, m.start()) + 2))
    return out


def run_block(block: Block) -> list[tuple[str, int]]:
    """(output, exit code) of each command of the block."""
    with tempfile.TemporaryDirectory(prefix="toolcat-readme-") as tmp:
        script = ["exec 2>&1"]
        for i, step in enumerate(block.steps):
            cmd = step.command.replace(DEMO, tmp)
            script.append(f"printf '%s\\n' '{MARK} {i}'")
            script.append(cmd)
            script.append(f"printf '\\n%s %d\\n' '{MARK} exit' $?")
        env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
        env.update(NO_COLOR="1", COLUMNS="100", LINES="50", TERM="dumb",
                   PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
        r = subprocess.run(["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
                           cwd=REPO, env=env, capture_output=True, timeout=300)
        text = r.stdout.decode("utf-8", "replace").replace(tmp, DEMO)
    results = []
    for i in range(len(block.steps)):
        part = text.split(f"{MARK} {i}\n", 1)[1]
        body, rest = part.split(f"\n{MARK} exit ", 1)
        results.append((body, int(rest.split("\n", 1)[0])))
    return results


def check(text: str) -> list[str]:
    """Differences between README.md and real runs; empty when README is current."""
    problems = []
    bl = blocks(text)
    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(run_block, bl))
    for block, results in zip(bl, runs):
        for i, (step, (out, code)) in enumerate(zip(block.steps, results)):
            where = f"README.md:{block.line}: $ {step.command}"
            want_code = block.exit if i == len(block.steps) - 1 else 0
            if code != want_code:
                problems.append(f"{where}: exit {code}, README says {want_code}\n{out}")
            want, got = normalize(step.expected), normalize(out)
            if want != got:
                diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(),
                                                      "README", "real run", lineterm=""))
                problems.append(f"{where}: output differs\n{diff}")
    rules = RULES_RE.search(text)
    from toolcat.features.lint.registry import rules_markdown

    if not rules:
        problems.append("README.md: no <!-- rules:begin --> ... <!-- rules:end --> section")
    elif rules.group(2).strip() != rules_markdown().strip():
        problems.append("README.md: the rule table differs from rules_markdown()")
    providers = PROVIDERS_RE.search(text)
    from toolcat.features.lint.profiles import providers_markdown

    if not providers:
        problems.append("README.md: no <!-- providers:begin --> ... <!-- providers:end --> "
                        "section")
    elif providers.group(2).strip() != providers_markdown().strip():
        problems.append("README.md: the provider tables differ from providers_markdown()")
    return problems


def update(text: str) -> str:
    bl = blocks(text)
    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(run_block, bl))
    for block, results in reversed(list(zip(bl, runs))):
        body = ""
        for step, (out, _code) in zip(block.steps, results):
            body += f"$ {step.command}\n"
            out = normalize(out)
            body += out + "\n" if out else ""
        text = text[:block.start] + body + text[block.end:]
    from toolcat.features.lint.registry import rules_markdown

    text = RULES_RE.sub(lambda m: m.group(1) + rules_markdown().strip() + "\n" + m.group(3),
                        text)
    from toolcat.features.lint.profiles import providers_markdown

    text = PROVIDERS_RE.sub(lambda m: m.group(1) + providers_markdown().strip() + "\n"
                            + m.group(3), text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="rewrite README.md's outputs")
    args = ap.parse_args(argv)
    text = README.read_text()
    if args.update:
        new = update(text)
        README.write_text(new)
        problems = check(new)  # exit codes
        print("README.md updated" if new != text else "README.md was current")
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    problems = check(text)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
