"""OpenAPI 3.x and Swagger 2.0: one tool per operation.

* :mod:`.loader`  the documents into tools (:func:`load_openapi`)
* :mod:`.refs`    ``$ref`` resolution across the document and files next to it; bundling
* :mod:`.schema`  OpenAPI 3.0 / Swagger 2.0 Schema Objects to JSON Schema 2020-12
"""

from toolcat.formats.openapi.loader import load_openapi

__all__ = ["load_openapi"]
