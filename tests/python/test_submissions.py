"""submissions/ holds exactly what solgen generates for examples/: regenerating
every bundle gives byte-identical files, and two runs agree with each other."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.lg"))


def solgen() -> str:
    exe = os.environ.get("SOLGEN") or shutil.which("solgen") or str(ROOT / "build" / "solgen")
    if not Path(exe).exists() and not shutil.which(exe):
        pytest.fail("solgen not built: run scripts/build (scripts/test puts build/ on PATH)")
    return exe


def files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def generate(op: Path, out: Path) -> None:
    subprocess.run([solgen(), str(op), "--out", str(out)], check=True, capture_output=True)


@pytest.mark.parametrize("op", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_checked_in_bundle_matches_regeneration(op: Path, tmp_path: Path) -> None:
    checked_in = ROOT / "submissions" / op.stem
    assert checked_in.is_dir(), f"submissions/{op.stem} is missing: run scripts/regen-submissions"
    generate(op, tmp_path / "b")
    want, got = files(checked_in), files(tmp_path / "b")
    assert sorted(want) == sorted(got)
    for name in want:
        assert want[name] == got[name], f"submissions/{op.stem}/{name} differs from a fresh generation"


def test_two_runs_are_byte_identical(tmp_path: Path) -> None:
    for op in EXAMPLES:
        generate(op, tmp_path / f"{op.stem}_1")
        generate(op, tmp_path / f"{op.stem}_2")
        assert files(tmp_path / f"{op.stem}_1") == files(tmp_path / f"{op.stem}_2"), op.name


def test_every_example_has_a_bundle() -> None:
    bundles = {p.name for p in (ROOT / "submissions").iterdir() if p.is_dir()}
    assert bundles == {p.stem for p in EXAMPLES}
