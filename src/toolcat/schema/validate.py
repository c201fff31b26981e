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

import sys
from typing import Any

from toolcat.document.parse import frame_depth
from toolcat.schema.keywords import DRAFT2020

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


#: the budget the running validation spends (set by Checker around each call)
_METER: list = [None]


#: references one validation may follow within one another (a `$ref` cycle that consumes
#: no part of the instance, under `if` or `not`, recurses until this, or the frame limit)
MAX_NESTED_REFS = 100


class TooDeep(Exception):
    """References nested deeper than :data:`MAX_NESTED_REFS` in one validation."""


def _counted(fn: Any) -> Any:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        b = _METER[0]
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

    raise NoSuchResource(ref=uri)


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
                root = self.root
                if self.budget is not None:
                    cls = counted_class(cls)
                    # a `$ref` to the root evolves the validator with the class its
                    # `$schema` names (jsonschema's own, which counts nothing): the class
                    # is chosen, the keyword has done its work
                    if isinstance(root, dict) and "$schema" in root:
                        root = {k: v for k, v in root.items() if k != "$schema"}
                self._validator = cls(root, registry=Registry(retrieve=_refuse))
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
        prev = _METER[0]
        limit = sys.getrecursionlimit()
        try:
            if b is not None:
                b.spend()
                b.nesting = 0
                _METER[0] = b
            sys.setrecursionlimit(min(limit, frame_depth() + MAX_FRAMES))
            return check(base)
        except OutOfBudget:         # the budget says so (Budget.ran_out)
            return None
        except TooDeep:
            if self.trouble is None:
                self.trouble = (f"jsonschema followed references more than {MAX_NESTED_REFS} "
                                "deep in one validation: some candidates could not be checked")
            return None
        except Exception:  # noqa: BLE001 - unresolvable $ref, recursion, bad pattern, malformed keyword
            return None
        except BaseException as e:  # a panic in rpds; anything else is re-raised
            if not is_panic(e):
                raise
            self._note(e)
            return None
        finally:
            sys.setrecursionlimit(limit)
            _METER[0] = prev

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
