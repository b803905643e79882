"""nvcc runs cached by content: the same sources, command and compiler give the same report.

A compile check of one bundle costs about a minute of nvcc per architecture (the front end
parses torch's headers), and the tests, the benchmarks and a user's reruns compile the same
bundle again and again. A successful run's output (ptxas's report, the diagnostics) and the
files it kept (PTX, cubin) are stored under ``$SOLBENCH_CACHE/nvcc/<digest>`` (default
``~/.cache/solbench``), keyed by the nvcc binary and its version, the command line with the
temporary directory written as ``<tmp>``, and every staged source byte. A failed run is never
cached. ``SOLBENCH_NO_NVCC_CACHE=1`` runs nvcc every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@dataclass
class Run:
    returncode: int
    output: str  # stdout + stderr
    cached: bool


def cache_dir() -> Path:
    env = os.environ.get("SOLBENCH_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "solbench") / "nvcc"


@lru_cache(maxsize=None)
def _identity(nvcc: str) -> str:
    path = shutil.which(nvcc) or nvcc
    done = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return f"{os.path.realpath(path)}\n{done.stdout}"


def digest(cmd: list[str], tmp: Path, staging: Path) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([_identity(cmd[0]), [a.replace(str(tmp), "<tmp>") for a in cmd[1:]]])
             .encode())
    for path in sorted(p for p in staging.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(staging)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def run(cmd: list[str], tmp: Path, staging: Path, keep: Path | None) -> Run:
    """Run nvcc in tmp (or replay a cached run); files it keeps land in keep."""
    if os.environ.get("SOLBENCH_NO_NVCC_CACHE"):
        return _run(cmd, tmp)
    entry = cache_dir() / digest(cmd, tmp, staging)
    if (entry / "output.txt").exists():
        if keep is not None and (entry / "kept").is_dir():
            shutil.copytree(entry / "kept", keep, dirs_exist_ok=True)
        return Run(0, (entry / "output.txt").read_text(encoding="utf-8"), cached=True)
    result = _run(cmd, tmp)
    if result.returncode == 0:
        _store(entry, result.output, keep)
    return result


def _run(cmd: list[str], tmp: Path) -> Run:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    return Run(proc.returncode, proc.stdout + proc.stderr, cached=False)


def _store(entry: Path, output: str, keep: Path | None) -> None:
    """Write the entry beside its final place, then rename: readers see all of it or none."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=entry.parent, prefix=".tmp-"))
    if keep is not None:
        shutil.copytree(keep, staged / "kept")
    (staged / "output.txt").write_text(output, encoding="utf-8")
    try:
        os.rename(staged, entry)
    except OSError:  # another process stored the same run first
        shutil.rmtree(staged, ignore_errors=True)
