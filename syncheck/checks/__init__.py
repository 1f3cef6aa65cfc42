"""Checks, one module per rule; ``registry`` is the one place that lists them."""
