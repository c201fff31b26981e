"""A call's arguments checked against the upstream's own full input schema before the call is
forwarded (``toolcat serve``; ``--no-validate`` turns it off). No MCP SDK here.

The check only ever refuses what the upstream's schema certainly refuses: it is
``jsonschema`` in the schema's dialect (2020-12 unless ``$schema`` says otherwise, as MCP
says), with every regular expression run by RE2 (:func:`toolcat.schema.regex.search`: linear
time, ECMA-262 semantics) instead of Python's backtracking ``re``, so that a hostile
``pattern`` in a server's schema cannot hang the proxy on a model's argument. A pattern RE2
cannot run (lookahead, back-references, too large) is not checked: the call goes on to the
upstream, which judges it. Likewise a schema jsonschema cannot hold, a ``$ref`` that does
not resolve inside the schema (nothing is fetched), recursion that does not end: the call is
forwarded. ``format`` is not asserted (JSON Schema's default; the SDKs' validators agree).

What a refused call gets is what the MCP SDKs' own servers answer for invalid arguments: a
tool result with ``isError: true`` and one text block, here naming the failed keyword, where
in the arguments (a JSON pointer) and where in the schema.
"""

from __future__ import annotations

import sys
from typing import Any

from toolcat.document.parse import frame_depth

#: Frames one validation may use (a deep instance or a recursive schema ends as "forward").
MAX_FRAMES = 400


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


class ArgumentCheck:
    """The check of one tool's arguments (made once per tool and view)."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self._validator: Any = None
        self._broken = not isinstance(schema, dict)

    def _get(self) -> Any:
        if self._validator is None and not self._broken:
            try:
                from jsonschema import Draft202012Validator
                from jsonschema.validators import validator_for
                from referencing import Registry

                from toolcat.schema.validate import bounded_class

                base = validator_for(self.schema, default=Draft202012Validator)
                cls = bounded_class(base, self.schema, strict=False)
                self._validator = cls(self.schema, registry=Registry())   # fetches nothing
            except Exception:  # noqa: BLE001 - a schema jsonschema cannot hold: forward
                self._broken = True
        return self._validator

    def problem(self, tool: str, arguments: Any) -> str | None:
        """Why the upstream's schema refuses ``arguments`` (one line for the model), or
        None: valid, or not known (then the upstream judges)."""
        v = self._get()
        if v is None:
            return None
        from jsonschema.exceptions import best_match

        limit = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(min(limit, frame_depth() + MAX_FRAMES))
            err = best_match(v.iter_errors(arguments))
        except Exception:  # noqa: BLE001 - unresolvable $ref, recursion, a malformed keyword
            return None
        finally:
            sys.setrecursionlimit(limit)
        if err is None:
            return None
        where = _pointer(err.absolute_path)
        at = f"at {where}" if where else "at the top level"
        from toolcat.formats.live.spec import printable

        return (f"Input validation error: {printable(err.message, 300)} ({at} of the "
                f"arguments of {tool}; keyword {err.validator} at "
                f"{_pointer(err.absolute_schema_path) or 'the root'} of its inputSchema)")

