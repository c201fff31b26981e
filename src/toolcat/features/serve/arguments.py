"""A call's arguments checked against the upstream's own full input schema before the call is
forwarded (``toolcat serve``; ``--validate log|strict|off``). No MCP SDK here.

A proxy never refuses a call its upstream would accept, and the upstream may accept more than
its schema says (zod strips unknown keys, pydantic takes ``"7"`` for an integer): by default
(``log``) a call the schema refuses is forwarded as it came and the proxy's log says what the
schema refuses; ``strict`` refuses it as the MCP SDKs' own servers answer invalid arguments (a
tool result with ``isError: true`` and one text block naming the failed keyword, where in the
arguments, a JSON pointer, and where in the schema; values quoted as JSON).

**Repair.** Some clients send object and array arguments as JSON text (Claude Desktop, Claude
Code). A string where the schema wants an object or an array, that parses to a value the
schema accepts at that place, is replaced by the parsed value (:attr:`Verdict.repaired`;
``--no-repair-args`` turns it off).

**What is refused.** Only what the upstream's schema certainly refuses: ``jsonschema`` in the
schema's dialect (2020-12 unless ``$schema`` says otherwise, as MCP says), with every regular
expression run by RE2 (:func:`toolcat.schema.regex.search`: linear time, ECMA-262 semantics)
instead of Python's backtracking ``re``. A pattern RE2 cannot run (lookahead,
back-references, too large) is not checked; likewise a schema jsonschema cannot hold, a
``$ref`` that does not resolve inside the schema (nothing is fetched): the upstream judges.
``format`` is not asserted (JSON Schema's default; the SDKs' validators agree).

**Bounded.** One check does at most :data:`MAX_STEPS` steps of jsonschema work (each keyword
evaluated; ``uniqueItems`` in linear time, one step per element), in at most
:data:`MAX_SECONDS`, with keywords nested at most :data:`MAX_DEPTH` deep
(:class:`toolcat.schema.validate.Meter`); past that the check has not decided
(:attr:`Verdict.unknown`) and the call is forwarded. The proxy runs checks in worker threads,
so no check holds up another request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: jsonschema steps one check may take (each keyword evaluated; an element of an array under
#: uniqueItems or of an enum). Real arguments take tens to a few thousand.
MAX_STEPS = 50_000
#: Seconds one check may take (the steps are the bound that does not depend on the machine;
#: this one bounds what a step may hide, such as a deep comparison under ``const``).
MAX_SECONDS = 5.0
#: Schema keywords nested within one another (a deep instance under a recursive schema).
MAX_DEPTH = 150
#: Longest value quoted in a message (JSON; cut with an ellipsis).
QUOTE = 80


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def quote(value: Any, limit: int = QUOTE) -> str:
    """``value`` as JSON text (``null``, ``true``, ``"s"``), cut at ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = "(a value)"
    return text if len(text) <= limit else text[:limit - 1] + "…"


@dataclass
class Verdict:
    """What the check says of one call's arguments."""

    problem: str | None = None     # why the schema refuses them: for the model (values quoted)
    where: str | None = None       # keyword and pointers only (no values): for the log
    unknown: str | None = None     # why the check did not decide (then: forward)
    repaired: Any = None           # the arguments with JSON strings parsed (None: none)
    repairs: list[str] = field(default_factory=list)   # the pointers parsed


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
                cls = bounded_class(base, self.schema, strict=False, metered=True)
                self._validator = cls(self.schema, registry=Registry())   # fetches nothing
            except Exception:  # noqa: BLE001 - a schema jsonschema cannot hold: forward
                self._broken = True
        return self._validator

    def problem(self, tool: str, arguments: Any) -> str | None:
        """Why the upstream's schema refuses ``arguments`` (one line for the model), or
        None: valid, or not known (then the upstream judges)."""
        return self.check(tool, arguments, repair=False).problem

    def check(self, tool: str, arguments: Any, repair: bool = True) -> Verdict:
        """The verdict on ``arguments`` (with ``repair``: JSON strings parsed where the
        schema wants an object or an array and accepts the parsed value). Never raises."""
        from toolcat.schema.validate import Meter, OutOfWork, metered

        v = self._get()
        if v is None:
            return Verdict()
        meter = Meter(MAX_STEPS, MAX_SECONDS, MAX_DEPTH)
        try:
            with metered(meter):
                errors = list(v.iter_errors(arguments))
                repairs: list[tuple[list, Any]] = []
                if errors and repair:
                    repairs = _repairs(v, arguments, errors)
                    if repairs:
                        arguments = _with(arguments, repairs)
                        errors = list(v.iter_errors(arguments))
                err = _best(errors)
        except OutOfWork:
            return Verdict(unknown=f"the check took {meter.why}")
        except RecursionError:
            return Verdict(unknown="the arguments or the schema nest too deep")
        except Exception:  # noqa: BLE001 - unresolvable $ref, a malformed keyword
            return Verdict(unknown="the schema could not be evaluated")
        except BaseException as e:  # a panic in rpds (recursion); anything else re-raised
            from toolcat.schema.validate import is_panic

            if not is_panic(e):
                raise
            return Verdict(unknown="the schema could not be evaluated")
        out = Verdict()
        if repairs:
            out.repaired = arguments
            out.repairs = [_pointer(path) or "/" for path, _ in repairs]
        if err is None:
            return out
        where = _pointer(err.absolute_path)
        at = f"at {where}" if where else "at the top level"
        name = "the false schema" if err.validator is None else f"keyword {err.validator}"
        keyword = (f"{name} at {_pointer(err.absolute_schema_path) or 'the root'} of its "
                   "inputSchema")
        from toolcat.formats.live.spec import printable

        out.problem = (f"Input validation error: {printable(message(err), 300)} ({at} of "
                       f"the arguments of {tool}; {keyword})")
        out.where = f"{keyword}, {at} of the arguments"
        return out


