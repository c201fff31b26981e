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


def _has_key(node: Any, key: str, depth: int = 0) -> bool:
    if depth > 200:
        return True
    if isinstance(node, dict):
        return key in node or any(_has_key(v, key, depth + 1) for v in node.values())
    if isinstance(node, list):
        return any(_has_key(v, key, depth + 1) for v in node)
    return False


def _re2_class(base: Any, schema: Any) -> Any:
    """``base`` (a jsonschema validator class) with its regex keywords run by RE2."""
    from jsonschema import validators
    from jsonschema.exceptions import ValidationError

    from toolcat.schema.regex import search

    def matches(pattern: Any, text: str) -> bool | None:
        if not isinstance(pattern, str):
            return None
        got = search(pattern, text)
        return got if isinstance(got, bool) else None      # Unchecked: not known

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and matches(patrn, instance) is False:
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, pp: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object") or not isinstance(pp, dict):
            return
        for patrn, subschema in pp.items():
            for k, v in instance.items():
                if matches(patrn, k):
                    yield from validator.descend(v, subschema, path=k, schema_path=patrn)

    def additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        props = schema.get("properties", {})
        pats = schema.get("patternProperties", {})
        extras = []
        for k in instance:
            if isinstance(props, dict) and k in props:
                continue
            if isinstance(pats, dict) and any(matches(p, k) is not False for p in pats):
                continue        # matched, or a pattern that cannot be run: not known extra
            extras.append(k)
        if validator.is_type(ap, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], ap, path=extra)
        elif ap is False and extras:
            shown = ", ".join(repr(e) for e in sorted(extras, key=str))
            yield ValidationError(f"Additional properties are not allowed ({shown} "
                                  f"{'was' if len(extras) == 1 else 'were'} unexpected)")

    overrides: dict[str, Any] = {"pattern": pattern, "patternProperties": pattern_properties,
                                 "additionalProperties": additional_properties}
    if _has_key(schema, "patternProperties"):
        # jsonschema's unevaluatedProperties reads patternProperties with `re`: not checked
        overrides["unevaluatedProperties"] = lambda *a: iter(())
    return validators.extend(base, overrides)


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

                base = validator_for(self.schema, default=Draft202012Validator)
                cls = _re2_class(base, self.schema)
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

