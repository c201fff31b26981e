"""Judge request tools with the providers' own SDK request types, offline.

The SDKs spell a request's tools as ``TypedDict`` unions (``anthropic.types.ToolUnionParam``,
``openai.types.responses.ToolParam``). :func:`refusal` checks one tool against such a union
the way the API's schema would: some member must take it, with pydantic validating the
values and no key that member does not declare (a ``TypedDict`` lets pydantic ignore extra
keys; the API refuses them)."""

from __future__ import annotations

import typing
from typing import Any

_ADAPTERS: dict[Any, Any] = {}


def _members(union: Any) -> list[Any]:
    args = typing.get_args(union)
    return list(args) if args else [union]


def _adapter(t: Any) -> Any:
    got = _ADAPTERS.get(t)
    if got is None:
        from pydantic import TypeAdapter

        got = _ADAPTERS[t] = TypeAdapter(t)
    return got


def refusal(item: Any, union: Any) -> str | None:
    """None when a member of ``union`` (a TypedDict union) accepts ``item``; else why not
    (the nearest member's complaint)."""
    if not isinstance(item, dict):
        return f"not an object: {item!r}"
    why = []
    for m in _members(union):
        keys = set(getattr(m, "__required_keys__", ())) | set(getattr(m, "__optional_keys__", ()))
        missing = set(getattr(m, "__required_keys__", ())) - set(item)
        extra = set(item) - keys
        if missing or extra:
            why.append((len(missing) + len(extra),
                        f"{m.__name__}: missing {sorted(missing)}, unknown {sorted(extra)}"))
            continue
        try:
            _adapter(m).validate_python(item, strict=True)
        except Exception as e:  # noqa: BLE001 - pydantic's ValidationError is the verdict
            why.append((0, f"{m.__name__}: {str(e)[:300]}"))
            continue
        return None
    why.sort(key=lambda w: w[0])
    return why[0][1] if why else "no member"


def anthropic_refusal(item: Any) -> str | None:
    from anthropic.types import ToolUnionParam

    return refusal(item, ToolUnionParam)


def openai_responses_refusal(item: Any) -> str | None:
    from openai.types.responses import ToolParam

    return refusal(item, ToolParam)
