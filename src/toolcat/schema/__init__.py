"""All of toolcat's JSON Schema knowledge, importing no feature and no format.

* :mod:`.keywords`  the one keyword table (shapes, roles, dialects)
* :mod:`.walker`    schema positions: visit and rebuild schemas
* :mod:`.refs`      where every ``$ref`` of a schema points (the one reference index)
* :mod:`.merge`     the merge/union algebra used by exact rewrites
* :mod:`.strip`     prose removal from schema positions
* :mod:`.inclusion` where one schema rejects what another accepts (``toolcat diff``)
* :mod:`.examples`  small instances a schema accepts; instances with a value at a given place
* :mod:`.validate`  instance validation with ``jsonschema`` (never fetches a reference)
* :mod:`.lower`     lowering: strip prose, inline, lower combinators exactly (or widen), report
                   every change with its pointer (``project`` and ``diff`` use it)
* :mod:`.factor`    repeated identical subschemas into ``$defs`` + ``$ref`` where smaller
"""
