"""The canonical bytes of descriptors in parts: the definitions maps of their schemas as
:class:`toolcat.tokens.Group` s of their entries, each a :class:`toolcat.tokens.Shared`
part, each map and entry object serialized once.

The tools of an OpenAPI spec bundle the same definition objects (a Kubernetes standard view
is 54 MB of 1.2 MB of distinct definitions, a Stripe one 206 MB of 1 MB): ``project``'s
summary and ``measure`` size, hash and count those views from their parts
(:class:`toolcat.tokens.Tally`) without writing the whole text. The canonical bytes are
compositional: an object's are its entries' joined, so the parts joined are
:func:`toolcat.document.canonical.dumps` of the descriptor, byte for byte.
"""

from __future__ import annotations

from typing import Any

import orjson

from toolcat.document import canonical
from toolcat.tokens import Group, Shared, parts_length, parts_text


def defs_of(schema: Any) -> str | None:
    """The key of ``schema``'s definitions map (``$defs`` or ``definitions``), when it has
    one with dict entries only."""
    if schema.__class__ is not dict:
        return None
    for key in ("$defs", "definitions"):
        d = schema.get(key)
        if d.__class__ is dict and d and all(e.__class__ is dict for e in d.values()):
            return key
    return None


def _dict_parts(obj: dict, subs: dict, out: list) -> None:
    """Append the canonical bytes of the dict ``obj`` to ``out`` in parts, the value of each
    key of ``subs`` through ``subs[key](value, out)``, the others serialized here."""
    add = out.append
    add(b"{")
    first = True
    for k, v in obj.items():
        if k.__class__ is not str:
            raise TypeError("a key that is not a string")
        if not first:
            add(b",")
        first = False
        add(orjson.dumps(k))
        add(b":")
        f = subs.get(k)
        if f is None:
            add(canonical.dumps(v))
        else:
            f(v, out)
    add(b"}")


class DescriptorParts:
    """Descriptors written for ``envelope`` (a :class:`toolcat.formats.targets.Target`) in
    parts; one per catalog (its memo holds each definitions entry met, and its bytes)."""

    def __init__(self, envelope: Any) -> None:
        self.envelope = envelope
        #: id of a definitions entry -> (it, its canonical bytes as a shared part)
        self.entries: dict[int, tuple[Any, Shared]] = {}
        #: id of a definitions map -> (it, its group)
        self.maps: dict[int, tuple[Any, Group]] = {}

    def parts(self, item: Any, sizes: dict[str, int] | None = None
              ) -> list[bytes | Shared | Group]:
        """``canonical.dumps(item)`` in parts: plain bytes (each run of them joined) and a
        :class:`~toolcat.tokens.Group` per definitions map of its schemas. ``sizes``: filled
        with the length of the canonical bytes of each schema field of its body (left
        empty when the item cannot be written in parts)."""
        env = self.envelope
        body = env.body(item)
        if body.__class__ is not dict or (sizes is None and not any(
                self._defs_key(body.get(k)) is not None for k in env.schema_fields)):
            return [canonical.dumps(item)]
        out: list = []
        schema = self._schema_parts
        if sizes is None:
            subs = {k: schema for k in env.schema_fields}
        else:
            def sized(key: str) -> Any:
                def f(v: Any, o: list) -> None:
                    mark = len(o)
                    schema(v, o)
                    sizes[key] = parts_length(o[mark:])
                return f

            subs = {k: sized(k) for k in env.schema_fields}
        try:
            if body is item:
                _dict_parts(item, subs, out)
            else:
                def inner(v: Any, o: list) -> None:
                    _dict_parts(v, subs, o)

                _dict_parts(item, {k: inner for k, v in item.items() if v is body}, out)
        except (TypeError, ValueError, orjson.JSONEncodeError):
            if sizes is not None:
                sizes.clear()
            return [canonical.dumps(item)]
        # each run of plain bytes joined: the parts alternate
        joined: list[bytes | Shared | Group] = []
        run: list[bytes] = []
        for p in out:
            if p.__class__ is not bytes:
                if run:
                    joined.append(b"".join(run))
                    run = []
                joined.append(p)
            else:
                run.append(p)
        if run:
            joined.append(b"".join(run))
        return joined

    def text(self, item: Any) -> bytes:
        """``canonical.dumps(item)``, each definitions entry serialized once per object."""
        return parts_text(self.parts(item))

    def _defs_key(self, schema: Any) -> str | None:
        """:func:`defs_of`, at once for a map met before (Stripe: 150,955 entries in the
        maps of 467 output schemas, 137 maps)."""
        if schema.__class__ is dict:
            for key in ("$defs", "definitions"):
                d = schema.get(key)
                if d.__class__ is dict:
                    got = self.maps.get(id(d))
                    if got is not None and got[0] is d:
                        return key
                    break
        return defs_of(schema)

    def _schema_parts(self, schema: Any, out: list) -> None:
        key = self._defs_key(schema)
        if key is None:
            out.append(canonical.dumps(schema))
        else:
            _dict_parts(schema, {key: self._defs_parts}, out)

    def _defs_parts(self, entries: dict, out: list) -> None:
        got = self.maps.get(id(entries))
        if got is None or got[0] is not entries:
            memo = self.entries
            names, values = [], []
            for name, e in entries.items():
                if name.__class__ is not str:
                    raise TypeError("a key that is not a string")
                one = memo.get(id(e))
                if one is None or one[0] is not e:
                    # (held: its id stays its own)
                    one = memo[id(e)] = (e, Shared(canonical.dumps(e)))
                names.append(orjson.dumps(name))
                values.append(one[1])
            got = self.maps[id(entries)] = (entries, Group(names, values))
        out.append(got[1])


#: the length of the text of parts (:func:`toolcat.tokens.parts_length`)
size = parts_length


def add_item(view: Any, parts: list) -> None:
    """Add an item's parts to ``view``, the :class:`toolcat.tokens.Tally` of a JSON array
    whose ``[`` was added: a ``,`` first unless it is the first item."""
    if view.size > 1:
        view.add(b",")
    view.add_parts(parts)
