"""Two builds of the same bundles side by side, by the static model (solbench.perf_model): for
each bundle, chip (H200: sm_90, B200: sm_100a) and row length, the variant the host launches,
its registers, instructions a thread, packed FP32 instructions (sm_100's FFMA2/FMUL2/FADD2),
MUFU a thread, issue time against DRAM time at 16384 rows and the share: "old → new" where
they differ, one figure where they do not.

    git archive <rev> submissions | tar -x -C /tmp/before
    PYTHONPATH=. python3 bench/compare_bundles.py /tmp/before/submissions submissions [BUNDLE...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from solbench.conformance.problem import load_definition
from solbench.load_parallelism import B200, H200, bundle_figures
from solbench.perf_model import estimate_at

ROWS = 16384


def rows_of(bundle: Path, chip) -> dict[int, tuple]:
    defn = load_definition(bundle / "definition.json")
    source = "".join(p.read_text() for p in sorted(bundle.glob("*.cu")))
    kernels = bundle_figures(bundle, chip)
    out = {}
    for cols in (4096, 7168):
        if (e := estimate_at(kernels, defn, source, chip, ROWS, cols)) is not None:
            out[cols] = e
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = Path(argv[0]), Path(argv[1])
    names = argv[2:] or sorted(p.parent.name for p in after.glob("*/kernel.cu"))
    print("| bundle | chip | cols | kernel variant | registers | instructions a thread | "
          "packed FP32 | MUFU | T_issue / T_dram | share at 16384 rows | bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        for chip in (H200, B200):
            old, new = rows_of(before / name, chip), rows_of(after / name, chip)
            for cols in sorted(new):
                a, b = old.get(cols), new[cols]

                def pair(f, fmt="{:.0f}"):
                    new_figure = fmt.format(f(b))
                    old_figure = fmt.format(f(a)) if a else new_figure
                    return new_figure if old_figure == new_figure else f"{old_figure} → {new_figure}"

                print(f"| {name} | {chip.name} | {cols} | {b.kernel.variant.describe()} | "
                      f"{pair(lambda e: e.kernel.registers)} | "
                      f"{pair(lambda e: e.work.instructions)} | "
                      f"{pair(lambda e: e.kernel.packed_fp32)} | "
                      f"{pair(lambda e: e.kernel.mufu)} | "
                      f"{pair(lambda e: e.t_issue / e.t_dram, '{:.2f}')} | "
                      f"{pair(lambda e: e.share, '{:.3f}')} | {b.bound} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
