"""Shared fixtures for the Python tests: the repo on sys.path, the handwritten bundles."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BUNDLES = Path(__file__).resolve().parent / "bundles"


@pytest.fixture
def bundles_dir() -> Path:
    return BUNDLES


@pytest.fixture
def scale_bundle() -> Path:
    return BUNDLES / "scale"


def cuda_host_missing_reason() -> str | None:
    """Why the CPU execution layer cannot be used (None when it can)."""
    try:
        import solbench.cuda_host as ch
    except Exception as e:  # noqa: BLE001 - any import failure means not ready
        return f"solbench.cuda_host is not importable yet ({type(e).__name__}: {e})"
    if not hasattr(ch, "load_cpu_extension"):
        return "solbench.cuda_host has no load_cpu_extension yet"
    return None
