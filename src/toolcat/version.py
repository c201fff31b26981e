"""toolcat's version (a module of its own: the lowest layer may need it, and ``toolcat``'s
``__init__`` imports the API)."""

__version__ = "0.1.0"
