"""Benchmarks that print figures (not shipped with the package)."""
