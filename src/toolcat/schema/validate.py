"""Instance validation with ``jsonschema``, the reference validator toolcat judges itself by.

:class:`Checker` validates instances against one schema (a tool's input or output schema) or
against any subschema of it, in the schema's dialect, with references resolved inside that
schema only: nothing is ever fetched (an unresolvable reference makes the answer ``None``,
never a network request). ``jsonschema`` is imported on first use (it costs ~100 ms).

Answers are ``True`` (valid), ``False`` (invalid) or ``None`` (could not be decided: the
schema is malformed, a reference does not resolve, a pattern does not compile, recursion...).

``jsonschema`` stands on ``referencing`` and ``rpds`` (Rust): a ``RecursionError`` raised
inside one of rpds's comparisons (validation of a deeply recursive schema that reaches the
interpreter's limit there) comes out as ``pyo3_runtime.PanicException``, a
``BaseException`` that ``except Exception`` lets through. :class:`Checker` answers ``None``
for it too and keeps the first such failure in :attr:`Checker.trouble` (callers say why an
answer is unknown). The class is matched by name: pyo3 is no import of toolcat's.

**Budget.** A recursive schema (``$ref: "#"`` under unions, ``if`` and ``not``) can make one
validation follow references until the interpreter's recursion limit, branching all the way.
A :class:`Budget` shared by the checkers of one diff bounds that work by counting, so that
the result does not depend on the machine: each validation is one step and so is each
reference jsonschema follows (its ``$ref``/``$dynamicRef``/``$recursiveRef`` keywords count
them). Past the budget every answer is ``None`` and :attr:`Checker.trouble` says so.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from contextvars import ContextVar
from typing import Any, Iterator

from toolcat.schema.keywords import DRAFT2020
from toolcat.stack import call_bounded, frame_depth

_CLASSES: dict[str, Any] = {}


def validator_class(dialect: str) -> Any:
    """The ``jsonschema`` validator class of a toolcat dialect name."""
    if not _CLASSES:
        import jsonschema

        _CLASSES.update({
            "draft4": jsonschema.Draft4Validator, "draft6": jsonschema.Draft6Validator,
            "draft7": jsonschema.Draft7Validator, "2019-09": jsonschema.Draft201909Validator,
            "2020-12": jsonschema.Draft202012Validator,
        })
    return _CLASSES.get(dialect, _CLASSES[DRAFT2020])


class OutOfBudget(Exception):
    """The budget ran out in the middle of a validation."""


class Budget:
    """Steps of jsonschema work allowed: ``per_tool`` for the comparisons of one tool pair
    (:meth:`start` begins one), ``per_run`` for the whole diff."""

    __slots__ = ("per_tool", "per_run", "left", "run_left", "ran_out", "used", "peak",
                 "tool_used", "nesting")

    def __init__(self, per_tool: int, per_run: int) -> None:
        self.per_tool = per_tool
        self.per_run = per_run
        self.run_left = per_run
        self.left = min(per_tool, per_run)
        self.ran_out: str | None = None     # "tool" | "run": which budget ran out
        self.used = 0                       # steps used by the whole run
        self.peak = 0                       # the most steps one tool pair used
        self.tool_used = 0
        self.nesting = 0                    # references being followed, one within another

    def start(self) -> None:
        """A new tool pair: its own steps (what is left of the run's at most)."""
        self.tool_used = 0
        self.left = min(self.per_tool, self.run_left)
        self.ran_out = None if self.left > 0 else "run"

    def spend(self) -> None:
        if self.left <= 0:
            if self.ran_out is None:
                self.ran_out = "run" if self.run_left <= 0 else "tool"
            raise OutOfBudget()
        self.left -= 1
        self.run_left -= 1
        self.used += 1
        self.tool_used += 1
        if self.tool_used > self.peak:
            self.peak = self.tool_used

    def reason(self) -> str:
        if self.ran_out == "run":
            return (f"the diff's check budget ran out ({self.per_run} jsonschema steps for the "
                    f"whole run; raise it with --max-checks-total)")
        return (f"the check budget ran out ({self.per_tool} jsonschema steps for this tool; "
                f"raise it with --max-checks)")


#: frames of recursion one validation may use below its caller: the CLI raises the
#: interpreter's limit to 20,000 (deep documents), and a validation that recurses to it costs
#: time in the square of the depth (each step resumes a generator per level)
MAX_FRAMES = 2000


#: the budget the running validation spends (set by Checker around each call; per context,
#: so that validations in several threads spend each their own)
_METER: ContextVar[Budget | None] = ContextVar("toolcat_budget", default=None)


#: references one validation may follow within one another (a `$ref` cycle that consumes
#: no part of the instance, under `if` or `not`, recurses until this, or the frame limit)
MAX_NESTED_REFS = 100


class TooDeep(Exception):
    """References nested deeper than :data:`MAX_NESTED_REFS` in one validation."""


def _counted(fn: Any) -> Any:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        b = _METER.get()
        if b is None:
            yield from fn(validator, value, instance, schema)
            return
        b.spend()
        if b.nesting >= MAX_NESTED_REFS:
            raise TooDeep()
        b.nesting += 1
        try:
            yield from fn(validator, value, instance, schema)
        finally:
            b.nesting -= 1

    return keyword


_COUNTED: dict[Any, Any] = {}
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def counted_class(cls: Any) -> Any:
    """``cls`` extended so that each reference it follows spends a step of the running
    budget (the keywords wrapped; jsonschema's own classes are left as they are)."""
    try:
        return _COUNTED[cls]
    except KeyError:
        from jsonschema.validators import extend

        kws = {k: _counted(cls.VALIDATORS[k]) for k in _REF_KEYWORDS if k in cls.VALIDATORS}
        out = _COUNTED[cls] = extend(cls, kws) if kws else cls
        return out


class PatternUnknown(Exception):
    """A regular expression met a string toolcat cannot run it on in linear time (RE2
    cannot evaluate the pattern: lookaround, a back-reference, too large)."""


def _has_key(node: Any, key: str, depth: int = 0) -> bool:
    if depth > 200:
        return True
    if isinstance(node, dict):
        return key in node or any(_has_key(v, key, depth + 1) for v in node.values())
    if isinstance(node, list):
        return any(_has_key(v, key, depth + 1) for v in node)
    return False


class _ReShim:
    """What jsonschema's keyword modules see as ``re`` while toolcat's
    ``unevaluatedProperties`` runs: ``search`` by RE2 (``matches``: True, False, or None
    when not known and not strict, which counts as a match: the name is evaluated, so not
    refused); everything else is the real ``re``."""

    def __init__(self, matches: Any) -> None:
        self._matches = matches

    def search(self, pattern: Any, string: Any, flags: int = 0) -> Any:
        got = self._matches(pattern, string) if isinstance(string, str) else None
        return None if got is False else True

    def __getattr__(self, name: str) -> Any:
        import re

        return getattr(re, name)


def _re_modules() -> list | None:
    """jsonschema's modules whose ``re`` its unevaluatedProperties uses (None: this
    jsonschema is laid out otherwise, and the keyword is not run)."""
    try:
        from jsonschema import _keywords, _legacy_keywords, _utils
    except ImportError:
        return None
    mods = [_keywords, _legacy_keywords, _utils]
    return mods if all(getattr(m, "re", None) is not None for m in mods) else None


_BOUNDED: dict[tuple, Any] = {}
_BOUNDED_CLASSES: set = set()


class OutOfWork(Exception):
    """A metered validation (:class:`Meter`) used up its steps, its time or its nesting."""


class Meter:
    """The work one validation may do, counted in the thread that runs it (toolcat serve
    checks arguments in worker threads, several at once): each keyword evaluated is a step,
    ``uniqueItems`` and ``enum`` one per element; past ``steps``, past ``seconds`` of wall
    time, or with keywords nested ``depth`` deep, the validation raises :class:`OutOfWork`
    (:attr:`why` says which). Nesting is counted here rather than by lowering the
    interpreter's recursion limit, which is one for every thread."""

    __slots__ = ("steps", "left", "seconds", "deadline", "depth", "max_depth", "ticks", "why")

    def __init__(self, steps: int, seconds: float, depth: int) -> None:
        import time

        self.steps = steps
        self.left = steps
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.depth = 0
        self.max_depth = depth
        self.ticks = 0
        self.why = ""

    def spend(self, n: int = 1) -> None:
        self.left -= n
        self.ticks += n
        if self.left < 0:
            self.why = f"more than {self.steps:,} steps"
            raise OutOfWork(self.why)
        if self.ticks >= 256:
            import time

            self.ticks = 0
            if time.monotonic() > self.deadline:
                self.why = f"more than {self.seconds:g} s"
                raise OutOfWork(self.why)


_LOCAL = threading.local()
#: held while jsonschema's keyword modules see RE2 as their `re` (unevaluatedProperties)
_SHIM_LOCK = threading.RLock()


@contextlib.contextmanager
def metered(meter: Meter) -> Iterator[Meter]:
    """Run the validations of a metered class (``bounded_class(..., metered=True)``) in this
    thread under ``meter``."""
    prev = getattr(_LOCAL, "meter", None)
    _LOCAL.meter = meter
    try:
        yield meter
    finally:
        _LOCAL.meter = prev


def _metered(fn: Any) -> Any:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        m = getattr(_LOCAL, "meter", None)
        if m is None:
            yield from fn(validator, value, instance, schema)
            return
        m.spend(len(value) if isinstance(value, list) else 1)    # enum, required...
        if m.depth >= m.max_depth:
            m.why = f"schema keywords nested more than {m.max_depth} deep"
            raise OutOfWork(m.why)
        m.depth += 1
        try:
            yield from fn(validator, value, instance, schema)
        finally:
            m.depth -= 1

    return keyword


def _json_key(value: Any, meter: Meter | None) -> Any:
    """A hashable key equal for JSON-equal values (1 and 1.0 alike, true and 1 not)."""
    if meter is not None:
        meter.spend()
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, dict):
        return ("o", frozenset((k, _json_key(v, meter)) for k, v in value.items()))
    if isinstance(value, list):
        return ("a", tuple(_json_key(v, meter) for v in value))
    return ("v", value)        # None, str, and numbers (Python's 1 == 1.0, hashed alike)


