"""Comparing catalogs.

* :mod:`.toolids`  the toolId sets of two catalogs or of two views (``toolcat diff-toolids``)
* :mod:`.catalog`  what changed between two catalog versions, and whether it breaks callers
                   (``toolcat diff``)
* :mod:`.render`   its reports: text, json, markdown, github
"""

#: the check budgets of `toolcat diff` (jsonschema steps: validations and references followed;
#: see toolcat.schema.validate.Budget): per tool pair, and for the whole diff. The largest
#: real pair measured (discord's OpenAPI, two versions) spends 1,698 steps on one tool and
#: 43,183 in all.
MAX_CHECKS = 20_000
MAX_CHECKS_TOTAL = 500_000
