"""One module per command; each has ``register(app)`` and keeps heavy imports inside."""
