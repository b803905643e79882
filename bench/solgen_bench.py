#!/usr/bin/env python3
"""Times solgen's front and back half, end to end as a user runs it.

- `solgen explain` on a 200-line op (target: under 50 ms);
- parse-to-written-bundle (`solgen OP --out DIR`) for every accepted op of the
  shared corpus (target: under 20 ms each).

Each figure is the median of N runs of the real binary (process start
included). Writes a Markdown table to docs/bench-solgen.md.

    python3 bench/solgen_bench.py [--solgen build/solgen] [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpus"


def median_ms(cmd: list[str], runs: int, before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--solgen", default=str(ROOT / "build" / "solgen"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--out", default=str(ROOT / "docs" / "bench-solgen.md"))
    args = ap.parse_args()

    long_op = ROOT / "tests" / "ops" / "accept" / "long_exp_horner.lg"
    lines = len(long_op.read_text().splitlines())
    rows = [f"| `solgen explain` {long_op.name} ({lines} lines) | "
            f"{median_ms([args.solgen, 'explain', str(long_op)], args.runs):.1f} | 50 |"]
    manifest = json.loads((SHARED / "manifest.json").read_text())
    work = Path(tempfile.mkdtemp())
    for rel in sorted(manifest["accept"]):
        out = work / Path(rel).stem
        ms = median_ms([args.solgen, str(SHARED / rel), "--out", str(out)], args.runs,
                       before=lambda: shutil.rmtree(out, ignore_errors=True))
        rows.append(f"| `solgen {Path(rel).name} --out DIR` (parse to written bundle) | {ms:.1f} | 20 |")
    shutil.rmtree(work, ignore_errors=True)
    text = ("# solgen timings\n\nMeasured by `bench/solgen_bench.py`: median of "
            f"{args.runs} runs of the real binary, process start included, on this project's "
            "2-core CI-class machine (Release build).\n\n"
            "| what | median ms | target ms |\n|---|---|---|\n" + "\n".join(rows) + "\n")
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
