"""A second version of the largest corpus spec, for the ``toolcat diff`` row of bench/run.py.

The corpus holds one version of ``openai.openapi.yaml``; this script makes another with a few
scripted text edits of the kinds a release brings (the YAML is otherwise byte-identical, so
parsing it costs the same):

* ``listModels`` gets a new required query parameter (breaking),
* ``CreateSpeechRequest.input`` a lower ``maxLength`` (breaking), its ``response_format``
  loses the ``pcm`` value (breaking) and ``speed`` a higher ``maximum`` (non-breaking),
* the shared ``ReasoningEffort`` loses ``max`` (breaking, in every tool that uses it),
* ``listModels`` gets a rewritten summary (behavioural),
* ``deleteModel`` is renamed ``deleteModelById`` (a likely rename: the same definition).

    python bench/second_version.py OLD.yaml NEW.yaml

Each edit's anchor must occur exactly once (the script fails otherwise, naming it).
"""

from __future__ import annotations

import sys
from pathlib import Path

# (what, anchor that must occur once, text after the anchor, its replacement)
EDITS = [
    ("new required parameter", "      operationId: listModels\n",
     "      tags:\n        - Models\n",
     "      parameters:\n        - name: owner\n          in: query\n          required: true\n"
     "          schema:\n            type: string\n      tags:\n        - Models\n"),
    ("summary rewritten", "      operationId: listModels\n",
     "      summary: Lists the currently available models,",
     "      summary: Lists the models available to your organization,"),
    ("maxLength lowered", "\n    CreateSpeechRequest:\n",
     "          maxLength: 4096\n", "          maxLength: 2048\n"),
    ("enum value removed", "\n    CreateSpeechRequest:\n",
     "            - wav\n            - pcm\n", "            - wav\n"),
    ("maximum raised", "\n    CreateSpeechRequest:\n",
     "          minimum: 0.25\n          maximum: 4\n", "          minimum: 0.25\n          maximum: 8\n"),
    ("shared enum value removed", "\n    ReasoningEffort:\n",
     "            - xhigh\n            - max\n", "            - xhigh\n"),
    ("operation renamed", "  /models/{model}:\n",
     "      operationId: deleteModel\n", "      operationId: deleteModelById\n"),
]


def make(src: str, dst: str) -> list[str]:
    text = Path(src).read_text(encoding="utf-8")
    done = []
    for what, anchor, old, new in EDITS:
        n = text.count(anchor)
        if n != 1:
            raise SystemExit(f"second_version: anchor of {what!r} occurs {n} times in {src}")
        at = text.index(anchor) + len(anchor)
        i = text.find(old, at)
        if i < 0:
            raise SystemExit(f"second_version: {what!r}: text not found after its anchor")
        text = text[:i] + new + text[i + len(old):]
        done.append(what)
    Path(dst).write_text(text, encoding="utf-8")
    return done


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[-3].strip())
    print("\n".join(make(sys.argv[1], sys.argv[2])))