def _best(errors: list) -> Any:
    from jsonschema.exceptions import best_match

    return best_match(iter(errors))


# --------------------------------------------------------------------------- repair


def _type_errors(errors: list) -> list:
    """Every ``type`` error in ``errors`` and their contexts (anyOf, oneOf branches)."""
    out, stack = [], list(errors)
    while stack:
        e = stack.pop()
        if e.validator == "type":
            out.append(e)
        stack.extend(e.context or ())
    return out


def _repairs(v: Any, arguments: Any, errors: list) -> list[tuple[list, Any]]:
    """The places where a string stands for the object or array the schema wants there and
    the parsed value leaves no error at or below that place: (path, parsed value)."""
    found: dict[tuple, Any] = {}
    for e in _type_errors(errors):
        wanted = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        if not isinstance(e.instance, str) or "string" in wanted or \
                not {"object", "array"} & set(wanted):
            continue
        path = tuple(e.absolute_path)
        if path in found or not path:
            continue
        text = e.instance.strip()
        if text[:1] not in ("{", "["):
            continue
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(parsed, dict) and "object" in wanted or \
                isinstance(parsed, list) and "array" in wanted:
            found[path] = parsed
    # the outermost places only (a string inside another repaired string is not there)
    places = [(list(p), x) for p, x in sorted(found.items(), key=lambda i: len(i[0]))
              if not any(len(q) < len(p) and p[:len(q)] == q for q in found)]
    if not places:
        return []
    after = list(v.iter_errors(_with(arguments, places)))
    bad = [tuple(e.absolute_path) for e in after]
    return [(p, x) for p, x in places
            if not any(b[:len(p)] == tuple(p) for b in bad)]


def _with(value: Any, places: list[tuple[list, Any]]) -> Any:
    """``value`` with each (path, new) put in place (containers on the paths copied; the
    caller's data is not changed)."""
    for path, new in places:
        value = _put(value, path, new)
    return value


def _put(node: Any, path: list, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        return {**node, head: _put(node[head], rest, new)}
    if isinstance(node, list):
        out = list(node)
        out[head] = _put(node[head], rest, new)
        return out
    return node


# --------------------------------------------------------------------------- messages


def _names(values: Any) -> str:
    items = values if isinstance(values, list) else [values]
    return ", ".join(quote(x) for x in items)


def message(err: Any) -> str:
    """What ``err`` (a jsonschema ValidationError) says, values quoted as JSON (the client
    sent JSON: ``null``, ``true``, ``"s"``; jsonschema's own messages are Python's repr)."""
    kw, value, inst = err.validator, err.validator_value, err.instance
    i = quote(inst)
    if kw == "type":
        return f"{i} is not of type {_names(value)}"
    if kw == "required" and isinstance(value, list):
        missing = [p for p in value if isinstance(inst, dict) and p not in inst
                   and err.message == f"{p!r} is a required property"]
        if missing:
            return f"{quote(missing[0])} is a required property"
    if kw in ("additionalProperties", "unevaluatedProperties") and value is False and \
            isinstance(inst, dict):
        props = err.schema.get("properties") if isinstance(err.schema, dict) else None
        extra = [k for k in sorted(inst, key=str) if repr(k) in err.message
                 and not (isinstance(props, dict) and k in props)]
        if extra:
            said = "was" if len(extra) == 1 else "were"
            what = "Additional" if kw == "additionalProperties" else "Unevaluated"
            return f"{what} properties are not allowed ({_names(extra)} {said} unexpected)"
    simple = {
        "enum": lambda: f"{i} is not one of {quote(value)}",
        "const": lambda: f"{quote(value)} was expected",
        "pattern": lambda: f"{i} does not match {quote(value)}",
        "minimum": lambda: f"{i} is less than the minimum of {quote(value)}",
        "maximum": lambda: f"{i} is greater than the maximum of {quote(value)}",
        "exclusiveMinimum": lambda: (f"{i} is less than or equal to the minimum of "
                                     f"{quote(value)}"),
        "exclusiveMaximum": lambda: (f"{i} is greater than or equal to the maximum of "
                                     f"{quote(value)}"),
        "multipleOf": lambda: f"{i} is not a multiple of {quote(value)}",
        "minLength": lambda: f"{i} is shorter than {quote(value)} characters",
        "maxLength": lambda: f"{i} is longer than {quote(value)} characters",
        "minItems": lambda: f"{i} has fewer than {quote(value)} items",
        "maxItems": lambda: f"{i} has more than {quote(value)} items",
        "uniqueItems": lambda: f"{i} has non-unique elements",
        "minProperties": lambda: f"{i} has fewer than {quote(value)} properties",
        "maxProperties": lambda: f"{i} has more than {quote(value)} properties",
        "anyOf": lambda: f"{i} is not valid under any of the given schemas",
        "oneOf": lambda: (f"{i} is valid under more than one of the given schemas"
                          if "is valid under each of" in err.message else
                          f"{i} is not valid under any of the given schemas"),
        "not": lambda: f"{i} should not be valid under {quote(value)}",
        "contains": lambda: f"{i} does not contain items matching the given schema",
        "false": lambda: f"{i} is not allowed (the schema is false)",
    }
    if kw in simple:
        return simple[kw]()
    if kw is None or value is False:
        return f"{i} is not allowed (the schema is false)"
    return f"{i} is not valid under the keyword {kw} ({quote(value)})"
