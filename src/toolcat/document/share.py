"""Equal JSON subtrees as one object: memory for many results that repeat the same parts.

An OpenAPI spec's operations return types that bundle the same components: Stripe's 228
distinct compact output schemas hold 551,427 objects and arrays, of which 8,984 are
distinct. :class:`Sharer` rebuilds a value so that every object or array equal (as JSON, key
order included) to one it has seen before *is* that one, and keeps the table for the next
value, so the results of one run share their common parts.

"Equal" is strict: ``1``, ``1.0`` and ``true`` stay apart, as do ``0.0`` and ``-0.0``, and a
NaN never equals anything; only plain dicts, lists, strings, numbers, booleans and null are
shared (any other value, and everything holding one, is left as it is). The results must not
be changed in place afterwards: an object may now appear in several places.
"""

from __future__ import annotations

from typing import Any

_LEAVES = frozenset((int, bool, type(None)))


class Sharer:
    """Share equal subtrees across every value passed to :meth:`share` (one table per run)."""

    __slots__ = ("_table", "_known")

    def __init__(self) -> None:
        # (kind, member tokens...) -> the one object with that content
        self._table: dict[tuple, Any] = {}
        # id of an object in the table -> its token (met again: not walked again; the table
        # keeps the objects alive, so their ids stay theirs)
        self._known: dict[int, tuple] = {}

    def __len__(self) -> int:
        return len(self._table)

    def share(self, value: Any) -> Any:
        """``value`` with its equal subtrees (and those seen in earlier calls) as one object;
        ``value`` itself is not changed (containers are rebuilt where a member changed)."""
        try:
            return self._share(value)[0]
        except RecursionError:      # nested too deeply to walk here: leave it unshared
            return value

    def _share(self, v: Any) -> tuple[Any, Any]:
        """(the shared value, its token: equal tokens exactly for equal values; None for a
        value that is not shared)."""
        c = v.__class__
        if c is str:
            return v, v
        if c in _LEAVES:
            return v, (c, v)
        if c is float:
            if v != v:
                return v, None
            return v, (float, v.hex())
        if c is dict or c is list:
            tok = self._known.get(id(v))
            if tok is not None:
                return v, tok
        if c is dict:
            items = []
            members = []
            ok = True
            changed = False
            for k, x in v.items():
                if k.__class__ is not str:
                    ok = False
                nx, tok = self._share(x)
                if tok is None:
                    ok = False
                if nx is not x:
                    changed = True
                members.append((k, nx))
                items.append(k)
                items.append(tok)
            new = dict(members) if changed else v
            if not ok:
                return new, None
            return self._put(("o", *items), new)
        if c is list:
            out = []
            toks = []
            ok = True
            changed = False
            for x in v:
                nx, tok = self._share(x)
                if tok is None:
                    ok = False
                if nx is not x:
                    changed = True
                out.append(nx)
                toks.append(tok)
            new = out if changed else v
            if not ok:
                return new, None
            return self._put(("a", *toks), new)
        return v, None

    def _put(self, key: tuple, new: Any) -> tuple[Any, tuple]:
        got = self._table.get(key)
        if got is None:
            self._table[key] = got = new
            tok = self._known[id(got)] = (key[0], id(got))
            return got, tok
        return got, self._known[id(got)]
