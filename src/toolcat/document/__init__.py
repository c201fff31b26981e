"""Text in, data and positions out: the layer that knows files, bytes and JSON values.

* :mod:`.parse`      read and parse a file (JSON, YAML) into plain JSON data, safely
* :mod:`.source`     :class:`~.source.SourceText`, a parsed file's text (positions on demand)
* :mod:`.positions`  line and column of a JSON pointer in a JSON or YAML text
* :mod:`.pointer`    JSON Pointer (RFC 6901)
* :mod:`.canonical`  canonical wire bytes (JavaScript ``JSON.stringify``)

Nothing here knows JSON Schema, a catalog format or a command.
"""