def _unique_items(validator: Any, ui: Any, instance: Any, schema: Any) -> Any:
    """``uniqueItems`` by hashing, in time linear in the array (jsonschema's compares every
    pair of unhashable items: minutes for 3,000 objects)."""
    from jsonschema.exceptions import ValidationError

    if not ui or not validator.is_type(instance, "array"):
        return
    meter = getattr(_LOCAL, "meter", None)
    seen: set = set()
    for item in instance:
        key = _json_key(item, meter)
        if key in seen:
            yield ValidationError(f"{instance!r} has non-unique elements")
            return
        seen.add(key)


def bounded_class(stock: Any, schema: Any, *, strict: bool, counted: bool = False,
                  metered: bool = False) -> Any:
    """The jsonschema validator class ``stock`` as toolcat runs it on a catalog's schema
    ``schema``: every regular expression (``pattern``, ``patternProperties``, the
    ``additionalProperties`` that reads them, ``propertyNames`` patterns through ``pattern``)
    run by RE2 (:func:`toolcat.schema.regex.search`, linear time), never by the backtracking
    ``re`` jsonschema uses, which a hostile ``^(a+)+$`` keeps busy for hours; with
    ``counted`` each reference spends a step of the running budget (:func:`counted_class`).

    A pattern RE2 cannot run: with ``strict`` (answers toolcat reports) the validation
    raises :class:`PatternUnknown` (the caller's answer is "not known"); without (toolcat
    serve, which only refuses what is certainly refused) the pattern accepts.
    jsonschema's ``unevaluatedProperties`` reads ``patternProperties`` with the ``re`` of its
    keyword modules: when ``schema`` has any, that ``re`` is RE2 while the keyword runs.

    The class stays itself through jsonschema's ``evolve``: a subschema with a ``$schema``
    of its own (or a ``$ref`` to a root that has one) would otherwise be validated by
    jsonschema's stock class for that dialect, with ``re`` and without the budget.

    With ``metered``, every keyword spends the work of the :class:`Meter` the thread runs
    under (:func:`metered`; none: no bound), and ``uniqueItems`` runs in linear time."""
    return _bounded(stock, strict, counted, _has_key(schema, "patternProperties"), metered)


