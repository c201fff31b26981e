"""Catalog formats: one module per format reads it (and, for targets, writes its envelope).

* :mod:`.registry`   the formats, one record each (name, detection, reader, facts), in order
* :mod:`.load`       files, folders and stdin into catalogs (:func:`load_catalogs`)
* :mod:`.detect`     a catalog's format from its content (asks the records)
* :mod:`.mcp`, :mod:`.capture`, :mod:`.openwop`, :mod:`.openai`, :mod:`.anthropic`,
  :mod:`.docker`, :mod:`.gemini`
                     the tools-array formats (shared parts in :mod:`.arrays`), each with
                     its ``FORMATS`` record(s)
* :mod:`.openapi`    OpenAPI 3.x / Swagger 2.0 (a subpackage: loader, refs, schema conversion)
* :mod:`.targets`    the envelopes ``project`` writes: field order, ids, derived fields
"""

from toolcat.formats.load import (
    LoadOptions,
    load_catalogs,
    load_file_catalog,
    load_folder,
    merge_catalogs,
    raise_problems,
)

__all__ = ["LoadOptions", "load_catalogs", "load_file_catalog", "load_folder", "merge_catalogs",
           "raise_problems"]
