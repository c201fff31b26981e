"""Comparing catalogs.

* :mod:`.toolids`  the toolId sets of two catalogs or of two views (``toolcat diff-toolids``)
"""
