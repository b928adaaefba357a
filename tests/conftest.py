"""Shared fixtures: paths to the shared conformance cases and data (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture
def conformance_dir() -> Path:
    path = SHARED / "conformance"
    if not path.is_dir():
        pytest.skip(f"shared conformance cases not found at {path}")
    return path


@pytest.fixture
def adult_dir() -> Path:
    path = SHARED / "data" / "adult"
    if not (path / "adult.csv").exists():
        pytest.skip(f"shared Adult data not found at {path}")
    return path
