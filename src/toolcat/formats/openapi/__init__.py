"""OpenAPI 3.x and Swagger 2.0: one tool per operation.

* :mod:`.loader`  the documents into tools (:func:`load_openapi`)
* :mod:`.refs`    ``$ref`` resolution across the document and files next to it; bundling
* :mod:`.schema`  OpenAPI 3.0 / Swagger 2.0 Schema Objects to JSON Schema 2020-12
"""

from __future__ import annotations

from typing import Any

from toolcat.formats.registry import Format


def _read(doc: Any, src: Any, path: str, opts: Any) -> Any:
    from toolcat.formats.openapi.loader import load_openapi

    return load_openapi(doc, src, path, opts)


def _misfit(key: str) -> Any:
    def why(doc: Any) -> str | None:
        if isinstance(doc, dict) and key in doc:
            return None
        from toolcat.formats.detect import detect
        from toolcat.formats.registry import get

        found = detect(doc)
        return f"the document has no {key!r} field" + (
            f" (it looks like {get(found).title})" if found else "")
    return why


#: OpenAPI 3.x and Swagger 2.0 documents (the loader is imported when one is read)
FORMATS = (
    Format("openapi", "OpenAPI 3.x", "OpenAPI 3.x", _read,
           claims=lambda d: isinstance(d, dict) and "openapi" in d
           and ("paths" in d or "webhooks" in d or "components" in d),
           misfit=_misfit("openapi"), id_pointer="/operationId", spec=True),
    Format("swagger", "Swagger 2.0", "Swagger 2.0", _read,
           claims=lambda d: isinstance(d, dict) and "swagger" in d and "paths" in d,
           misfit=_misfit("swagger"), id_pointer="/operationId", spec=True),
)

__all__ = ["FORMATS"]
