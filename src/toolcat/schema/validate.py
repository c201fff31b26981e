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
"""

from __future__ import annotations

from typing import Any

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


def is_panic(e: BaseException) -> bool:
    """``e`` is a Rust panic raised through pyo3 (rpds, under ``referencing``)."""
    t = type(e)
    return t.__name__ == "PanicException" and t.__module__ == "pyo3_runtime"


def _panic_text(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    if "RecursionError" in msg:
        return "jsonschema (its rpds maps, in Rust) panicked: recursion too deep"
    return f"jsonschema (its rpds maps, in Rust) panicked: {msg[:100]}"


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


class Checker:
    """Validate instances against ``root`` (or a subschema of it) in ``dialect``."""

    __slots__ = ("root", "dialect", "_validator", "_broken", "_memo", "trouble")

    def __init__(self, root: Any, dialect: str = DRAFT2020) -> None:
        self.root = root
        self.dialect = dialect
        self._validator: Any = None
        self._broken = False
        self._memo: dict[tuple, bool | None] = {}
        #: why some answer was None although the schema is sound (a panic in rpds), or None
        self.trouble: str | None = None

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
                self._validator = cls(self.root, registry=Registry(retrieve=_refuse))
            except Exception:  # noqa: BLE001 - a schema jsonschema cannot even hold
                self._broken = True
            except BaseException as e:  # a panic in rpds; anything else is re-raised
                if not is_panic(e):
                    raise
                self._note(e)
                self._broken = True
        return self._validator

    def accepts(self, instance: Any, node: Any = None) -> bool | None:
        """Whether ``node`` (a subschema object of the root, or any schema to evaluate with
        the root's references; default: the root) accepts ``instance``."""
        base = self._base()
        if base is None:
            return None
        try:
            v = base if node is None or node is self.root else base.evolve(schema=node)
            return bool(v.is_valid(instance))
        except RecursionError:
            return None
        except Exception:  # noqa: BLE001 - unresolvable $ref, bad pattern, malformed keyword
            return None
        except BaseException as e:  # a panic in rpds; anything else is re-raised
            if not is_panic(e):
                raise
            self._note(e)
            return None

    def why_not(self, instance: Any) -> str | None:
        """jsonschema's best error for ``instance`` against the root (its message and the
        instance location), or None when it is valid or cannot be told."""
        base = self._base()
        if base is None:
            return None
        try:
            from jsonschema.exceptions import best_match

            err = best_match(base.iter_errors(instance))
        except Exception:  # noqa: BLE001
            return None
        except BaseException as e:  # a panic in rpds; anything else is re-raised
            if not is_panic(e):
                raise
            self._note(e)
            return None
        if err is None:
            return None
        where = "".join(f"/{p}" for p in err.absolute_path) or "/"
        msg = " ".join(str(err.message).split())
        if len(msg) > 160:
            msg = msg[:159] + "…"
        return f"at {where}: {msg}"
