"""solgen writes a bundle atomically: all of it or nothing, never through a symlink.

The target directory is either left as it was or replaced whole: an existing non-empty
directory needs --force, a run killed at any moment leaves the old bundle or the new one
(never a mix), and a symlink at the target is refused rather than followed.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from solbench.exit_codes import Exit

REPO = Path(__file__).resolve().parents[2]
RMSNORM = REPO / "examples" / "rmsnorm.lg"
BUNDLE_FILES = {"definition.json", "kernel.cu", "reference.py", "solution.json", "workload.jsonl"}


@pytest.fixture(scope="module")
def solgen() -> str:
    exe = os.environ.get("SOLGEN") or shutil.which("solgen")
    if exe is None:
        pytest.skip("no solgen binary: set SOLGEN or put the build directory on PATH")
    return exe


def generate(solgen: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([solgen, str(RMSNORM), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=60)


def snapshot(d: Path) -> dict[str, bytes]:
    """Every file under d by relative path (symlinks recorded, never followed)."""
    out: dict[str, bytes] = {}
    for root, dirs, files in os.walk(d):
        for name in files + [x for x in dirs if (Path(root) / x).is_symlink()]:
            p = Path(root) / name
            rel = str(p.relative_to(d))
            out[rel] = b"->" + os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
    return out


def strays(parent: Path, target: str) -> list[str]:
    """Entries beside the target other than the target itself."""
    return sorted(p.name for p in parent.iterdir() if p.name != target)


@pytest.fixture(scope="module")
def bundles(solgen: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    """Reference snapshots of the bundle under two solution names."""
    d = tmp_path_factory.mktemp("ref")
    snaps = {}
    for name in ("old_solgen", "new_solgen"):
        r = generate(solgen, d / name, "--name", name)
        assert r.returncode == 0, r.stderr
        snaps[name] = snapshot(d / name)
        assert set(snaps[name]) == BUNDLE_FILES
    assert snaps["old_solgen"] != snaps["new_solgen"]
    return snaps


def test_fresh_and_empty_targets_are_written(solgen: str, tmp_path: Path) -> None:
    assert generate(solgen, tmp_path / "fresh").returncode == 0
    (tmp_path / "empty").mkdir()
    assert generate(solgen, tmp_path / "empty").returncode == 0
    for d in ("fresh", "empty"):
        assert set(snapshot(tmp_path / d)) == BUNDLE_FILES
    assert strays(tmp_path, "") == ["empty", "fresh"]


def test_non_empty_target_needs_force(solgen: str, tmp_path: Path) -> None:
    target = tmp_path / "b"
    target.mkdir()
    (target / "notes.txt").write_text("mine\n")
    r = generate(solgen, target)
    assert r.returncode == Exit.REJECTED, r.stderr
    assert str(target) in r.stderr and "--force" in r.stderr
    assert snapshot(target) == {"notes.txt": b"mine\n"}
    assert strays(tmp_path, "b") == []


def test_force_replaces_the_directory_whole(solgen: str, tmp_path: Path,
                                            bundles: dict[str, dict[str, bytes]]) -> None:
    target = tmp_path / "b"
    (target / "sub").mkdir(parents=True)
    (target / "notes.txt").write_text("stale\n")
    (target / "sub" / "x.cu").write_text("stale\n")
    r = generate(solgen, target, "--force", "--name", "new_solgen")
    assert r.returncode == 0, r.stderr
    assert snapshot(target) == bundles["new_solgen"]
    assert strays(tmp_path, "b") == []


def test_existing_file_is_not_replaced(solgen: str, tmp_path: Path) -> None:
    target = tmp_path / "b"
    target.write_text("a file\n")
    for extra in ((), ("--force",)):
        r = generate(solgen, target, *extra)
        assert r.returncode == Exit.REJECTED, r.stderr
        assert target.read_text() == "a file\n"
    assert strays(tmp_path, "b") == []


@pytest.mark.parametrize("outside_state", ["empty", "non_empty", "dangling"])
@pytest.mark.parametrize("force", [False, True])
def test_symlinked_target_is_not_followed(solgen: str, tmp_path: Path, outside_state: str,
                                          force: bool) -> None:
    outside = tmp_path / "outside"
    if outside_state != "dangling":
        outside.mkdir()
    if outside_state == "non_empty":
        (outside / "precious.txt").write_text("keep\n")
    before = snapshot(outside) if outside.exists() else None
    work = tmp_path / "work"
    work.mkdir()
    (work / "b").symlink_to(outside, target_is_directory=True)
    r = generate(solgen, work / "b", *(["--force"] if force else []))
    assert r.returncode != 0, "solgen wrote through a symlink"
    assert "symbolic link" in r.stderr
    assert (work / "b").is_symlink()
    assert (snapshot(outside) if outside.exists() else None) == before
    assert strays(work, "b") == []


def test_force_does_not_follow_symlinks_inside_the_old_bundle(
        solgen: str, tmp_path: Path, bundles: dict[str, dict[str, bytes]]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep\n")
    target = tmp_path / "work" / "b"
    target.mkdir(parents=True)
    (target / "solution.json").symlink_to(outside / "precious.txt")
    (target / "sub").symlink_to(outside, target_is_directory=True)
    r = generate(solgen, target, "--force", "--name", "new_solgen")
    assert r.returncode == 0, r.stderr
    assert snapshot(target) == bundles["new_solgen"]
    assert snapshot(outside) == {"precious.txt": b"keep\n"}


def _classify(state: dict[str, bytes] | None, old: dict[str, bytes]) -> str:
    if state is None:
        return "missing"
    if state == old:
        return "old"
    if set(state) == BUNDLE_FILES and b'"new_solgen"' in state["solution.json"]:
        return "new"
    return "mixed"


def _interrupt_runs(solgen: str, root: Path, old: dict[str, bytes], sig: int,
                    runs: int) -> tuple[dict[str, int], list[str]]:
    """Kills `solgen --force` at random moments; returns outcome counts and stray names."""
    target = root / "b"
    counts = {"old": 0, "new": 0, "missing": 0}
    seen_strays: set[str] = set()
    rng = random.Random(sig)
    start = time.monotonic()
    assert generate(solgen, target, "--name", "new_solgen").returncode == 0
    full = time.monotonic() - start  # how long one run takes on this machine
    for _ in range(runs):
        if target.exists():
            shutil.rmtree(target)
        assert generate(solgen, target, "--name", "old_solgen").returncode == 0
        p = subprocess.Popen([solgen, str(RMSNORM), "--out", str(target), "--force", "--name",
                              "new_solgen"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, full * 1.2))
        p.send_signal(sig)
        p.wait(timeout=30)
        state = snapshot(target) if target.exists() else None
        kind = _classify(state, old)
        assert kind != "mixed", f"after signal {sig}: target holds a mix: {sorted(state or {})}"
        counts[kind] += 1
        seen_strays.update(strays(root, "b"))
    return counts, sorted(seen_strays)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_interrupted_run_leaves_old_or_new(solgen: str, tmp_path: Path, sig: int,
                                           bundles: dict[str, dict[str, bytes]]) -> None:
    runs = 25
    counts, seen = _interrupt_runs(solgen, tmp_path, bundles["old_solgen"], sig, runs)
    assert sum(counts.values()) == runs
    unexpected = [s for s in seen if not (s.startswith(".b.tmp-") or s.startswith(".b.old-"))]
    assert unexpected == [], f"unexplained entries beside the target: {unexpected}"
    # The swap is one renameat2(RENAME_EXCHANGE): never no target at all.
    assert counts["missing"] == 0, counts
    if sig != signal.SIGKILL:
        # Catchable signals wait until the bundle is written: nothing is left beside it.
        assert seen == [], f"{sig!r} left {seen}"
    # What a SIGKILL leaves, the next run for the same target removes.
    assert generate(solgen, tmp_path / "b", "--force").returncode == 0
    assert strays(tmp_path, "b") == []


def test_next_run_is_not_confused_by_a_stale_temp_dir(solgen: str, tmp_path: Path,
                                                      bundles: dict[str, dict[str, bytes]]) -> None:
    """A temp dir left by a killed run (same naming) does not break or leak into the next."""
    stale = tmp_path / ".b.tmp-ABCDEF"
    stale.mkdir()
    (stale / "kernel.cu").write_text("half written\n")
    r = generate(solgen, tmp_path / "b", "--name", "new_solgen")
    assert r.returncode == 0, r.stderr
    assert snapshot(tmp_path / "b") == bundles["new_solgen"]