def _bounded(stock: Any, strict: bool, counted: bool, uneval: bool,
             metered: bool = False) -> Any:
    key = (stock, strict, counted, uneval, metered)
    hit = _BOUNDED.get(key)
    if hit is not None:
        return hit
    from jsonschema import validators
    from jsonschema.exceptions import ValidationError

    from toolcat.schema.regex import search

    def matches(patrn: Any, text: str) -> bool | None:
        got = search(patrn, text) if isinstance(patrn, str) else None
        if isinstance(got, bool):
            return got
        if strict:
            raise PatternUnknown(patrn)
        return None

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

    stock_uneval = stock.VALIDATORS.get("unevaluatedProperties")
    shim = _ReShim(matches)

    def unevaluated_properties(validator: Any, up: Any, instance: Any, schema: Any) -> Any:
        # jsonschema finds the evaluated names (patternProperties among them) with the `re`
        # of its keyword modules: that one is RE2 while this keyword runs
        mods = _re_modules()
        if stock_uneval is None or mods is None:
            if strict and validator.is_type(instance, "object") and instance:
                raise PatternUnknown("unevaluatedProperties with patternProperties")
            return
        with _SHIM_LOCK:        # one thread at a time swaps the modules' `re`
            saved = [m.re for m in mods]
            for m in mods:
                m.re = shim
            try:
                errors = list(stock_uneval(validator, up, instance, schema))
            finally:
                for m, r in zip(mods, saved):
                    m.re = r
        yield from errors

    base = counted_class(stock) if counted else stock
    overrides: dict[str, Any] = {"pattern": pattern, "patternProperties": pattern_properties,
                                 "additionalProperties": additional_properties}
    if uneval:
        overrides["unevaluatedProperties"] = unevaluated_properties
    if metered:
        overrides["uniqueItems"] = _unique_items
        overrides = {k: _metered(overrides.get(k, fn)) for k, fn in base.VALIDATORS.items()}
    cls = validators.extend(base, {k: v for k, v in overrides.items()
                                   if k in base.VALIDATORS})

    def evolve(self: Any, **changes: Any) -> Any:
        from attrs import fields

        here = type(self)
        sub = changes.setdefault("schema", self.schema)
        new = validators.validator_for(sub, default=here)
        if new is not here and new not in _BOUNDED_CLASSES:
            new = _bounded(new, strict, counted, uneval, metered)
        for f in fields(here):
            if f.init and f.alias not in changes:
                changes[f.alias] = getattr(self, f.name)
        return new(**changes)

    cls.evolve = evolve
    _BOUNDED[key] = cls
    _BOUNDED_CLASSES.add(cls)
    return cls


