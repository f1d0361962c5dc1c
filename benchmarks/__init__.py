"""Benchmarks of the engine and the app; run each from the repository root as ``python -m benchmarks.<name>``."""
