"""Shared fixtures for the Python tests: the repo on sys.path, the handwritten bundles."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
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


def solgen(*args: str, timeout: float = 60) -> "subprocess.CompletedProcess[str]":
    """The native solgen: $SOLGEN, else the one on PATH, else build/solgen."""
    exe = os.environ.get("SOLGEN") or shutil.which("solgen") or str(REPO / "build" / "solgen")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)


def built_solgen() -> Path | None:
    """$SOLBENCH_SOLGEN, else the newest build*/solgen of this checkout (None: not built)."""
    env = os.environ.get("SOLBENCH_SOLGEN")
    if env and Path(env).is_file():
        return Path(env)
    found = sorted(REPO.glob("build*/solgen"), key=lambda p: p.stat().st_mtime, reverse=True)
    return found[0] if found else None


def cpu_check(bundle: Path, *extra: str, workloads: int = 2, seeds: int = 0) -> dict:
    """`solgen check BUNDLE --device cpu` on the smallest workloads; its JSON summary.

    Fails the calling test unless the check exits OK. No re-runs from further seeds unless
    asked (they multiply a check's time; test_harness_rules and test_borderline test them)."""
    from solbench.exit_codes import Exit

    p = subprocess.run([sys.executable, "-m", "solbench", "check", str(bundle), *extra,
                        "--device", "cpu", "--workloads", str(workloads), "--no-timing", "--json",
                        "--seeds", str(seeds)],
                       capture_output=True, text=True, cwd=REPO, timeout=1800)
    assert p.returncode == Exit.OK, p.stdout[-2000:] + p.stderr[-2000:]
    return json.loads(p.stdout)
