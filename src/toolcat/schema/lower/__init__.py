"""Strip prose and lower a schema to the RFC 0112 compact subset, reporting every change.

:func:`lower_schema` is the one entry point (:mod:`.pipeline`). The parts, one concern each:

* :mod:`.changes`  the change kinds (``exact``, ``widened``, ...), :class:`Change` (a JSON
  pointer into the original schema, a kind, what) and :class:`SchemaResult`;
* :mod:`.plan`     the reference plan: which ``$ref`` is inlined, kept or dropped, which
  definitions are used, which paths are pinned (:class:`~.plan.RefPlan`);
* :mod:`.rewrite`  the rewrite pass (:class:`~.rewrite.Lowerer`): one bottom-up walk that
  strips prose, inlines, lowers combinators exactly, widens (widen mode) and removes no-ops;
* :mod:`.cache`    what the schemas of one run share (:class:`LowerCache`): lowered ``$ref``
  targets recorded once and replayed, and :func:`content_key` for memos by content;
* :mod:`.noops`    validation no-ops (:func:`noop_keywords`);
* :mod:`.fixes`    exact rewrites of values some reader refuses (:func:`fix_data`);
* :mod:`.subset`   the compact subset's violations, the input schema's top-level floor, the
  ``--unlowerable`` policy;
* :mod:`.neutral`  whether a schema means the same under draft-07 and 2020-12
  (:func:`dialect_neutral`: its ``$schema`` may then go);
* :mod:`.pipeline` :func:`lower_schema`: the pass, then the report, the ``$schema``, factoring
  (:mod:`toolcat.schema.factor`, exact mode without the subset), the floor and the policy.

Every change is a :class:`Change` with a JSON pointer into the original schema and a kind:
``exact`` (accepts the same instances), ``widened`` (accepts a superset), ``omitted``,
``kept``, ``narrowed``, ``changed`` and (a tool's output schema in a target that wants an
object there, :mod:`toolcat.features.project.roots`) ``wrapped``.
"""

from __future__ import annotations

from toolcat.schema.lower.cache import LowerCache, content_key
from toolcat.schema.lower.changes import (
    CHANGED,
    EXACT,
    KEPT,
    KINDS,
    NARROWED,
    OMITTED,
    WIDENED,
    WRAPPED,
    Change,
    Kind,
    SchemaResult,
)
from toolcat.schema.lower.fixes import fix_data
from toolcat.schema.lower.neutral import dialect_neutral
from toolcat.schema.lower.noops import NOOP_LABELS, noop_keywords
from toolcat.schema.lower.pipeline import lower_schema
from toolcat.schema.lower.subset import (
    root_referenced,
    schema_text,
    subset_violations,
    text_count,
    text_memo,
    with_object_type,
)

__all__ = [
    "CHANGED", "EXACT", "KEPT", "KINDS", "NARROWED", "NOOP_LABELS", "OMITTED", "WIDENED",
    "WRAPPED", "Change", "Kind", "LowerCache", "SchemaResult", "content_key", "dialect_neutral",
    "fix_data", "lower_schema", "noop_keywords", "root_referenced", "schema_text",
    "subset_violations", "text_count", "text_memo", "with_object_type",
]
