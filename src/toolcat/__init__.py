"""toolcat: lint, project and measure LLM tool catalogs."""

__version__ = "0.1.0"
