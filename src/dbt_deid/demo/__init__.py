"""Seeded synthetic data generators for demos, tests and benchmarks."""