def is_panic(e: BaseException) -> bool:
    """``e`` is a Rust panic raised through pyo3 (rpds, under ``referencing``)."""
    t = type(e)
    return t.__name__ == "PanicException" and t.__module__ == "pyo3_runtime"


def _panic_text(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    if "RecursionError" in msg:
        return ("jsonschema (its rpds maps, in Rust) panicked, recursion too deep: some "
                "candidates could not be checked")
    return (f"jsonschema (its rpds maps, in Rust) panicked ({msg[:100]}): some candidates "
            "could not be checked")


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    # (referencing's classes are attrs classes its own decorator makes: mypy sees no fields)
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


class Checker:
    """Validate instances against ``root`` (or a subschema of it) in ``dialect``."""

    __slots__ = ("root", "dialect", "_validator", "_broken", "_memo", "trouble", "budget")

    def __init__(self, root: Any, dialect: str = DRAFT2020, budget: Budget | None = None) -> None:
        self.root = root
        self.dialect = dialect
        self._validator: Any = None
        self._broken = False
        self._memo: dict[tuple, bool | None] = {}
        #: why some answer was None although the schema is sound (a panic in rpds, references
        #: nested too deep), or None
        self.trouble: str | None = None
        self.budget = budget


    def _note(self, e: BaseException) -> None:
        if self.trouble is None:
            self.trouble = _panic_text(e)

    def _base(self) -> Any:
        if self._validator is None and not self._broken:
            from jsonschema.validators import validator_for
            from referencing import Registry

            try:
                cls = validator_for(self.root, default=validator_class(self.dialect)) \
                    if isinstance(self.root, dict) else validator_class(self.dialect)
                # patterns by RE2 (one RE2 cannot run: not known), references counted;
                # the class keeps itself through a `$schema` below the root
                cls = bounded_class(cls, self.root, strict=True,
                                    counted=self.budget is not None)
                self._validator = cls(self.root,
                                      registry=Registry(retrieve=_refuse))  # type: ignore[call-arg]
            except MemoryError:   # never a best effort: one line, exit 2 (cli)
                raise
            except Exception:  # noqa: BLE001 - a schema jsonschema cannot even hold
                self._broken = True
            except BaseException as e:  # a panic in rpds; anything else is re-raised
                if not is_panic(e):
                    raise
                self._note(e)
                self._broken = True
        return self._validator

    def _run(self, check: Any) -> Any:
        """``check(base)`` under this checker's budget and a bounded stack; None when it
        cannot be told (the budget ran out, references nested too deep, a schema jsonschema
        cannot evaluate, a panic in rpds: noted in :attr:`trouble`)."""
        base = self._base()
        if base is None:
            return None
        b = self.budget
        token = None
        try:
            if b is not None:
                b.spend()
                b.nesting = 0
                token = _METER.set(b)
            depth = frame_depth()
            if depth + MAX_FRAMES < sys.getrecursionlimit():
                # at most MAX_FRAMES below check's frame (toolcat.stack: the limit is the
                # interpreter's, shared by threads, and lowered only around this call)
                return call_bounded(MAX_FRAMES, check, base, caller_depth=depth)
            return check(base)
        except OutOfBudget:         # the budget says so (Budget.ran_out)
            return None
        except TooDeep:
            if self.trouble is None:
                self.trouble = (f"jsonschema followed references more than {MAX_NESTED_REFS} "
                                "deep in one validation: some candidates could not be checked")
            return None
        except MemoryError:   # never a best effort: one line, exit 2 (cli)
            raise
        except Exception:  # noqa: BLE001 - unresolvable $ref, recursion, bad pattern, malformed keyword
            return None
        except BaseException as e:  # a panic in rpds; anything else is re-raised
            if not is_panic(e):
                raise
            self._note(e)
            return None
        finally:
            if token is not None:
                _METER.reset(token)

    def accepts(self, instance: Any, node: Any = None) -> bool | None:
        """Whether ``node`` (a subschema object of the root, or any schema to evaluate with
        the root's references; default: the root) accepts ``instance``."""
        def check(base: Any) -> bool:
            v = base if node is None or node is self.root else base.evolve(schema=node)
            return bool(v.is_valid(instance))

        return self._run(check)

    def why_not(self, instance: Any) -> str | None:
        """jsonschema's best error for ``instance`` against the root (its message and the
        instance location), or None when it is valid or cannot be told."""
        def check(base: Any) -> Any:
            from jsonschema.exceptions import best_match

            return best_match(base.iter_errors(instance))

        err = self._run(check)
        if err is None:
            return None
        where = "".join(f"/{p}" for p in err.absolute_path) or "/"
        msg = " ".join(str(err.message).split())
        if len(msg) > 160:
            msg = msg[:159] + "…"
        return f"at {where}: {msg}"
