"""Comparing catalogs.

* :mod:`.toolids`  the toolId sets of two catalogs or of two views (``toolcat diff-toolids``)
* :mod:`.catalog`  what changed between two catalog versions, and whether it breaks callers
                   (``toolcat diff``)
* :mod:`.render`   its reports: text, json, markdown, github
"""
