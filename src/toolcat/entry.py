"""``toolcat.project(...)``, ``toolcat.lint(...)``, ``toolcat.measure(...)``: the API functions
share their names with the feature packages. Importing a submodule makes it an attribute of
its parent package, so once ``toolcat.project`` (the package) is imported, ``toolcat.project``
is that package. :func:`callable_package` makes such a package callable as the API function
of the same name, so ``toolcat.project(cat)`` works before and after the import alike.
"""

from __future__ import annotations

import types


class CallablePackage(types.ModuleType):
    """A feature package that calls ``toolcat.api.<its name>`` when called."""

    def __call__(self, *args, **kwargs):
        import importlib

        # looked up when called (the API module sits above the features)
        api = importlib.import_module("toolcat.api")
        return getattr(api, self.__name__.rsplit(".", 1)[-1])(*args, **kwargs)


def callable_package(name: str) -> None:
    """Make the (already imported) package ``name`` a :class:`CallablePackage`."""
    import sys

    sys.modules[name].__class__ = CallablePackage
