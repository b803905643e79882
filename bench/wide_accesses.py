"""What the 32-byte ladder changes on a B200, by the static model (solbench.perf_model): for
each bf16 bundle and row length, the variant each ladder launches from the same sm_100a build,
its instructions a thread, its issue time against its DRAM time at 16384 rows, and the share.

    PYTHONPATH=. python3 bench/wide_accesses.py [BUNDLE...]   # default: the bundles with a wide ladder
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from solbench.conformance.problem import load_definition
from solbench.load_parallelism import B200, bundle_figures, row_launches
from solbench.perf_model import estimate_at

ROOT = Path(__file__).resolve().parents[1]
ROWS = 16384


def main(argv: list[str]) -> int:
    bundles = [Path(a) for a in argv] or sorted(
        p.parent for p in (ROOT / "submissions").glob("*/kernel.cu")
        if any(l.wide for l in row_launches(p.read_text())))
    narrow_chip = dataclasses.replace(B200, wide_accesses=False)
    print("| bundle | cols | ladder | kernel variant | registers | instructions a thread | "
          "T_issue / T_dram | share at 16384 rows | bound |")
    print("|---|---|---|---|---|---|---|---|---|")
    for bundle in bundles:
        defn = load_definition(bundle / "definition.json")
        source = "".join(p.read_text() for p in sorted(bundle.glob("*.cu")))
        kernels = bundle_figures(bundle, B200)
        for cols in (4096, 7168):
            for name, chip in (("16-byte", narrow_chip), ("32-byte", B200)):
                e = estimate_at(kernels, defn, source, chip, ROWS, cols)
                if e is None:
                    continue
                print(f"| {bundle.name} | {cols} | {name} | {e.kernel.variant.describe()} | "
                      f"{e.kernel.registers} | {e.work.instructions:.0f} | "
                      f"{e.t_issue / e.t_dram:.2f} | {e.share:.3f} | {e.bound} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
