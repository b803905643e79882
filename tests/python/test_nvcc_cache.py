"""solbench.nvcc_cache: a successful nvcc run is replayed for the same command and sources,
with the files it kept; anything else runs nvcc again. A fake nvcc counts its runs."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from solbench import nvcc_cache


@pytest.fixture
def fake_nvcc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOLBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SOLBENCH_NO_NVCC_CACHE", raising=False)
    script = tmp_path / "nvcc"
    script.write_text(
        "#!/bin/sh\n"
        f'echo run >> "{tmp_path}/runs"\n'
        'if [ "$1" = --version ]; then echo "fake nvcc 1.0"; exit 0; fi\n'
        'mkdir -p "$1" && echo ptx > "$1/k.ptx"\n'
        'echo "ptxas info    : Used 10 registers" >&2\n'
        f'exit "$(cat "{tmp_path}/rc" 2>/dev/null || echo 0)"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def _runs(tmp_path: Path) -> int:
    lines = (tmp_path / "runs").read_text().splitlines()
    return len(lines) - 1  # one --version, asked once per process


def _setup(tmp_path: Path, name: str, source: str) -> tuple[Path, Path, Path]:
    work = tmp_path / name
    staging = work / "staging"
    staging.mkdir(parents=True)
    (staging / "kernel.cu").write_text(source)
    return work, staging, work / "keep"


def test_a_successful_run_is_replayed_with_its_kept_files(fake_nvcc: Path, tmp_path: Path) -> None:
    work, staging, keep = _setup(tmp_path, "a", "__global__ void k() {}\n")
    first = nvcc_cache.run([str(fake_nvcc), str(keep)], work, staging, keep)
    assert (first.returncode, first.cached) == (0, False)
    # Another temporary directory, the same sources and command: replayed, files and all.
    work2, staging2, keep2 = _setup(tmp_path, "b", "__global__ void k() {}\n")
    second = nvcc_cache.run([str(fake_nvcc), str(keep2)], work2, staging2, keep2)
    assert (second.returncode, second.cached, second.output) == (0, True, first.output)
    assert (keep2 / "k.ptx").read_text() == "ptx\n"
    assert _runs(tmp_path) == 1


def test_other_sources_or_a_failure_run_nvcc_again(fake_nvcc: Path, tmp_path: Path) -> None:
    work, staging, keep = _setup(tmp_path, "a", "__global__ void k() {}\n")
    nvcc_cache.run([str(fake_nvcc), str(keep)], work, staging, keep)
    work2, staging2, keep2 = _setup(tmp_path, "b", "__global__ void k2() {}\n")
    assert not nvcc_cache.run([str(fake_nvcc), str(keep2)], work2, staging2, keep2).cached
    (tmp_path / "rc").write_text("1")
    work3, staging3, keep3 = _setup(tmp_path, "c", "broken\n")
    assert nvcc_cache.run([str(fake_nvcc), str(keep3)], work3, staging3, keep3).returncode == 1
    assert nvcc_cache.run([str(fake_nvcc), str(keep3)], work3, staging3, keep3).returncode == 1
    assert _runs(tmp_path) == 4  # a, b, and the failing c twice: failures are never cached


def test_the_cache_can_be_turned_off(fake_nvcc: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLBENCH_NO_NVCC_CACHE", "1")
    work, staging, keep = _setup(tmp_path, "a", "x\n")
    nvcc_cache.run([str(fake_nvcc), str(keep)], work, staging, keep)
    assert not nvcc_cache.run([str(fake_nvcc), str(keep)], work, staging, keep).cached
