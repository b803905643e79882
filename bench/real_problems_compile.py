"""nvcc's view of every passing real problem: bind each `tests/problems/real/` op to its
definition, build the bundle as the harness does (`solgen compile --device-only`: sm_100a
and sm_90, `-O3 --use_fast_math`) and print a markdown table of kernels, the most
registers per arch, and spilled bytes. No GPU is needed; the figures are ptxas's.

    python3 bench/real_problems_compile.py [NAME ...]    # default: every 'pass' problem
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "problems" / "real"
ARCHS = ("sm_100a", "sm_90")


def solgen() -> str:
    built = sorted(ROOT.glob("build*/solgen"), key=lambda p: p.stat().st_mtime, reverse=True)
    return str(built[0]) if built else "solgen"


def compile_one(name: str, work: Path) -> dict:
    problem, bundle = REAL / name, work / name
    subprocess.run([solgen(), str(problem / "op.lg"), "--definition",
                    str(problem / "definition.json"), "--out", str(bundle)],
                   check=True, capture_output=True, text=True)
    p = subprocess.run([sys.executable, "-m", "solbench.compile_check", str(bundle),
                        "--device-only", "--json"], capture_output=True, text=True, cwd=ROOT)
    report = json.loads(p.stdout)
    kernels = [k for s in report["sources"] for k in s["kernels"]]
    return {
        "name": name,
        "ok": report["ok"],
        "problems": report["problems"],
        "per_arch": {a: sum(k["arch"] == a for k in kernels) for a in ARCHS},
        "registers": {a: max((k["registers"] for k in kernels if k["arch"] == a), default=0)
                      for a in ARCHS},
        "spilled": {a: sum(k["spill_stores"] + k["spill_loads"] for k in kernels
                           if k["arch"] == a) for a in ARCHS},
    }


def main(argv: list[str]) -> int:
    manifest = json.loads((REAL / "manifest.json").read_text())["problems"]
    names = argv or sorted(n for n, e in manifest.items() if e["expect"] == "pass")
    print("| problem | kernels per arch | most registers (sm_100a / sm_90) "
          "| spilled bytes (sm_100a / sm_90) |")
    print("|---|---|---|---|")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            r = compile_one(name, Path(tmp))
            failed += not r["ok"]
            regs = " / ".join(str(r["registers"][a]) for a in ARCHS)
            spills = " / ".join(str(r["spilled"][a]) for a in ARCHS)
            print(f"| `{name}` | {r['per_arch']['sm_90']} | {regs} | {spills} |", flush=True)
            for line in r["problems"]:
                print(f"<!-- {name}: {line} -->", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
